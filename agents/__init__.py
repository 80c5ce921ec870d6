"""Players behind one interface (agents/base.py): the random agent, the rule levels and learned
policies. `make_agent(spec)` builds one from the names users type on the command line."""
from __future__ import annotations

import inspect
from pathlib import Path

from scopa_env.errors import ScopaError
from scopa_env.rules import Rules

from .base import Agent, RandomAgent
from .easy import EasyAgent
from .hard import HardAgent
from .normal import NormalAgent

# name -> class; the levels register themselves here as they are added
REGISTRY: dict[str, type[Agent]] = {"random": RandomAgent, "easy": EasyAgent, "normal": NormalAgent,
                                   "hard": HardAgent}


def make_agent(spec: str, rules: Rules | None = None, seed: int = 0, **options) -> Agent:
    """'random' | a level name | path/to/checkpoint.pt -> an Agent. Bad specs raise ScopaError."""
    if spec in REGISTRY:
        cls = REGISTRY[spec]
        known = set(inspect.signature(cls.__init__).parameters) - {"self", "rules", "seed"}
        unknown = sorted(set(options) - known)
        if unknown:
            raise ScopaError(f"unknown option {unknown[0]!r} for agent {spec!r} "
                             f"(known: {', '.join(sorted(known)) or 'none'})")
        return cls(rules=rules, seed=seed, **options)
    if str(spec).endswith(".pt"):
        if not Path(spec).is_file():
            raise ScopaError(f"checkpoint {spec!r} does not exist")
        from .learned import LearnedAgent  # imports torch: only when a checkpoint is asked for
        return LearnedAgent(rules=rules, seed=seed, path=str(spec), **options)
    raise ScopaError(
        f"unknown agent {spec!r}: use {', '.join(sorted(REGISTRY))} or a path to a checkpoint .pt")


__all__ = ["Agent", "RandomAgent", "REGISTRY", "make_agent"]
