"""The `hard` level: determinized Monte Carlo from the observation alone.

RULES.md: it tracks every card that has left the deck, samples the cards it cannot see
consistently with what it knows, simulates each candidate play to the end of the hand and keeps
the play with the best average outcome. Here:

- the unseen cards are the observation's `unseen` slice (opponent's hand + deck); a world deals
  them uniformly at random: `opp_hand_size` to the opponent, the rest as the deck order;
- option `infer` (off by default: 300 matches against normal measured no gain, +0.34 with
  and +0.37 without): hard rebuilds the opponent's last move and the table it was made on from
  its own previous observation, its own move and the new observation, and keeps a sampled world
  with probability exp(-regret / infer_tau), where regret is how much worse that move scores than
  the opponent's best move with the sampled hand under the normal level's judgement (rejection
  sampling, at most `infer_tries` draws per world). Nothing hidden is read;
- every legal move is played in the same worlds and the hand finished by the `normal` scoring
  kernel for both sides (agents/_rollout.py, compiled);
- in the last deal (empty deck) the opponent's hand is exactly the unseen cards, so the deal is
  solved exactly instead (alpha-beta, `_rollout.last_deal_values`);
- the outcome is the hand's point difference, or, when a hand can decide the match (a score
  within `endgame_margin` of the target), the chance of winning the match.

Strength settings: `worlds` (fixed number of worlds per decision) or, by default, a deterministic
budget of simulated plies (`budget`) shared between the candidates, so decisions late in the hand
(short rollouts) use more worlds (30,000 plies measured no stronger than 12,000; default 9,000
for the speed target); `rollouts` per world and candidate with `epsilon` random moves in the
rollouts; `exact_last_deal` plays the rollouts' last deal perfectly (off: about twice the time,
no measured gain); `time_budget` (seconds) stops early, which makes play depend on machine speed
and so is off by default. Same observation and seed, same move.

Any other rules (variants, 3 players, pairs; `_rollout.search_any`): the world is rebuilt from
the observation with the rules header (`Rules.to_header()`, the slots core.init_match_rules
reads), so the rollouts play the actual rules through the engine's kernels; a world deals the
unseen cards to every other seat (each seat's hand size is in the observation) and the rest to the
deck; every seat is played by the generalised normal judgement (`_rollout.score_any`), and the
outcome is my side's hand points minus the best other side's (partners pooled by the engine).
When nothing is hidden any more (deck empty and at most one other seat holding cards, at most
`_rollout.EXACT_PLIES` cards left) the rest of the hand is solved exactly, other sides assumed
against me. `infer` is for the classic rules only (a ScopaError otherwise).
"""
from __future__ import annotations

import time

import numpy as np

from scopa_env import core
from scopa_env.core import seed_rng
from scopa_env.errors import ScopaError
from scopa_env.observation import SLICES

from . import _rollout
from .base import Agent
from .normal import WEIGHTS, obs_mask, obs_scalar


class HardAgent(Agent):
    name = "hard"

    def __init__(self, rules=None, seed: int = 0, worlds: int | None = None, budget: int = 9_000,
                 min_worlds: int = 8, max_worlds: int = 400, rollouts: int = 1, epsilon: float = 0.0,
                 time_budget: float | None = None, endgame_margin: int = 7, weights=None,
                 exact_last_deal: bool = False, infer: bool = False, infer_tau: float = 0.3,
                 infer_tries: int = 30):
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
        self.exact_last_deal = bool(exact_last_deal)
        self.infer, self.infer_tau, self.infer_tries = bool(infer), float(infer_tau), int(infer_tries)
        if self.infer_tau <= 0 or self.infer_tries < 1:
            raise ScopaError("hard options infer_tau must be > 0 and infer_tries >= 1")
        self.weights = np.array(WEIGHTS if weights is None else weights, dtype=np.float64)
        if self.weights.shape != WEIGHTS.shape:
            raise ScopaError(f"hard weights need {WEIGHTS.size} values, got {self.weights.size}")
        self.last_worlds = 0
        self._classic = _rollout.classic_rules(self.rules)
        if not self._classic:
            if self.infer:
                raise ScopaError("hard option infer is implemented for the classic 2-player rules only")
            self._header = np.asarray(self.rules.to_header(), dtype=np.int64)
            self._caps = _rollout.classic_captures(self.rules)

    def worlds_for(self, obs: np.ndarray, k: int) -> int:
        """Worlds for a decision among k moves: the fixed count, or budget / simulated plies."""
        plies = int(obs[SLICES["hand"]].sum()) + int(obs[SLICES["opp_hand_size"].start]) \
            + int(obs[SLICES["deck_left"].start])
        return self._budget_worlds(plies, k)

    def _budget_worlds(self, plies: int, k: int) -> int:
        """The fixed count, or budget / (k candidates x plies left x rollouts), clipped."""
        if self.worlds is not None:
            return self.worlds
        return max(self.min_worlds, min(self.max_worlds, self.budget // max(1, k * plies * self.rollouts)))

    def _move_values_any(self, observation: dict) -> tuple[np.ndarray, np.ndarray]:
        """move_values under any rules (see the module text)."""
        view = _rollout.View(observation["observation"], self.rules, self._header)
        legal = self.legal_actions(observation)
        k = len(legal)
        cards = self.actions.card[legal].astype(np.int64)
        masks = _rollout.resolve_masks(self.actions, legal, int(view.base[core.TABLE]))
        endgame = max(view.scores) + self.endgame_margin >= self.rules.target
        rng = np.zeros(1, dtype=np.int64)
        seed_rng(rng, 0, int(self.rng.integers(1, 2**62)))
        holder = view.holder()
        if holder is not None and view.cards_left() <= _rollout.EXACT_PLIES:
            values = np.zeros(k)
            _rollout.exact_values_any(view.base, holder, view.unseen, cards, masks, k, endgame, values)
            self.last_worlds = 1
            return legal, values
        totals = np.zeros(k)
        worlds = self._budget_worlds(view.cards_left() + view.deck_left, k)
        deadline = None if self.time_budget is None else time.perf_counter() + self.time_budget
        done = 0
        while done < worlds and (deadline is None or done == 0 or time.perf_counter() < deadline):
            step = worlds - done if deadline is None else min(4, worlds - done)
            _rollout.search_any(view.base, view.sizes, view.unseen, cards, masks, k, step, self.rollouts,
                                endgame, self.weights, self.epsilon, self.exact_last_deal, self._caps,
                                rng, totals)
            done += step
        self.last_worlds = done
        return legal, totals / (done * self.rollouts)

    def move_values(self, observation: dict) -> tuple[np.ndarray, np.ndarray]:
        """Legal action ids and their mean simulated outcome."""
        if not self._classic:
            return self._move_values_any(observation)
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
        ctx = self.opponent_move(obs) if self.infer else np.zeros(_rollout.CTX_SIZE, dtype=np.int64)
        totals = np.zeros(k)
        worlds = self.worlds_for(obs, k)
        if self.time_budget is None:
            _rollout.search(obs, self.rules.target, cards, masks, k, worlds, self.rollouts, endgame,
                            self.weights, self.epsilon, self.exact_last_deal, ctx, self.infer_tau,
                            self.infer_tries, rng, totals)
            done = worlds
        else:
            deadline = time.perf_counter() + self.time_budget
            done = 0
            while done < worlds and (done == 0 or time.perf_counter() < deadline):
                step = min(4, worlds - done)
                _rollout.search(obs, self.rules.target, cards, masks, k, step, self.rollouts, endgame,
                                self.weights, self.epsilon, self.exact_last_deal, ctx, self.infer_tau,
                                self.infer_tries, rng, totals)
                done += step
        self.last_worlds = done
        return legal, totals / (done * self.rollouts)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._previous = None      # (observation, my move) of my last decision in this match

    def opponent_move(self, obs: np.ndarray) -> np.ndarray:
        """The opponent's move since my last decision and where it was made (the ctx of
        _rollout.search), rebuilt from my previous observation, my move and this observation;
        all zeros when there is nothing to learn (new hand, a deal in between, a forced move)."""
        ctx = np.zeros(_rollout.CTX_SIZE, dtype=np.int64)
        if self._previous is None:
            return ctx
        prev, my_card, my_captured = self._previous
        if obs_mask(obs, "my_played") != obs_mask(prev, "my_played") | (1 << my_card):
            return ctx                                   # another hand
        if obs_scalar(obs, "deck_left") != obs_scalar(prev, "deck_left"):
            return ctx                                   # a deal: its last card was forced
        new = obs_mask(obs, "opp_played") & ~obs_mask(prev, "opp_played")
        if new == 0 or new & (new - 1):
            return ctx
        card = new.bit_length() - 1
        before = obs_mask(prev, "table")
        table = before & ~my_captured if my_captured else before | (1 << my_card)
        now = obs_mask(obs, "table")
        captured = 0 if now == table | (1 << card) else table & ~now
        their_pile = obs_mask(obs, "opp_pile") & ~(captured | (1 << card)) if captured else obs_mask(obs, "opp_pile")
        last = obs_scalar(prev, "last_capturer")        # mine: 0 nobody, 1 me, 2 them
        if my_captured:
            last = 1
        theirs = {0: 0, 1: 2, 2: 1}[last]
        ctx[:] = (1, table, card, captured, their_pile, theirs)
        return ctx

    def act(self, observation: dict) -> int:
        legal = self.legal_actions(observation)
        if len(legal) == 1:
            self.last_worlds = 0
            action = int(legal[0])
        else:
            legal, values = self.move_values(observation)
            action = int(legal[int(np.argmax(values))])
        if not self._classic:
            return action
        card, captured = self.actions.decode(action)
        self._previous = (observation["observation"].copy(), card, captured)
        return action
