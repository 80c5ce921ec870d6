"""Agents for the worker tests: importable by name, so that spawned workers can unpickle them."""
from agents.base import Agent
from scopa_env.errors import ScopaError


class RefusesToPlay(Agent):
    """Raises the project's own error at its first move."""
    name = "refuses"

    def act(self, observation):
        raise ScopaError("this agent refuses to play")


class OddError(Exception):
    """Pickles, but does not rebuild: its __init__ wants two arguments, its args hold one text."""

    def __init__(self, a, b):
        super().__init__(f"odd {a} {b}")


class RaisesOdd(Agent):
    name = "odd"

    def act(self, observation):
        raise OddError(1, 2)


class OddScopaError(ScopaError):
    """The project's kind of error, pickling but not rebuilding (as NonFiniteScores did)."""

    def __init__(self, a, b):
        super().__init__(f"odd scopa {a} {b}")


class RaisesOddScopa(Agent):
    name = "oddscopa"

    def act(self, observation):
        raise OddScopaError(1, 2)
