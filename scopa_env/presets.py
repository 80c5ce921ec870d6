"""Named rules sets a user picks with one word (`--rules PRESET`, `--list-rules`).

Each preset is a `Rules` object, a one-line description of what it sets, and the seed document
(shared/seeds/, summarised in RULES.md) it comes from. Options a preset does not name keep the
classic default. Any preset can be adjusted with `rules.replace(...)` (e.g. another target).
"""
from __future__ import annotations

import textwrap

from dataclasses import dataclass

from .cards import shown_text
from .errors import ScopaError
from .rules import NAPOLEONE, PRIMIERA_SCALES, QUINDICI, Rules, option_text

CHOICES = {"napoleone": NAPOLEONE, "quindici": QUINDICI, "primiera": PRIMIERA_SCALES}


@dataclass(frozen=True)
class Preset:
    name: str
    rules: Rules
    description: str
    source: str


def _p(name: str, description: str, source: str, **options) -> Preset:
    return Preset(name, Rules(**options), description, source)


PRESETS: dict[str, Preset] = {p.name: p for p in (
    _p("classic", "2 players, 3 cards a deal and 4 on the table, to 11 (the default game)", "000"),
    _p("napola", "classic 2-player game with the napola, to 21 ('with napola one plays to 21 or 31')",
       "003, 004", napola=True, target=21),
    _p("re-bello", "classic 2-player game where the re di denari (10D) is a point like the settebello",
       "003, 004", re_bello=True),
    _p("scopa-d-assi", "asso piglia tutto: an ace takes the whole table (not a scopa; an ace on the "
       "table burns it: it takes only that ace; on an empty table it stays), 2 players to 21",
       "003, 004", ace_takes_all=True, target=21),
    _p("asso-piglia-tutto", "the children's scopa d'assi: the ace sweep counts as a scopa, 2 players to 21",
       "004", ace_takes_all=True, ace_scopa=True, target=21),
    _p("quindici", "scopa a quindici, strict form: a card takes table cards that with it sum to 15 "
       "(no equal-value capture), 2 players to 21", "003, 004", quindici="only", target=21),
    _p("quindici-both", "scopa a quindici, classic captures and 15-captures both allowed, the player "
       "choosing among them (some tables force the fewest cards: option fewest_cards), 2 players to "
       "21", "004", quindici="both", target=21),
    _p("quindici-assi", "scopa a quindici with classic captures, 15-captures and the ace that takes "
       "the table with a scopa point, 2 players to 31", "004", quindici="both", ace_takes_all=True,
       ace_scopa=True, target=31),
    _p("escopa-15", "escopa de 15 as in Brazil and Argentina: 15-captures only, the sevens point to "
       "whoever has most 7s (then 6s, aces, ...), 2 players to 21 (seed 004 gives the dealer's 15/30 "
       "sweep to Spain's escoba: the escoba preset)", "003, 004", quindici="only",
       primiera="most_sevens", target=21),
    _p("escoba", "escoba de 15 as in Spain, seed 004's table beside classic scopa: 15-captures only, "
       "the sevens point to most 7s (the table's simpler form of the setenta; ties as escopa-15), a "
       "first table of 15 (30) goes to the dealer with 1 (2) scope and 3 re void no deal, 2 players "
       "to 21 (the seeds give no target)", "003, 004",
       quindici="only", primiera="most_sevens", dealer_sweep=True, re_redeal=False, target=21),
    _p("cirulla", "Genoa's cirulla, 2 players to 51: equal, sum and 15 captures side by side, the ace "
       "takes the table with a scopa unless an ace is on it; a first table of 15 (30) is the dealer's "
       "1 (2) scope, two aces on it void the deal; hand bonuses at each deal (three of a kind 10, "
       "three cards summing to 9 or less 3; the hand is shown), the 7 of coppe a joker for them and "
       "for the dealer's 15/30; the piccola (1D 2D 3D, +1 a denari in sequence, at most 6) and the "
       "grande (8D 9D 10D: 5); all ten denari win the match", "003, 004",
       quindici="both", equal_first=False, ace_takes_all=True, ace_scopa=True, dealer_sweep=True,
       ace_redeal=True, hand_bonus=True, joker=True, napola=True, napola_max=6, grande=True,
       napoleone="win", target=51),
    _p("cirulla-pairs", "cirulla as seed 004 says it is usually played: 4 players in two pairs, "
       "partners opposite (3 deals a hand), to 51", "003, 004",
       quindici="both", equal_first=False, ace_takes_all=True, ace_scopa=True, dealer_sweep=True,
       ace_redeal=True, hand_bonus=True, joker=True, napola=True, napola_max=6, grande=True,
       napoleone="win", target=51, players=4),
    _p("three-players", "3 players each for self, 3 cards a deal (4 deals a hand), to 16 "
       "(the most cards win the carte point, so 14 can win it; a tie for the most: nobody)", "003, 004", players=3, target=16),
    _p("pairs", "4 players in two pairs, partners opposite, 3 cards a deal (3 deals a hand), piles "
       "and scope pooled, to 21", "004", players=4, target=21),
    _p("six-players", "6 players in three pairs, partners opposite, 3 cards a deal (2 deals a hand), "
       "to 21", "003, 004", players=6, target=21),
    _p("scopone", "4 players in two pairs, 9 cards each and 4 on the table, one deal, to 11",
       "003, 004", players=4, hand_cards=9, table_cards=4),
    _p("scopone-scientifico", "4 players in two pairs, 10 cards each and an empty table, one deal, to 11",
       "003, 004", players=4, hand_cards=10, table_cards=0),
    _p("scopone-trentino", "scopone (9 + 4) with the napola, all ten denari win the match "
       "(napoleone), to 21", "003", players=4, hand_cards=9, table_cards=4, napola=True,
       napoleone="win", target=21),
    _p("scopone-milanese", "the Milan combination: scopone scientifico (10 each, empty table) with "
       "scopa d'assi and the napola, to 21", "003, 004", players=4, hand_cards=10, table_cards=0,
       ace_takes_all=True, napola=True, target=21),
)}


def preset_key(name: str) -> str:
    """A preset name as the presets are looked up: case and surrounding spaces aside."""
    return name.strip().lower()


def rules_from_preset(name: str) -> Rules:
    """The Rules of a preset; ScopaError listing the known names for an unknown one."""
    if not isinstance(name, str) or preset_key(name) not in PRESETS:
        raise ScopaError(f"unknown rules preset {name!r} (known: {', '.join(PRESETS)})")
    return PRESETS[preset_key(name)].rules


def preset_name(rules: Rules) -> str | None:
    """The name of the preset whose rules equal `rules`, or None."""
    for p in PRESETS.values():
        if p.rules == rules:
            return p.name
    return None


def _kinds() -> dict[str, type]:
    from dataclasses import fields
    return {f.name: type(f.default) for f in fields(Rules)}


def rule_option(text: str) -> tuple[str, object]:
    """One `--rule OPTION=VALUE` flag -> (option, value), the value read as the option's type:
    true/false for a switch, a whole number for a count, one of its choices for a choice (any
    case, as true/false and the preset names). ScopaError names an unknown option or a value
    of the wrong kind; Rules checks the ranges."""
    if not isinstance(text, str) or "=" not in text:
        raise ScopaError(f"--rule {shown_text(str(text))} must look like OPTION=VALUE (e.g. --rule "
                         f"fewest_cards=true)")
    name, raw = (part.strip() for part in text.split("=", 1))
    kinds = _kinds()
    flag = f"--rule {shown_text(text)}"
    if name not in kinds:
        raise ScopaError(f"{flag}: unknown rules option {shown_text(name)} (known: {', '.join(kinds)}; "
                         f"--list-rules shows their values)")
    kind = kinds[name]
    if kind is bool:
        if raw.lower() in ("true", "false"):
            return name, raw.lower() == "true"
        raise ScopaError(f"{flag}: {name} is true or false, got {shown_text(raw)}")
    if kind is int:
        digits = raw[1:] if raw[:1] in "+-" else raw
        if digits.isascii() and digits.isdigit():
            if len(digits) > 100:   # int() refuses 4,300 digits and more; no option counts past 1,000
                raise ScopaError(f"{flag}: {name} is out of range ({len(digits):,} digits; "
                                 f"--list-rules shows the classic value)")
            return name, int(raw)
        raise ScopaError(f"{flag}: {name} is a whole number, got {shown_text(raw)}")
    if raw.lower() in CHOICES.get(name, ()):
        return name, raw.lower()
    raise ScopaError(f"{flag}: {name} is one of {', '.join(CHOICES[name])}, got {shown_text(raw)}")


def rules_from_flags(preset: str, napola: bool = False, target: int | None = None,
                     options=()) -> Rules:
    """The rules of the scripts' flags (evaluate.py, play.py, scopa_env.simulate): `--rules
    PRESET`, `--napola` (turns the napola on), `--target N`, then each `--rule OPTION=VALUE`
    (`options`: those texts). ScopaError for a bad name or value, or an option set twice."""
    changes: dict[str, object] = {}
    for text in options:
        name, value = rule_option(text)
        if name in changes:
            raise ScopaError(f"--rule sets {name} twice ({option_text(changes[name])} and {option_text(value)}): keep one")
        changes[name] = value
    for name, flag, given in (("napola", "--napola", napola), ("target", "--target", target is not None)):
        if given and name in changes:
            raise ScopaError(f"{flag} and --rule {name}=... both set the rules option {name}: keep one")
    rules = resolve_rules(preset, napola=True if napola else None, target=target)
    if not changes:
        return rules
    try:
        return rules.replace(**changes)
    except ScopaError as e:     # a range, or options that do not go together: said as the flags'
        raise ScopaError(f"{' '.join(f'--rule {shown_text(t)}' for t in options)}: {e}") from None


def changed_options(rules: Rules, preset: str, leave=()) -> str:
    """The options in which `rules` differ from preset `preset`'s, as the --rule values that
    give them ('fewest_cards=true, primiera=veneto'; '' for none), those in `leave` aside."""
    base = rules_from_preset(preset)
    return ", ".join(f"{k}={option_text(v)}" for k, v in rules.to_dict().items()
                     if k not in leave and getattr(base, k) != v)


def preset_flags(rules: Rules) -> str:
    """The command-line flags that give `rules` in evaluate.py, play.py and scopa_env.simulate:
    `--rules NAME`, with `--napola`, `--target N` and `--rule OPTION=VALUE` for what the preset
    leaves different (the fewest flags; the first preset of those that tie)."""
    best = None
    for p in PRESETS.values():
        flags = [f"--rules {p.name}"]
        if rules.napola and not p.rules.napola:
            flags.append("--napola")
        if rules.target != p.rules.target:
            flags.append(f"--target {rules.target}")
        base = p.rules.replace(napola=p.rules.napola or rules.napola, target=rules.target)
        flags += [f"--rule {k}={option_text(v)}" for k, v in rules.to_dict().items()
                  if getattr(base, k) != v]
        if best is None or len(flags) < len(best):
            best = flags
    return " ".join(best)


def list_rules_text() -> str:
    """The presets, each with what it sets and the seed it comes from, then the options (for
    --list-rules), within LIST_WIDTH columns."""
    width = max(len(n) for n in PRESETS)
    column = " " * (width + 4)

    def under(first: str, text: str, then: str = column) -> str:
        # within LIST_WIDTH columns, each line continued under its own column (a cirulla line
        # of 540 characters wrapped back into the names' column: a terminal review)
        return textwrap.fill(text, LIST_WIDTH, initial_indent=first, subsequent_indent=then,
                             break_long_words=False, break_on_hyphens=False)
    lines = [under("", "Rules presets (--rules NAME); seeds are the source documents of RULES.md (beside "
                       "the repository, ../shared/seeds/):", "")]
    for p in PRESETS.values():
        lines.append(under(f"  {p.name:<{width}}  ", f"{p.description} [seed {p.source}]"))
        lines.append(under(column, f"options: {p.rules.describe()}", column + "  "))
    lines.append(under("", "Rules options (--rule OPTION=VALUE after the preset, in every script; train.py "
                           "also --set rules.OPTION=VALUE; scopa_env/rules.py says what each does):", ""))
    classic = Rules()
    for name, kind in _kinds().items():
        what = ("true or false" if kind is bool else "a whole number" if kind is int
                else " | ".join(CHOICES[name]))
        lines.append(under("  ", f"{name} = {what} (classic {option_text(getattr(classic, name))})", "    "))
    return "\n".join(lines)


LIST_WIDTH = 79     # --list-rules' lines fit an 80-column terminal


def resolve_rules(rules=None, napola: bool | None = None, target: int | None = None) -> Rules:
    """The rules an env or an agent plays: a Rules object, a preset name
    (scopa_env/presets.py) or None for the classic game; `napola` / `target`, when given,
    replace those two options."""
    if rules is None:
        r = Rules()
    elif isinstance(rules, str):
        r = rules_from_preset(rules)
    elif isinstance(rules, Rules):
        r = rules
    else:
        raise ScopaError(f"rules must be a Rules object or a preset name, got "
                         f"{type(rules).__name__}")
    changes = {k: v for k, v in (("napola", napola), ("target", target)) if v is not None}
    return r.replace(**changes) if changes else r
