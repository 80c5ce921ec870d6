"""What a move is worth: the normal level's judgement, compiled. It is also the hard level's
rollout policy, for both seats.

`score_moves` scores every legal move of the classic 2-player game in rough hand points, from
what the mover knows: what it takes (`card_values`) and the expected best reply the table it
leaves allows the opponent (`reply_threat`, from the chance that the unseen cards give it each
rank). `score_any` is the same judgement under any rules. It reads every option from the header
slots of a core state (Rules.to_header) and plays the captures through core.legal_moves, so a
variant exists only in the engine. Seat p's side pools its partner's pile, and the reply feared
is that of the next seat (always an opponent: partners sit opposite). Rules come from core.py
but for one copy kept for speed: reply_threat's enumeration of the classic captures, which a
test holds equal to core.legal_moves's (reply_threat_moves) on tables of every size. The worlds
and the search that use this are in agents/_rollout.py.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from scopa_env import core
from scopa_env.core import (DECK_POS, HANDS, LAST_CAPTURER, PILES, PRIM_BY_RANK, PRIM_OF_SUIT, RANK,
                            TABLE, TO_MOVE, legal_moves, napola_points, popcount)


# ---- the normal level's move scoring (also the rollout policy) ---------------------------
# weights in rough hand points, one array so that tuning needs no recompilation:
# [carte per card, denari per card, settebello, scopa, keep, primiera of rank 1..10 at 5..14,
#  weight of the opponent's expected reply at 15]
I_CARD, I_DENARO, I_SETTEBELLO, I_SCOPA, I_KEEP, I_PRIMIERA, I_REPLY = 0, 1, 2, 3, 4, 4, 15
WEIGHTS = np.array([
    0.09,    # carte: 21 of 40 cards win one point
    0.25,    # denari: 6 of 10 win one point
    1.0,     # the settebello is a point of its own
    1.0,     # a scopa
    0.0,     # laying a card gives up the chance to take with it later (x its value)
    0.08, 0.02, 0.02, 0.03, 0.04, 0.12, 0.25, 0.0, 0.0, 0.0,   # primiera by rank 1..10
    1.6,     # how much the opponent's expected best reply counts against a move (measured
             # against easy: 1.6 beat 1.0, 1.3, 2.0 and 2.5)
])
MAX_TABLE_ENUM = 12    # the threat enumerates the subsets of a table of at most this many cards
SCRATCH = 2 * (1 << MAX_TABLE_ENUM) + 128

DENARI = (1 << 10) - 1


def new_scratch() -> np.ndarray:
    return np.zeros(SCRATCH, dtype=np.float64)


# the napola (1D 2D 3D, then the denari in unbroken sequence): cards that complete or extend a
# side's napola are worth the points they add at once; towards one that is still open (no other
# side holds any of the three) the first of the three in a side's pile is worth NAPOLA_CARD and
# the second NAPOLA_HALF
NAPOLA_CARD = 0.3
NAPOLA_HALF = 1.0
NAPOLA_PROGRESS = np.array([0.0, NAPOLA_CARD, NAPOLA_CARD + NAPOLA_HALF, 0.0])


@njit(cache=True)
def napola_gain(taken, pile, others, cap=10):
    """What the cards `taken` add, through the napola, to the side holding `pile` if it takes
    them (`others`: every other side's pile; `cap`: the napola's most points, Rules.napola_max)."""
    if (others & 7) != 0 or (taken & DENARI) == 0:
        return 0.0                      # some other side holds the ace, two or three of denari
    gain = napola_points(pile | taken, cap) - napola_points(pile, cap)
    if gain > 0:
        return float(gain)
    return NAPOLA_PROGRESS[popcount((pile | taken) & 7)] - NAPOLA_PROGRESS[popcount(pile & 7)]


# cirulla's grande (8D 9D 10D in one pile: 5 points, Rules.grande), valued as the napola is:
# the card that completes it is worth the 5 points; towards one still open (no other side holds
# any of the three) the first in a side's pile is worth GRANDE_PROGRESS[1], the second
# GRANDE_PROGRESS[2] - GRANDE_PROGRESS[1] (the napola's figures scaled by 5/3, its least points
# being 3); cards of it taken together: set_joint
GRANDE_POINTS = 5.0
GRANDE_PROGRESS = NAPOLA_PROGRESS * (GRANDE_POINTS / 3.0)


@njit(cache=True)
def grande_gain(taken, pile, others):
    """What the cards `taken` add, through the grande, to the side holding `pile` if it takes
    them (`others`: every other side's pile)."""
    g = core.GRANDE_MASK
    if (others & g) != 0 or (taken & g) == 0 or (pile & g) == g:
        return 0.0
    if ((pile | taken) & g) == g:
        return GRANDE_POINTS
    return GRANDE_PROGRESS[popcount((pile | taken) & g)] - GRANDE_PROGRESS[popcount(pile & g)]


@njit(cache=True, inline="always")
def napola_cap(state):
    """The napola's most points under the state's rules (Rules.napola_max; 0 in the slot: 10)."""
    return 10 if state[core.NAPOLA_CAP] == 0 else state[core.NAPOLA_CAP]


@njit(cache=True, inline="always")
def _set_gain(grande, taken, pile, others, cap):
    return grande_gain(taken, pile, others) if grande else napola_gain(taken, pile, others, cap)


@njit(cache=True, inline="always")
def _most_gain(grande, taken, piles, sides, every, cap):
    """The most the cards `taken` add to any side's napola (grande: grande); every: all piles."""
    best = 0.0
    for o in range(sides):
        best = max(best, _set_gain(grande, taken, piles[o], every & ~piles[o], cap))
    return best


@njit(cache=True)
def napola_joint(taken, piles, sides, my, cap=10):
    """set_joint for the napola."""
    return set_joint(taken, piles, sides, my, cap, False)


@njit(cache=True)
def set_joint(taken, piles, sides, my, cap, grande):
    """What side `my` taking the cards `taken` together is worth through the napola (grande
    False; cap: Rules.napola_max) or the grande, minus the sum of their card values' parts for
    it (which count each card alone, for the side it helps most): together they are worth what
    they add to my napola or grande (1D and 2D taken at once may complete a napola that neither
    completes alone), or, if more, the most any one of them would give another side (one card
    is enough to keep the opponent from its napola or grande: taking two of the cards it lacks
    keeps nothing more from it). 0 unless `taken` holds two cards of it or more."""
    cards = taken & (core.GRANDE_MASK if grande else DENARI)
    if popcount(cards) < 2:
        return 0.0
    every = np.int64(0)
    for s in range(sides):
        every |= piles[s]
    together = _set_gain(grande, taken, piles[my], every & ~piles[my], cap)
    alone = 0.0
    rest = cards
    while rest != 0:
        low = rest & -rest
        rest ^= low
        best = 0.0
        for s in range(sides):
            g = _set_gain(grande, low, piles[s], every & ~piles[s], cap)
            best = max(best, g)
            if s != my:
                together = max(together, g)
        alone += best
    return together - alone


@njit(cache=True)
def _napola_joint_two(taken, my_pile, opp_pile):
    """napola_joint for the classic two sides (the piles' array made only when it is needed)."""
    two = np.empty(2, dtype=np.int64)
    two[0] = my_pile
    two[1] = opp_pile
    return napola_joint(taken, two, 2, 0)


@njit(cache=True)
def card_values(my_pile, opp_pile, napola, w, vals):
    """vals[c]: what card c is worth to whoever takes it, given the piles so far (napola: the
    napola is scored; a denaro then also counts what it adds to it for the side it helps most,
    which is what it is worth to take: it gains that side those points or keeps them from it)."""
    den_done = popcount(my_pile & DENARI) >= 6 or popcount(opp_pile & DENARI) >= 6
    carte_done = popcount(my_pile) >= 21 or popcount(opp_pile) >= 21
    for c in range(40):
        # a card counts for primiera only if it beats the best card of its suit in some pile
        s = c // 10
        prim = PRIM_BY_RANK[RANK[c]]
        mine = PRIM_OF_SUIT[(my_pile >> (10 * s)) & DENARI]
        theirs = PRIM_OF_SUIT[(opp_pile >> (10 * s)) & DENARI]
        v = w[I_PRIMIERA + RANK[c]] if prim > min(mine, theirs) else 0.0
        if not carte_done:
            v += w[I_CARD]
        if c < 10 and not den_done:
            v += w[I_DENARO]
        if c == 6:
            v += w[I_SETTEBELLO]
        if napola and c < 10:
            bit = np.int64(1) << c
            v += max(napola_gain(bit, my_pile, opp_pile), napola_gain(bit, opp_pile, my_pile))
        vals[c] = v


@njit(cache=True)
def _mask_value(mask, vals):
    v = 0.0
    while mask != 0:
        low = mask & -mask
        mask ^= low
        v += vals[popcount(low - 1)]
    return v


@njit(cache=True, inline="always")
def _expected_best(p, best):
    """Expected best gain when rank r is held with chance p[r] (independently) and gains best[r]:
    take the best gains first. Clears p."""
    expected = 0.0
    none_yet = 1.0
    for _ in range(10):
        r_best = -1
        g_best = 0.0
        for r in range(1, 11):
            if p[r] > 0 and best[r] > g_best:
                g_best = best[r]
                r_best = r
        if r_best < 0:
            break
        expected += none_yet * p[r_best] * g_best
        none_yet *= 1.0 - p[r_best]
        p[r_best] = 0.0
    return expected


@njit(cache=True)
def reply_threat(table, unseen, h, opp_last, w, vals, scratch):
    """Expected value of the opponent's best capture on `table` with `h` cards drawn from `unseen`.

    The classic captures, enumerated here for speed (core.legal_moves for every rank cost more;
    reply_threat_moves is that path, and a test holds the two equal): a card takes one table
    card of its rank if there is one, else any cards summing to it (10 at most, so 4 cards at
    most). A table of more than MAX_TABLE_ENUM cards (set-up positions only: a dealt game's
    tables stay far below) goes through _best_captures_large."""
    if h <= 0 or table == 0:
        return 0.0
    best = scratch[32:43]
    p = scratch[48:59]
    if popcount(table) > MAX_TABLE_ENUM:
        _best_captures_large(table, vals, best, scratch[16:27], scratch[64:75])
        return _threat_of(best, p, unseen, h, vals)
    # table cards (lowest ids first) and their subset sums and values
    nt = 0
    ids = scratch[0:MAX_TABLE_ENUM]
    has_rank = scratch[16:27]
    for r in range(11):
        has_rank[r] = 0.0
        best[r] = -1.0
    rest = table
    while rest != 0:
        low = rest & -rest
        rest ^= low
        c = popcount(low - 1)
        ids[nt] = c
        has_rank[RANK[c]] = 1.0
        nt += 1
    sums = scratch[64:64 + (1 << nt)]
    tval = scratch[64 + (1 << MAX_TABLE_ENUM):64 + (1 << MAX_TABLE_ENUM) + (1 << nt)]
    sums[0] = 0.0
    tval[0] = 0.0
    full = (1 << nt) - 1
    scopa = 0.0 if opp_last else w[I_SCOPA]
    for m in range(1, full + 1):
        j = popcount((m & -m) - 1)
        c = np.int64(ids[j])
        prev = m & (m - 1)
        s = sums[prev] + RANK[c]
        sums[m] = s
        tval[m] = tval[prev] + vals[c]
        if s > 10:
            continue
        r = np.int64(s)
        if (m & (m - 1)) != 0 and has_rank[r] > 0:
            continue          # a card of that rank on the table must be taken instead
        g = tval[m] + (scopa if m == full else 0.0)
        if g > best[r]:
            best[r] = g
    return _threat_of(best, p, unseen, h, vals)


@njit(cache=True)
def _best_captures_large(table, vals, best, one, many):
    """best[r]: the most a card of rank r takes on `table` by the classic captures (-1 at least, as
    reply_threat's enumeration keeps it; < 0: nothing), for a table too large to enumerate its
    subsets: one[s] is the best single card of rank s, many[s] the best set of two or more cards
    summing to s (a 0/1 knapsack over the table's cards). No scopa: a table of more than 10
    cards sums to more than 10."""
    for s in range(11):
        one[s] = -np.inf
        many[s] = -np.inf
    ranks = 0
    rest = table
    while rest != 0:
        low = rest & -rest
        rest ^= low
        c = popcount(low - 1)
        v = RANK[c]
        ranks |= 1 << v
        for s in range(10, v, -1):         # the sets this card joins: those built before it
            with_it = max(one[s - v], many[s - v]) + vals[c]
            if with_it > many[s]:
                many[s] = with_it
        if vals[c] > one[v]:
            one[v] = vals[c]
    for r in range(11):
        # a card of that rank on the table must be taken instead of a sum
        best[r] = max(-1.0, one[r] if (ranks >> r) & 1 else many[r])


@njit(cache=True)
def _threat_of(best, p, unseen, h, vals):
    """The expected best reply from best[r] (what a card of rank r takes; < 0: nothing) and the
    chance that the h cards drawn from `unseen` hold each rank."""
    for r in range(11):
        p[r] = 0.0
    # chance the opponent holds each rank, and the value of the card it plays to take
    u = popcount(unseen)
    for r in range(1, 11):
        if best[r] < 0:
            continue
        of_rank = unseen & (np.int64(0x40100401) << (r - 1))
        k = popcount(of_rank)
        if k == 0:
            continue
        miss = 1.0
        for i in range(h):
            if u - i <= 0:
                break
            miss *= max(0.0, (u - k - i) / (u - i))
        p[r] = 1.0 - miss
        best[r] += _mask_value(of_rank, vals) / k
    return _expected_best(p, best)


@njit(cache=True)
def score_moves(hand, table, my_pile, opp_pile, unseen, opp_hand, deck_left, last_capturer, napola,
                cards, masks, n, w, out, scratch):
    """out[i] = heuristic value of move (cards[i], masks[i]) for the player to move.

    last_capturer: 0 nobody yet, 1 me, 2 the opponent. unseen: cards the mover has not seen.
    napola: whether the napola is scored (card_values).
    """
    vals = scratch[SCRATCH - 48:SCRATCH - 8]
    card_values(my_pile, opp_pile, napola, w, vals)
    for i in range(n):
        c = cards[i]
        m = masks[i]
        bit = np.int64(1) << c
        hand_after = hand & ~bit
        last_play = hand_after == 0 and opp_hand == 0 and deck_left == 0
        if m != 0:
            new_table = table & ~m
            gain = _mask_value(m, vals) + vals[c]
            if napola:
                gain += _napola_joint_two(m | bit, my_pile, opp_pile)
            if new_table == 0 and not last_play:
                gain += w[I_SCOPA]
        else:
            new_table = table | bit
            gain = -w[I_KEEP] * vals[c]
        if last_play:
            left = _mask_value(new_table, vals)
            if m != 0 or last_capturer == 1:
                gain += left
            elif last_capturer == 2:
                gain -= left
            out[i] = gain
            continue
        h = opp_hand
        if h == 0 and hand_after == 0 and deck_left > 0:
            h = 3                 # both hands empty: a new deal, the opponent plays first
        opp_last = deck_left == 0 and h == 1 and hand_after == 0
        out[i] = gain - w[I_REPLY] * reply_threat(new_table, unseen, h, opp_last, w, vals, scratch)
    return out


# ==== any rules: variants, 3 players, pairs ==================================================
# (see the module text)
NAPOLEONE_CARD = np.array([0.0, 0.15, 0.1])   # per denaro while no other side holds one (off, win, ten)


@njit(cache=True)
def values_any(state, piles, sides, my, w, vals):
    """vals[c]: what card c is worth to side `my` under the rules in `state`'s header, given the
    piles per side so far (a point already clinched by some side is worth nothing more)."""
    cnt = np.zeros(6, dtype=np.int64)
    den = np.zeros(6, dtype=np.int64)
    taken = np.int64(0)
    others = np.int64(0)
    for s in range(sides):
        cnt[s] = popcount(piles[s])
        den[s] = popcount(piles[s] & DENARI)
        taken |= piles[s]
        if s != my:
            others |= piles[s]
    left_cards = 40 - popcount(taken)
    left_den = 10 - popcount(taken & DENARI)
    carte_done = False
    den_done = False
    for s in range(sides):
        c_other = 0
        d_other = 0
        for o in range(sides):
            if o != s:
                c_other = max(c_other, cnt[o])
                d_other = max(d_other, den[o])
        if cnt[s] > c_other + left_cards:
            carte_done = True
        if den[s] > d_other + left_den:
            den_done = True
    most_sevens = state[core.PRIMIERA_SCALE] == core.PRIM_MOST_SEVENS
    napola = state[core.NAPOLA] != 0
    grande = state[core.GRANDE] != 0
    napoleone = NAPOLEONE_CARD[state[core.NAPOLEONE]] if (others & DENARI) == 0 else 0.0
    for c in range(40):
        s = c // 10
        r = RANK[c]
        if most_sevens:
            v = w[I_PRIMIERA + r]                      # every 7 (then 6, ace...) counts
        else:
            # the card counts if it beats the best card of its suit in some side's pile. The
            # standard values serve every scale: figures0, veneto and southern order the ranks
            # 7 > 6 > ace > 5 > 4 > 3 > 2 > figures as standard does, and only the figures
            # (weight 0) compare differently
            low = 99
            for o in range(sides):
                low = min(low, PRIM_OF_SUIT[(piles[o] >> (10 * s)) & DENARI])
            v = w[I_PRIMIERA + r] if PRIM_BY_RANK[r] > low else 0.0
        if not carte_done:
            v += w[I_CARD]
        if c < 10:
            if not den_done:
                v += w[I_DENARO]
            v += napoleone
            if napola:                         # card_values: the side it helps most
                v += _most_gain(False, np.int64(1) << c, piles, sides, taken, napola_cap(state))
            if grande and (core.GRANDE_MASK >> c) & 1:
                v += _most_gain(True, np.int64(1) << c, piles, sides, taken, 0)
        if c == 6 or (c == 9 and state[core.RE_BELLO] != 0):
            v += w[I_SETTEBELLO]
        vals[c] = v


@njit(cache=True)
def _scopa_counts(state, card, captured, table):
    """Whether a capture that empties `table` is a scopa under the header (an ace sweep is one
    only with ace_scopa); the last play of the hand is the caller's business."""
    return state[core.ACE_SCOPA] != 0 or not core.is_ace_sweep(state, card, captured, table)


@njit(cache=True)
def reply_threat_moves(state, table, unseen, h, opp_last, w, vals, scratch, tmp, tbuf, known=0,
                       new_deal=False):
    """reply_threat for any capture rules: the best capture of each unseen rank on `table` comes
    from core.legal_moves on a copy of the header (tmp) holding one card of that rank. `known`:
    cards of the h the replying seat is known to hold (cirulla's shown hands, not in `unseen`):
    their ranks are held for sure, the other h - |known| cards are drawn from `unseen`.
    new_deal: the reply comes in the next deal, where the joker has no shown value."""
    if h <= 0 or table == 0:
        return 0.0
    best = scratch[32:43]
    p = scratch[48:59]
    for r in range(11):
        best[r] = -1.0
        p[r] = 0.0
    tmp[:core.HEADER_SIZE] = state[:core.HEADER_SIZE]
    if new_deal:
        tmp[core.JOKER_VALUE] = 0
    tmp[TABLE] = table
    tmp[TO_MOVE] = 0
    u = popcount(unseen)
    drawn = h - popcount(known)
    for r in range(1, 11):
        sure = known & core.RANK_MASK[r]
        of_rank = sure if sure != 0 else unseen & core.RANK_MASK[r]
        k = popcount(of_rank)
        if k == 0:
            continue
        card = popcount((of_rank & -of_rank) - 1)
        tmp[HANDS] = np.int64(1) << card
        nm = legal_moves(tmp, tbuf)
        b = -1.0
        for i in range(nm):
            m = tbuf[1, i]
            if m == 0:
                continue
            g = _mask_value(m, vals)
            if m == table and not opp_last and _scopa_counts(tmp, card, m, table):
                g += w[I_SCOPA]
            if g > b:
                b = g
        if b < 0:
            continue
        miss = 1.0
        if sure != 0:
            miss = 0.0                          # a shown card: held for sure
        else:
            for i in range(drawn):
                if u - i <= 0:
                    break
                miss *= max(0.0, (u - k - i) / (u - i))
        p[r] = 1.0 - miss
        best[r] = b + _mask_value(of_rank, vals) / k
    return _expected_best(p, best)


@njit(cache=True)
def score_any(state, p, sizes, unseen, cards, masks, n, w, classic_caps, out, scratch, tmp, tbuf, piles):
    """score_moves for seat p under any rules: out[i] = value of move (cards[i], masks[i]) for
    p's side. `state` holds the header, the table, p's hand, every pile and the deck position;
    sizes[s] is seat s's hand size (other hands need not be in the state, but hold the cards
    they showed with a cirulla hand bonus, SHOWN); `unseen` the cards p has not seen. The reply
    feared is the next seat's, with the card values of its side; the cards it showed are replies
    it holds for sure."""
    n_pl = state[core.NPLAYERS]
    sides = n_pl if n_pl <= 3 else n_pl // 2
    my = p % sides
    for s in range(sides):
        piles[s] = 0
    for s in range(n_pl):
        piles[s % sides] |= state[PILES + s]
    vals = scratch[SCRATCH - 48:SCRATCH - 8]
    values_any(state, piles, sides, my, w, vals)
    hand = state[HANDS + p]
    table = state[TABLE]
    q = (p + 1) % n_pl
    hq = sizes[q]
    known = state[HANDS + q] & state[core.SHOWN]
    others = 0
    for s in range(n_pl):
        if s != p:
            others += sizes[s]
    deck_left = 40 - state[DECK_POS]
    lc = state[LAST_CAPTURER]
    last = 0 if lc < 0 else (1 if lc % sides == my else 2)
    for i in range(n):
        c = cards[i]
        m = masks[i]
        bit = np.int64(1) << c
        hand_after = hand & ~bit
        after = popcount(hand_after) + others
        last_play = after == 0 and deck_left == 0
        if m != 0:
            new_table = table & ~m
            gain = _mask_value(m, vals) + vals[c]
            if state[core.NAPOLA] != 0:
                gain += set_joint(m | bit, piles, sides, my, napola_cap(state), False)
            if state[core.GRANDE] != 0:
                gain += set_joint(m | bit, piles, sides, my, 0, True)
            if new_table == 0 and not last_play and _scopa_counts(state, c, m, table):
                gain += w[I_SCOPA]
        else:
            new_table = table | bit
            gain = -w[I_KEEP] * vals[c]
        if last_play:
            left = _mask_value(new_table, vals)
            if m != 0 or last == 1:
                gain += left
            elif last == 2:
                gain -= left
            out[i] = gain
            continue
        h = hq
        new_deal = h == 0 and deck_left > 0
        if new_deal:
            h = state[core.CARDS_PER_DEAL]     # everyone is out of cards: a new deal
        opp_last = deck_left == 0 and h == 1 and after == 1
        if classic_caps and known == 0:
            threat = reply_threat(new_table, unseen, h, opp_last, w, vals, scratch)
        else:
            threat = reply_threat_moves(state, new_table, unseen, h, opp_last, w, vals, scratch, tmp, tbuf,
                                        known, new_deal)
        out[i] = gain - w[I_REPLY] * threat
    return out
