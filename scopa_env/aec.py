"""PettingZoo AEC environment `scopa_v0`: a thin adapter over `Game` and the engine kernels.

`env(**options)` is the environment to use: `raw_env` inside PettingZoo's standard wrapper chain
(illegal move -> the offender gets -1 and the episode ends, with the reason in `infos`; actions
outside the space assert; call order enforced). `raw_env` alone is faster and raises ScopaError
on an illegal action.

Options:
- rules: a `Rules` object or a preset name (scopa_env/presets.py; default the classic game);
  napola, target: when given, replace those two options of the rules.
- episode: "match" (default) or "hand". A hand episode ends with its hand; the next `reset()`
  without a seed deals the next hand of the same match (a new match once it is over), so match
  scores in the observations stay real. `reset(seed=...)` always starts a new match.
- reward: "win" (a win is worth 1 at the end of the match) or "points" (each hand's points,
  paid when the hand ends). Default "win" for match episodes, "points" for hand episodes;
  "win" with hand episodes is refused.
- render_mode: "human" prints, "ansi" returns the text. The text shows the table, whose turn,
  the scores and the hand of one viewer only: `render_player` (a seat) if given, else the agent
  to move.

Agents and rewards: one agent per seat, "player_0" .. "player_{N-1}" for the rules' N players
(seat order is turn order). Rewards are per side and zero-sum over the sides: a side gets its
value (hand points, or 1 for the match winner) minus the mean of the other sides' values (two
sides: the difference, +1/-1 for a match), and every seat gets its side's reward, so partners
in pairs are paid alike (players 4 and 6: side of seat s is s % (N / 2)).

Infos: when a hand ends, every agent's info holds "hand_score" (the score lines per side) and
"scores" (match totals per side) until that agent's next step, so each agent reads them once
with `last()` at its next turn; when the match ends also "winning_side" and "winner" (the
winning agent's name, or with pairs the tuple of the winning pair's names).

Seeding: `reset(seed=s)` deals a match from the env's generator seeded with s, so the same seed
and actions replay the same games; later resets without a seed draw from that generator. Before
any seed is given the generator takes OS entropy, as every PettingZoo/Gymnasium env does.

Observations are {"observation": int8 vector (scopa_env/observation.py; 291 values with two
players, 374 under cirulla's hand bonuses), "action_mask": int8[n_actions] (the rules' action
table, scopa_env/actions.py)}; the mask is the engine's legal moves for the agent to move and
all zeros for the other agents.
"""
from __future__ import annotations

import gymnasium
import numpy as np
import pettingzoo
from gymnasium import spaces
from gymnasium.utils import seeding
from numba import njit
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import core
from .actions import TAKES_TABLE, action_id, action_table, encode_moves_on
from .batched import check_episode_reward, resolve_rules, side_rewards
from .cards import cards_str, number_text
from .errors import RenderModeError, ScopaError
from .game import Game
from .observation import layout_for, observe

AGENTS = ("player_0", "player_1")
"""The agents of a two-player env (`agent_names(n)` for n players)."""


def agent_names(players: int) -> tuple[str, ...]:
    return tuple(f"player_{i}" for i in range(players))


def hand_totals(state: np.ndarray, sides: int) -> list[int]:
    """Each side's points in the last finished hand."""
    return [int(state[core.LINES + s * core.NLINES + core.LINE_TOTAL]) for s in range(sides)]


@njit(cache=True)
def legal_ids(state, buf, kernel, out):
    """Action ids of the mover's legal moves into out[:n]; returns n, or -1 if a move has no id."""
    n = core.legal_moves(state, buf)
    encode_moves_on(kernel, buf[0], buf[1], n, state[core.TABLE], out)
    for i in range(n):
        if out[i] < 0:
            return -1
    return n


def render_text(game: Game, viewer: int) -> str:
    """What `viewer` may see, as text: table, turn, scores, deck, and only the viewer's hand."""
    r = game.rules
    names = agent_names(r.players)
    sides = r.teams
    if sides == r.players:
        side_names = list(names)
    else:
        side_names = [" & ".join(names[s] for s in range(r.players) if s % sides == t)
                      for t in range(sides)]
    scores = [int(game.state[core.SCORES + t]) for t in range(sides)]
    lines = [
        f"Scopa to {r.target}, {r.replace(target=11).describe()} | hand {game.hand_no + 1}, dealer "
        f"{names[game.dealer]}",
        "Scores: " + ", ".join(f"{side_names[t]} {scores[t]}" for t in range(sides)),
        f"Table: {' '.join(cards_str(game.table)) or '(empty)'}",
        f"Deck: {_count(game.deck_left, 'card', 'cards')} left",
        f"{names[viewer]} hand: {' '.join(cards_str(game.hand(viewer))) or '(empty)'}",
    ]
    for k in range(1, r.players):
        p = (viewer + k) % r.players
        lines.append(f"{names[p]}: {_count(len(game.hand(p)), 'card', 'cards')} in hand")
    lines.append("Captured: " + ", ".join(
        f"{names[p]} {_count(len(game.pile(p)), 'card', 'cards')}, "
        f"{_count(game.scope(p), 'scopa', 'scope')}" for p in range(r.players)))
    if game.match_over:
        w = game.winner
        others = "-".join(str(scores[t]) for t in range(sides) if t != w)
        verb = "win" if sides != r.players else "wins"      # a pair: "player_0 & player_2 win"
        lines.append(f"Match over: {side_names[w]} {verb} {scores[w]}-{others}")
    elif game.hand_over:
        lines.append("Hand over")
    else:
        lines.append(f"To move: {names[game.to_move]}")
    return "\n".join(lines) + "\n"


def _count(n: int, one: str, many: str) -> str:
    """"1 card", "2 cards"; "1 scopa", "0 scope" (the Italian plural)."""
    return f"{n} {one if n == 1 else many}"


def check_render_mode(render_mode, modes) -> None:
    """The render_mode check of both envs: RenderModeError (a ScopaError, and a TypeError for
    stable-baselines3's make_vec_env, errors.RenderModeError) for a mode not in `modes`."""
    if render_mode not in (None, *modes):
        raise RenderModeError(f"render_mode must be one of {list(modes)} or None, got "
                              f"{number_text(render_mode)}")


def render_mode_text(render_mode: str | None, game: Game | None, viewer: int) -> str | None:
    """render() of both envs: "ansi" returns the text, "human" prints it; no mode warns and
    returns None (the PettingZoo / Gymnasium convention)."""
    if render_mode is None:
        gymnasium.logger.warn("render() called without a render_mode: make the env with "
                              "render_mode='human' or 'ansi'")
        return None
    if game is None:
        raise ScopaError("call reset() before render()")
    text = render_text(game, viewer)
    if render_mode == "ansi":
        return text
    print(text)
    return None


class raw_env(AECEnv):
    """Scopa for the rules' players as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {"render_modes": ["human", "ansi"], "name": "scopa_v0",
                "is_parallelizable": False, "render_fps": 1}

    def __init__(self, rules=None, napola: bool | None = None, target: int | None = None,
                 episode: str = "match", reward: str | None = None,
                 render_mode: str | None = None, render_player: int | None = None):
        super().__init__()
        self.rules = resolve_rules(rules, napola, target)
        self.episode = episode
        self.reward = check_episode_reward(episode, reward)
        n = self.rules.players
        check_render_mode(render_mode, self.metadata["render_modes"])
        if render_player is not None and not self.rules.is_seat(render_player):
            raise ScopaError(f"render_player must be a seat 0..{n - 1} or None, "
                             f"got {number_text(render_player)}")
        self.render_mode = render_mode
        self.render_player = None if render_player is None else int(render_player)
        self.table = action_table(self.rules)
        names = agent_names(n)
        self._names = names
        self._side = [self.rules.team_of(p) for p in range(n)]
        self.possible_agents = list(names)
        self.agents = list(names)
        obs_layout = layout_for(self.rules)
        self.action_spaces = {a: spaces.Discrete(self.table.size) for a in names}
        self.observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(0, obs_layout.high, shape=(obs_layout.size,),
                                      dtype=np.int8),
            "action_mask": spaces.Box(0, 1, shape=(self.table.size,), dtype=np.int8),
        }) for a in names}
        self.game: Game | None = None
        self._np_random = None
        self._mask = np.zeros(self.table.size, dtype=np.int8)
        self._legal = np.zeros(0, dtype=np.int64)
        self._buf = core.new_move_buffer()
        self._ids = np.zeros(core.MAX_MOVES, dtype=np.int64)

    @property
    def np_random(self) -> np.random.Generator:
        """The generator that deals the matches, public as Gymnasium's (and Scopa-v0's) is: seeded
        by reset(seed=...), from fresh entropy when read before any reset; it was private alone,
        an AttributeError for code that reads or sets it (an interop review)."""
        if self._np_random is None:
            self._np_random, self._np_random_seed = seeding.np_random()
        return self._np_random

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        self._np_random, self._np_random_seed = value, -1     # -1: a generator set, not a seed

    @property
    def np_random_seed(self) -> int:
        """The seed `np_random` was made from (-1 for a generator set by hand), as Gymnasium's."""
        self.np_random          # noqa: B018  (made on first use)
        return self._np_random_seed

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ---- episode --------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None or self._np_random is None:
            self._np_random, self._np_random_seed = seeding.np_random(seed)
        g = self.game
        if (self.episode == "hand" and seed is None and g is not None
                and g.phase == core.HAND_OVER):
            g.next_hand()
        else:
            self.game = Game(self.rules, seed=int(self._np_random.integers(2**62)))
        names = self._names
        self.agents = list(names)
        self.rewards = dict.fromkeys(names, 0.0)
        self._cumulative_rewards = dict.fromkeys(names, 0.0)
        self.terminations = dict.fromkeys(names, False)
        self.truncations = dict.fromkeys(names, False)
        self.infos = {a: {} for a in names}
        self._update_legal()
        self.agent_selection = names[self.game.to_move]
        if self.render_mode == "human":
            self.render()

    def _update_legal(self) -> None:
        """The legal ids of the player to move into the mask (Game.legal_action_ids without its
        Python overhead: this runs at every step)."""
        self._mask[self._legal] = 0
        n = 0
        if self.game.state[core.PHASE] == core.PLAYING:
            n = legal_ids(self.game.state, self._buf, self.table.kernel, self._ids)
            if n < 0:
                raise ScopaError("a legal move has no action id in the action table of these "
                                 "rules")
        self._legal = self._ids[:n].copy()
        self._mask[self._legal] = 1

    # ---- playing --------------------------------------------------------------------------
    def _check_started(self, what: str, over_too: bool = False) -> None:
        if self.game is None:       # the attributes reset() makes were an AttributeError
            raise ScopaError(f"call reset() before {what}()")
        if not self.agents and not over_too:    # every agent stepped out: a KeyError on the
            raise ScopaError(f"the episode is over: call reset() before {what}()")     # last one's name

    def _done_step_error(self, agent: str, action) -> ScopaError:
        """A done agent's step other than None (PettingZoo's own error was a bare ValueError
        naming neither agent nor action)."""
        done = "terminated" if self.terminations[agent] else "truncated"
        return ScopaError(f"{agent} is {done}: its one step is step(None), which removes it; "
                          f"got {number_text(action)}")

    def step(self, action) -> None:
        self._check_started("step")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise self._done_step_error(agent, action)
            return self._was_dead_step(action)
        a = self._check_action(agent, action)
        g = self.game
        names = self._names
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        # only the mover's info is spent: the others keep a hand's score until their own turn
        # (clearing all of them left a hand's score to the next agent to move only)
        self.infos[agent] = {}
        captured = self.table.captured[a]
        if captured == TAKES_TABLE:
            captured = g.state[core.TABLE]
        flags = core.apply_move(g.state, self.table.card[a], captured)
        if flags & core.F_HAND_OVER:
            for x in names:     # each its own lists: one list in every info was changed by
                # a change to one agent's (review)
                self.infos[x] = {"hand_score": g.hand_score(), "scores": g.scores}
            values = None
            if self.reward == "points":
                values = hand_totals(g.state, self.rules.teams)
            if flags & core.F_MATCH_OVER:
                w = g.winner
                won = tuple(x for p, x in enumerate(names) if self._side[p] == w)
                for x in names:
                    self.infos[x]["winner"] = won[0] if len(won) == 1 else won
                    self.infos[x]["winning_side"] = w
                if self.reward == "win":
                    values = [1.0 if t == w else 0.0 for t in range(self.rules.teams)]
            if values is not None:
                per_side = side_rewards(values)
                for p, x in enumerate(names):
                    self.rewards[x] = per_side[self._side[p]]
            if self.episode == "hand" or flags & core.F_MATCH_OVER:
                self.terminations = dict.fromkeys(names, True)
            else:
                g.next_hand()
        self._update_legal()
        self.agent_selection = names[g.to_move]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _check_action(self, agent: str, action) -> int:
        a = action_id(action, agent)
        if not 0 <= a < self.table.size or not self._mask[a]:
            raise ScopaError(illegal_message(self, agent, a))    # the id read: int() of a 1-element array fails (review)
        return a

    # ---- observing ------------------------------------------------------------------------
    def observe(self, agent: str) -> dict:
        # tuple.index's ValueError did not say which agents exist; a str first: `in` on an array
        # was numpy's "truth value is ambiguous" (review)
        if not isinstance(agent, str) or agent not in self._names:
            raise ScopaError(f"unknown agent {number_text(agent)} (this env's agents: {', '.join(self._names)})")
        self._check_started("observe", over_too=True)     # an ended episode is seen, all-zero mask
        p = self._names.index(agent)
        # an agent done and removed (its last step(None)) has no entry left: it is not live
        live = not (self.terminations.get(agent, True) or self.truncations.get(agent, True))
        if live and agent == self.agent_selection:
            mask = self._mask.copy()
        else:
            mask = np.zeros(self.table.size, dtype=np.int8)
        return {"observation": observe(self.game.state, p), "action_mask": mask}

    def last(self, observe: bool = True):
        self._check_started("last")
        return super().last(observe)

    def render(self) -> str | None:
        viewer = self.render_player
        if viewer is None and self.game is not None:
            viewer = self.game.to_move
        return render_mode_text(self.render_mode, self.game, viewer)

    def close(self) -> None:
        pass


def illegal_message(env: raw_env, agent: str, action) -> str:
    """Why `action` is not legal for `agent` now, listing the legal moves."""
    t = env.table
    table = int(env.game.state[core.TABLE])
    try:
        a = int(action)
        inside = 0 <= a < t.size
        what = f"action {a} ({t.describe(a, table) if inside else f'outside 0..{t.size - 1}'})"
    except (TypeError, ValueError):
        what = f"action {number_text(action)}"
    legal = "; ".join(f"{i} {t.describe(i, table)}" for i in env._legal)
    return f"illegal move by {agent}: {what} is not legal now (legal: {legal})"


class IllegalMoveWrapper(wrappers.TerminateIllegalWrapper):
    """PettingZoo's TerminateIllegalWrapper (offender -1, episode over) that also writes the
    reason into `infos[agent]["illegal_move"]` of the offending agent."""

    def step(self, action) -> None:
        raw = self.env.unwrapped
        agent = raw.agent_selection
        message = None
        done = raw.terminations[agent] or raw.truncations[agent]
        if done and action is not None:
            # after an illegal move this wrapper's own check came first: PettingZoo's bare
            # ValueError, where every other end gave raw_env's ScopaError (review)
            raise raw._done_step_error(agent, action)
        if not done and not raw._mask[int(action)]:
            message = illegal_message(raw, agent, action)
        super().step(action)
        if message is not None:
            raw.infos[agent] = {**raw.infos.get(agent, {}), "illegal_move": message}


class ActionIdWrapper(wrappers.BaseWrapper):
    """Reads an action as every adapter does (actions.action_id: a Python or numpy integer, or a
    one-element integer array) and passes it on as an int. Anything else, a bool or a float
    included, is a ScopaError: Gymnasium's Discrete space counts True as 1, and PettingZoo's
    TerminateIllegalWrapper then failed on it with a numpy ValueError. None (the step of an
    agent that is done) passes as it is; None from an agent still playing is the same
    ScopaError as raw_env's (it reached AssertOutOfBounds' bare AssertionError: review)."""

    def step(self, action) -> None:
        raw = self.env.unwrapped
        agent = raw.agent_selection
        done = raw.terminations.get(agent, False) or raw.truncations.get(agent, False)
        if action is not None or not done:
            action = action_id(action, agent)
        super().step(action)


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's OrderEnforcingWrapper, whose last() is AECEnv's reading the wrapped env's
    dicts: after the episode it was a KeyError on the last agent's name, where raw_env.last
    says to call reset() (review). The same ScopaError here, and before the first reset() from
    last(), step(), observe() and render() (PettingZoo's AttributeError on agent_selection, and
    its AssertionErrors, where raw_env's ScopaError says to call reset()). step() after the episode
    stays PettingZoo's warning, as in its wrappers."""

    def last(self, observe: bool = True):
        self.env.unwrapped._check_started("last")
        return super().last(observe)

    def step(self, action) -> None:
        self.env.unwrapped._check_started("step", over_too=True)
        return super().step(action)

    def observe(self, agent):
        self.env.unwrapped._check_started("observe", over_too=True)
        return super().observe(agent)

    def render(self):
        self.env.unwrapped._check_started("render", over_too=True)
        return super().render()

    # PettingZoo's wrappers forward reads alone: `env.np_random = g` set an attribute of this
    # wrapper, and the matches were still dealt by the inner generator (a review)
    @property
    def np_random(self) -> np.random.Generator:
        return self.env.unwrapped.np_random

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        self.env.unwrapped.np_random = value


def env(**options) -> AECEnv:
    """`raw_env(**options)` in the standard wrapper chain of PettingZoo's classic envs, with the
    action read as an integer id first (ActionIdWrapper)."""
    e = raw_env(**options)
    e = IllegalMoveWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = ActionIdWrapper(e)
    e = OrderEnforcing(e)
    return e


# PettingZoo keeps ids normalised ("scopa_v0" is stored as "scopa-v0"); make() takes either
if "scopa-v0" not in pettingzoo.aec_registry:
    pettingzoo.register("aec", "scopa-v0", entry_point="scopa_env.aec:env")
