"""Compiled kernels of the normal and hard levels: move scoring, worlds, rollouts, last deal.

`score_moves` is the normal level's judgement of each legal move (see agents/normal.py); it is
also the rollout policy of the hard level. Everything here starts from the observation vector
alone. `build_base` writes what the player
knows into a fresh core state (the player becomes seat 0, the opponent seat 1);
`sample_world` deals the unseen cards uniformly at random: the opponent's hand (its size is in
the observation), then the rest of the deck in a random order. Each candidate move is played in
the same sampled worlds (common random numbers: differences between moves are not drowned by
differences between worlds), and the hand is finished by the `normal` scoring kernel for both
sides, each judging from what it could see in that world. Rules come only from core.py.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from scopa_env import core
from scopa_env.core import (DEALER, DECK, DECK_POS, F_HAND_OVER, HANDS, LAST_CAPTURER, LINE_TOTAL,
                            LINES, NLINES, PHASE, PILES, PLAYED, PRIM_OF_SUIT, RANK, SCOPE, SCORES, TABLE, TO_MOVE,
                            WINNER, apply_move, legal_moves, popcount, rng_below)
from scopa_env.errors import ScopaError
from scopa_env.observation import SLICES



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
MAX_TABLE_ENUM = 12    # the threat enumerates subsets of at most this many table cards
SCRATCH = 2 * (1 << MAX_TABLE_ENUM) + 128

DENARI = (1 << 10) - 1
PRIM_BY_RANK = np.array([0, 16, 12, 13, 14, 15, 18, 21, 10, 10, 10], dtype=np.int64)


def new_scratch() -> np.ndarray:
    return np.zeros(SCRATCH, dtype=np.float64)


@njit(cache=True)
def card_values(my_pile, opp_pile, w, vals):
    """vals[c]: what card c is worth to whoever takes it, given the piles so far."""
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
    """Expected value of the opponent's best capture on `table` with `h` cards drawn from `unseen`."""
    if h <= 0 or table == 0:
        return 0.0
    # table cards (at most MAX_TABLE_ENUM, lowest ids first) and their subset sums and values
    nt = 0
    ids = scratch[0:MAX_TABLE_ENUM]
    has_rank = scratch[16:27]
    best = scratch[32:43]
    p = scratch[48:59]
    for r in range(11):
        has_rank[r] = 0.0
        best[r] = -1.0
        p[r] = 0.0
    rest = table
    while rest != 0 and nt < MAX_TABLE_ENUM:
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
    scopa = 0.0 if (opp_last or rest != 0) else w[I_SCOPA]
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
def score_moves(hand, table, my_pile, opp_pile, unseen, opp_hand, deck_left, last_capturer,
                cards, masks, n, w, out, scratch):
    """out[i] = heuristic value of move (cards[i], masks[i]) for the player to move.

    last_capturer: 0 nobody yet, 1 me, 2 the opponent. unseen: cards the mover has not seen.
    """
    vals = scratch[SCRATCH - 48:SCRATCH - 8]
    card_values(my_pile, opp_pile, w, vals)
    for i in range(n):
        c = cards[i]
        m = masks[i]
        bit = np.int64(1) << c
        hand_after = hand & ~bit
        last_play = hand_after == 0 and opp_hand == 0 and deck_left == 0
        if m != 0:
            new_table = table & ~m
            gain = _mask_value(m, vals) + vals[c]
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



# ---- worlds from an observation -------------------------------------------------------------
_HAND, _TABLE, _MY_PILE, _OPP_PILE, _MY_PLAYED, _OPP_PLAYED, _UNSEEN = (
    SLICES[n].start for n in ("hand", "table", "my_pile", "opp_pile", "my_played", "opp_played", "unseen"))
_OPP_HAND_SIZE = SLICES["opp_hand_size"].start
_DECK_LEFT = SLICES["deck_left"].start
_MY_SCOPE = SLICES["my_scope"].start
_OPP_SCOPE = SLICES["opp_scope"].start
_MY_SCORE = SLICES["my_score"].start
_OPP_SCORE = SLICES["opp_score"].start
_I_DEAL = SLICES["i_deal"].start
_NAPOLA = SLICES["napola"].start
_LAST_CAPTURER = SLICES["last_capturer"].start
ALL = (1 << 40) - 1


@njit(cache=True)
def _mask_at(obs, at):
    m = np.int64(0)
    for c in range(40):
        if obs[at + c] != 0:
            m |= np.int64(1) << c
    return m


@njit(cache=True)
def build_base(obs, target, state):
    """The known part of the world in `state` (seat 0 = the observer, to move). Returns the
    unseen cards as a mask; the opponent's hand and the deck are left empty."""
    for i in range(state.shape[0]):
        state[i] = 0
    state[core.NPLAYERS] = 2
    state[core.NAPOLA] = obs[_NAPOLA]
    state[core.TARGET] = target
    state[core.CARDS_PER_DEAL] = 3
    state[core.TABLE_DEAL] = 4
    state[WINNER] = -1
    state[HANDS] = _mask_at(obs, _HAND)
    state[TABLE] = _mask_at(obs, _TABLE)
    state[PILES] = _mask_at(obs, _MY_PILE)
    state[PILES + 1] = _mask_at(obs, _OPP_PILE)
    state[PLAYED] = _mask_at(obs, _MY_PLAYED)
    state[PLAYED + 1] = _mask_at(obs, _OPP_PLAYED)
    state[SCOPE] = obs[_MY_SCOPE]
    state[SCOPE + 1] = obs[_OPP_SCOPE]
    state[SCORES] = obs[_MY_SCORE]
    state[SCORES + 1] = obs[_OPP_SCORE]
    state[DEALER] = 0 if obs[_I_DEAL] else 1
    state[TO_MOVE] = 0
    lc = obs[_LAST_CAPTURER]
    state[LAST_CAPTURER] = -1 if lc == 0 else (0 if lc == 1 else 1)
    state[DECK_POS] = 40 - obs[_DECK_LEFT]
    state[core.PLAYS] = popcount(state[PLAYED] | state[PLAYED + 1])
    state[PHASE] = core.PLAYING
    return _mask_at(obs, _UNSEEN)


@njit(cache=True)
def card_ids(mask, out):
    """The cards of `mask` in id order into out[:n]; returns n."""
    n = 0
    for c in range(40):
        if (mask >> c) & 1:
            out[n] = c
            n += 1
    return n


@njit(cache=True)
def sample_world(base, unseen_ids, n_unseen, opp_n, rng, world):
    """world = base with the unseen cards dealt at random: opp_n to seat 1, the rest to the deck."""
    world[:] = base
    for i in range(n_unseen - 1, 0, -1):
        j = rng_below(rng, 0, i + 1)
        t = unseen_ids[i]
        unseen_ids[i] = unseen_ids[j]
        unseen_ids[j] = t
    opp = np.int64(0)
    for i in range(opp_n):
        opp |= np.int64(1) << unseen_ids[i]
    world[HANDS + 1] = opp
    pos = world[DECK_POS]
    for i in range(opp_n, n_unseen):
        world[DECK + pos] = unseen_ids[i]
        pos += 1


@njit(cache=True)
def finish_hand(state, buf, w, values, scratch, rng, epsilon, endgame, exact_last, states, bufs):
    """Play the hand to its end, both sides by the normal kernel (epsilon: random moves), and
    return outcome_any() for seat 0. With exact_last the last deal (empty deck) is played perfectly,
    as both levels play it, by minimax_any."""
    while True:
        if exact_last and state[DECK_POS] >= 40:
            return minimax_any(state, endgame, states, bufs)
        n = legal_moves(state, buf)
        k = 0
        if n > 1:
            if epsilon > 0.0 and rng_below(rng, 0, 1 << 20) < epsilon * (1 << 20):
                k = rng_below(rng, 0, n)
            else:
                p = state[TO_MOVE]
                o = 1 - p
                hand = state[HANDS + p]
                table = state[TABLE]
                mine = state[PILES + p]
                theirs = state[PILES + o]
                unseen = ALL & ~(hand | table | mine | theirs)
                lc = state[LAST_CAPTURER]
                last = 0 if lc < 0 else (1 if lc == p else 2)
                score_moves(hand, table, mine, theirs, unseen, popcount(state[HANDS + o]),
                            40 - state[DECK_POS], last, buf[0], buf[1], n, w, values, scratch)
                best = values[0]
                for i in range(1, n):
                    if values[i] > best:
                        best = values[i]
                        k = i
        flags = apply_move(state, buf[0, k], buf[1, k])
        if flags & F_HAND_OVER:
            return outcome_any(state, endgame)


# ---- inferring the opponent's hand (hard option infer) -------------------------------------
# One row per opponent move of the current deal, all from what the observer saw (hard.py builds
# them): the table it was made on, the card, the captured mask, the opponent's pile and mine at
# that moment, my hand size and the cards left in the deck then, the last capturer from the
# opponent's side (0 nobody, 1 itself, 2 me), and the cards it has played from that move on in
# this deal (that move's card included): its hand then was its hand now plus those.
ROW_SIZE = 9
MAX_HANDS = 6_000        # C(33, 3) = 5,456 opponent hands of 3 at most


@njit(cache=True)
def hand_weights(base, unseen, h, rows, nrows, w, eps, beta, hands, w_normal, w_easy, w_soft):
    """Every opponent hand of h cards from the `unseen` cards (build_base's base and mask), written to
    hands[:n], with the chance of the deal's moves `rows` under three models of the opponent:
    w_normal, the normal level's judgement (its best move, ties included, with probability
    1 - eps, else any legal move at random); w_easy, the easy level (a capture at random when
    it has one, else any card at random); w_soft, a player who leans on the normal judgement
    without following it (each move with a chance in proportion to exp(beta x its normal score)).
    Returns n. Nothing but the observation is read."""
    ids = np.zeros(40, dtype=np.int64)
    n = card_ids(unseen, ids)
    tmp = base.copy()
    buf = np.zeros((3, core.MAX_MOVES), dtype=np.int64)
    values = np.zeros(core.MAX_MOVES)
    scratch = np.zeros(SCRATCH)
    idx = np.zeros(max(h, 1), dtype=np.int64)
    for i in range(h):
        idx[i] = i
    count = 0
    while True:
        hand_now = np.int64(0)
        for i in range(h):
            hand_now |= np.int64(1) << ids[idx[i]]
        pn = 1.0
        pe = 1.0
        ps = 1.0
        for m in range(nrows):
            hand = hand_now | rows[m, 8]
            table = rows[m, 0]
            theirs = rows[m, 3]
            mine = rows[m, 4]
            tmp[HANDS + 1] = hand
            tmp[TABLE] = table
            tmp[TO_MOVE] = 1
            k = legal_moves(tmp, buf)
            made = -1
            takes = 0
            for j in range(k):
                if buf[1, j] != 0:
                    takes += 1
                if buf[0, j] == rows[m, 1] and buf[1, j] == rows[m, 2]:
                    made = j
            if made < 0:                      # not a legal move with this hand
                pn = 0.0
                pe = 0.0
                ps = 0.0
                break
            if takes > 0:
                pe *= 1.0 / takes if rows[m, 2] != 0 else 0.0
            else:
                pe *= 1.0 / k
            if k > 1:
                score_moves(hand, table, theirs, mine, ALL & ~(hand | table | theirs | mine), rows[m, 5],
                            rows[m, 6], rows[m, 7], buf[0], buf[1], k, w, values, scratch)
                best = values[0]
                for j in range(1, k):
                    best = max(best, values[j])
                pn *= (1.0 - eps) * (1.0 if values[made] >= best - 1e-9 else 0.0) + eps / k
                z = 0.0
                for j in range(k):
                    z += np.exp(beta * (values[j] - best))
                ps *= np.exp(beta * (values[made] - best)) / z
        hands[count] = hand_now
        w_normal[count] = pn
        w_easy[count] = pe
        w_soft[count] = ps
        count += 1
        i = h - 1
        while i >= 0 and idx[i] == n - h + i:
            i -= 1
        if i < 0:
            break
        idx[i] += 1
        for j in range(i + 1, h):
            idx[j] = idx[j - 1] + 1
    return count


@njit(cache=True)
def search(obs, target, cards, masks, k, worlds, rollouts, endgame, w, epsilon, exact_last,
           hands, cdf, nh, rng, totals):
    """Add to totals[j] the outcomes of candidate j (cards[j], masks[j]) over `worlds` sampled
    worlds x `rollouts` rollouts. rng: a one-slot generator state, advanced in place.

    nh = 0: the unseen cards are dealt uniformly at random. nh > 0: the opponent's hand is drawn
    from hands[:nh] by the cumulative probabilities cdf[:nh] (hard option infer), the rest of the
    unseen cards make the deck in a random order."""
    base = np.zeros(core.STATE_SIZE, dtype=np.int64)
    unseen = build_base(obs, target, base)
    unseen_ids = np.zeros(40, dtype=np.int64)
    n_unseen = card_ids(unseen, unseen_ids)
    opp_n = np.int64(obs[_OPP_HAND_SIZE])
    world = np.zeros_like(base)
    sim = np.zeros_like(base)
    buf = np.zeros((3, core.MAX_MOVES), dtype=np.int64)
    values = np.zeros(core.MAX_MOVES)
    scratch = np.zeros(SCRATCH)
    bufs = np.zeros((8, 3, core.MAX_MOVES), dtype=np.int64)
    states = np.zeros((8, core.STATE_SIZE), dtype=np.int64)
    rest_ids = np.zeros(40, dtype=np.int64)
    for _ in range(worlds):
        if nh == 0:
            sample_world(base, unseen_ids, n_unseen, opp_n, rng, world)
        else:
            u = rng_below(rng, 0, 1 << 30) / float(1 << 30)
            lo = np.searchsorted(cdf[:nh], u, side="right")      # the first hand with cdf > u
            n_rest = card_ids(unseen & ~hands[lo], rest_ids)
            sample_world(base, rest_ids, n_rest, 0, rng, world)
            world[HANDS + 1] = hands[lo]
        for j in range(k):
            for _r in range(rollouts):
                sim[:] = world
                flags = apply_move(sim, cards[j], masks[j])
                if flags & F_HAND_OVER:
                    totals[j] += outcome_any(sim, endgame)
                else:
                    totals[j] += finish_hand(sim, buf, w, values, scratch, rng, epsilon, endgame,
                                             exact_last, states, bufs)


def check_observation(obs: np.ndarray) -> None:
    """The observation must describe a world the kernels can finish: unseen = opponent hand +
    deck, and the deck a whole number of 2-player deals (the kernels trust their input)."""
    n_unseen = int(obs[SLICES["unseen"]].sum())
    deck = int(obs[_DECK_LEFT])
    if n_unseen != int(obs[_OPP_HAND_SIZE]) + deck or deck % 6:
        raise ScopaError(f"inconsistent observation: {n_unseen} unseen cards, opponent hand "
                         f"{int(obs[_OPP_HAND_SIZE])}, deck {deck} (a multiple of 6)")


# ---- the last deal: every card is known, so it is solved exactly --------------------------
@njit(cache=True)
def last_deal_values(obs, target, cards, masks, k, endgame, out):
    """out[j] = exact value (outcome_any() for seat 0) of candidate j when the deck is empty: the
    unseen cards are then exactly the opponent's hand, and both sides play perfectly."""
    state = np.zeros(core.STATE_SIZE, dtype=np.int64)
    state[HANDS + 1] = build_base(obs, target, state)
    bufs = np.zeros((8, 3, core.MAX_MOVES), dtype=np.int64)
    states = np.zeros((8, core.STATE_SIZE), dtype=np.int64)
    for j in range(k):
        child = state.copy()
        flags = apply_move(child, cards[j], masks[j])
        if flags & F_HAND_OVER:
            out[j] = outcome_any(child, endgame)
        else:
            out[j] = minimax_any(child, endgame, states, bufs)


# ==== any rules: variants, 3 players, pairs ==================================================
# The kernels above are the classic 2-player game (their numbers and speed are the README's).
# The ones below take every rules option from the header slots of a core state (Rules.to_header)
# and play the captures through core.legal_moves / core.apply_move, so a variant exists only in
# the engine. A "view" is what the seat to move knows: seat p's side pools its partner's pile,
# and the reply feared is that of the next seat (always an opponent: partners sit opposite).
NAPOLA_CARD = 0.3       # 1D, 2D, 3D while no other side holds one of them (napola scored)
NAPOLEONE_CARD = np.array([0.0, 0.15, 0.1])   # per denaro while no other side holds one (off, win, ten)


def classic_rules(rules) -> bool:
    """True for the rules the classic kernels above play: 2 players, 3 + 4 deal, no variant
    except napola and target."""
    from scopa_env.rules import Rules
    return rules.replace(napola=False, target=11) == Rules()


def classic_captures(rules) -> bool:
    """Captures as in the classic game (the compiled reply estimate of score_moves applies)."""
    return (rules.quindici == "off" and not rules.ace_takes_all and not rules.fewest_cards
            and not rules.free_capture)


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
    napola_open = state[core.NAPOLA] != 0 and (others & 7) == 0
    napoleone = NAPOLEONE_CARD[state[core.NAPOLEONE]] if (others & DENARI) == 0 else 0.0
    for c in range(40):
        s = c // 10
        r = RANK[c]
        if most_sevens:
            v = w[I_PRIMIERA + r]                      # every 7 (then 6, ace...) counts
        else:
            # the card counts if it beats the best card of its suit in some side's pile
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
            if c < 3 and napola_open:
                v += NAPOLA_CARD
        if c == 6 or (c == 9 and state[core.RE_BELLO] != 0):
            v += w[I_SETTEBELLO]
        vals[c] = v


@njit(cache=True)
def _scopa_counts(state, card, captured, table):
    """Whether a capture that empties `table` is a scopa under the header (an ace sweep is one
    only with ace_scopa); the last play of the hand is the caller's business."""
    return state[core.ACE_SCOPA] != 0 or not core.is_ace_sweep(state, card, captured, table)


@njit(cache=True)
def reply_threat_moves(state, table, unseen, h, opp_last, w, vals, scratch, tmp, tbuf):
    """reply_threat for any capture rules: the best capture of each unseen rank on `table` comes
    from core.legal_moves on a copy of the header (tmp) holding one card of that rank."""
    if h <= 0 or table == 0:
        return 0.0
    best = scratch[32:43]
    p = scratch[48:59]
    for r in range(11):
        best[r] = -1.0
        p[r] = 0.0
    tmp[:core.HEADER_SIZE] = state[:core.HEADER_SIZE]
    tmp[TABLE] = table
    tmp[TO_MOVE] = 0
    u = popcount(unseen)
    for r in range(1, 11):
        of_rank = unseen & core.RANK_MASK[r]
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
        for i in range(h):
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
    sizes[s] is seat s's hand size (other hands need not be in the state); `unseen` the cards p
    has not seen. The reply feared is the next seat's, with the card values of its side."""
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
        if h == 0 and deck_left > 0:
            h = state[core.CARDS_PER_DEAL]     # everyone is out of cards: a new deal
        opp_last = deck_left == 0 and h == 1 and after == 1
        if classic_caps:
            threat = reply_threat(new_table, unseen, h, opp_last, w, vals, scratch)
        else:
            threat = reply_threat_moves(state, new_table, unseen, h, opp_last, w, vals, scratch, tmp, tbuf)
        out[i] = gain - w[I_REPLY] * threat
    return out


@njit(cache=True)
def outcome_any(state, endgame):
    """Side 0's result of a finished hand: its points minus the best other side's, or in the
    endgame the chance of winning the match (1 or 0 when it ended, else a guess from the score
    difference) plus a hundredth of the point difference to break ties. With two sides: seat 0's
    point difference."""
    n_pl = state[core.NPLAYERS]
    sides = n_pl if n_pl <= 3 else n_pl // 2
    other = -1
    other_score = -1
    for s in range(1, sides):
        other = max(other, state[LINES + s * NLINES + LINE_TOTAL])
        other_score = max(other_score, state[SCORES + s])
    diff = state[LINES + LINE_TOTAL] - other
    if not endgame:
        return float(diff)
    if state[PHASE] == core.MATCH_OVER:
        win = 1.0 if state[WINNER] == 0 else 0.0
    else:
        win = 0.5 + min(0.4, max(-0.4, 0.08 * (state[SCORES] - other_score)))
    return win + 0.01 * diff


@njit(cache=True)
def minimax_any(root, endgame, states, bufs):
    """Value for side 0 of the rest of a hand with no hidden card: alpha-beta over every move,
    side 0 maximising outcome_any, every other side minimising it (the paranoid assumption; exact
    with two sides, where it is the classic last-deal solver). Needs at most states.shape[0] - 1
    plies left. Iterative (an explicit stack of states; numba's cache cannot reload recursive
    functions)."""
    n_pl = root[core.NPLAYERS]
    sides = n_pl if n_pl <= 3 else n_pl // 2
    depth_max = states.shape[0] - 1
    n = np.zeros(depth_max + 1, dtype=np.int64)
    nxt = np.zeros(depth_max + 1, dtype=np.int64)
    best = np.zeros(depth_max + 1)
    alpha = np.zeros(depth_max + 1)
    beta = np.zeros(depth_max + 1)
    states[0, :] = root
    n[0] = legal_moves(states[0], bufs[0])
    best[0] = -1e18 if states[0, TO_MOVE] % sides == 0 else 1e18
    alpha[0] = -1e18
    beta[0] = 1e18
    d = 0
    v = 0.0
    while d >= 0:
        if nxt[d] < n[d] and alpha[d] < beta[d] and d < depth_max:
            i = nxt[d]
            nxt[d] += 1
            states[d + 1, :] = states[d]
            flags = apply_move(states[d + 1], bufs[d, 0, i], bufs[d, 1, i])
            if flags & F_HAND_OVER:
                v = outcome_any(states[d + 1], endgame)
            else:
                d += 1
                n[d] = legal_moves(states[d], bufs[d])
                nxt[d] = 0
                best[d] = -1e18 if states[d, TO_MOVE] % sides == 0 else 1e18
                alpha[d] = alpha[d - 1]
                beta[d] = beta[d - 1]
                continue
        else:
            v = best[d]
            d -= 1
            if d < 0:
                break
        if states[d, TO_MOVE] % sides == 0:
            best[d] = max(best[d], v)
            alpha[d] = max(alpha[d], best[d])
        else:
            best[d] = min(best[d], v)
            beta[d] = min(beta[d], best[d])
    return v


EXACT_PLIES = 8    # the exact solvers search at most this many plies (cards left in all hands)


@njit(cache=True)
def cards_in_hands(state):
    t = 0
    for s in range(state[core.NPLAYERS]):
        t += popcount(state[HANDS + s])
    return t


@njit(cache=True)
def finish_hand_any(state, buf, w, values, scratch, rng, epsilon, endgame, exact_last, classic_caps,
                    states, bufs, tmp, tbuf, sizes, piles):
    """finish_hand for any rules: every seat plays by score_any from its own view (its hand, the
    table, every pile), epsilon random moves; with exact_last the end of the hand is solved by
    minimax_any once the deck is empty and at most EXACT_PLIES cards are left."""
    n_pl = state[core.NPLAYERS]
    while True:
        if exact_last and state[DECK_POS] >= 40 and cards_in_hands(state) <= EXACT_PLIES:
            return minimax_any(state, endgame, states, bufs)
        n = legal_moves(state, buf)
        k = 0
        if n > 1:
            if epsilon > 0.0 and rng_below(rng, 0, 1 << 20) < epsilon * (1 << 20):
                k = rng_below(rng, 0, n)
            else:
                p = state[TO_MOVE]
                seen = state[TABLE] | state[HANDS + p]
                for s in range(n_pl):
                    sizes[s] = popcount(state[HANDS + s])
                    seen |= state[PILES + s]
                score_any(state, p, sizes, ALL & ~seen, buf[0], buf[1], n, w, classic_caps, values,
                          scratch, tmp, tbuf, piles)
                best = values[0]
                for i in range(1, n):
                    if values[i] > best:
                        best = values[i]
                        k = i
        flags = apply_move(state, buf[0, k], buf[1, k])
        if flags & F_HAND_OVER:
            return outcome_any(state, endgame)


@njit(cache=True)
def search_any(base, sizes, unseen, cards, masks, k, worlds, rollouts, endgame, w, epsilon, exact_last,
               classic_caps, rng, totals):
    """search for any rules. `base` (from base_state) is the observer's world with every hidden
    card left out, the observer at seat 0 to move; a world deals `unseen` at random: sizes[s]
    cards to seat s = 1.., the rest to the deck in a random order. Adds the outcome_any of
    candidate j over worlds x rollouts to totals[j] (same worlds for every candidate)."""
    n_pl = base[core.NPLAYERS]
    unseen_ids = np.zeros(40, dtype=np.int64)
    n_unseen = card_ids(unseen, unseen_ids)
    world = np.zeros_like(base)
    sim = np.zeros_like(base)
    tmp = np.zeros_like(base)
    buf = np.zeros((3, core.MAX_MOVES), dtype=np.int64)
    tbuf = np.zeros((3, core.MAX_MOVES), dtype=np.int64)
    values = np.zeros(core.MAX_MOVES)
    scratch = np.zeros(SCRATCH)
    bufs = np.zeros((EXACT_PLIES + 1, 3, core.MAX_MOVES), dtype=np.int64)
    states = np.zeros((EXACT_PLIES + 1, core.STATE_SIZE), dtype=np.int64)
    wsizes = np.zeros(6, dtype=np.int64)
    piles = np.zeros(6, dtype=np.int64)
    for _ in range(worlds):
        world[:] = base
        for i in range(n_unseen - 1, 0, -1):
            j = rng_below(rng, 0, i + 1)
            t = unseen_ids[i]
            unseen_ids[i] = unseen_ids[j]
            unseen_ids[j] = t
        at = 0
        for s in range(1, n_pl):
            hand = np.int64(0)
            for _i in range(sizes[s]):
                hand |= np.int64(1) << unseen_ids[at]
                at += 1
            world[HANDS + s] = hand
        pos = world[DECK_POS]
        for i in range(at, n_unseen):
            world[DECK + pos] = unseen_ids[i]
            pos += 1
        for j in range(k):
            for _r in range(rollouts):
                sim[:] = world
                flags = apply_move(sim, cards[j], masks[j])
                if flags & F_HAND_OVER:
                    totals[j] += outcome_any(sim, endgame)
                else:
                    totals[j] += finish_hand_any(sim, buf, w, values, scratch, rng, epsilon, endgame,
                                                 exact_last, classic_caps, states, bufs, tmp, tbuf,
                                                 wsizes, piles)


@njit(cache=True)
def exact_values_any(base, holder, unseen, cards, masks, k, endgame, out):
    """out[j] = exact value (minimax_any) of candidate j when nothing is hidden any more: the deck
    is empty and seat `holder` (or nobody, holder < 0) holds every unseen card."""
    state = base.copy()
    if holder > 0:
        state[HANDS + holder] = unseen
    bufs = np.zeros((EXACT_PLIES + 1, 3, core.MAX_MOVES), dtype=np.int64)
    states = np.zeros((EXACT_PLIES + 1, core.STATE_SIZE), dtype=np.int64)
    for j in range(k):
        child = state.copy()
        flags = apply_move(child, cards[j], masks[j])
        if flags & F_HAND_OVER:
            out[j] = outcome_any(child, endgame)
        else:
            out[j] = minimax_any(child, endgame, states, bufs)


# ---- the observer's world from an observation (any layout) ---------------------------------
_BITS = np.int64(1) << np.arange(40, dtype=np.int64)


class View:
    """What the observer knows, as engine data: `base` (a core state with the rules header, the
    observer at seat 0 to move, seats in turn order after it, every hidden card left out),
    `sizes` (hand size per seat), `unseen` (mask), `scores` (match totals per side, mine first)."""

    __slots__ = ("base", "sizes", "unseen", "deck_left", "scores")

    def __init__(self, obs: np.ndarray, rules, header: np.ndarray):
        from scopa_env.observation import layout
        n = rules.players
        sl = layout(n).slices
        obs = np.asarray(obs)

        def mask(name):
            return int((obs[sl[name]].astype(np.int64) * _BITS).sum())

        st = np.zeros(core.STATE_SIZE, dtype=np.int64)
        st[:core.HEADER_SIZE] = header
        st[WINNER] = -1
        st[PHASE] = core.PLAYING
        st[TO_MOVE] = 0
        st[HANDS] = mask("hand")
        st[TABLE] = mask("table")
        sizes = np.zeros(6, dtype=np.int64)
        sizes[0] = popcount(st[HANDS])
        if n == 2:
            st[PILES], st[PILES + 1] = mask("my_pile"), mask("opp_pile")
            st[PLAYED], st[PLAYED + 1] = mask("my_played"), mask("opp_played")
            st[SCOPE], st[SCOPE + 1] = obs[sl["my_scope"].start], obs[sl["opp_scope"].start]
            scores = [int(obs[sl["my_score"].start]), int(obs[sl["opp_score"].start])]
            st[DEALER] = 0 if obs[sl["i_deal"].start] else 1
            lc = int(obs[sl["last_capturer"].start])
            st[LAST_CAPTURER] = -1 if lc == 0 else lc - 1
            sizes[1] = obs[sl["opp_hand_size"].start]
        else:
            piles = obs[sl["pile"]].reshape(n, 40).astype(np.int64) @ _BITS
            played = obs[sl["played"]].reshape(n, 40).astype(np.int64) @ _BITS
            st[PILES:PILES + n] = piles
            st[PLAYED:PLAYED + n] = played
            st[SCOPE:SCOPE + n] = obs[sl["scope"]]
            scores = [int(x) for x in obs[sl["score"]]]
            dealer = np.flatnonzero(obs[sl["dealer"]])
            st[DEALER] = int(dealer[0]) if len(dealer) else 0
            lc = np.flatnonzero(obs[sl["last_capturer"]])
            st[LAST_CAPTURER] = int(lc[0]) if len(lc) else -1
            sizes[:n] = obs[sl["hand_size"]]
        st[SCORES:SCORES + len(scores)] = scores
        self.deck_left = int(obs[sl["deck_left"].start])
        st[DECK_POS] = 40 - self.deck_left
        st[core.PLAYS] = popcount(int(np.bitwise_or.reduce(st[PLAYED:PLAYED + n])))
        self.base, self.sizes, self.scores = st, sizes, scores
        self.unseen = mask("unseen")
        hidden = int(sizes[1:n].sum()) + self.deck_left
        per_deal = n * rules.hand_cards
        if popcount(self.unseen) != hidden or self.deck_left % per_deal:
            raise ScopaError(f"inconsistent observation: {popcount(self.unseen)} unseen cards, other "
                             f"hands {int(sizes[1:n].sum())}, deck {self.deck_left} (a multiple of {per_deal})")

    def holder(self) -> int | None:
        """With the deck empty and at most one other seat holding cards, that seat (-1: none):
        nothing is hidden any more. None otherwise."""
        if self.deck_left:
            return None
        holding = [s for s in range(1, len(self.sizes)) if self.sizes[s] > 0]
        if len(holding) > 1:
            return None
        return holding[0] if holding else -1

    def cards_left(self) -> int:
        return int(self.sizes.sum())


def resolve_masks(actions, legal: np.ndarray, table: int) -> np.ndarray:
    """Captured masks of action ids, an ace-takes-the-table id resolved to `table`."""
    from scopa_env.actions import TAKES_TABLE
    masks = actions.captured[legal].astype(np.int64)
    return np.where(masks == TAKES_TABLE, np.int64(table), masks)
