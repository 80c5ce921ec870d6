"""Compiled kernels of the hard level: worlds, rollouts, inference, search, last deal.

`score_moves` is the normal level's judgement of each legal move (see agents/normal.py); it is
also the rollout policy of the hard level. Everything here starts from the observation vector
alone. `build_base` writes what the player
knows into a fresh core state (the player becomes seat 0, the opponent seat 1);
`sample_world` deals the unseen cards uniformly at random: the opponent's hand (its size is in
the observation), then the rest of the deck in a random order. Each candidate move is played in
the same sampled worlds (common random numbers: differences between moves are not drowned by
differences between worlds), and the hand is finished by the `normal` scoring kernel for both
sides, each judging from what it could see in that world (agents/_scoring.py); the last deal
is solved exactly with agents/_exact.py. Rules come only from core.py.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from scopa_env import core
from scopa_env.core import (DEALER, DECK, DECK_POS, F_HAND_OVER, HANDS, LAST_CAPTURER, PHASE, PILES, PLAYED,
                            SCOPE, SCORES, TABLE, TO_MOVE, WINNER, apply_move, legal_moves, popcount,
                            rng_below)
from scopa_env.errors import ScopaError
from scopa_env.observation import SLICES

from ._exact import EXACT_PLIES, cards_in_hands, exact_values_any, minimax_any, outcome_any
from ._scoring import SCRATCH, score_any, score_moves


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
def shuffle_ids(ids, n, rng):
    """ids[:n] in a uniformly random order (Fisher-Yates), in place: the one shuffle of a world's
    hidden cards, for both searches (search_any had its own copy, and Sattolo's shuffle put into
    it, a draw below i instead of i + 1, passed every test: a mutation review)."""
    for i in range(n - 1, 0, -1):
        j = rng_below(rng, 0, i + 1)
        t = ids[i]
        ids[i] = ids[j]
        ids[j] = t


@njit(cache=True)
def sample_world(base, unseen_ids, n_unseen, opp_n, rng, world):
    """world = base with the unseen cards dealt at random: opp_n to seat 1, the rest to the deck."""
    world[:] = base
    shuffle_ids(unseen_ids, n_unseen, rng)
    opp = np.int64(0)
    for i in range(opp_n):
        opp |= np.int64(1) << unseen_ids[i]
    world[HANDS + 1] = opp
    pos = world[DECK_POS]
    for i in range(opp_n, n_unseen):
        world[DECK + pos] = unseen_ids[i]
        pos += 1


@njit(cache=True)
def finish_hand(state, buf, w, values, scratch, rng, epsilon, equity, exact_last, states, bufs):
    """Play the hand to its end, both sides by the normal kernel (epsilon: random moves), and
    return outcome_any() for seat 0. With exact_last the last deal (empty deck) is played perfectly,
    as hard plays it, by minimax_any (when at most EXACT_PLIES cards are left: a set-up
    position may hold more)."""
    while True:
        if exact_last and state[DECK_POS] >= 40 and cards_in_hands(state) <= EXACT_PLIES:
            return minimax_any(state, equity, states, bufs, np.zeros(1, dtype=np.int64), 0)
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
                            40 - state[DECK_POS], last, state[core.NAPOLA], buf[0], buf[1], n, w,
                            values, scratch)
                best = values[0]
                for i in range(1, n):
                    if values[i] > best:
                        best = values[i]
                        k = i
        flags = apply_move(state, buf[0, k], buf[1, k])
        if flags & F_HAND_OVER:
            return outcome_any(state, equity)


# ---- inferring the opponent's hand (hard option infer) -------------------------------------
# One row per opponent move of the current deal, all from what the observer saw (hard.py builds
# them): the table it was made on, the card, the captured mask, the opponent's pile and mine at
# that moment, my hand size and the cards left in the deck then, the last capturer from the
# opponent's side (0 nobody, 1 itself, 2 me), and the cards it has played from that move on in
# this deal (that move's card included): its hand then was its hand now plus those.
ROW_SIZE = 9
# hand_weights writes every hand into arrays sized by the count (a dealt game: C(33, 3) = 5,456
# at most); a set-up position may give far more, refused past this many (every 4-card hand fits)
MAX_HANDS = 100_000


# nogil on the search kernels hard calls from Python (here and agents/_exact.py
# exact_values_any): play.py's notice of a slow move runs on a timer thread, which a kernel
# holding the GIL kept waiting until the move was made (review). They touch only the arrays
# they are given.
@njit(cache=True, nogil=True)
def hand_weights(base, unseen, h, rows, nrows, w, eps, beta, hands, w_normal, w_easy, w_soft):
    """Every opponent hand of h cards from the `unseen` cards (build_base's base and mask), written to
    hands[:n] (the arrays hold C(unseen cards, h): nothing here checks), with the chance of the
    deal's moves `rows` under three models of the opponent: w_normal, the normal level's
    judgement (its best move, ties included, with probability 1 - eps, else any legal move at
    random); w_easy, the easy level (a capture at random when
    it has one, else any card at random); w_soft, a player who leans on the normal judgement
    without following it (each move with a chance in proportion to exp(beta x its normal score)).
    Returns n. Nothing but the observation is read."""
    ids = np.zeros(40, dtype=np.int64)
    n = card_ids(unseen, ids)
    tmp = base.copy()
    buf = np.empty((3, core.MAX_MOVES), dtype=np.int64)
    values = np.empty(core.MAX_MOVES)
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
                            rows[m, 6], rows[m, 7], base[core.NAPOLA], buf[0], buf[1], k, w, values,
                            scratch)
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


@njit(cache=True, nogil=True)
def search(obs, target, cards, masks, k, worlds, rollouts, equity, w, epsilon, exact_last,
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
    buf = np.empty((3, core.MAX_MOVES), dtype=np.int64)
    values = np.empty(core.MAX_MOVES)
    scratch = np.zeros(SCRATCH)
    # minimax_any over at most EXACT_PLIES cards needs EXACT_PLIES + 1 states (8 gave every move
    # of a set-up 8-card last deal -1e18 with exact_last_deal; review)
    bufs = np.empty((EXACT_PLIES + 1, 3, core.MAX_MOVES), dtype=np.int64)
    states = np.zeros((EXACT_PLIES + 1, core.STATE_SIZE), dtype=np.int64)
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
                    totals[j] += outcome_any(sim, equity)
                else:
                    totals[j] += finish_hand(sim, buf, w, values, scratch, rng, epsilon, equity,
                                             exact_last, states, bufs)


def countable_last_deal(obs: np.ndarray, most: int) -> bool:
    """Whether a classic last deal can be counted out: the deck is empty, at most `most` (and
    EXACT_PLIES) cards are in the two hands, and the unseen cards are exactly the opponent's
    hand (a set-up position may leave cards out of the game: its hand is then not known)."""
    hand_n = int(obs[_OPP_HAND_SIZE])
    return int(obs[_DECK_LEFT]) == 0 and int(obs[SLICES["unseen"]].sum()) == hand_n and \
        int(obs[SLICES["hand"]].sum()) + hand_n <= min(most, EXACT_PLIES)


def check_observation(obs: np.ndarray) -> None:
    """The observation must describe a world the kernels can finish: unseen = opponent hand +
    deck, and the deck a whole number of 2-player deals (the kernels trust their input)."""
    n_unseen = int(obs[SLICES["unseen"]].sum())
    deck = int(obs[_DECK_LEFT])
    if n_unseen != int(obs[_OPP_HAND_SIZE]) + deck:
        raise ScopaError(f"inconsistent observation: {n_unseen} unseen cards, opponent hand "
                         f"{int(obs[_OPP_HAND_SIZE])}, deck {deck}; a search deals "
                         f"the unseen cards to the opponent's hand and the deck, so a set-up "
                         f"position that leaves cards out of the game is not searched")
    if deck % 6:        # said to leave cards out, with every card placed (review)
        raise ScopaError(f"inconsistent observation: a deck of {deck} cards is no whole number of deals "
                         f"(6 cards each); a search deals it out, so a set-up position with such a deck "
                         f"is not searched")


# ---- the last deal: every card is known, so it is solved exactly --------------------------
@njit(cache=True, nogil=True)
def last_deal_values(obs, target, cards, masks, k, equity, out, cap=0):
    """out[j] = exact value (outcome_any() for seat 0) of candidate j when the deck is empty: the
    unseen cards are then exactly the opponent's hand, and both sides play perfectly. With
    cap > 0 it gives up past cap moves played (a set-up table of 30 cards has thousands of moves
    a ply): False, out incomplete; else True."""
    state = np.zeros(core.STATE_SIZE, dtype=np.int64)
    unseen = build_base(obs, target, state)
    return exact_values_any(state, 1, unseen, cards, masks, k, equity, out, False, cap)


@njit(cache=True, nogil=True)
def last_deal_values_easy(obs, target, cards, masks, k, equity, out, cap=0):
    """last_deal_values against an opponent playing like the easy level (expectimax_easy); the
    same cap, and the same False when it gives up."""
    state = np.zeros(core.STATE_SIZE, dtype=np.int64)
    unseen = build_base(obs, target, state)
    return exact_values_any(state, 1, unseen, cards, masks, k, equity, out, True, cap)


# ==== any rules: variants, 3 players, pairs ==================================================
# The kernels above are the classic 2-player game (their numbers and speed are the README's).
# The ones below take every rules option from the header slots of a core state (Rules.to_header)
# and play the captures through core.legal_moves / core.apply_move, so a variant exists only in
# the engine.
def classic_rules(rules) -> bool:
    """True for the rules the classic kernels above play: 2 players, 3 + 4 deal, no variant
    except napola and target."""
    from scopa_env.rules import Rules
    return rules.replace(napola=False, target=11) == Rules()


def classic_captures(rules) -> bool:
    """Captures as in the classic game (the compiled reply estimate of score_moves applies)."""
    return (rules.quindici == "off" and not rules.ace_takes_all and not rules.fewest_cards
            and not rules.free_capture and rules.equal_first and not (rules.joker and rules.hand_bonus))


@njit(cache=True)
def finish_hand_any(state, buf, w, values, scratch, rng, epsilon, equity, exact_last, classic_caps,
                    states, bufs, tmp, tbuf, sizes, piles):
    """finish_hand for any rules: every seat plays by score_any from its own view (its hand, the
    table, every pile), epsilon random moves; with exact_last the end of the hand is solved by
    minimax_any once the deck is empty and at most EXACT_PLIES cards are left."""
    n_pl = state[core.NPLAYERS]
    while True:
        if exact_last and state[DECK_POS] >= 40 and cards_in_hands(state) <= EXACT_PLIES:
            return minimax_any(state, equity, states, bufs, np.zeros(1, dtype=np.int64), 0)
        n = legal_moves(state, buf)
        k = 0
        if n > 1:
            if epsilon > 0.0 and rng_below(rng, 0, 1 << 20) < epsilon * (1 << 20):
                k = rng_below(rng, 0, n)
            else:
                p = state[TO_MOVE]
                seen = state[TABLE] | state[HANDS + p] | state[core.SHOWN]
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
            return outcome_any(state, equity)


@njit(cache=True, nogil=True)
def search_any(base, sizes, unseen, cards, masks, k, worlds, rollouts, equity, w, epsilon, exact_last,
               classic_caps, rng, totals):
    """search for any rules. `base` (hard.py's View.base) is the observer's world with every hidden
    card left out, the observer at seat 0 to move; a world deals `unseen` at random: sizes[s]
    cards to seat s = 1.., the rest to the deck in a random order. Adds the outcome_any of
    candidate j over worlds x rollouts to totals[j] (same worlds for every candidate)."""
    n_pl = base[core.NPLAYERS]
    unseen_ids = np.zeros(40, dtype=np.int64)
    n_unseen = card_ids(unseen, unseen_ids)
    world = np.zeros_like(base)
    sim = np.zeros_like(base)
    tmp = np.zeros_like(base)
    buf = np.empty((3, core.MAX_MOVES), dtype=np.int64)
    tbuf = np.empty((3, core.MAX_MOVES), dtype=np.int64)
    values = np.empty(core.MAX_MOVES)
    scratch = np.zeros(SCRATCH)
    bufs = np.empty((EXACT_PLIES + 1, 3, core.MAX_MOVES), dtype=np.int64)
    states = np.zeros((EXACT_PLIES + 1, core.STATE_SIZE), dtype=np.int64)
    wsizes = np.zeros(6, dtype=np.int64)
    piles = np.zeros(6, dtype=np.int64)
    for _ in range(worlds):
        world[:] = base
        shuffle_ids(unseen_ids, n_unseen, rng)
        at = 0
        for s in range(1, n_pl):
            hand = np.int64(0)
            for _i in range(sizes[s]):
                hand |= np.int64(1) << unseen_ids[at]
                at += 1
            world[HANDS + s] = base[HANDS + s] | hand      # the base holds the cards a seat showed
        pos = world[DECK_POS]
        for i in range(at, n_unseen):
            world[DECK + pos] = unseen_ids[i]
            pos += 1
        for j in range(k):
            for _r in range(rollouts):
                sim[:] = world
                flags = apply_move(sim, cards[j], masks[j])
                if flags & F_HAND_OVER:
                    totals[j] += outcome_any(sim, equity)
                else:
                    totals[j] += finish_hand_any(sim, buf, w, values, scratch, rng, epsilon, equity,
                                                 exact_last, classic_caps, states, bufs, tmp, tbuf,
                                                 wsizes, piles)


# ---- the observer's world from an observation (any layout) ---------------------------------
_BITS = np.int64(1) << np.arange(40, dtype=np.int64)


class View:
    """What the observer knows, as engine data: `base` (a core state with the rules header, the
    observer at seat 0 to move, seats in turn order after it, every hidden card left out),
    `sizes` (hand size per seat), `hidden` (the cards of each seat's hand no one has seen: its
    size less the cards it showed; what a world deals it), `unseen` (mask), `scores` (match
    totals per side, mine first).

    Under cirulla's hand bonuses the base also holds what the bonuses made public: each seat's
    shown cards in its hand, the bonus points, the joker's value, and the seats whose turn came
    in this deal (the observer, and every seat holding fewer cards than a deal gives: they have
    played in it), so the engine declares in a world only the bonuses of seats yet to play. A
    world does not use that a seat which played in this deal declared nothing (its dealt hand
    had no bonus)."""

    __slots__ = ("base", "sizes", "hidden", "unseen", "deck_left", "scores")

    def __init__(self, obs: np.ndarray, rules, header: np.ndarray):
        from scopa_env.observation import layout_for
        n = rules.players
        sl = layout_for(rules).slices
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
        hidden = sizes.copy()
        if rules.hand_bonus:
            if n == 2:
                shown = [mask("my_shown"), mask("opp_shown")]
                st[core.BONUS], st[core.BONUS + 1] = obs[sl["my_bonus"].start], obs[sl["opp_bonus"].start]
            else:
                shown = [int(x) for x in obs[sl["shown"]].reshape(n, 40).astype(np.int64) @ _BITS]
                st[core.BONUS:core.BONUS + n] = obs[sl["bonus"]]
            st[core.JOKER_VALUE] = obs[sl["joker_value"].start]
            declared = 1
            for s in range(n):
                st[core.SHOWN] |= shown[s]
                if s > 0:
                    st[HANDS + s] |= shown[s]
                    hidden[s] -= popcount(shown[s])
                    if sizes[s] < rules.hand_cards:
                        declared |= 1 << s
            st[core.DECLARED] = declared
        self.deck_left = int(obs[sl["deck_left"].start])
        st[DECK_POS] = 40 - self.deck_left
        st[core.PLAYS] = popcount(int(np.bitwise_or.reduce(st[PLAYED:PLAYED + n])))
        self.base, self.sizes, self.hidden, self.scores = st, sizes, hidden, scores
        self.unseen = mask("unseen")
        per_deal = n * rules.hand_cards
        if popcount(self.unseen) != int(hidden[1:n].sum()) + self.deck_left:
            raise ScopaError(f"inconsistent observation: {popcount(self.unseen)} unseen cards, other "
                             f"hands {int(hidden[1:n].sum())} not shown, deck {self.deck_left}; the "
                             f"levels deal the unseen cards to the other hands and the deck under "
                             f"these rules, so a set-up position that leaves cards out of the game "
                             f"is not played")
        if self.deck_left % per_deal:       # said to leave cards out, with every card placed (review)
            raise ScopaError(f"inconsistent observation: a deck of {self.deck_left} cards is no whole "
                             f"number of deals ({per_deal} cards each under these rules); the levels "
                             f"deal it out, so a set-up position with such a deck is not played")

    def holder(self) -> int | None:
        """With the deck empty and at most one other seat holding cards, that seat (-1: none):
        nothing is hidden any more. None otherwise."""
        if self.deck_left:
            return None
        holding = [s for s in range(1, len(self.hidden)) if self.hidden[s] > 0]
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
