"""Rule-bot opponents inside the batched environment (training only).

`BotSeats` gives a share of the training games (config `bot_games`) a rule-bot opponent in one
seat: game b < n_bot has a bot against the learner (DMC: the bot in seat b % 2; PPO: the learner in
seat b % sides, the bot in the others), of level `bot_levels[(b // 2) % len(bot_levels)]`
(so every level sits in both seats: the config asks for at least 2 bot games per level). The
bots' moves are made here, never trained on.

`easy` (agents/easy.py) captures when it can, choosing uniformly among the captures, else lays a
uniformly random card; here it draws from the training run's generator, so a run (and its
resume) stays reproducible.

The `normal` level (agents/normal.py) scores each legal move with a compiled kernel from what the
mover may know. Here the same kernel runs over many games at once, reading each mover's view
straight from the engine state (its hand, the table, both piles, the cards it has not seen), so a
share of training games can be played against it without a Python call per move. It picks the
best-scoring move, the first in the env's legal order on ties. So it is the level's judgement,
not quite the level: the level takes the lowest action id on ties, which is not always the first
in the env's order, and counts out the last 4 cards of a hand exactly, which this bot does not.
Under other 2-player rules it scores the env's legal moves (the variant's captures) with this
classic judgement (`score_moves`: classic card values, a sweep is a scopa, the reply feared from
classic captures), where the level uses its generalised judgement (`_scoring.score_any`): a
sparring partner near the level, not the level. So under cirulla it takes the cards a hand bonus
showed for unseen ones (the classic judgement has no shown cards: left out of `unseen`, as the
observation leaves them, they would count as held by no one), where the level counts them as
held for sure.
The periodic and final evaluations of a run play the level itself (agents/arena.py).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from agents.normal import WEIGHTS, new_scratch, score_moves
from scopa_env import core

from .config import bot_game_count

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
                    40 - st[core.DECK_POS], last, st[core.NAPOLA], legal_card[b], legal_captured[b], n, w, scores,
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
        self.scores = np.empty(0, dtype=np.float64)

    def choose(self, env, rows: np.ndarray) -> np.ndarray:
        out = np.zeros(len(rows), dtype=np.int64)
        width = env.legal_card.shape[1]          # widens with the env (free_capture: thousands)
        if self.scores.shape[0] < width:
            self.scores = np.empty(width, dtype=np.float64)
        if len(rows):
            _normal_choices(env.states, rows.astype(np.int64), env.legal_card, env.legal_captured,
                            env.legal_count, self.weights, out, self.scores, self.scratch)
        return out


class EasyBot:
    """easy-level moves (legal-move indices) for chosen games of a BatchedScopa."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng

    def choose(self, env, rows: np.ndarray) -> np.ndarray:
        if not len(rows):
            return np.zeros(0, dtype=np.int64)
        n = env.legal_count[rows].astype(np.int64)
        width = env.legal_captured.shape[1]
        live = np.arange(width)[None, :] < n[:, None]
        takes = (env.legal_captured[rows] != 0) & live
        k = takes.sum(axis=1)
        pool = np.where(k[:, None] > 0, takes, live)
        size = np.where(k > 0, k, n)
        r = (self.rng.random(len(rows)) * size).astype(np.int64)   # the r-th move of the pool
        return np.argmax(np.cumsum(pool, axis=1) > r[:, None], axis=1).astype(np.int64)


class BotSeats:
    """Which games have a rule bot, in which seat, of which level; `play` makes their moves."""

    def __init__(self, bot_games: float, levels: tuple, num_envs: int, rng: np.random.Generator):
        n_bot = bot_game_count(bot_games, num_envs)
        b = np.arange(num_envs)
        self.seat = np.where(b < n_bot, b % 2, -1)
        self.level = np.where(b < n_bot, (b // 2) % max(len(levels), 1), -1)
        self.bots = [EasyBot(rng) if lv == "easy" else NormalBot() for lv in levels] if n_bot else []

    def play(self, env, idx: np.ndarray, where: np.ndarray | None = None) -> None:
        """Put the bots' moves into idx for the games where a bot is to move: by default where
        the mover sits in `seat`; `where` (a mask over games) overrides that (PPO seats its
        learner in b % 2 and the bot opposite)."""
        moving = env.to_move == self.seat if where is None else where
        for k, bot in enumerate(self.bots):
            on = moving & (self.level == k)
            rows = np.flatnonzero(on)
            if len(rows):
                idx[rows] = bot.choose(env, rows)
