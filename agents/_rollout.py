"""Compiled determinized Monte Carlo for the hard level: worlds rebuilt from an observation.

Everything here starts from the observation vector alone. `build_base` writes what the player
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
                            LINES, NLINES, PHASE, PILES, PLAYED, SCOPE, SCORES, TABLE, TO_MOVE,
                            WINNER, apply_move, legal_moves, popcount, rng_below, seed_rng)
from scopa_env.errors import ScopaError
from scopa_env.observation import SLICES

from .normal import SCRATCH, score_moves

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
def finish_hand(state, buf, w, values, scratch, rng, epsilon):
    """Play the hand to its end, both sides by the normal kernel (epsilon: random moves)."""
    while True:
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
            return


@njit(cache=True)
def outcome(state, endgame):
    """Seat 0's result of a finished hand: point difference, or in the endgame the chance of
    winning the match (1 or 0 when it ended, else a guess from the score difference) plus a
    hundredth of the point difference to break ties."""
    diff = state[LINES + LINE_TOTAL] - state[LINES + NLINES + LINE_TOTAL]
    if not endgame:
        return float(diff)
    if state[PHASE] == core.MATCH_OVER:
        win = 1.0 if state[WINNER] == 0 else 0.0
    else:
        win = 0.5 + min(0.4, max(-0.4, 0.08 * (state[SCORES] - state[SCORES + 1])))
    return win + 0.01 * diff


@njit(cache=True)
def search(obs, target, cards, masks, k, worlds, rollouts, endgame, w, epsilon, rng, totals):
    """Add to totals[j] the outcomes of candidate j (cards[j], masks[j]) over `worlds` sampled
    worlds x `rollouts` rollouts. rng: a one-slot generator state, advanced in place."""
    base = np.zeros(core.STATE_SIZE, dtype=np.int64)
    unseen = build_base(obs, target, base)
    unseen_ids = np.zeros(40, dtype=np.int64)
    n_unseen = 0
    for c in range(40):
        if (unseen >> c) & 1:
            unseen_ids[n_unseen] = c
            n_unseen += 1
    opp_n = np.int64(obs[_OPP_HAND_SIZE])
    world = np.zeros_like(base)
    sim = np.zeros_like(base)
    buf = np.zeros((3, core.MAX_MOVES), dtype=np.int64)
    values = np.zeros(core.MAX_MOVES)
    scratch = np.zeros(SCRATCH)
    for _ in range(worlds):
        sample_world(base, unseen_ids, n_unseen, opp_n, rng, world)
        for j in range(k):
            for _r in range(rollouts):
                sim[:] = world
                flags = apply_move(sim, cards[j], masks[j])
                if not (flags & F_HAND_OVER):
                    finish_hand(sim, buf, w, values, scratch, rng, epsilon)
                totals[j] += outcome(sim, endgame)


def check_observation(obs: np.ndarray) -> None:
    """The observation must describe a world the kernels can finish: unseen = opponent hand +
    deck, and the deck a whole number of 2-player deals (the kernels trust their input)."""
    n_unseen = int(obs[SLICES["unseen"]].sum())
    deck = int(obs[_DECK_LEFT])
    if n_unseen != int(obs[_OPP_HAND_SIZE]) + deck or deck % 6:
        raise ScopaError(f"inconsistent observation: {n_unseen} unseen cards, opponent hand "
                         f"{int(obs[_OPP_HAND_SIZE])}, deck {deck} (a multiple of 6)")
