"""The one check for a seed a user hands the toolkit (Game, BatchedScopa, agents, the CLIs).

The engine's generators are seeded with an int64, so a seed is a whole number 0..2**63-1: a
float is never truncated, a negative or larger number never wrapped, each is one ScopaError.
"""
from __future__ import annotations

import numpy as np

from .cards import number_text
from .errors import ScopaError

SEED_LIMIT = 2**63


def check_seed(seed, name: str = "seed") -> int:
    """`seed` as an int in 0..2**63-1, else a ScopaError naming `name` (e.g. '--seed')."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) \
            or not 0 <= seed < SEED_LIMIT:
        raise ScopaError(f"{name} must be a whole number 0..2**63-1, got {number_text(seed)}")
    return int(seed)


_M32 = 2**32 - 1
_WIDE = 0x5C0BA     # the last word of a wide pair's entropy: never 0, never a count


def pair_entropy(seed: int, index: int) -> list[int]:
    """The entropy of the generator of thing `index` of a run seeded `seed` (evaluate.py's deal
    `index`, simulate's random player of match `index`), for numpy's SeedSequence.

    Below 2**32 it is [seed, index], as it always was. numpy splits an entry of 2**32 or more
    into 32-bit words and pads the entropy with zero words, so for bigger numbers [seed, index]
    made thing 0 of seed s + k * 2**32 thing k of seed s; they give fixed-width words ending in
    a marker instead."""
    seed, index = int(seed), int(index)
    if not 0 <= seed < SEED_LIMIT or not 0 <= index < 2**64:
        raise ValueError(f"pair_entropy: seed must be 0..2**63-1 and index 0..2**64-1, got {seed}, {index}")
    if seed <= _M32 and index <= _M32:
        return [seed, index]
    return [seed & _M32, seed >> 32, index & _M32, index >> 32, _WIDE]


def offset_seed(seed: int, k: int) -> int:
    """seed + k, wrapped into 0..2**63-1: the seed of a thing derived from a run's seed (its
    opponent, its k-th match), valid for every valid run seed, 2**63-1 included."""
    return (int(seed) + int(k)) % SEED_LIMIT
