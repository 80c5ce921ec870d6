"""Exact play when nothing is hidden any more: the value of a finished hand (`outcome_any`) and
minimax over the cards left (`minimax_any`, at most EXACT_PLIES plies), under any rules. The
normal level counts out its last cards with it, the hard level and the learned agent their last
deal, and the rollouts of agents/_rollout.py their last deal with exact_last_deal.
"""
from __future__ import annotations

import functools

import numpy as np
from numba import njit

from scopa_env import core
from scopa_env.core import (F_HAND_OVER, HANDS, LINE_TOTAL, LINES, NLINES, PHASE, SCORES, TO_MOVE, WINNER,
                            apply_move, legal_moves, popcount)


POINTS = np.zeros((0, 0))     # an empty equity table: a finished hand is worth its point difference


EQUITY_SLOPE = 0.08     # linear_equity: the chance of the match a point of difference is worth


@functools.lru_cache(maxsize=None)
def linear_equity(target: int) -> np.ndarray:
    """The levels' guess of the chance of winning the match from the scores (mine, the best other
    side's) after a hand: 0.5 + 0.08 a point of difference, within 0.1 and 0.9, whatever the
    distance to the target; for scores 0..target + 40 (outcome_any clips a score to the table).
    agents/_equity.py counts the chance out instead (hard option match_equity). Not to be
    written to: one table per target, shared."""
    s = np.arange(target + 41)
    return np.ascontiguousarray(0.5 + np.minimum(0.4, np.maximum(-0.4, EQUITY_SLOPE * (s[:, None] - s[None, :]))))


@njit(cache=True)
def outcome_any(state, equity):
    """Side 0's result of a finished hand: its points minus the best other side's (plus or minus
    target + 20 when the hand ended the match under napoleone "win" or capotto); or, with an
    equity table (when the hand can decide the match: not POINTS), the chance of winning the
    match (1 or 0 when it ended, else equity[my score, the best other side's score], each clipped
    to the table) plus a hundredth of the point difference to break ties. With two sides: seat
    0's point difference."""
    n_pl = state[core.NPLAYERS]
    sides = n_pl if n_pl <= 3 else n_pl // 2
    other = -1
    other_score = -1
    for s in range(1, sides):
        other = max(other, state[LINES + s * NLINES + LINE_TOTAL])
        other_score = max(other_score, state[SCORES + s])
    diff = state[LINES + LINE_TOTAL] - other
    if equity.shape[0] == 0:
        if state[PHASE] == core.MATCH_OVER and (state[core.NAPOLEONE] == core.NAPOLEONE_WIN or
                                                state[core.CAPOTTO] > 0):
            # a match ended far from the target (napoleone "win", capotto) is won or lost
            # outright: counted as its points alone, all ten denari given away looked harmless
            bonus = float(state[core.TARGET] + 20)
            return float(diff) + (bonus if state[WINNER] == 0 else -bonus)
        return float(diff)
    if state[PHASE] == core.MATCH_OVER:
        win = 1.0 if state[WINNER] == 0 else 0.0
    else:
        top = equity.shape[0] - 1
        win = equity[min(state[SCORES], top), min(other_score, top)]
    return win + 0.01 * diff


@njit(cache=True)
def minimax_any(root, equity, states, bufs, nodes, cap):
    """Value for side 0 of the rest of a hand with no hidden card: alpha-beta over every move,
    side 0 maximising outcome_any, every other side minimising it (the paranoid assumption; exact
    with two sides, where it is the classic last-deal solver). Needs at most states.shape[0] - 1
    plies left. Iterative (an explicit stack of states; numba's cache cannot reload recursive
    functions). nodes[0] counts the moves it plays; with cap > 0 it gives up (NaN) past cap."""
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
            nodes[0] += 1
            if cap > 0 and nodes[0] > cap:
                return np.nan
            flags = apply_move(states[d + 1], bufs[d, 0, i], bufs[d, 1, i])
            if flags & F_HAND_OVER:
                v = outcome_any(states[d + 1], equity)
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
# the count-out of a level's move gives up past this many positions (exact_values_any's cap):
# with free_capture a table of 20-30 cards has hundreds to thousands of moves a ply, and one
# decision searched for minutes whatever time_budget said; the levels then judge as before the
# count-out (hard: its search; normal: its scoring)
EXACT_NODES = 1_000_000


@njit(cache=True)
def cards_in_hands(state):
    t = 0
    for s in range(state[core.NPLAYERS]):
        t += popcount(state[HANDS + s])
    return t


# nogil: see agents/_rollout.py, above hand_weights
@njit(cache=True, nogil=True)
def exact_values_any(base, holder, unseen, cards, masks, k, equity, out, against_easy=False,
                     cap=0):
    """out[j] = exact value (minimax_any; with against_easy, 2 players: expectimax_easy) of
    candidate j when nothing is hidden any more: the deck is empty and seat `holder` (or nobody,
    holder < 0) holds every unseen card. Returns False if the solver played more than `cap`
    moves in all (cap > 0; out is then incomplete), else True."""
    nodes = np.zeros(1, dtype=np.int64)
    state = base.copy()
    if holder > 0:
        state[HANDS + holder] |= unseen     # beside the cards it showed (hand bonuses)
    if cards_in_hands(state) > EXACT_PLIES + 1:
        # past its stack, minimax_any gave every move the unset +-1e18 (set-up positions with
        # more cards than a dealt last deal holds); callers check cards left first
        raise ValueError("more cards left in the hands than the exact solvers search")
    bufs = np.empty((EXACT_PLIES + 1, 3, core.MAX_MOVES), dtype=np.int64)
    states = np.zeros((EXACT_PLIES + 1, core.STATE_SIZE), dtype=np.int64)
    for j in range(k):
        child = state.copy()
        flags = apply_move(child, cards[j], masks[j])
        if flags & F_HAND_OVER:
            out[j] = outcome_any(child, equity)
        elif against_easy:
            out[j] = expectimax_easy(child, equity, states, bufs, nodes, cap)
        else:
            out[j] = minimax_any(child, equity, states, bufs, nodes, cap)
        if cap > 0 and nodes[0] > cap:
            return False
    return True


@njit(cache=True)
def expectimax_easy(root, equity, states, bufs, nodes, cap):
    """Value for seat 0 (2 players) of the rest of a hand with no hidden card when the other seat
    plays like the easy level: a capture chosen uniformly at random whenever it has one, else a
    card laid at random; seat 0 maximises outcome_any. The mean over easy's choices instead of
    minimax_any's worst one: against easy the paranoid value gives away points (docs/experiments.md, "Opponent
    modelling"). Iterative like minimax_any; at most states.shape[0] - 1 plies left. No pruning
    (a mean needs every branch): nodes[0] counts the moves it plays, and with cap > 0 it gives up
    (NaN) past cap, as minimax_any does."""
    depth_max = states.shape[0] - 1
    n = np.zeros(depth_max + 1, dtype=np.int64)
    nxt = np.zeros(depth_max + 1, dtype=np.int64)
    acc = np.zeros(depth_max + 1)
    cnt = np.zeros(depth_max + 1)
    takes = np.zeros(depth_max + 1, dtype=np.int64)     # at easy's nodes: has it a capture
    states[0, :] = root
    d = 0
    fresh = True
    v = 0.0
    while d >= 0:
        if fresh:
            n[d] = legal_moves(states[d], bufs[d])
            nxt[d] = 0
            cnt[d] = 0.0
            acc[d] = -1e18 if states[d, TO_MOVE] == 0 else 0.0
            takes[d] = 0
            if states[d, TO_MOVE] != 0:
                for j in range(n[d]):
                    if bufs[d, 1, j] != 0:
                        takes[d] = 1
            fresh = False
        if nxt[d] < n[d] and d < depth_max:
            i = nxt[d]
            nxt[d] += 1
            if takes[d] and bufs[d, 1, i] == 0:
                continue                  # easy never lays a card when it can capture
            states[d + 1, :] = states[d]
            nodes[0] += 1
            if cap > 0 and nodes[0] > cap:
                return np.nan
            flags = apply_move(states[d + 1], bufs[d, 0, i], bufs[d, 1, i])
            if not flags & F_HAND_OVER:
                d += 1
                fresh = True
                continue
            v = outcome_any(states[d + 1], equity)
        else:
            v = acc[d] if states[d, TO_MOVE] == 0 else acc[d] / max(cnt[d], 1.0)
            d -= 1
            if d < 0:
                break
        if states[d, TO_MOVE] == 0:
            acc[d] = max(acc[d], v)
        else:
            acc[d] += v
            cnt[d] += 1.0
    return v
