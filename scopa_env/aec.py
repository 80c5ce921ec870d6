"""PettingZoo AEC environment `scopa_v0`: a thin adapter over `Game` and the engine kernels.

`env(**options)` is the environment to use: `raw_env` inside PettingZoo's standard wrapper chain
(illegal move -> the offender gets -1 and the episode ends, with the reason in `infos`; actions
outside the space assert; call order enforced). `raw_env` alone is faster and raises ScopaError
on an illegal action.

Options:
- napola (False), target (11): the rules (scopa_env.rules.Rules).
- episode: "match" (default) or "hand". A hand episode ends with its hand; the next `reset()`
  without a seed deals the next hand of the same match (a new match once it is over), so match
  scores in the observations stay real. `reset(seed=...)` always starts a new match.
- reward: "win" (+1 / -1 when the match ends) or "points" (each hand's point difference, paid
  to both seats when the hand ends). Default "win" for match episodes, "points" for hand
  episodes; "win" with hand episodes is refused.
- render_mode: "human" prints, "ansi" returns the text. The text shows the table, whose turn,
  the scores and the hand of one viewer only: `render_player` (0 or 1) if given, else the agent
  to move.

Seeding: `reset(seed=s)` deals a match from the env's generator seeded with s, so the same seed
and actions replay the same games; later resets without a seed draw from that generator. Before
any seed is given the generator takes OS entropy, as every PettingZoo/Gymnasium env does.

Agents are "player_0" and "player_1" (seat 0 and 1). Observations are
{"observation": int8[291] (scopa_env/observation.py), "action_mask": int8[n_actions]}; the mask
is the engine's legal moves for the agent to move and all zeros for the other agent.
"""
from __future__ import annotations

import gymnasium
import numpy as np
import pettingzoo
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import core
from .actions import action_table
from .batched import check_episode_reward
from .cards import cards_str
from .errors import ScopaError
from .game import Game
from .observation import OBS_HIGH, OBS_SIZE, observe
from .rules import Rules

AGENTS = ("player_0", "player_1")


def render_text(game: Game, viewer: int) -> str:
    """What `viewer` may see, as text: table, turn, scores, deck, and only the viewer's hand."""
    r = game.rules
    opp = 1 - viewer
    lines = [
        f"Scopa to {r.target}, napola {'on' if r.napola else 'off'} | hand {game.hand_no + 1}, "
        f"dealer {AGENTS[game.dealer]}",
        f"Scores: {AGENTS[0]} {game.scores[0]}, {AGENTS[1]} {game.scores[1]}",
        f"Table: {' '.join(cards_str(game.table)) or '(empty)'}",
        f"Deck: {game.deck_left} cards left",
        f"{AGENTS[viewer]} hand: {' '.join(cards_str(game.hand(viewer))) or '(empty)'}",
        f"{AGENTS[opp]}: {len(game.hand(opp))} cards in hand",
        "Captured: " + ", ".join(
            f"{AGENTS[p]} {len(game.pile(p))} cards, {game.scope(p)} scope" for p in (0, 1)),
    ]
    if game.match_over:
        lines.append(f"Match over: {AGENTS[game.winner]} wins {game.scores[game.winner]}-"
                     f"{game.scores[1 - game.winner]}")
    elif game.hand_over:
        lines.append("Hand over")
    else:
        lines.append(f"To move: {AGENTS[game.to_move]}")
    return "\n".join(lines) + "\n"


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
    """Two-player scopa as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {"render_modes": ["human", "ansi"], "name": "scopa_v0",
                "is_parallelizable": False, "render_fps": 1}

    def __init__(self, napola: bool = False, target: int = 11, episode: str = "match",
                 reward: str | None = None, render_mode: str | None = None,
                 render_player: int | None = None):
        super().__init__()
        self.rules = Rules(napola=napola, target=target)
        self.episode = episode
        self.reward = check_episode_reward(episode, reward)
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ScopaError(f"render_mode must be one of {self.metadata['render_modes']} or "
                             f"None, got {render_mode!r}")
        if render_player not in (None, 0, 1):
            raise ScopaError(f"render_player must be 0, 1 or None, got {render_player!r}")
        self.render_mode = render_mode
        self.render_player = render_player
        self.table = action_table(self.rules)
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self.action_spaces = {a: spaces.Discrete(self.table.size) for a in AGENTS}
        self.observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(0, OBS_HIGH, shape=(OBS_SIZE,), dtype=np.int8),
            "action_mask": spaces.Box(0, 1, shape=(self.table.size,), dtype=np.int8),
        }) for a in AGENTS}
        self.game: Game | None = None
        self._np_random = None
        self._mask = np.zeros(self.table.size, dtype=np.int8)
        self._legal = np.zeros(0, dtype=np.int64)

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
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos = {a: {} for a in AGENTS}
        self._update_legal()
        self.agent_selection = AGENTS[self.game.to_move]
        if self.render_mode == "human":
            self.render()

    def _update_legal(self) -> None:
        self._mask[self._legal] = 0
        self._legal = self.game.legal_action_ids()
        self._mask[self._legal] = 1

    # ---- playing --------------------------------------------------------------------------
    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        a = self._check_action(agent, action)
        g = self.game
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self.infos = {x: {} for x in AGENTS}
        flags = core.apply_move(g.state, self.table.card[a], self.table.captured[a])
        if flags & core.F_HAND_OVER:
            score = g.hand_score()
            for p, x in enumerate(AGENTS):
                self.infos[x] = {"hand_score": score, "scores": g.scores}
            if self.reward == "points":
                diff = float(score[0]["total"] - score[1]["total"])
                self.rewards[AGENTS[0]], self.rewards[AGENTS[1]] = diff, -diff
            if flags & core.F_MATCH_OVER:
                w = g.winner
                for x in AGENTS:
                    self.infos[x]["winner"] = AGENTS[w]
                if self.reward == "win":
                    self.rewards[AGENTS[w]], self.rewards[AGENTS[1 - w]] = 1.0, -1.0
            if self.episode == "hand" or flags & core.F_MATCH_OVER:
                self.terminations = dict.fromkeys(AGENTS, True)
            else:
                g.next_hand()
        self._update_legal()
        self.agent_selection = AGENTS[g.to_move]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _check_action(self, agent: str, action) -> int:
        try:
            a = int(action)
        except (TypeError, ValueError):
            raise ScopaError(f"{agent}: an action is an integer id, got {action!r}") from None
        if not 0 <= a < self.table.size or not self._mask[a]:
            raise ScopaError(illegal_message(self, agent, action))
        return a

    # ---- observing ------------------------------------------------------------------------
    def observe(self, agent: str) -> dict:
        p = AGENTS.index(agent)
        live = not (self.terminations[agent] or self.truncations[agent])
        if live and agent == self.agent_selection:
            mask = self._mask.copy()
        else:
            mask = np.zeros(self.table.size, dtype=np.int8)
        return {"observation": observe(self.game.state, p), "action_mask": mask}

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
    try:
        a = int(action)
        inside = 0 <= a < t.size
        what = f"action {a} ({t.describe(a) if inside else f'outside 0..{t.size - 1}'})"
    except (TypeError, ValueError):
        what = f"action {action!r}"
    if agent != env.agent_selection:
        return f"{agent} played {what} but it is {env.agent_selection}'s turn"
    legal = "; ".join(f"{i} {t.describe(i)}" for i in env._legal)
    return f"illegal move by {agent}: {what} is not legal now (legal: {legal})"


class IllegalMoveWrapper(wrappers.TerminateIllegalWrapper):
    """PettingZoo's TerminateIllegalWrapper (offender -1, episode over) that also writes the
    reason into `infos[agent]["illegal_move"]` of the offending agent."""

    def step(self, action) -> None:
        raw = self.env.unwrapped
        agent = raw.agent_selection
        message = None
        if (not raw.terminations[agent] and not raw.truncations[agent]
                and not raw._mask[int(action)]):
            message = illegal_message(raw, agent, action)
        super().step(action)
        if message is not None:
            raw.infos[agent] = {**raw.infos.get(agent, {}), "illegal_move": message}


def env(**options) -> AECEnv:
    """`raw_env(**options)` in the standard wrapper chain of PettingZoo's classic envs."""
    e = raw_env(**options)
    e = IllegalMoveWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


if "scopa-v0" not in pettingzoo.aec_registry:
    pettingzoo.register("aec", "scopa_v0", entry_point="scopa_env.aec:env")
