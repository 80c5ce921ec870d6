"""The one check for a seed a user hands the toolkit (Game, BatchedScopa, agents, the CLIs).

The engine's generators are seeded with an int64, so a seed is a whole number 0..2**63-1: a
float is never truncated, a negative or larger number never wrapped, each is one ScopaError.
"""
from __future__ import annotations

import numpy as np

from .errors import ScopaError

SEED_LIMIT = 2**63


def check_seed(seed, name: str = "seed") -> int:
    """`seed` as an int in 0..2**63-1, else a ScopaError naming `name` (e.g. '--seed')."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) \
            or not 0 <= seed < SEED_LIMIT:
        raise ScopaError(f"{name} must be a whole number 0..2**63-1, got {seed!r}")
    return int(seed)


def offset_seed(seed: int, k: int) -> int:
    """seed + k, wrapped into 0..2**63-1: the seed of a thing derived from a run's seed (its
    opponent, its k-th match), valid for every valid run seed, 2**63-1 included."""
    return (int(seed) + int(k)) % SEED_LIMIT
