"""The one agent interface: observation in, action id out.

An agent is handed exactly what the environment gives its player, the dict
`{"observation": int8[layout(rules.players).size], "action_mask": int8[action_table(rules).size]}`
(see scopa_env/observation.py and actions.py: the 291-value layout and the 16,200 ids for the
classic game), and returns an action id whose mask entry is non-zero. An agent is built for one
rules set (`Agent(rules, seed)`) and plays only that one. It never sees
the game state, so "the computer never sees your cards or the deck" holds by construction.
Agents draw randomness only from their own generator, set by `reset(seed)`: the same
observation after the same reset gives the same action.
"""
from __future__ import annotations

import numpy as np

from scopa_env.actions import ActionTable, action_table
from scopa_env.rules import Rules


class Agent:
    """Base class. Subclasses implement `act`; `name` is what tables and records show."""

    name = "agent"

    def __init__(self, rules: Rules | None = None, seed: int = 0):
        self.rules = rules or Rules()
        self.actions: ActionTable = action_table(self.rules)
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Start a new match; with a seed, also reseed the agent's generator."""
        if seed is not None:
            self.seed = int(seed)
            self.rng = np.random.default_rng(self.seed)

    def act(self, observation: dict) -> int:
        raise NotImplementedError

    @staticmethod
    def legal_actions(observation: dict) -> np.ndarray:
        return np.flatnonzero(observation["action_mask"])


class RandomAgent(Agent):
    """Plays a uniformly random legal move."""

    name = "random"

    def act(self, observation: dict) -> int:
        legal = self.legal_actions(observation)
        return int(legal[self.rng.integers(len(legal))])
