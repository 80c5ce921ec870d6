"""Play scopa in the terminal against the computer: a rule level or a trained agent.

    python play.py [--rules PRESET] [--opponent easy|normal|hard|random|PATH.pt] [--partner SPEC]
                   [--napola] [--target T] [--rule OPTION=VALUE ...] [--seed S] [--italian]
    python play.py --list-rules

You are seat 0, the computer the other seats; the match seed decides who deals the first hand,
then the deal passes to the next seat. Each computer seat is an `agents` Agent: it is handed
`Game.observation(seat)` and answers an action id, so it never sees your cards (nor its
partner's) or the deck. With 3 players both others are opponents; in pairs (4 or 6 players,
partners opposite) your partner (seat players / 2) is the `--partner` agent (default: the same
level as the opponents) and the screen shows every seat's captures and each side's pooled pile.
All I/O goes through `PlaySession(input_fn, output)`, which is how the tests drive whole matches.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import re
import secrets
import sys
import textwrap
import threading
from pathlib import Path
from typing import Callable, TextIO

try:    # Ctrl-C while the modules load (numba's caches, about half a second): one line too
    from agents import REGISTRY, make_agent, split_spec
    from agents.arena import agent_seed
    from scopa_env.actions import action_table
    from scopa_env.cards import (SETTEBELLO, SUIT_SYMBOLS, SUITS, card_id, card_name_compact, card_name_it,
                                 parse_card, rank_of, suit_of)
    from scopa_env.cli import Parser, add_rules_flags, list_rules_alone, on_terminal, rules_hint, run_main
    from scopa_env.errors import RulesMismatch, ScopaError
    from scopa_env.game import Game, Move, primiera
    from scopa_env.presets import PRESETS, changed_options, list_rules_text, preset_name, rules_from_flags
    from scopa_env.rules import Rules
    from scopa_env.seeds import check_seed, offset_seed
except KeyboardInterrupt:
    print("\nCiao!")
    sys.exit(0)

DEFAULT_CHECKPOINT = Path(__file__).resolve().parent / "checkpoints" / "scopa-default.pt"
HUMAN, COMPUTER = 0, 1
JOKER = parse_card("7C")      # the 7 of coppe, cirulla's joker (Rules.joker)
NAMES = ("You", "Computer")
WIDTH = 79


def fit(text: str, stream) -> str:
    """`text` as a terminal `stream` shows it whole: each line longer than terminal_width wrapped
    at spaces, its continuation lines indented two more than it (a capture in Italian names, a
    pairs banner, a shown cirulla hand ran to 85-162 columns and wrapped mid-word in an
    80-column terminal: a terminal review). To a file or a pipe, as it is (a line for grep)."""
    width = terminal_width(stream)
    if width is None:
        return text
    out = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
            continue
        indent = line[:len(line) - len(line.lstrip(" "))]
        out.append(textwrap.fill(_glued(line.strip()), width=width, initial_indent=indent,
                                 subsequent_indent=indent + "  ", break_long_words=False,
                                 break_on_hyphens=False).replace(_GLUE, " "))
    return "\n".join(out)


_GLUE = "\x00"      # a space fit does not break at
_WHOLE = re.compile(r"\*\*\* [^*]+? \*\*\*|\S+ di \S+")    # '*** SCOPA! ***', 'Asso di denari'


def _glued(line: str) -> str:
    """`line` with the spaces fit keeps glued: inside a card's Italian name and an announcement,
    and inside each short item of a ' · ' list ('0 denari' wrapped as '0' and 'denari')."""
    items = line.split(" · ")
    return " · ".join(item.replace(" ", _GLUE) if len(item) <= 24
                      else _WHOLE.sub(_glue_short, item) for item in items)


def _glue_short(m: re.Match) -> str:
    # a long announcement ('*** You and your partner win the match ... ***') may still wrap
    return m.group().replace(" ", _GLUE) if len(m.group()) <= 24 else m.group()


def terminal_width(stream) -> int | None:
    """The columns to fit lines in on a terminal: WIDTH, or one less than a narrower window's
    (read at each line: a window resized mid-match), at least 20; None when `stream` is no
    terminal."""
    try:
        if not stream.isatty():
            return None
        columns = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, ValueError, OSError):
        return None
    return WIDTH if columns <= 0 else max(20, min(WIDTH, columns - 1))


CARD_TEXT = re.compile(r"[0-9]{1,2}[DCSB]", re.IGNORECASE)
NUMBER = re.compile(r"[0-9]+")     # ASCII only: str.isdigit() also accepts '²'
QUIT_WORDS = ("q", "quit", "exit")     # at every prompt


SUIT_HELP = f"D denari {SUIT_SYMBOLS[0]}, C coppe {SUIT_SYMBOLS[1]}, S spade {SUIT_SYMBOLS[2]}, B bastoni {SUIT_SYMBOLS[3]}"
HEART_HINT = " (the screen's \u2665 is C, coppe)"
CLUB_HINT = " (the screen's \u2663 is B, bastoni; C is coppe \u2665)"
# each line fits 79 columns (review: 85-89 wrapped mid-word in an 80-column terminal); the face
# cards' values, which the Italian names do not show (review: "Cavallo di denari" is 9d)
HELP = f"""\
  1 2 3           play that card of your hand (you choose when it can take
                  more than one way)
  7d   7d x 4c 3s play a card by notation, optionally saying what it takes;
                  values 1-10 (Fante 8, Cavallo 9, Re 10), suits
                  {SUIT_HELP}
  ?  help   d  Italian/compact names   Enter  show the table again   q  quit
  n  new match   l  change level   a  napola on/off (both start a new match)"""

# (key in Game.hand_score(), label) in the order the seed game shows them
SCORE_LINES = (("carte", "cards"), ("denari", "denari"), ("settebello", "settebello"),
               ("primiera", "primiera"), ("scope", "scope"), ("napola", "napola"))
LINE_LABELS = dict(SCORE_LINES, re_bello="re bello", napoleone="napoleone", grande="grande",
                   hand_bonus="hand bonus")


def line_label(key: str, rules: Rules) -> str:
    """A score line's label: beside cirulla's grande the napola is the piccola (RULES.md; a
    Genoese player's word, review)."""
    return "piccola" if key == "napola" and rules.grande else LINE_LABELS[key]


def seat_names(players: int) -> tuple[str, ...]:
    """What the screen calls each seat: 'You', the 'Computer' of the 2-player game; with more
    players the opponents in turn order and, in pairs, the 'Partner' sitting opposite."""
    if players == 2:
        return NAMES
    if players == 3:
        return ("You", "Computer 1", "Computer 2")
    sides = players // 2
    names = ["You"]
    for seat in range(1, players):
        side = seat % sides
        if side == 0:
            names.append("Partner")
        elif sides == 2:
            names.append(f"Opponent {seat // sides + 1}")
        else:
            names.append(f"Opponent {'BC'[side - 1]}{seat // sides + 1}")
    return tuple(names)


def side_names(players: int) -> tuple[str, ...]:
    """What the screen calls each side (a seat when each plays for self)."""
    if players <= 3:
        return seat_names(players)
    if players == 4:
        return ("Us", "Them")
    return ("Us", "Side B", "Side C")


def side_subject(name: str) -> str:
    """A side's name as the subject of a sentence: 'Us' and 'Them' are column headings ("Us
    took all ten denari", "Them win": review); seats and 'Side B' stay as they are."""
    return {"Us": "We", "Them": "They"}.get(name, name)


def fallback_notice(err: ScopaError) -> str:
    """Why the default opponent, the shipped agent, gives way to the fallback level: under
    other rules, the rules it plays (the mismatch's text listed every option that differs,
    795 characters under cirulla: review); else the error (an unreadable file, no torch)."""
    if isinstance(err, RulesMismatch):
        t = err.trained
        why = f"plays only {rules_label(t)} to {t.target}, napola {'on' if t.napola else 'off'}"
    else:
        why = f"cannot play here ({err})"
    return f"The shipped agent {why}; you play the {FALLBACK_LEVEL} level instead."


class Quit(Exception):
    """The person leaves: `q` (or quit, exit), `n` at the new-match offer, or end of input."""


# what a terminal without the suit symbols gets: the card letters of the notation, '-' for '·'
ASCII_TEXT = str.maketrans({**dict(zip(SUIT_SYMBOLS, SUITS, strict=True)), "\u00b7": "-"})
# where the symbols explain the letters, a screen of letters drops them ("D denari D")
ASCII_PHRASES = ((SUIT_HELP, "D denari, C coppe, S spade, B bastoni"), (HEART_HINT, ""), (CLUB_HINT, ""))
FALLBACK_LEVEL = "normal"   # the default opponent when there is no usable shipped agent


DEFAULT_SEARCH = 9000      # the shipped agent plays with search (its strongest, README)

# A computer move still running after this many seconds gets a line saying why: the first game
# after an install compiles the engine's kernels (numba, cached after) for about a minute,
# which was silence; a long search (hard:budget=...) says so too. None: never (the tests). Over
# the 1.9 s a warm start takes to load torch and the shipped agent: at 1.5 s every start said
# the engine was compiling when nothing compiled (a timing review).
THINKING_NOTICE_S: float | None = 3.0
THINKING = "(the computer is thinking; the first game after an install also compiles the engine, about a minute)"
THINKING_AGAIN = "(the computer is thinking)"      # the notices after the first
# the same wait before the first screen: building the computer players compiles the kernels
# they use on a first start, which left the terminal blank for 13 to 28 s (a timing review)
LOADING = "(getting the computer players ready; the first game after an install compiles the engine, about a minute)"
LOADING_AGAIN = "(getting the computer players ready)"


@contextlib.contextmanager
def notice_if_slow(notice: Callable[[], None]):
    """Calls `notice` from a timer thread if the block is still running after THINKING_NOTICE_S
    seconds (never when it is None); the timer is over when the block is."""
    timer = None
    if THINKING_NOTICE_S is not None:
        timer = threading.Timer(THINKING_NOTICE_S, notice)
        timer.daemon = True
        timer.start()
    try:
        yield
    finally:
        if timer is not None:
            timer.cancel()
            timer.join()    # a timer thread still alive at exit aborted the process (134)


def _say_loading(said: list) -> None:
    """main's notice of a slow build before the session exists, from its timer thread; output
    that fails there is left to the session's first line to report (a traceback of the thread's
    was printed instead: the diff review)."""
    try:
        print(fit(LOADING, sys.stdout))
        said.append(True)
    except OSError:
        pass


def default_opponent() -> str:
    """The shipped trained agent with search when present, else the normal level."""
    if DEFAULT_CHECKPOINT.is_file():
        return f"{DEFAULT_CHECKPOINT}:search={DEFAULT_SEARCH}"
    return FALLBACK_LEVEL


def opponent_label(spec: str) -> str:
    """A checkpoint by its `name=` option when given (the name game records use; the banner
    showed the spec as typed), else by its file name (and options); a level by its own name
    (`Hard` as `hard`); anything else as given."""
    spec = str(spec)
    try:
        named = split_spec(spec)[1].get("name")
    except ScopaError:     # not a spec make_agent takes: shown as typed
        named = None
    if named:
        return named
    head, sep, options = spec.rpartition(".pt:")
    if sep:
        return f"{Path(head + '.pt').name}:{options}"
    if spec.endswith(".pt"):
        return Path(spec).name
    level, colon, rest = spec.partition(":")
    if level not in REGISTRY and level.lower() in REGISTRY:
        # as make_agent reads it, in any case: 'HARD' was shown as typed (a terminal review)
        return level.lower() + colon + rest
    return spec


def parse_move_text(text: str) -> tuple[str, list[str] | None]:
    """'7d x 4c 3s' -> ('7d', ['4c', '3s']); '7d' -> ('7d', None); '7d x' -> ('7d', []).

    The separator 'x' is optional, commas and '+' count as spaces, and the suit symbols of the
    compact names ('7♦') read as their letters. None means "not said"; [] means "takes nothing".
    """
    for symbol, letter in zip(SUIT_SYMBOLS, SUITS, strict=True):
        text = text.replace(symbol, letter)
    tokens = text.replace(",", " ").replace("+", " ").split()
    if not tokens:
        raise ScopaError("type a card to play")
    first, rest = tokens[0], tokens[1:]
    said_x = bool(rest) and rest[0].lower() == "x"
    captures = [t for t in rest if t.lower() != "x"]
    return first, (captures if captures or said_x else None)


def cut(text: str, limit: int, show=str) -> str:
    """`text` shown whole, or its first `limit` characters and its length (a pasted megabyte was
    printed whole)."""
    return show(text) if len(text) <= limit else show(text[:limit]) + f"... ({len(text):,} characters)"


def echo(text: str, limit: int = 40) -> str:
    """What the person typed, quoted, cut to `limit` characters."""
    return cut(text, limit, repr)


def read_card(token: str) -> int:
    """A card typed by the person; ScopaError for anything but ASCII notation like '7d'."""
    if not CARD_TEXT.fullmatch(token):
        hint = HEART_HINT if token[-1:].lower() == "h" else ""
        raise ScopaError(f"bad card {echo(token)}: write rank 1-10 then suit D/C/S/B, e.g. 7d or 10b{hint}")
    return parse_card(token)


def span(n: int) -> str:
    """How to say which numbers may be typed: '1' or '1-3'."""
    return "1" if n == 1 else f"1-{n}"


def by_rank(cards) -> list[int]:
    """Cards in the order a person sorts them: by rank, then suit."""
    return sorted(cards, key=lambda c: (rank_of(c), suit_of(c)))


def pile_summary(pile: list[int], scope: int) -> str:
    """'12 cards · 4 denari · settebello · 2 sevens · 1 scopa'."""
    denari = sum(1 for c in pile if suit_of(c) == 0)
    sevens = sum(1 for c in pile if rank_of(c) == 7)
    parts = [f"{len(pile)} card{'' if len(pile) == 1 else 's'}",
             f"{denari} denar{'o' if denari == 1 else 'i'}"]
    if SETTEBELLO in pile:
        parts.append("settebello")
    parts.append(f"{sevens} seven{'' if sevens == 1 else 's'}")
    parts.append(f"{scope} scop{'a' if scope == 1 else 'e'}")
    return " · ".join(parts)


def value_words(value: int) -> str:
    """'an ace', 'a 5', 'a fante (8)': a capture value as a player says it."""
    figures = {1: "an ace", 8: "a fante (8)", 9: "a cavallo (9)", 10: "a re (10)"}
    return figures.get(value, f"a {value}")


def rules_label(rules: Rules) -> str:
    """The preset the rules are, napola and target aside (the banner shows those), else the
    nearest preset and what differs from it: 'cirulla with joker=false' (the options that
    differ from the classic game, napola and target among them, said both twice: review)."""
    name = preset_name(rules)
    if name is not None:
        return name
    changes = {p.name: changed_options(rules, p.name, leave=("napola", "target")) for p in PRESETS.values()}
    best = min(changes, key=lambda n: len(changes[n].split(", ")) if changes[n] else 0)
    return best + (f" with {changes[best]}" if changes[best] else "")


MOST_SEVENS_ORDER = ((7, "seven"), (6, "six"), (1, "ace"), (5, "five"), (4, "four"), (3, "three"),
                     (2, "two"), (None, "figure"))      # core.most_sevens_key's order


def most_sevens_detail(piles) -> str:
    """Each pile's counts under most_sevens, up to the rank that decided (the first whose counts
    differ among the piles still level for the lead): '2 sevens, 3 sixes - 2 sevens, 1 six'; the
    sevens alone when the leaders agree all the way."""
    def count(p, rank):
        return sum(1 for c in p if (rank_of(c) >= 8 if rank is None else rank_of(c) == rank))

    shown = []
    level = list(piles)     # with 3 sides one far behind on sevens decided nothing (review)
    for rank, word in MOST_SEVENS_ORDER:
        shown.append((rank, word))
        best = max(count(p, rank) for p in level)
        level = [p for p in level if count(p, rank) == best]
        if len(level) == 1:
            break
    else:
        shown = shown[:1]       # a tie all the way: nobody takes the point

    def said(n, word):
        return f"{n} {word}" if n == 1 else f"{n} {'sixes' if word == 'six' else word + 's'}"
    return " - ".join(", ".join(said(count(p, rank), word) for rank, word in shown) for p in piles)


def primiera_detail(piles, scale: str) -> str:
    """'78 - 61' (the primiera of each pile under the rules' scale; 'none' without all four
    suits), or the sevens of each pile when the point goes to the most sevens."""
    if scale == "most_sevens":
        return most_sevens_detail(piles)
    # by the suits, not by a value of 0: under figures0 a pile of four suits of figures is
    # worth 0 and still in the running (with 3 or more sides it can take the point)
    return " - ".join(str(primiera(p, scale)) if len({suit_of(c) for c in p}) == 4 else "none"
                      for p in piles)


class PlaySession:
    """One person against the computer seats (one opponent, or partners and opponents in pairs and
    3-player games), over as many matches as they like.

    `input_fn(prompt) -> str` reads a line (EOFError ends the session); `output` gets the rest.
    """

    def __init__(self, opponent: str, rules: Rules, seed: int,
                 input_fn: Callable[[str], str] = input, output: TextIO | None = None,
                 italian: bool = False, partner: str | None = None, ascii_only: bool = False,
                 implicit_opponent: bool = False, loading_said: bool = False):
        self.input_fn = input_fn
        self.ascii_only = ascii_only    # the output cannot show the suit symbols or '·'
        # the opponent is the default (the shipped agent), not named by the person: under rules
        # it cannot play (napola via 'a'), the fallback level plays instead, as at start-up
        self.implicit_opponent = implicit_opponent
        self.out = output if output is not None else sys.stdout
        self.rules = rules
        self.opponent = opponent
        if partner is not None and rules.players not in (4, 6):
            raise ScopaError(f"a partner plays only in pairs (4 or 6 players); these rules have "
                             f"{rules.players} players")
        self.partner = partner          # None: the same level as the opponents
        # the first slow-computer notice also mentions compiling, unless a slow start said so
        # (loading_said: main's build of --partner said it before this session existed)
        self._first_think = not loading_said
        with notice_if_slow(self._loading_notice):
            self.agents = self.make_agents(opponent, partner, rules, seed)  # ScopaError: a bad spec
        self.actions = action_table(rules)
        self.next_seed = seed
        self.italian = italian
        self.game: Game | None = None
        self.log: list[str] = []    # what happened since the person last saw the table

    # ---- seats ---------------------------------------------------------------------------
    @staticmethod
    def make_agents(opponent: str, partner: str | None, rules: Rules, seed: int) -> dict:
        """The computer seats' agents, one object per seat: {seat: Agent}."""
        agents = {}
        for seat in range(1, rules.players):
            spec = partner if partner is not None and rules.team_of(seat) == 0 else opponent
            agents[seat] = make_agent(spec, rules, seed)
        return agents

    @property
    def agent(self):
        """The computer of seat 1 (the opponent of the 2-player game)."""
        return self.agents[COMPUTER]

    @agent.setter
    def agent(self, agent) -> None:
        self.agents[COMPUTER] = agent

    @property
    def pairs(self) -> bool:
        return self.rules.players in (4, 6)

    def seat_name(self, seat: int) -> str:
        return seat_names(self.rules.players)[seat]

    def side_pile(self, side: int) -> tuple[list[int], int]:
        """A side's pooled pile and scope (a seat's own with 2 or 3 players)."""
        g = self.game
        seats = [p for p in range(self.rules.players) if self.rules.team_of(p) == side]
        pile = sorted(c for p in seats for c in g.pile(p))
        return pile, sum(g.scope(p) for p in seats)

    def partner_label(self) -> str:
        return opponent_label(self.partner if self.partner is not None else self.opponent)

    # ---- text ----------------------------------------------------------------------------
    def say(self, text: str = "") -> None:
        if self.ascii_only:     # a terminal without the symbols: '?' for each was unreadable
            for fancy, plain in ASCII_PHRASES:
                text = text.replace(fancy, plain)
            text = text.translate(ASCII_TEXT)
        text = fit(text, self.out)
        # flushed: piped (`| tee log`) the output is block-buffered, and a long computer move
        # (the first-run compile: a minute) showed nothing, not even the match's first lines
        print(text, file=self.out, flush=True)

    def ask(self, prompt: str) -> str:
        while True:
            try:
                return self.input_fn(prompt)
            except EOFError:
                self.say()          # the prompt is still waiting on its line
                raise Quit from None
            except UnicodeDecodeError:     # bytes the terminal's encoding cannot read
                self.say()
                self.say("  could not read that line (characters this terminal cannot decode)")

    def name(self, card: int) -> str:
        return card_name_it(card) if self.italian else card_name_compact(card)

    def names(self, cards) -> str:
        return (", " if self.italian else "  ").join(self.name(c) for c in cards) or "(empty)"

    def wrapped(self, label: str, cards) -> str:
        """label + card names, wrapped between names (never inside one) under the first name."""
        words = [self.name(c).replace(" ", "\u00a0") + ("," if self.italian else " ")
                 for c in cards]
        words[-1:] = [w.rstrip(", ") for w in words[-1:]]
        text = textwrap.fill(" ".join(words) or "(empty)", width=WIDTH, initial_indent=label,
                             subsequent_indent=" " * len(label))
        return text.replace("\u00a0", " ")

    def move_text(self, move: Move) -> str:
        if not move.captured:
            return f"{self.name(move.card)} (stays on the table)"
        return f"{self.name(move.card)} and took {self.names(by_rank(move.captured_cards))}"

    def flush_log(self) -> None:
        for line in self.log:
            self.say(line)
        self.log = []

    # ---- the session ---------------------------------------------------------------------
    def run(self) -> int:
        """Play until the person quits or input ends; returns the exit code."""
        self.new_match()
        return self.loop()

    def loop(self) -> int:
        """Go on from the current position (tests set one up) until the person leaves."""
        try:
            while True:
                self.step()
        except Quit:
            self.flush_log()
            self.say("Ciao!")
        return 0

    def new_match(self) -> None:
        seed = self.next_seed
        self.next_seed = offset_seed(seed, 1)
        self.game = Game(self.rules, seed)
        for seat, agent in self.agents.items():
            # derived one way from the deal's seed, as evaluate.py does: the seed an agent is
            # given must not rebuild the deal (it was the deal's own seed for seat 1)
            agent.reset(agent_seed(seed, seat))
        self.log = []
        if self.rules.players == 2 and self.rules.replace(napola=False, target=11) == Rules():
            what = ""
        else:
            what = f" of {rules_label(self.rules)}"
        if self.pairs:
            against = (f"with your partner ({self.partner_label()}) against "
                       f"{opponent_label(self.opponent)}")
        elif self.rules.players == 3:
            against = f"against two {opponent_label(self.opponent)} players"
        else:
            against = f"against {opponent_label(self.opponent)}"
        self.say(f"\n=== New match{what} to {self.rules.target} {against}, napola "
                 f"{'on' if self.rules.napola else 'off'} (seed {seed}). ? for help ===")
        self.hand_start()

    def hand_start(self) -> None:
        """Log the new hand's banner, and the dealer's sweep of the first table when the rules
        give one (the hand then begins on an empty table)."""
        g = self.game
        self._bonus_said = [0] * self.rules.players
        self.log.append(self.hand_banner())
        sweep = g.dealer_sweep()
        if sweep:
            if g.dealer == HUMAN:
                who = "you take it"
            elif self.rules.players == 2:
                who = "the computer takes it"
            else:
                who = f"{self.seat_name(g.dealer)} takes it"
            first = g.first_table()
            joker = ""
            if self.rules.joker and JOKER in first:    # it counts as the value that makes the sum
                value = 15 * sweep - sum(rank_of(c) for c in first if c != JOKER)
                joker = f" with the {self.name(JOKER)} as {value_words(value)}"
            self.log.append(f"The table dealt ({self.names(by_rank(first))}) sums to "
                            f"{15 * sweep}{joker}: {who}, {sweep} scop{'a' if sweep == 1 else 'e'}.")
        elif g.to_move != HUMAN and g.first_table():
            # others play before the person's first screen: the table they chose from was never
            # shown, only what it became (review)
            self.log.append(f"Table dealt: {self.names(by_rank(g.first_table()))}")
        self.say_bonuses()

    def say_bonuses(self) -> None:
        """Log the hand bonuses declared since the last look (Rules.hand_bonus: a seat declares
        at its first turn of a deal, showing its hand)."""
        g = self.game
        if not self.rules.hand_bonus:
            return
        for seat in range(self.rules.players):
            gained = g.hand_bonus(seat) - self._bonus_said[seat]
            if gained <= 0:
                continue
            self._bonus_said[seat] = g.hand_bonus(seat)
            kind = "three of a kind" if gained == 10 else "three cards summing to 9 or less"
            joker = ""
            if JOKER in g.shown(seat) and g.joker_value() != 7:
                joker = f", the {self.name(JOKER)} as {value_words(g.joker_value())}"
            who = "You show" if seat == HUMAN else f"{self.seat_name(seat)} shows"
            self.log.append(f"{who} {self.names(by_rank(g.shown(seat)))} ({kind}{joker}): "
                            f"{gained} points.")

    def hand_banner(self) -> str:
        g = self.game
        if self.rules.players == 2:
            deals = "You deal" if g.dealer == HUMAN else "Computer deals"
            first = "you play" if g.dealer == COMPUTER else "computer plays"
            return f"--- Hand {g.hand_no + 1}: {deals}, {first} first ---"
        deals = "You deal" if g.dealer == HUMAN else f"{self.seat_name(g.dealer)} deals"
        first = "you play" if g.to_move == HUMAN else f"{self.seat_name(g.to_move)} plays"
        return f"--- Hand {g.hand_no + 1}: {deals}, {first} first ---"

    def step(self) -> None:
        """Advance by one play (the computer's, or the person's) or one end-of-hand pause."""
        g = self.game
        if g.match_over:
            self.end_of_match()
        elif g.hand_over:
            self.between_hands()
        elif g.to_move != HUMAN:
            self.computer_turn()
        else:
            self.human_turn()

    def between_hands(self) -> None:
        """The pause after a hand's score. The commands of the turn prompt that start something
        (n, l, a) and ?, d work here too: 'n' went on to the next hand, though help says it
        starts a new match (review). Any other answer goes on (scripts pipe a play's number
        here); 'quit' went on too, once."""
        g = self.game
        while True:
            line = self.ask("Enter for the next hand (q quits) ").strip()
            command = line.lower()
            if command in QUIT_WORDS:
                raise Quit
            if command in ("?", "h", "help"):
                self.say("  Enter  next hand · n  new match · l  level · a  napola on/off · d  names · q  quit")
                continue
            if command == "d":
                self.italian = not self.italian
                self.say(f"  card names: {'Italian' if self.italian else 'compact'}")
                continue
            started = self.match_command(command, line)
            if started:
                return
            if started is False:
                continue
            g.next_hand()
            self.hand_start()
            return

    def match_command(self, command: str, line: str) -> bool | None:
        """n (new match), a (napola on/off), l [LEVEL] (change level), the commands that start a
        new match, at a turn and between hands: True if one started, False if it was one of
        them and none started, None if `command` is none of them."""
        if command == "n":
            self.say("Match abandoned.")
            self.new_match()
            return True
        if command == "a":
            return self.change_rules(self.rules.replace(napola=not self.rules.napola))
        if command == "l" or command.startswith("l "):
            return self.change_level(line[1:].strip())
        return None

    def play(self, move: Move) -> None:
        """Apply a legal move, note what happened, and score a finished hand."""
        g = self.game
        table_before = g.table
        who = g.to_move
        result = g.play(move.card, move.captured)
        line = f"{self.seat_name(who)} played {self.move_text(move)}"
        self.log.append(line + ("   *** SCOPA! ***" if result.scopa else ""))
        if result.dealt:
            self.log.append(f"New deal: {self.rules.hand_cards} cards each, {g.deck_left} left "
                            f"in the deck.")
        if not result.hand_over:
            self.say_bonuses()
        if result.hand_over:
            left = [c for c in table_before if not move.captured >> c & 1]
            if not move.captured:
                left.append(move.card)
            if left and g.last_capturer is not None:
                if self.rules.players == 2:
                    whom = 'you' if g.last_capturer == HUMAN else 'the computer'
                else:
                    whom = 'you' if g.last_capturer == HUMAN else self.seat_name(g.last_capturer)
                self.log.append(f"Cards left on the table ({self.names(by_rank(left))}) go to "
                                f"{whom}.")
            self.flush_log()
            self.show_hand_score()

    def _thinking_notice(self) -> None:
        """The notice of a slow computer move, printed from its timer thread. A reader that has
        gone (`| head`) is the main thread's to end on: no traceback from this thread."""
        try:
            self.say(THINKING if self._first_think else THINKING_AGAIN)
            self._first_think = False
        except OSError:
            pass

    def _loading_notice(self) -> None:
        """The notice of a slow build of the computer players (at start-up, or a level or rules
        changed in play), from its timer thread: the long one the first time, which says why,
        so a later thinking notice is the short one; the short one after it."""
        try:
            self.say(LOADING if self._first_think else LOADING_AGAIN)
            self._first_think = False
        except OSError:
            pass

    def computer_turn(self) -> None:
        self.flush_log()     # the person's own move first: the thinking notice printed above it
        seat = self.game.to_move
        with notice_if_slow(self._thinking_notice):
            action = self.agents[seat].act(self.game.observation(seat))
        try:
            card, captured = self.actions.decode(action, table=self.game.table)
            move = self.game.resolve(card, captured)
        except ScopaError as err:   # an agent bug: reported, never replaced by another move
            spec = self.partner if self.partner is not None and self.rules.team_of(seat) == 0 \
                else self.opponent
            who = "the computer" if self.rules.players == 2 else self.seat_name(seat)
            raise ScopaError(f"{who} ({opponent_label(spec)}) chose an illegal "
                             f"move: {err}") from None
        self.play(move)

    # ---- the person's turn ---------------------------------------------------------------
    def show_state(self) -> None:
        if self.rules.players != 2:
            self.show_state_many()
            return
        g = self.game
        you, cpu = g.scores
        deals = "you deal" if g.dealer == HUMAN else "computer deals"
        self.say(f"--- You {you} · Computer {cpu} (to {self.rules.target}) · hand {g.hand_no + 1}, "
                 f"{deals} · deck {g.deck_left}{' · napola' if self.rules.napola else ''} ---")
        self.say(self.wrapped("Table:     ", by_rank(g.table)))
        self.say(f"Computer:  {len(g.hand(COMPUTER))} in hand{self.shown_text(COMPUTER)} · took "
                 f"{pile_summary(g.pile(COMPUTER), g.scope(COMPUTER))}")
        self.say(f"You took:  {pile_summary(g.pile(HUMAN), g.scope(HUMAN))}")
        hand = by_rank(g.hand(HUMAN))
        self.say("Your hand: " + "   ".join(f"{i}) {self.name(c)}" for i, c in enumerate(hand, 1)))
        self.say_joker()

    def say_joker(self) -> None:
        """The joker's capture value, while it has one and is on the table or in the person's
        hand (Rules.joker: shown in a hand bonus, it keeps that value until it is captured or the
        deal ends)."""
        g = self.game
        if g.joker_value() != 7 and (JOKER in g.table or JOKER in g.hand(HUMAN)):
            self.say(f"The {self.name(JOKER)} captures as {value_words(g.joker_value())} until it is taken "
                     "or this deal ends.")

    def shown_text(self, seat: int) -> str:
        """' (shown: ...)' for the cards a seat showed with a hand bonus and still holds."""
        shown = self.game.shown(seat) if self.rules.hand_bonus else []
        if not shown:
            return ""
        joker = self.game.joker_value()
        # '; the 7C as a 5', not ', 7C = 5': with Italian names the comma also parts the cards,
        # and '5 di bastoni, 7 di coppe, 7 di coppe = 5' read as three cards shown (review)
        as_value = f"; the {self.name(JOKER)} as {value_words(joker)}" if JOKER in shown and joker != 7 else ""
        return f" (shown: {self.names(by_rank(shown))}{as_value})"

    def show_state_many(self) -> None:
        """The turn screen with 3, 4 or 6 players: scores per side, every seat's captures,
        the sides' pooled piles (pairs), whose turn, the person's hand."""
        g, rules = self.game, self.rules
        sides = side_names(rules.players)
        scores = " · ".join(f"{sides[t]}: {g.scores[t]}" for t in range(rules.teams))
        deals = "you deal" if g.dealer == HUMAN else f"{self.seat_name(g.dealer)} deals"
        self.say(f"--- {scores} (to {rules.target}) · hand {g.hand_no + 1}, {deals} · deck "
                 f"{g.deck_left}{' · napola' if rules.napola else ''} ---")
        self.say(self.wrapped("Table:     ", by_rank(g.table)))
        width = max(len(n) for n in seat_names(rules.players)) + 2
        for seat in range(1, rules.players):
            label = f"{self.seat_name(seat) + ':':<{width}}"
            self.say(f"{label}{len(g.hand(seat))} in hand{self.shown_text(seat)} · took "
                     f"{pile_summary(g.pile(seat), g.scope(seat))}")
        self.say(f"{'You took:':<{width}}{pile_summary(g.pile(HUMAN), g.scope(HUMAN))}")
        if self.pairs:
            for t in range(rules.teams):
                pile, scope = self.side_pile(t)
                label = "Us (you + partner)" if t == 0 else sides[t]
                self.say(f"  {label} together: {pile_summary(pile, scope)}")
        # the seats after you; in the hand's last deal only those still holding a card: the hand
        # ends without the others' turns (review). With cards in the deck they play the next deal.
        order = [self.seat_name(s) for s in ((HUMAN + k) % rules.players for k in range(1, rules.players))
                 if g.deck_left > 0 or len(g.hand(s)) > 0]
        self.say("Your turn" + (" (then " + ", ".join(order) + ")." if order else "."))
        hand = by_rank(g.hand(HUMAN))
        items = [f"{i}) {self.name(c)}".replace(" ", "\u00a0") for i, c in enumerate(hand, 1)]
        text = textwrap.fill("   ".join(items), width=WIDTH, initial_indent="Your hand: ",
                             subsequent_indent=" " * len("Your hand: "))
        self.say(text.replace("\u00a0", " "))
        self.say_joker()

    def human_turn(self) -> None:
        self.flush_log()
        self.show_state()
        n = len(self.game.hand(HUMAN))
        while True:
            line = self.ask(f"Your play ({span(n)}, ? help): ").strip()
            command = line.lower()
            if not command:
                self.show_state()
            elif command in ("?", "h", "help"):
                dealt = self.rules.hand_cards
                text = HELP if dealt == 3 else HELP.replace("1 2 3      ", f"1 2 ... {dealt:<3}", 1)
                if self.rules.quindici == "only":       # 7 + 4 + 3 is no 15: its example (review)
                    text = text.replace("7d x 4c 3s", "7d x 5c 3s", 1)
                self.say(text)
            elif command in QUIT_WORDS:
                raise Quit
            elif command == "d":
                self.italian = not self.italian
                self.show_state()
            elif (started := self.match_command(command, line)) is not None:
                if started:
                    return
            else:
                try:
                    move = self.read_move(line)
                except ScopaError as err:
                    self.say(f"  {err}")
                    continue
                if move is not None:
                    self.play(move)
                    return

    def read_move(self, line: str) -> Move | None:
        """The move a line means, None if the person cancelled a choice; ScopaError if none. A
        rank and a lone suit letter ('8 c', '8 c x 2d 6s') that mean no move add that a card is
        written without a space: they read as play 8 taking 'c' (review)."""
        try:
            return self._read_move(line)
        except ScopaError as e:
            first, captures = parse_move_text(line)
            if NUMBER.fullmatch(first) and len(first) <= 2 and 1 <= int(first) <= 10 and \
                    captures and captures[0].upper() in SUITS:     # '8 b x 2c 6s' too (review)
                raise ScopaError(f"{e} (a card is written without a space: {first}{captures[0]})") from None
            raise

    def _read_move(self, line: str) -> Move | None:
        g = self.game
        hand = by_rank(g.hand(HUMAN))
        first, captures = parse_move_text(line)
        if NUMBER.fullmatch(first):
            k = int(first) if len(first) <= 6 else 0     # int() refuses over 4,300 digits
            if not 1 <= k <= len(hand):
                raise ScopaError(f"you hold {len(hand)} card{'s' if len(hand) > 1 else ''}: "
                                 f"type {span(len(hand))}, a card like 7d, or ? for help")
            card = hand[k - 1]
        elif CARD_TEXT.fullmatch(first) or NUMBER.match(first):
            card = read_card(first)      # '7z', '12d': the card's own error, not "not a command"
            if card not in hand:
                # '1c' for the screen's 1 of clubs: the hint the table's cards get (review)
                clubs = suit_of(card) == 1 and card_id(rank_of(card), 3) in hand
                raise ScopaError(f"you don't hold {self.name(card)}: your hand is "
                                 f"{self.names(hand)}{CLUB_HINT if clubs else ''}")
        else:
            raise ScopaError(f"{echo(line)} is not a command: type {span(len(hand))} or ? for help")
        options = [m for m in g.legal_moves() if m.card == card]
        if captures is not None:
            wanted = sorted(read_card(t) for t in captures)
            twice = [c for i, c in enumerate(wanted) if i and wanted[i - 1] == c]
            if twice:      # it said "3 cards named, the table holds 2" (review)
                raise ScopaError(f"illegal capture: {self.name(twice[0])} is named twice")
            if len(captures) > len(g.table):
                raise ScopaError(f"illegal capture: {len(captures)} cards named, the table holds {len(g.table)}")
            absent = [c for c in wanted if c not in g.table]
            if absent:      # it said "8D cannot take 3C 5C" of cards not there at all (review)
                # C for clubs: the screen's club is B, bastoni
                clubs = any(suit_of(c) == 1 and card_id(rank_of(c), 3) in g.table for c in absent)
                raise ScopaError(f"illegal capture: {self.names(absent)} "
                                 f"{'is' if len(absent) == 1 else 'are'} not on the table"
                                 f"{CLUB_HINT if clubs else ''}")
            for m in options:
                if sorted(m.captured_cards) == wanted:
                    return m
            # the engine's own error says '1S cannot take 1D': name the cards as the screen does
            legal = "; ".join(self.name(m.card) + (f" x {self.names(by_rank(m.captured_cards))}"
                                                   if m.captured else "") for m in options)
            what = f"cannot take {self.names(by_rank(wanted))}" if wanted else "must take something"
            raise ScopaError(f"illegal capture: {self.name(card)} {what} (legal: {legal})")
        if len(options) <= 1:
            return g.resolve(card)          # the one move, or the error naming why not
        return self.choose(card, options)

    def choose(self, card: int, options: list[Move]) -> Move | None:
        self.say(f"{self.name(card)} can take:")
        for i, m in enumerate(options, 1):   # free_capture: laying it is one of the choices
            taken = self.names(by_rank(m.captured_cards)) if m.captured else "nothing (it stays on the table)"
            self.say(f"  {i}) {taken}")
        while True:
            answer = self.ask(f"Which (1-{len(options)}, Enter to pick another card)? ").strip()
            if not answer:
                return None
            if NUMBER.fullmatch(answer) and len(answer) <= 6 and 1 <= int(answer) <= len(options):
                return options[int(answer) - 1]
            if answer.lower() in QUIT_WORDS:
                raise Quit
            self.say(f"  type a number 1-{len(options)}, or Enter to go back")

    def change_level(self, spec: str) -> bool:
        """Switch opponent (asking which when not given, again after a bad answer); True if a
        new match started."""
        asked = not spec
        while True:
            if asked:
                levels = ", ".join(sorted(REGISTRY))
                spec = self.ask(f"Level ({levels}, or a .pt checkpoint; Enter keeps "
                                f"{opponent_label(self.opponent)}): ").strip()
            if not spec:
                self.say("Level unchanged.")
                return False
            if asked and spec.lower() in QUIT_WORDS:
                raise Quit
            try:
                # a checkpoint asked for in play compiles on a cold cache as at start-up: the
                # terminal was silent after the level typed (review)
                with notice_if_slow(self._loading_notice):
                    agents = self.make_agents(spec, self.partner, self.rules, self.next_seed)
            except ScopaError as err:
                self.say(f"  {cut(str(err), 300)}")      # the message quotes the spec typed
                if asked:
                    continue
                return False
            self.agents, self.opponent = agents, spec
            self.implicit_opponent = False
            self.say("Match abandoned.")        # as after 'n': the match in play ends here
            self.new_match()
            return True

    def change_rules(self, rules: Rules) -> bool:
        """Switch rules (napola on/off): the opponent is rebuilt for them and a match starts.
        The default opponent (the shipped agent, not named) gives way to the fallback level
        under rules it cannot play, and comes back under rules it can."""
        spec = default_opponent() if self.implicit_opponent else self.opponent
        try:
            with notice_if_slow(self._loading_notice):
                agents = self.make_agents(spec, self.partner, rules, self.next_seed)
        except ScopaError as err:
            if not self.implicit_opponent or spec == FALLBACK_LEVEL:
                self.say(f"  {err}")
                return False
            try:    # the partner (a checkpoint) may not play these rules either
                with notice_if_slow(self._loading_notice):
                    agents = self.make_agents(FALLBACK_LEVEL, self.partner, rules, self.next_seed)
            except ScopaError as partner_err:
                self.say(f"  {partner_err}")
                return False
            self.say(fallback_notice(err))
            spec = FALLBACK_LEVEL
        self.agents, self.opponent = agents, spec
        self.rules, self.actions = rules, action_table(rules)
        self.say("Match abandoned.")
        self.new_match()
        return True

    # ---- scoring -------------------------------------------------------------------------
    def show_hand_score(self) -> None:
        if self.rules.players != 2:
            self.show_hand_score_many()
            return
        g = self.game
        lines = g.hand_score()
        piles = [g.pile(HUMAN), g.pile(COMPUTER)]
        detail = {
            "carte": "{} - {}".format(*(len(p) for p in piles)),
            "denari": "{} - {}".format(*(sum(1 for c in p if suit_of(c) == 0) for p in piles)),
            "primiera": primiera_detail(piles, self.rules.primiera),
        }
        self.say(f"\n{f'Hand {g.hand_no + 1} score':<16}{'You':>5}{'Computer':>10}")
        for key in g.score_lines()[:-1]:       # the classic rules: SCORE_LINES' order
            label = line_label(key, self.rules)
            if key == "napola" and not self.rules.napola or key == "napoleone" and self.rules.napoleone == "win":
                continue            # napoleone "win" ends the match instead: its line is always 0
            extra = f"   ({detail[key]})" if key in detail else ""
            self.say(f"  {label:<14}{lines[0][key]:>5}{lines[1][key]:>10}{extra}")
        self.say(f"  {'hand total':<14}{lines[0]['total']:>5}{lines[1]['total']:>10}")
        if g.napoleone_side is not None:    # its row alone did not say who (under "win" there is none)
            self.say(f"Napoleone: {('you', 'the computer')[g.napoleone_side]} took all ten denari.")
        you, cpu = g.scores
        self.say(f"Match: you {you}, computer {cpu} (to {self.rules.target})")
        self.say_tie()

    def say_tie(self) -> None:
        """After a hand: a tie at the top at or past the target plays another hand, which the
        screen went on to without a word; a match the capotto ends short of the target says so
        (it ended 5-0 to 21 without a reason: review)."""
        g, rules = self.game, self.rules
        top = max(g.scores)
        if not g.match_over and top >= rules.target and g.scores.count(top) > 1:
            self.say(f"Tied at {top}: another hand decides.")
        napoleone_won = rules.napoleone == "win" and g.napoleone_side is not None
        if g.match_over and rules.capotto and top < rules.target and not napoleone_won:
            self.say(f"Capotto: {top} points against none ends the match (these rules end it at "
                     f"{rules.capotto} or more against none).")

    def show_hand_score_many(self) -> None:
        """End-of-hand score lines, one column per side (pooled piles in pairs)."""
        g, rules = self.game, self.rules
        lines = g.hand_score()
        sides = side_names(rules.players)
        piles = [self.side_pile(t)[0] for t in range(rules.teams)]
        detail = {
            "carte": " - ".join(str(len(p)) for p in piles),
            "denari": " - ".join(str(sum(1 for c in p if suit_of(c) == 0)) for p in piles),
        }
        detail["primiera"] = primiera_detail(piles, rules.primiera)
        w = max(8, *(len(n) + 2 for n in sides))
        self.say(f"\n{f'Hand {g.hand_no + 1} score':<16}" + "".join(f"{n:>{w}}" for n in sides))
        for key in g.score_lines():
            if key == "total" or (key == "napola" and not rules.napola) or \
                    (key == "napoleone" and rules.napoleone == "win"):
                continue
            extra = f"   ({detail[key]})" if key in detail else ""
            self.say(f"  {line_label(key, rules):<14}" + "".join(f"{ln[key]:>{w}}" for ln in lines) + extra)
        self.say(f"  {'hand total':<14}" + "".join(f"{ln['total']:>{w}}" for ln in lines))
        if g.napoleone_side is not None:
            self.say(f"Napoleone: {side_subject(sides[g.napoleone_side])} took all ten denari.")
        totals = ", ".join(f"{sides[t]}: {g.scores[t]}" for t in range(rules.teams))
        self.say(f"Match: {totals} (to {rules.target})")
        self.say_tie()

    def end_of_match(self) -> None:
        g = self.game
        if self.rules.players != 2:
            sides = side_names(self.rules.players)
            others = ", ".join(f"{sides[t]}: {g.scores[t]}" for t in range(self.rules.teams)
                               if t != g.winner)
            if g.winner == 0:
                who = "You win" if self.rules.players == 3 else "You and your partner win"
            else:
                who = side_subject(sides[g.winner])
                who += " win" if who == "They" else " wins"
            self.say(f"\n*** {who} the match with {g.scores[g.winner]} ({others}){'!' if g.winner == 0 else '.'} ***")
        else:
            you, cpu = g.scores
            if g.winner == HUMAN:
                self.say(f"\n*** You win the match {you}-{cpu}! ***")
            else:
                self.say(f"\n*** The computer wins the match {cpu}-{you}. ***")
        while True:
            answer = self.ask("New match? (y/n) ").strip().lower()
            if answer in ("y", "yes", "s", "si", "sì"):
                self.new_match()
                return
            if answer in ("n", "no") or answer in QUIT_WORDS:
                raise Quit
            self.say("  answer y or n")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = Parser(prog="play.py", description="Play scopa against the computer in the terminal.")
    add_rules_flags(p)
    p.add_argument("--opponent", default=None,
                   help="a level (easy, normal, hard; also random) or a checkpoint .pt "
                        "(default: checkpoints/scopa-default.pt:search=9000 when present and trained for "
                        "these rules, else normal)")
    p.add_argument("--partner", default=None, metavar="SPEC",
                   help="in pairs (4 or 6 players): your partner, a level or a checkpoint .pt "
                        "(default: the same as the opponents)")
    p.add_argument("--seed", type=int, default=None,
                   help="deal the first match from this seed, the next ones from seed+1, ... "
                        "(default: a fresh seed, shown at the start of each match)")
    p.add_argument("--italian", action="store_true", help="start with Italian card names")
    args = p.parse_args(argv)
    if args.list_rules:
        list_rules_alone(p, args)
    return args


def can_show_symbols() -> bool:
    """Whether stdout can print the suit symbols and '·'; if not, cards start with their Italian
    names, the session writes letters for the symbols (ASCII_TEXT), and anything else
    unprintable is replaced rather than raised."""
    try:
        ("".join(SUIT_SYMBOLS) + "\u00b7").encode(sys.stdout.encoding or "ascii")
        return True
    except (UnicodeEncodeError, LookupError):
        sys.stdout.reconfigure(errors="replace")
        return False


def line_editing() -> bool:
    """On a terminal, input() edits the line with the arrow keys and recalls earlier lines
    (readline): a left arrow reached the game as '\x1b[D', "not a command" (a terminal review).
    Whether it is on: not where readline is missing (Windows: the console edits lines itself),
    nor for a pipe."""
    if not (on_terminal(sys.stdin) and on_terminal(sys.stdout)):
        return False
    try:
        import readline  # noqa: F401 - input() uses it once imported
    except ImportError:
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        if args.list_rules:
            print(list_rules_text())
            return 0
        if args.seed is not None:
            check_seed(args.seed, "--seed")
        rules = rules_from_flags(args.rules, args.napola, args.target, args.rule)
        seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
        for stream, name in ((sys.stdin, "input"), (sys.stdout, "output")):
            if stream is None:      # started with <&- or >&-: input() and print() would fail
                raise ScopaError(f"standard {name} is closed: play.py needs a terminal (or a pipe)")
        symbols = can_show_symbols()
        italian = args.italian or not symbols
        if hasattr(sys.stdin, "reconfigure"):   # a stray byte is an unreadable line, not a crash
            sys.stdin.reconfigure(errors="replace")
        line_editing()
        if args.opponent is not None and not args.opponent.strip():   # used to play the default
            raise ScopaError("--opponent needs an agent: easy, normal, hard, random or a .pt checkpoint")
        opponent = args.opponent or default_opponent()
        said: list[bool] = []       # the start-up notice printed (main's own build of --partner)
        if args.partner is not None:
            if not args.partner.strip():    # was "unknown agent ''" (review); evaluate.py's words
                raise ScopaError("--partner needs an agent: got an empty value")
            if rules.players not in (4, 6):
                raise ScopaError(f"--partner plays only in pairs (4 or 6 players); these rules "
                                 f"have {rules.players} players")
            # a bad --partner: its own error first. Built here on a cold cache it compiled with
            # the terminal blank, and the session's build after it was quick (review)
            with notice_if_slow(lambda: _say_loading(said)):
                make_agent(args.partner, rules, seed)
        try:
            session = PlaySession(opponent, rules, seed, italian=italian, partner=args.partner,
                                  ascii_only=not symbols, implicit_opponent=args.opponent is None,
                                  loading_said=bool(said))
        except ScopaError as err:
            if args.opponent is not None or opponent == FALLBACK_LEVEL:
                raise
            try:
                make_agent(opponent, rules, seed)
            except ScopaError:
                pass
            else:
                raise err from None       # the shipped agent can play: the error is elsewhere
            # the shipped agent was not asked for by name: say why it is not playing, go on
            print(fit(fallback_notice(err), sys.stdout))
            session = PlaySession(FALLBACK_LEVEL, rules, seed, italian=italian,
                                  partner=args.partner, ascii_only=not symbols,
                                  implicit_opponent=True, loading_said=bool(said))
        return session.run()
    except ScopaError as err:
        print(f"play.py: error: {err}{rules_hint(err)}", file=sys.stderr)   # as argparse's and evaluate.py's
        return 2
    except KeyboardInterrupt:
        print("\nCiao!")
        return 0


if __name__ == "__main__":
    # the reader gone (`| head`): nothing left to show, exit 0; its own notices say when the engine
    # compiles (LOADING, THINKING), so not run_main's note as well
    sys.exit(run_main(main, compile_note=False))
