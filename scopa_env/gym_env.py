"""Gymnasium environment `Scopa-v0`: one learner against a built-in opponent.

The learner sees its own observation vector (int8[291], scopa_env/observation.py); the legal
moves come as `info["action_mask"]` and from `action_masks()` (the sb3-contrib convention),
int8[n_actions]. The opponent plays its moves inside `step()` until it is the learner's turn
again or the episode is over, so the reward of a step includes what happened on the
opponent's moves.

Options: `opponent` (an Agent instance, or a name for `agents.make_agent`; default "normal"
when that level exists, else "random"), `napola`, `target`, `episode`, `reward` (as in
scopa_env/aec.py), `learner_seat` (0, 1, or None: drawn from the env's generator at every new
match), `illegal_reward` (-1.0), `render_mode` ("human" / "ansi", shown from the learner's seat).

Seeding follows Gymnasium: `reset(seed=s)` seeds `self.np_random`, which deals the matches, picks
the learner's seat (when not fixed) and seeds the opponent; unseeded, it starts from OS entropy.

An illegal learner action ends the episode with `illegal_reward` and the reason in
`info["illegal_move"]` (the PettingZoo convention; Gymnasium has none); stepping again before
`reset()` raises ScopaError. An illegal opponent action is a bug in the opponent: ScopaError.
"""
from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces

from . import core
from .actions import action_table
from .aec import render_mode_text
from .batched import check_episode_reward
from .errors import ScopaError
from .game import Game
from .observation import OBS_HIGH, OBS_SIZE, observe
from .rules import Rules


class ScopaGymEnv(gymnasium.Env):
    metadata = {"render_modes": ["human", "ansi"], "render_fps": 1}

    def __init__(self, opponent=None, napola: bool = False, target: int = 11,
                 episode: str = "match", reward: str | None = None,
                 learner_seat: int | None = None, illegal_reward: float = -1.0,
                 render_mode: str | None = None):
        self.rules = Rules(napola=napola, target=target)
        self.episode = episode
        self.reward_kind = check_episode_reward(episode, reward)
        if learner_seat not in (None, 0, 1):
            raise ScopaError(f"learner_seat must be 0, 1 or None, got {learner_seat!r}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ScopaError(f"render_mode must be one of {self.metadata['render_modes']} or "
                             f"None, got {render_mode!r}")
        self.render_mode = render_mode
        self.learner_seat_option = learner_seat
        self.illegal_reward = float(illegal_reward)
        self.table = action_table(self.rules)
        self.observation_space = spaces.Box(0, OBS_HIGH, shape=(OBS_SIZE,), dtype=np.int8)
        self.action_space = spaces.Discrete(self.table.size)
        self.opponent = self._make_opponent(opponent)
        self.game: Game | None = None
        self.seat = 0
        self._legal = np.zeros(0, dtype=np.int64)
        self._over = True

    def _make_opponent(self, opponent):
        if opponent is not None and not isinstance(opponent, str):
            if not callable(getattr(opponent, "act", None)):
                raise ScopaError(
                    f"opponent must be an agent with act() or a name, got {opponent!r}")
            return opponent
        # imported here, not at the top: agents/ sits above scopa_env in the layering
        from agents import REGISTRY, make_agent
        name = opponent if opponent is not None else (
            "normal" if "normal" in REGISTRY else "random")
        return make_agent(name, rules=self.rules, seed=0)

    # ---- Gymnasium API ----------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        g = self.game
        if self.episode == "hand" and seed is None and g is not None and g.phase == core.HAND_OVER:
            g.next_hand()
        else:
            self.game = Game(self.rules, seed=int(self.np_random.integers(2**62)))
            seat = self.learner_seat_option
            self.seat = int(self.np_random.integers(2)) if seat is None else seat
            self.opponent.reset(seed=int(self.np_random.integers(2**62)))
        self._over = False
        self._play_opponent()
        info = {"action_mask": self.action_masks(), "learner_seat": self.seat}
        return observe(self.game.state, self.seat), info

    def step(self, action):
        if self._over:
            raise ScopaError("the episode is over: call reset() before step()")
        g = self.game
        try:
            a = int(action)
        except (TypeError, ValueError):
            raise ScopaError(f"an action is an integer id, got {action!r}") from None
        legal = g.legal_action_ids()
        if a not in legal:
            self._over = True
            what = self.table.describe(a) if 0 <= a < self.table.size else "outside the table"
            moves = "; ".join(f"{i} {self.table.describe(i)}" for i in legal)
            info = {"action_mask": np.zeros(self.table.size, dtype=np.int8),
                    "learner_seat": self.seat,
                    "illegal_move": f"illegal move: action {a} ({what}) is not legal now "
                                    f"(legal: {moves})"}
            return observe(g.state, self.seat), self.illegal_reward, True, False, info
        info = {"learner_seat": self.seat}
        reward = self._apply(a, info)
        if not self._over:
            reward += self._play_opponent(info)
        info["action_mask"] = self.action_masks()
        if self.render_mode == "human":
            self.render()
        return observe(g.state, self.seat), reward, self._over, False, info

    def action_masks(self) -> np.ndarray:
        """int8[n_actions]: 1 for the learner's legal moves (all zeros once the episode is over)."""
        mask = np.zeros(self.table.size, dtype=np.int8)
        if not self._over and self.game.to_move == self.seat:
            mask[self.game.legal_action_ids()] = 1
        return mask

    def render(self):
        return render_mode_text(self.render_mode, self.game, self.seat)

    # ---- internals ----------------------------------------------------------------------------
    def _apply(self, action: int, info: dict) -> float:
        """Play `action` for the player to move; returns the learner's reward for it."""
        g = self.game
        flags = core.apply_move(g.state, self.table.card[action], self.table.captured[action])
        if not flags & core.F_HAND_OVER:
            return 0.0
        score = g.hand_score()
        info["hand_score"], info["scores"] = score, g.scores
        reward = 0.0
        if self.reward_kind == "points":
            reward = float(score[self.seat]["total"] - score[1 - self.seat]["total"])
        if flags & core.F_MATCH_OVER:
            info["winner"] = g.winner
            if self.reward_kind == "win":
                reward = 1.0 if g.winner == self.seat else -1.0
        if self.episode == "hand" or flags & core.F_MATCH_OVER:
            self._over = True
        else:
            g.next_hand()
        return reward

    def _play_opponent(self, info: dict | None = None) -> float:
        """Opponent moves until the learner is to move or the episode is over."""
        g = self.game
        reward = 0.0
        while not self._over and g.to_move != self.seat:
            opp = 1 - self.seat
            a = int(self.opponent.act(g.observation(opp)))
            legal = g.legal_action_ids()
            if a not in legal:
                raise ScopaError(f"opponent {getattr(self.opponent, 'name', self.opponent)!r} "
                                 f"chose illegal action {a}")
            reward += self._apply(a, info if info is not None else {})
        return reward


if "Scopa-v0" not in gymnasium.registry:
    gymnasium.register(id="Scopa-v0", entry_point="scopa_env.gym_env:ScopaGymEnv")
