"""The `easy` level: takes what it sees, often at random, and never looks at what it leaves.

RULES.md: "takes what it sees, often at random; never looks at what it leaves on the table".
When some play captures, it captures, choosing uniformly at random among the captures; when
nothing captures it lays a card chosen uniformly at random. It never weighs what it takes or the
table it leaves.
"""
from __future__ import annotations

from .base import Agent


class EasyAgent(Agent):
    name = "easy"

    def act(self, observation: dict) -> int:
        legal = self.legal_actions(observation)
        takes = legal[self.actions.captured[legal] != 0]
        pool = takes if len(takes) else legal
        return int(pool[self.rng.integers(len(pool))])
