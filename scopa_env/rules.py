"""The rules options of a game, as one immutable object.

Only the options that are implemented are fields; regional variants of RULES.md (re bello,
scopa d'assi, more players, ...) arrive as new fields with defaults that keep the classic game,
so existing records and checkpoints keep their meaning. The engine reads a rules object through
`to_header()`, which writes its values into the header of the state array.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from .errors import ScopaError


@dataclass(frozen=True)
class Rules:
    """Classic 2-player scopa (RULES.md "Default game")."""

    napola: bool = False
    """Score the napola (1D 2D 3D: 3 points, +1 per further denari in sequence)."""
    target: int = 11
    """Points that end the match (11 default; 16, 21 and 31 are common)."""

    def __post_init__(self):
        if not isinstance(self.napola, bool):
            raise ScopaError(f"rules option napola must be true or false, got {self.napola!r}")
        if isinstance(self.target, bool) or not isinstance(self.target, int) or not 1 <= self.target <= 1000:
            raise ScopaError(f"rules option target must be a whole number 1..1000, got {self.target!r}")

    @property
    def players(self) -> int:
        return 2

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict | None) -> "Rules":
        d = dict(d or {})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ScopaError(
                f"unknown rules option {unknown[0]!r} (known: {', '.join(sorted(known))})")
        return cls(**d)

    def replace(self, **changes) -> "Rules":
        return Rules.from_dict({**self.to_dict(), **changes})


CLASSIC = Rules()
