"""The rules options of a game, as one immutable object.

Every option of RULES.md's variant table is a field whose default keeps the classic 2-player game
of seed 000, so a record, test or checkpoint written before an option existed keeps its meaning
(`Rules.from_dict` fills the missing keys with these defaults). Named combinations live in
presets.py. The engine reads a rules object through `to_header()`, which writes its values into
the header slots of the state array (core.init_match_rules).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields

import numpy as np

from .cards import is_whole, number_text
from .errors import NEWER_FILE, ScopaError

PLAYER_COUNTS = (2, 3, 4, 6)
NAPOLEONE = ("off", "win", "ten")
QUINDICI = ("off", "only", "both")
PRIMIERA_SCALES = ("standard", "figures0", "veneto", "southern", "most_sevens")


TARGET_MAX = 100   # the observations' scores are int8 (clipped at 127): a match to 100 fits


@dataclass(frozen=True)
class Rules:
    """Classic 2-player scopa (RULES.md "Default game") unless an option says otherwise."""

    napola: bool = False
    """Score the napola (1D 2D 3D: 3 points, +1 per further denari in sequence)."""
    target: int = 11
    """Points that end the match (11 default; 16, 21 and 31 are common); at most 100: the
    observations hold scores as int8, clipped at 127, and above that every player saw both
    scores as 127 (no lead, no endgame) long before the end."""
    players: int = 2
    """2, 3 (each for self), 4 or 6 (in pairs, partners opposite: team of seat s is s % (players // 2))."""
    hand_cards: int = 3
    """Cards each player gets per deal (scopone 9, scopone scientifico 10)."""
    table_cards: int = 4
    """Cards dealt face up to the table at the start of a hand (scopone scientifico 0)."""
    re_bello: bool = False
    """The re di denari (10D) is a point of its own, like the settebello."""
    napoleone: str = "off"
    """All ten denari in one side's pile: "off", "win" (wins the match at the end of that hand), "ten" (+10 points)."""
    ace_takes_all: bool = False
    """Scopa d'assi: a played ace takes the whole table (on an empty table it stays)."""
    ace_scopa: bool = False
    """With ace_takes_all: an ace sweep counts as a scopa."""
    burned_ace: bool = True
    """With ace_takes_all: if an ace is on the table a played ace takes only that ace (with quindici "both" its 15-captures too) and not the table (False: it may still take all)."""
    quindici: str = "off"
    """Scopa a quindici: "off", "only" (a card takes table cards that with it sum to 15), "both" (classic and 15 captures)."""
    fewest_cards: bool = False
    """Among the captures a card can make, only those with the fewest cards are legal (an ace's take-the-table move, under ace_takes_all, stays beside them)."""
    free_capture: bool = False
    """A card that can capture may also be laid on the table."""
    primiera: str = "standard"
    """The sevens point: "standard", "figures0", "veneto", "southern" scales, or "most_sevens" (7s, then 6s, aces, ...)."""
    capotto: int = 0
    """0: off; k > 0: after a hand, a side with at least k points while every other side has 0 wins the match."""
    re_redeal: bool = True
    """3 or 4 re among the 4 table cards void the deal (RULES.md "Default game" 1); False: they stay
    (escoba de 15, seed 004, voids no table)."""
    dealer_sweep: bool = False
    """A first table whose capture values sum to 15 goes to the dealer with a scopa, one summing to
    30 with two scope (escoba de 15 and cirulla, seeds 003, 004); the first player then leads to
    an empty table."""
    equal_first: bool = True
    """A table card of the played card's value must be taken in preference to a sum (RULES.md
    "Default game"); False: the sums of two or more cards are legal beside it, the player chooses
    (cirulla, seed 003: "with J, 5 and 3 on the table, a J may take the J or the 3 and the 5")."""
    ace_redeal: bool = False
    """2 or more aces among the 4 first table cards void the deal (cirulla, seed 004)."""
    napola_max: int = 10
    """The most points the napola can score, 3..10 (cirulla's piccola: 1D 2D 3D for 3, one more
    per denari in sequence "up to a maximum of 6", seed 004); it acts only with napola on."""
    grande: bool = False
    """Fante, cavallo and re of denari (8D 9D 10D) in one side's pile score 5 (cirulla's grande)."""
    hand_bonus: bool = False
    """Cirulla's hand bonuses (3 cards a deal only): at a player's first turn of each deal, a hand
    of three cards of one value scores 10, else one whose capture values sum to 9 or less scores
    3; the hand is shown (face up to every player) for the rest of the deal. The engine always
    declares a bonus the hand has (seeds 003, 004: it is declared by showing the hand)."""
    joker: bool = False
    """The 7 of coppe (7C) is cirulla's joker: in a hand it stands for the value that gives a hand
    bonus (and keeps that capture value until it is captured or the deal ends), on a first table
    for the value that makes the dealer's 15 or 30. Needs hand_bonus or dealer_sweep."""

    def __new__(cls, *args, **options):
        # Rules(quindic="both") was Python's own TypeError ("unexpected keyword argument"), where
        # from_dict, replace and --rule name the unknown option and the known ones: now it is too
        cls._refuse_unknown(options)
        if args and isinstance(args[0], str):
            # Rules("scopone") read the name as napola's value: "napola must be true or false,
            # got 'scopone'" (an API review)
            raise ScopaError(f"Rules takes options by name (Rules(napola=True)); for the preset "
                             f"{args[0]!r} use scopa_env.rules_from_preset({args[0]!r})")
        return super().__new__(cls)

    @classmethod
    def _refuse_unknown(cls, options, stored: bool = False) -> None:
        """One ScopaError naming the first option (a key of `options`) no field of Rules has,
        with the known ones; `stored`: the options come from a file (from_dict)."""
        unknown = sorted(set(options) - _OPTIONS, key=repr)     # keys of two types: no TypeError (review)
        if unknown:
            known = ", ".join(sorted(_OPTIONS))
            if stored:
                raise ScopaError(f"unknown rules option {unknown[0]!r}: {NEWER_FILE} (this version "
                                 f"knows: {known})")
            raise ScopaError(f"unknown rules option {unknown[0]!r} (known: {known})")

    def __post_init__(self):
        # numpy's scalars (a loop over np.arange, a value read from an array) are stored as the
        # Python values they stand for, so equal rules compare, hash and print alike
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, np.bool_):
                object.__setattr__(self, f.name, bool(value))
            elif isinstance(value, np.integer):
                object.__setattr__(self, f.name, int(value))
            elif isinstance(value, np.str_):
                object.__setattr__(self, f.name, str(value))
        for name in _TRUE_OR_FALSE:     # read from the defaults: a hand-kept list missed a new option
            if not isinstance(getattr(self, name), bool):
                raise ScopaError(f"rules option {name} must be true or false, got {number_text(getattr(self, name))}")
        _whole(self.target, "target", 1, TARGET_MAX)
        _whole(self.capotto, "capotto", 0, 1000)
        _whole(self.napola_max, "napola_max", 3, 10)
        if _whole(self.players, "players", 2, 6) not in PLAYER_COUNTS:
            raise ScopaError(f"rules option players must be one of 2, 3, 4, 6, got {number_text(self.players)}")
        _whole(self.hand_cards, "hand_cards", 1, 20)
        _whole(self.table_cards, "table_cards", 0, 10)   # a bigger start table is no game the seeds know
        for name, allowed in (("napoleone", NAPOLEONE), ("quindici", QUINDICI),
                              ("primiera", PRIMIERA_SCALES)):
            # a str first: `in` on a numpy array was its "truth value is ambiguous" (review)
            if not isinstance(getattr(self, name), str) or getattr(self, name) not in allowed:
                raise ScopaError(f"rules option {name} must be one of {', '.join(map(repr, allowed))}, "
                                 f"got {getattr(self, name)!r}")
        # each option's own type and range above, the options' relations below: a hand_cards of
        # "3" was blamed on hand_bonus, "needs 3 cards a deal ... got hand_cards=3"
        if self.hand_bonus and self.hand_cards != 3:
            raise ScopaError(f"rules option hand_bonus needs 3 cards a deal (cirulla's bonuses are for "
                             f"a hand of three), got hand_cards={self.hand_cards}")
        if self.joker and not (self.hand_bonus or self.dealer_sweep):
            raise ScopaError("rules option joker needs hand_bonus or dealer_sweep (the joker serves only them)")
        per_deal = self.players * self.hand_cards
        if (40 - self.table_cards) % per_deal:
            raise ScopaError(
                f"rules options hand_cards={self.hand_cards}, table_cards={self.table_cards}: the "
                f"{40 - self.table_cards} cards left after the table are not a whole number of deals of "
                f"{self.players} x {self.hand_cards}")
        if self.quindici == "only" and not self.equal_first:
            raise ScopaError("rules option equal_first=false needs equal-value captures: quindici='only' "
                             "has none (a card takes only cards that with it sum to 15)")
        if not self.ace_takes_all:
            if self.ace_scopa:
                raise ScopaError("rules option ace_scopa needs ace_takes_all")
            if not self.burned_ace:
                raise ScopaError("rules option burned_ace=false needs ace_takes_all")

    # ---- sides ---------------------------------------------------------------------------
    @property
    def teams(self) -> int:
        """Number of sides: one per player with 2 or 3 players, the pairs with 4 or 6."""
        return self.players if self.players <= 3 else self.players // 2

    def is_seat(self, value) -> bool:
        """Whether `value` is a seat of these rules: a whole number (Python or numpy; not a bool,
        a float or a string) in 0..players-1."""
        return is_whole(value) \
            and 0 <= int(value) < self.players

    def team_of(self, seat: int) -> int:
        """The side seat `seat` plays for (partners sit opposite: seats s and s + teams)."""
        if not self.is_seat(seat):
            raise ScopaError(f"seat {number_text(seat)} is not a seat 0..{self.players - 1}")
        return int(seat) % self.teams

    @property
    def deals_per_hand(self) -> int:
        return (40 - self.table_cards) // (self.players * self.hand_cards)

    # ---- conversions ---------------------------------------------------------------------
    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict | None, stored: bool = False) -> "Rules":
        """Rules from a dict of options, those it lacks at their defaults. `stored`: the dict
        comes from a file (a record, a checkpoint), so an option this version does not know is
        most likely one added after it, and the error says so (a file's format number does not
        change when an option is added: README "Game records"); and a file's rules are a table:
        its null (None) is refused, not read as the classic rules."""
        if not isinstance(d, dict) and (stored or d is not None):
            raise ScopaError(f"rules must be a table of options, got "
                             f"{'null' if d is None else type(d).__name__}")
        d = dict(d or {})
        cls._refuse_unknown(d, stored)
        return cls(**d)

    def replace(self, **changes) -> "Rules":
        return Rules.from_dict({**self.to_dict(), **changes})

    def to_header(self):
        """The option slots of a state array (int64 vector of core.HEADER_SIZE) for core.init_match_rules."""
        from . import core
        return core.rules_header(
            self.players, int(self.napola), self.target, self.hand_cards, self.table_cards,
            int(self.re_bello), NAPOLEONE.index(self.napoleone), int(self.ace_takes_all),
            int(self.ace_scopa), int(not self.burned_ace), QUINDICI.index(self.quindici),
            int(self.fewest_cards), int(self.free_capture), PRIMIERA_SCALES.index(self.primiera),
            self.capotto, int(self.dealer_sweep), int(not self.re_redeal), int(not self.equal_first),
            int(self.ace_redeal), 0 if self.napola_max == 10 else self.napola_max, int(self.grande),
            int(self.hand_bonus), int(self.joker))

    def describe(self) -> str:
        """The options that differ from the classic game, as 'key=value' text ('classic' if none),
        written as --rule and config files take them ('napola=true', not Python's True)."""
        base = Rules()
        diff = [f"{k}={option_text(v)}" for k, v in self.to_dict().items() if getattr(base, k) != v]
        return ", ".join(diff) or "classic"

    def differences(self, other: "Rules", mine_at: str = "there", theirs_at: str = "here") -> str:
        """The options in which self (a checkpoint's rules: "there") and `other` (the rules asked
        for: "here") differ, as 'target 21 there, 11 here' text (describe() leaves out the options
        at their default, so two labels could hide what differs: 'quindici (target=21,
        quindici=only)' against 'quindici=only'). Records compare files with their own places:
        'target 21 in b.jsonl:1, 11 in a.jsonl:1'."""
        mine, theirs = self.to_dict(), other.to_dict()
        return "; ".join(f"{k} {option_text(mine[k])} {mine_at}, {option_text(theirs[k])} {theirs_at}"
                         for k in mine if mine[k] != theirs[k])


_OPTIONS = frozenset(f.name for f in fields(Rules))     # the option names Rules(...) takes
_TRUE_OR_FALSE = tuple(f.name for f in fields(Rules) if isinstance(f.default, bool))


def option_text(value) -> str:
    """An option's value as the command line and config files write it: true/false, 42, veneto."""
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def _whole(value, name: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ScopaError(f"rules option {name} must be a whole number {lo}..{hi}, got {number_text(value)}")
    return value
