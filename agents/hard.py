"""The `hard` level: determinized Monte Carlo from the observation alone.

RULES.md: it tracks every card that has left the deck, samples the cards it cannot see
consistently with what it knows, simulates each candidate play to the end of the hand and keeps
the play with the best average outcome. Here:

- the unseen cards are the observation's `unseen` slice (opponent's hand + deck); a world deals
  them uniformly at random: `opp_hand_size` to the opponent, the rest as the deck order;
- every legal move is played in the same worlds and the hand finished by the `normal` scoring
  kernel for both sides (agents/_rollout.py, compiled);
- in the last deal (empty deck) the opponent's hand is exactly the unseen cards, so the deal is
  solved exactly instead (alpha-beta, `_rollout.last_deal_values`);
- the outcome is the hand's point difference, or, when a hand can decide the match (a score
  within `endgame_margin` of the target), the chance of winning the match.

Strength settings: `worlds` (fixed number of worlds per decision) or, by default, a deterministic
budget of simulated plies (`budget`) shared between the candidates, so decisions late in the hand
(short rollouts) use more worlds; `rollouts` per world and candidate with `epsilon` random moves
in the rollouts; `time_budget` (seconds) stops early, which makes play depend on machine speed
and so is off by default. Same observation and seed, same move.
"""
from __future__ import annotations

import time

import numpy as np

from scopa_env.core import seed_rng
from scopa_env.errors import ScopaError
from scopa_env.observation import SLICES

from . import _rollout
from .base import Agent
from .normal import WEIGHTS


class HardAgent(Agent):
    name = "hard"

    def __init__(self, rules=None, seed: int = 0, worlds: int | None = None, budget: int = 12_000,
                 min_worlds: int = 8, max_worlds: int = 400, rollouts: int = 1, epsilon: float = 0.0,
                 time_budget: float | None = None, endgame_margin: int = 7, weights=None):
        super().__init__(rules, seed)
        for name, v in (("budget", budget), ("min_worlds", min_worlds), ("max_worlds", max_worlds),
                        ("rollouts", rollouts)):
            if int(v) < 1:
                raise ScopaError(f"hard option {name} must be >= 1, got {v!r}")
        if worlds is not None and int(worlds) < 1:
            raise ScopaError(f"hard option worlds must be >= 1, got {worlds!r}")
        if not 0.0 <= float(epsilon) <= 1.0:
            raise ScopaError(f"hard option epsilon must be in [0, 1], got {epsilon!r}")
        if time_budget is not None and float(time_budget) <= 0:
            raise ScopaError(f"hard option time_budget must be > 0 seconds, got {time_budget!r}")
        self.worlds = None if worlds is None else int(worlds)
        self.budget, self.min_worlds, self.max_worlds = int(budget), int(min_worlds), int(max_worlds)
        self.rollouts, self.epsilon = int(rollouts), float(epsilon)
        self.time_budget = None if time_budget is None else float(time_budget)
        self.endgame_margin = int(endgame_margin)
        self.weights = np.array(WEIGHTS if weights is None else weights, dtype=np.float64)
        if self.weights.shape != WEIGHTS.shape:
            raise ScopaError(f"hard weights need {WEIGHTS.size} values, got {self.weights.size}")
        self.last_worlds = 0

    def worlds_for(self, obs: np.ndarray, k: int) -> int:
        """Worlds for a decision among k moves: the fixed count, or budget / simulated plies."""
        if self.worlds is not None:
            return self.worlds
        plies = int(obs[SLICES["hand"]].sum()) + int(obs[SLICES["opp_hand_size"].start]) \
            + int(obs[SLICES["deck_left"].start])
        return max(self.min_worlds, min(self.max_worlds, self.budget // max(1, k * plies * self.rollouts)))

    def move_values(self, observation: dict) -> tuple[np.ndarray, np.ndarray]:
        """Legal action ids and their mean simulated outcome."""
        obs = observation["observation"]
        legal = self.legal_actions(observation)
        _rollout.check_observation(obs)
        k = len(legal)
        cards = self.actions.card[legal].astype(np.int64)
        masks = self.actions.captured[legal].astype(np.int64)
        scores = int(obs[SLICES["my_score"].start]), int(obs[SLICES["opp_score"].start])
        endgame = max(scores) + self.endgame_margin >= self.rules.target
        rng = np.zeros(1, dtype=np.int64)
        seed_rng(rng, 0, int(self.rng.integers(1, 2**62)))
        if int(obs[SLICES["deck_left"].start]) == 0:
            # nothing is hidden any more: the opponent holds exactly the unseen cards
            values = np.zeros(k)
            _rollout.last_deal_values(obs, self.rules.target, cards, masks, k, endgame, values)
            self.last_worlds = 1
            return legal, values
        totals = np.zeros(k)
        worlds = self.worlds_for(obs, k)
        if self.time_budget is None:
            _rollout.search(obs, self.rules.target, cards, masks, k, worlds, self.rollouts, endgame,
                            self.weights, self.epsilon, rng, totals)
            done = worlds
        else:
            deadline = time.perf_counter() + self.time_budget
            done = 0
            while done < worlds and (done == 0 or time.perf_counter() < deadline):
                step = min(4, worlds - done)
                _rollout.search(obs, self.rules.target, cards, masks, k, step, self.rollouts, endgame,
                                self.weights, self.epsilon, rng, totals)
                done += step
        self.last_worlds = done
        return legal, totals / (done * self.rollouts)

    def act(self, observation: dict) -> int:
        legal = self.legal_actions(observation)
        if len(legal) == 1:
            self.last_worlds = 0
            return int(legal[0])
        legal, values = self.move_values(observation)
        return int(legal[int(np.argmax(values))])
