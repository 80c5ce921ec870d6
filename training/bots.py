"""Rule-bot opponents inside the batched environment (training only).

The `normal` level (agents/normal.py) scores each legal move with a compiled kernel from what the
mover may know. Here the same kernel runs over many games at once, reading each mover's view
straight from the engine state (its hand, the table, both piles, the cards it has not seen), so a
share of training games can be played against it without a Python call per move. It picks the
best-scoring move, the first in the env's legal order on ties.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from agents.normal import WEIGHTS, new_scratch, score_moves
from scopa_env import core

_ALL = (np.int64(1) << 40) - 1


@njit(cache=True)
def _normal_choices(states, rows, legal_card, legal_captured, legal_count, w, out, scores, scratch):
    for j in range(rows.shape[0]):
        b = rows[j]
        st = states[b]
        p = st[core.TO_MOVE]
        o = 1 - p
        hand = st[core.HANDS + p]
        table = st[core.TABLE]
        my_pile = st[core.PILES + p]
        opp_pile = st[core.PILES + o]
        unseen = ~(hand | table | my_pile | opp_pile) & _ALL
        lc = st[core.LAST_CAPTURER]
        last = 0 if lc < 0 else (1 if lc == p else 2)
        n = legal_count[b]
        score_moves(hand, table, my_pile, opp_pile, unseen, core.popcount(st[core.HANDS + o]),
                    40 - st[core.DECK_POS], last, legal_card[b], legal_captured[b], n, w, scores,
                    scratch)
        best = 0
        for i in range(1, n):
            if scores[i] > scores[best]:
                best = i
        out[j] = best


class NormalBot:
    """normal-level moves (legal-move indices) for chosen games of a BatchedScopa."""

    def __init__(self):
        self.weights = WEIGHTS.astype(np.float64)
        self.scratch = new_scratch()
        self.scores = np.zeros(1024, dtype=np.float64)

    def choose(self, env, rows: np.ndarray) -> np.ndarray:
        out = np.zeros(len(rows), dtype=np.int64)
        if len(rows):
            _normal_choices(env.states, rows.astype(np.int64), env.legal_card, env.legal_captured,
                            env.legal_count, self.weights, out, self.scores, self.scratch)
        return out
