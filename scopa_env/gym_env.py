"""Gymnasium environment `Scopa-v0`: one learner, every other seat played by built-in agents.

The learner sees its own observation vector (scopa_env/observation.py: int8[291] with two
players, 374 under cirulla's hand bonuses); the legal moves come as `info["action_mask"]` and
from `action_masks()` (the sb3-contrib convention), int8[n_actions] over the rules' action
table. The other seats play their moves inside `step()` until it is the learner's turn again or
the episode is over, so the reward of a step includes what happened on their moves.

Options:
- `rules` (a Rules object or a preset name; default classic), `napola`, `target`, `episode`,
  `reward` (as in scopa_env/aec.py; the learner gets its side's reward there: zero-sum over the
  sides, shared by partners).
- `opponent`: who plays the seats of the other sides: an Agent instance (anything with `act()`
  and `reset(seed=...)`), or a name for `agents.make_agent` (one agent per seat, each seeded on
  its own). Default "normal" when that level exists, else "random". An instance is copied
  (copy.deepcopy) for each env, and the user's object is left as it was: the env reseeds its
  agents at every match, and one object shared by the sub-envs of gymnasium.make_vec (which
  hands each the same instance) made a seeded sub-env's match depend on the others (review). The
  copy plays every such seat, handed each seat's own observation; one whose `remembers_match` is
  true (hard with infer, a learned agent with search: they rebuild the match from their own
  successive observations) is copied once per seat instead, so it never mixes two seats.
  `env.opponent` is the env's copy.
- `partner` (pairs only, 4 or 6 players): who plays the learner's partner seat; an Agent or a
  name as above, copied as above; default: the same as `opponent` (its own copy).
- `learner_seat`: a seat 0..N-1, or None: drawn from the env's generator at every new match.
- `illegal_reward` (-1.0), `render_mode` ("human" / "ansi", shown from the learner's seat).

Seeding follows Gymnasium: `reset(seed=s)` seeds `self.np_random`, which deals the matches, picks
the learner's seat (when not fixed) and seeds the other seats' agents; unseeded, it starts from
OS entropy.

Infos: after a step in which a hand ended, `hand_score` (the score lines per side) and `scores`
(match totals per side); when the match ended, `winner`: the winning side's index, as
`Game.winner` (the learner's side is `rules.team_of(learner seat)`; the AEC env names agents
instead).

An illegal learner action ends the episode with `illegal_reward` and the reason in
`info["illegal_move"]` (the PettingZoo convention; Gymnasium has none); stepping again before
`reset()` raises ScopaError. An illegal action of a built-in agent is a bug in that agent:
ScopaError.
"""
from __future__ import annotations

import copy
import math

import gymnasium
import numpy as np
from gymnasium import spaces

from . import core
from .actions import action_id, action_table
from .aec import check_render_mode, hand_totals, render_mode_text
from .batched import check_episode_reward, resolve_rules, side_rewards
from .cards import number_text
from .errors import ScopaError
from .game import Game
from .observation import layout_for, observe
from .rules import Rules


class ScopaGymEnv(gymnasium.Env):
    metadata = {"render_modes": ["human", "ansi"], "render_fps": 1}

    def __init__(self, opponent=None, rules=None, napola: bool | None = None,
                 target: int | None = None, episode: str = "match", reward: str | None = None,
                 learner_seat: int | None = None, illegal_reward: float = -1.0,
                 render_mode: str | None = None, partner=None):
        self.rules = resolve_rules(rules, napola, target)
        n = self.rules.players
        self.episode = episode
        self.reward_kind = check_episode_reward(episode, reward)
        if learner_seat is not None and not self.rules.is_seat(learner_seat):
            raise ScopaError(f"learner_seat must be a seat 0..{n - 1} or None, "
                             f"got {number_text(learner_seat)}")
        check_render_mode(render_mode, self.metadata["render_modes"])
        if partner is not None and self.rules.teams == n:
            raise ScopaError(f"partner is for pairs (4 or 6 players); these rules have {n} "
                             "players each for self")
        self.render_mode = render_mode
        self.learner_seat_option = None if learner_seat is None else int(learner_seat)
        try:        # np.isfinite(2**70) was a TypeError, float(10**400) an OverflowError (review)
            finite = not isinstance(illegal_reward, (bool, np.bool_)) and \
                isinstance(illegal_reward, (int, float, np.integer, np.floating)) and \
                math.isfinite(float(illegal_reward))
        except OverflowError:
            finite = False
        if not finite:
            shown = repr(illegal_reward) if len(repr(illegal_reward)) <= 40 else repr(illegal_reward)[:37] + "..."
            raise ScopaError(f"illegal_reward must be a finite number, got {shown}")
        self.illegal_reward = float(illegal_reward)
        self.table = action_table(self.rules)
        obs_layout = layout_for(self.rules)
        self.observation_space = spaces.Box(0, obs_layout.high, shape=(obs_layout.size,),
                                            dtype=np.int8)
        self.action_space = spaces.Discrete(self.table.size)
        self._partner_spec = opponent if partner is None else partner
        # one agent per seat, for both possible sides of every seat (the learner's seat may change)
        self._opponents = self._make_agents(opponent, "opponent")
        self._partners = (self._make_agents(self._partner_spec, "partner") if self.rules.teams < n
                          else [None] * n)
        self.opponent = self._opponents[0]
        self.game: Game | None = None
        self.seat = 0
        self._over = True

    def _make_agents(self, spec, role: str) -> list:
        """An agent for each seat from `spec` (an instance is copied for this env, once for all
        seats, or for each seat if it remembers the match; a name builds one per seat)."""
        n = self.rules.players
        if spec is not None and not isinstance(spec, str):
            # one without reset(), or a class (it passes the callable test), was taken, then
            # failed at the first reset (review)
            if isinstance(spec, type) or not (callable(getattr(spec, "act", None))
                                              and callable(getattr(spec, "reset", None))):
                got = f"the class {spec.__name__}: pass an instance" if isinstance(spec, type) else repr(spec)
                raise ScopaError(f"{role} must be an agent with act() and reset(seed=...), or a name, "
                                 f"got {got}")
            theirs = getattr(spec, "rules", None)
            if isinstance(theirs, Rules) and theirs != self.rules:
                raise ScopaError(f"{role} {getattr(spec, 'name', type(spec).__name__)!r} was made for "
                                 f"rules {theirs.describe()}, not this env's {self.rules.describe()}")
            if getattr(spec, "remembers_match", False):
                # it rebuilds the match from its own successive observations: one object per
                # seat and per env (gymnasium.make_vec hands every sub-env the same instance)
                return [copy.deepcopy(spec) for _ in range(n)]
            return [copy.deepcopy(spec)] * n
        # imported here, not at the top: agents/ sits above scopa_env in the layering
        from agents import REGISTRY, make_agent
        name = spec if spec is not None else ("normal" if "normal" in REGISTRY else "random")
        first = make_agent(name, rules=self.rules, seed=0)
        return [first] + [make_agent(name, rules=self.rules, seed=0) for _ in range(n - 1)]

    def _agent_of(self, seat: int):
        """The built-in agent playing `seat` in this match."""
        if self.rules.team_of(seat) == self.rules.team_of(self.seat):
            return self._partners[seat]
        return self._opponents[seat]

    # ---- Gymnasium API ----------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        g = self.game
        if self.episode == "hand" and seed is None and g is not None and g.phase == core.HAND_OVER:
            g.next_hand()
        else:
            self.game = Game(self.rules, seed=int(self.np_random.integers(2**62)))
            seat = self.learner_seat_option
            n = self.rules.players
            self.seat = int(self.np_random.integers(n)) if seat is None else seat
            reset_done = set()
            for p in range(n):
                if p == self.seat:
                    continue
                agent = self._agent_of(p)
                s = int(self.np_random.integers(2**62))
                if id(agent) not in reset_done:
                    agent.reset(seed=s)
                    reset_done.add(id(agent))
            self.opponent = self._agent_of((self.seat + 1) % n)
        self._over = False
        self._play_others()
        info = {"action_mask": self.action_masks(), "learner_seat": self.seat}
        if self.render_mode == "human":
            self.render()
        return observe(self.game.state, self.seat), info

    def step(self, action):
        if self.game is None:      # 'the episode is over' said of an episode never begun
            raise ScopaError("call reset() before step()")
        if self._over:
            raise ScopaError("the episode is over: call reset() before step()")
        g = self.game
        a = action_id(action)
        legal = g.legal_action_ids()
        if a not in legal:
            self._over = True
            table = int(g.state[core.TABLE])
            what = (self.table.describe(a, table) if 0 <= a < self.table.size
                    else "outside the table")
            moves = "; ".join(f"{i} {self.table.describe(i, table)}" for i in legal)
            info = {"action_mask": np.zeros(self.table.size, dtype=np.int8),
                    "learner_seat": self.seat,
                    "illegal_move": f"illegal move: action {a} ({what}) is not legal now "
                                    f"(legal: {moves})"}
            return observe(g.state, self.seat), self.illegal_reward, True, False, info
        info = {"learner_seat": self.seat}
        reward = self._apply(a, info)
        if not self._over:
            reward += self._play_others(info)
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
        card, captured = self.table.decode(action, int(g.state[core.TABLE]))
        flags = core.apply_move(g.state, card, captured)
        if not flags & core.F_HAND_OVER:
            return 0.0
        sides = self.rules.teams
        mine = self.rules.team_of(self.seat)
        info["hand_score"], info["scores"] = g.hand_score(), g.scores
        reward = 0.0
        if self.reward_kind == "points":
            reward = side_rewards(hand_totals(g.state, sides))[mine]
        if flags & core.F_MATCH_OVER:
            info["winner"] = g.winner
            if self.reward_kind == "win":
                reward = side_rewards([float(t == g.winner) for t in range(sides)])[mine]
        if self.episode == "hand" or flags & core.F_MATCH_OVER:
            self._over = True
        else:
            g.next_hand()
        return reward

    def _play_others(self, info: dict | None = None) -> float:
        """Built-in agents move until the learner is to move or the episode is over. An error of
        theirs (an illegal answer, an exception in act) ends the episode: the game stands at another
        seat's turn, and a step() after it caught would have played that seat's move as the
        learner's (review)."""
        g = self.game
        reward = 0.0
        try:
            while not self._over and g.to_move != self.seat:
                p = g.to_move
                agent = self._agent_of(p)
                # checked as the learner's action is: int() played 14.9 as 14 and '14' as 14, and
                # None was a TypeError (review)
                a = action_id(agent.act(g.observation(p)), f"agent {getattr(agent, 'name', agent)!r} (seat {p})")
                legal = g.legal_action_ids()
                if a not in legal:
                    raise ScopaError(f"agent {getattr(agent, 'name', agent)!r} (seat {p}) chose "
                                     f"illegal action {a}")
                reward += self._apply(a, info if info is not None else {})
        except BaseException:
            self._over = True
            raise
        return reward


if "Scopa-v0" not in gymnasium.registry:
    gymnasium.register(id="Scopa-v0", entry_point="scopa_env.gym_env:ScopaGymEnv")
