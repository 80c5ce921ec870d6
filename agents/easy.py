"""The `easy` level: takes what it sees, often at random, and never looks at what it leaves.

RULES.md: "takes what it sees, often at random; never looks at what it leaves on the table".
When some play captures, it captures: half the time the capture that takes the most cards
(ties: the first in engine order), otherwise a capture chosen uniformly at random. When nothing
captures it lays a card chosen uniformly at random. It never weighs the table it leaves.
"""
from __future__ import annotations

import numpy as np

from .base import Agent


class EasyAgent(Agent):
    name = "easy"

    greedy_share = 0.5
    """How often it takes the biggest capture instead of a random one."""

    def act(self, observation: dict) -> int:
        legal = self.legal_actions(observation)
        captured = self.actions.captured[legal]
        takes = legal[captured != 0]
        if len(takes) == 0:
            return int(legal[self.rng.integers(len(legal))])
        if self.rng.random() < self.greedy_share:
            sizes = np.array([bin(int(m)).count("1") for m in self.actions.captured[takes]])
            return int(takes[int(np.argmax(sizes))])
        return int(takes[self.rng.integers(len(takes))])
