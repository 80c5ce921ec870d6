"""Game records: one match per JSON line (format in README "Game records").

`Recorder` wraps a Game and writes down each deal, move and hand score as the match is played;
`replay` checks that the record's seed deals its first hand, rebuilds every hand from the
record's deals, plays its moves through the engine (so an illegal move is caught) and checks each
deal against what the engine dealt, the scores, the totals (null until the match is over) and the
winner, that "players" names every seat, and that every part has only the keys and JSON types of
the layout ("format" 1).
A record carries the full rules dict; "players" names one agent per seat, while "score" (one
dict per side), "totals" and "winner" are per side (a side is a seat with 2 or 3 players, a pair
with 4 or 6: seat s plays for side s % sides).
"""
from __future__ import annotations

import json
import math
import os
from typing import Iterable, Iterator

from . import core
from .atomic import AtomicFile, refuse_checkpoint
from .cards import card_str, cards_str, parse_card
from .errors import ScopaError, has_control, regular_file
from .game import Game, PlayResult
from .rules import Rules

FORMAT = 1      # the record layout of README "Game records"; a record without "format" is format 1
_KEYS = {"record": {"format", "rules", "seed", "players", "hands", "totals", "winner"},
         "hand": {"dealer", "deals", "moves", "score"}, "deal": {"hands", "table"},
         "move": {"player", "card", "captured", "legal"}}
_OPTIONAL = {"format", "legal"}     # a record without "format" is format 1; "legal" is --with-legal's


class Recorder:
    """Plays moves on `game` and keeps its record. Call next_hand() between hands."""

    def __init__(self, game: Game, players: list[str], with_legal: bool = False):
        if len(players) != game.n_players:
            raise ScopaError(f"a record of {game.n_players} players needs {game.n_players} player names, "
                             f"got {len(players)}")
        self.game = game
        self.with_legal = with_legal
        self.record = {"format": FORMAT, "rules": game.rules.to_dict(), "seed": game.seed, "players": list(players),
                       "hands": [], "totals": None, "winner": None}
        self._start_hand()

    def _start_hand(self) -> None:
        g = self.game
        self._hand = {"dealer": g.dealer,
                      "deals": [{"hands": [cards_str(h) for h in g.last_deal()],
                                 "table": cards_str(g.first_table())}],
                      "moves": [], "score": None}
        self.record["hands"].append(self._hand)

    def play(self, card, captured=None) -> PlayResult:
        g = self.game
        legal = [m.to_json() for m in g.legal_moves()] if self.with_legal else None
        result = g.play(card, captured)
        move = {"player": result.player, "card": card_str(result.move.card),
                "captured": cards_str(result.move.captured)}
        if legal is not None:
            move["legal"] = legal
        self._hand["moves"].append(move)
        if result.dealt:
            self._hand["deals"].append({"hands": [cards_str(h) for h in g.last_deal()], "table": []})
        if result.hand_over:
            self._hand["score"] = g.hand_score()
        if result.match_over:
            self.record["totals"] = g.scores
            self.record["winner"] = g.winner
        return result

    def play_action(self, action) -> PlayResult:
        """Play an action id, checked as Game.play_action checks it."""
        move = self.game.move_of_action(action)
        return self.play(move.card, move.captured)

    def next_hand(self) -> None:
        self.game.next_hand()
        self._start_hand()


def dumps(record: dict) -> str:
    """One record as a line of JSON. NaN and infinities are no JSON (Python's json writes and
    reads them): ScopaError, as for anything else JSON cannot hold."""
    try:
        return json.dumps(record, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as e:
        raise ScopaError(f"a record must hold JSON values only ({e})") from None


def write(records: Iterable[dict], path: str) -> int:
    """Write records as JSON Lines, whole or not at all (scopa_env/atomic.py), never over a
    checkpoint (a zip file: ScopaError); returns how many."""
    if isinstance(records, dict):       # its keys were written, a line each
        raise ScopaError("write takes a list of records: got one record (a dict); write([record], path)")
    if not isinstance(path, (str, os.PathLike)):    # None wrote a file named 'None'
        raise ScopaError(f"write needs a file path, got {path!r}")
    refuse_checkpoint(path, "records file")
    n = 0
    with AtomicFile(path) as f:
        for r in records:
            if not isinstance(r, dict):
                raise ScopaError(f"record {n} must be a JSON object (a dict), got {type(r).__name__}")
            f.write(dumps(r) + "\n")
            n += 1
    return n


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def unique_keys(pairs: list) -> dict:
    """A JSON object whose keys are all different: {"winner": 0, ..., "winner": 1} read as the
    last one silently, where another reader keeps the first (review)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise ValueError(f"key {twice!r} given twice in one object")
    return out


def _finite(text: str) -> float:
    """A JSON number as a float; 1e999 (read as infinity) is refused as NaN and Infinity are."""
    x = float(text)
    if not math.isfinite(x):
        raise ValueError(f"{text} is not a finite number")
    return x


def read(path: str) -> Iterator[dict]:
    """The records of a JSON Lines file, one per non-blank line; ScopaError (naming the file and
    line) for a file that is not a regular file, a line that is not UTF-8, not JSON or not a
    JSON object."""
    for _, record in read_numbered(path):
        yield record


def replay_file(path: str) -> int:
    """Replay every record of a JSON Lines file through the engine; returns how many. A record
    that does not replay is one ScopaError naming the file and its line, as read's are."""
    n = 0
    for i, record in read_numbered(path):
        try:
            replay(record)
        except ScopaError as e:
            raise ScopaError(f"{path}:{i}: {e}") from None
        n += 1
    return n


def read_numbered(path: str, format_checked: bool = False) -> Iterator[tuple[int, dict]]:
    """read(), each record with its line number in the file (from 1); with format_checked, a
    record of another format (check_format) is one ScopaError naming the file and line (for the
    readers that take a record's fields without replaying it: the benchmarks)."""
    regular_file("record file", path)
    with open(path, "rb") as f:
        for i, raw in enumerate(iter(lambda: f.readline(LINE_BYTES + 1), b""), 1):
            if len(raw) > LINE_BYTES:
                # a line is read whole before it is parsed: one of 512 MB (a file without line
                # ends) took 1.2 GB to be refused (a security review)
                raise ScopaError(f"{path}:{i}: not a game record (a line longer than "
                                 f"{LINE_BYTES // 2**20} MB; a match's record is some 10 KB)")
            try:
                # a byte order mark (an editor's UTF-8 with BOM) is no part of the first record
                line = raw.decode("utf-8-sig" if i == 1 else "utf-8")
            except UnicodeDecodeError as e:
                raise ScopaError(f"{path}:{i}: not UTF-8 text ({e.reason} at byte {e.start})") from None
            if not line.strip():
                continue
            try:
                record = json.loads(line, parse_constant=_no_constant, parse_float=_finite,
                                    object_pairs_hook=unique_keys)
            except json.JSONDecodeError as e:
                # e.msg alone read 'Unterminated string starting at' for a cut line
                cr = "\r" in line.rstrip("\r\n")     # lines ended by CR alone read as one line
                raise ScopaError(f"{path}:{i}: not a JSON record ({e.msg}: column {e.colno})"
                                 + ("; its lines end in CR alone: game records are one a line, "
                                    "ended by LF (or CRLF)" if cr else
                                    _whole_file_hint(path) if i == 1 else "")) from None
            except RecursionError:
                raise ScopaError(f"{path}:{i}: not a JSON record (nested too deeply)") from None
            except ValueError as e:     # an integer of more digits than Python converts; NaN
                raise ScopaError(f"{path}:{i}: not a JSON record ({e})") from None
            if not isinstance(record, dict):
                raise ScopaError(f"{path}:{i}: a record is a JSON object {{...}}, got {type(record).__name__}")
            if format_checked:
                try:
                    check_format(record)
                except ScopaError as e:
                    raise ScopaError(f"{path}:{i}: {e}") from None
            yield i, record


HINT_BYTES = 16 * 2**20     # a file past this is not read whole for _whole_file_hint
LINE_BYTES = 64 * 2**20     # a longer line is no record (one is some 10 KB; the longest, scopone's, tens)


def _whole_file_hint(path: str) -> str:
    """What a file whose first line is no record is, when the whole file is one JSON document:
    an evaluate.py --json file given for its --record file read as a corrupt file (review). A
    file past HINT_BYTES gets no hint: read whole, a 500 MB file of records with a damaged first
    line took 1 GB of memory to say so (a scale review)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read(HINT_BYTES + 1)
        if len(text) > HINT_BYTES:
            return ""
        whole = json.loads(text)
    except (OSError, ValueError, RecursionError):
        return ""
    if isinstance(whole, dict) and ("results" in whole or "pooled" in whole):
        return ": this is an evaluate.py --json file; give the file its --record wrote"
    return ": the file is one JSON document over several lines; game records are one a line"


def check_format(record: dict) -> None:
    """A record's "format" (1 when absent: records written before it) must be one this version
    reads; else a ScopaError. replay checks it; read yields any JSON object (read_numbered with
    format_checked checks it too)."""
    fmt = record.get("format", FORMAT)
    if type(fmt) is not int or fmt != FORMAT:      # 1.0 and true are no format number
        raise ScopaError(f"record format {fmt!r}: this version reads format {FORMAT}")


def seat_of(record: dict, player: str | None) -> int:
    """The seat of `player` (None: the first name) in a 2-player record; a ValueError unless the
    record's players are two names, `player` one of them once (paired.py and hand_points.py read
    records by it); a ScopaError when both are that name."""
    names = record["players"]
    if not isinstance(names, list) or len(names) != 2 or not all(isinstance(x, str) for x in names):
        raise ValueError(f"players {names!r}: two names")
    if any(has_control(x) for x in names):
        # the readers print them: terminal escapes reached the terminal raw (a security review)
        raise ValueError(f"players {names!r}: printable names, no control characters")
    if player is None:
        player = names[0]
    seats = [i for i, name in enumerate(names) if name == player]
    if len(seats) == 2:     # a finished record all the same (it said 'not a ... record'; review)
        raise ScopaError(f"both players are named {player!r}: the record cannot say which seat "
                         f"is whose (give one a name of its own when evaluating: SPEC:name=..., or "
                         f"SPEC,name=... after its other options)")
    if len(seats) != 1:
        raise ValueError(f"players {names} name {player!r} {len(seats)} times")
    return seats[0]


def two_totals(hand: dict) -> list[int]:
    """A 2-player record's hand score totals, by seat; a ValueError unless its score is two
    sides whose totals are whole numbers (paired.py and hand_points.py read hands by it: int()
    took 2.7 as 2 and "3" or true as points, and a third side was counted by the first two)."""
    totals = [side["total"] for side in hand["score"]]
    if len(totals) != 2 or not all(type(t) is int for t in totals):
        raise ValueError(f"hand score totals {totals!r}")
    return totals


def rules_of(record: dict) -> Rules:
    """A record's rules as replay reads them: options it lacks (written before they existed) at
    their classic defaults (paired.py and hand_points.py compare files by it: two records of the
    same rules, one older, compared their dicts and differed). A ValueError for what is not a
    table of options; Rules' own ScopaError for a table it refuses (an option a newer version
    wrote: the readers name that alone, where as a ValueError it read as a record they could not
    use, the reason in parentheses; review)."""
    d = record["rules"]
    if not isinstance(d, dict):
        raise ValueError(f"rules {d!r}")
    return Rules.from_dict(d, stored=True)


def _deck_of(hand: dict, rules: Rules, h: int) -> list[int]:
    """The hand's deals strung into one deck in dealing order; ScopaError naming hand `h` and the
    deal for a deal of the wrong shape or a card dealt twice (game.deal_hand's own error named
    neither)."""
    n, dealer = rules.players, hand["dealer"]
    deck: list[int] = []
    dealt_in: dict[int, int] = {}       # card -> the deal that lists it
    for k, deal in enumerate(hand["deals"]):
        where = f"hand {h} deal {k}"
        if len(deal["hands"]) != n:
            raise ScopaError(f"{where}: the deal lists {len(deal['hands'])} hands for {n} players")
        if k > 0 and deal["table"]:
            raise ScopaError(f"{where}: only the first deal of a hand lists table cards")
        texts = [c for i in range(n) for c in deal["hands"][(dealer + 1 + i) % n]]
        if k == 0:
            texts += deal["table"]
        for text in texts:
            try:
                card = _record_card(text)
            except ScopaError as e:
                raise ScopaError(f"{where}: {e}") from None
            if card in dealt_in:
                again = "twice in this deal" if dealt_in[card] == k else f"in deal {dealt_in[card]} too"
                raise ScopaError(f"{where}: {card_str(card)} is dealt {again}")
            dealt_in[card] = k
            deck.append(card)
    if len(deck) != 40:     # cards missing or extra: the first deal of another size (a deal
        # whose cards are split wrongly between seats, with the right total, is _check_deal's)
        for k, deal in enumerate(hand["deals"]):
            want = n * rules.hand_cards + (rules.table_cards if k == 0 else 0)
            got = sum(map(len, deal["hands"])) + len(deal["table"])
            if got != want:
                table = f" and {rules.table_cards} on the table" if k == 0 and rules.table_cards else ""
                raise ScopaError(f"hand {h} deal {k}: the deal lists {got} cards, these rules deal "
                                 f"{want} ({rules.hand_cards} a seat{table})")
        raise ScopaError(f"hand {h}: the record lists {len(hand['deals'])} deals, these rules deal "
                         f"the 40 cards in {rules.deals_per_hand}")
    return deck


def _check_seed_deck(deck: list[int], game: Game, rules: Rules, seed) -> None:
    """The first hand's deals, strung into one deck, are the deck `seed` dealt (game as the seed
    made it); deal 0 alone was compared, so later deals of the first hand could be any cards."""
    seeded = [int(c) for c in game.state[core.DECK:core.DECK + 40]]
    for i, (c, want) in enumerate(zip(deck, seeded, strict=True)):
        if c != want:
            first = rules.players * rules.hand_cards + rules.table_cards
            k = 0 if i < first else 1 + (i - first) // (rules.players * rules.hand_cards)
            raise ScopaError(f"hand 0 deal {k}: the record deals {card_str(c)} where seed {seed} "
                             f"deals {card_str(want)} (the seed deals the whole first hand)")


def _check_deal(where: str, deal: dict, game: Game, first: bool, source: str = "those cards") -> None:
    """The record's deal is the one the engine dealt from the deck it was given (or, `source`,
    from the record's seed): the same cards in each seat's hand (and on the table in a hand's
    first deal). _deck_of only strings them into one deck, so cards moved between hands, or
    between a hand and the table, replayed."""
    dealt = game.last_deal()
    # the types first: a hand written as the text "7D" was read letter by letter, naming '7'
    if not isinstance(deal["hands"], list):
        raise ScopaError(f"{where}: hands is a list of each seat's cards, got {deal['hands']!r}")
    for seat_cards in deal["hands"]:
        _card_list(seat_cards, f"{where}: a hand")
    _card_list(deal["table"], f"{where}: table")
    try:
        hands = [[_record_card(c) for c in h] for h in deal["hands"]]
        table = [_record_card(c) for c in deal["table"]]
    except ScopaError as e:
        raise ScopaError(f"{where}: {e}") from None
    if hands != [list(h) for h in dealt]:
        raise ScopaError(f"{where}: the deal lists hands {deal['hands']}, the engine dealt "
                         f"{[cards_str(h) for h in dealt]} from {source}")
    if first and table != list(game.first_table()):
        raise ScopaError(f"{where}: the deal lists table {deal['table']}, the engine dealt "
                         f"{cards_str(game.first_table())} from {source}")


def _obj(d, kind: str, where: str) -> dict:
    """`d` is a JSON object with the keys a `kind` of record part has, and only those."""
    if not isinstance(d, dict):
        raise ScopaError(f"{where}: a {kind} is a JSON object {{...}}, got {d!r}")
    missing = sorted(_KEYS[kind] - _OPTIONAL - set(d))
    if missing:     # a KeyError below named no place: 'hands' of a deal read as the record's (review)
        raise ScopaError(f"{where}: the {kind} key {missing[0]!r} is missing")
    unknown = sorted(set(d) - _KEYS[kind])
    if unknown:
        raise ScopaError(f"{where}: unknown {kind} key {unknown[0]!r} (a {kind} has "
                         f"{', '.join(sorted(_KEYS[kind]))})")
    return d


def _whole(x, what: str) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        raise ScopaError(f"{what} is a whole number, got {x!r}")
    return x


def _card_list(x, what: str) -> list:
    if not isinstance(x, list) or not all(isinstance(c, str) for c in x):
        raise ScopaError(f"{what} is a list of cards like [\"7D\", \"3S\"], got {x!r}")
    return x


def _record_card(text: str) -> int:
    """parse_card, for a card as a record writes it: '6S', not '6s' or ' 6S '. parse_card reads
    what a person types, so a record with such cards replayed, though readers of records may
    compare the texts (review)."""
    card = parse_card(text)
    if card_str(card) != text:
        raise ScopaError(f"card {text!r} is written {card_str(card)!r} in a record")
    return card


def _same(recorded, engine) -> bool:
    """Equal, and of the same JSON types: 2.0 or true where the engine has 2 or 1 differ."""
    if isinstance(engine, dict):
        return isinstance(recorded, dict) and recorded.keys() == engine.keys() and \
            all(_same(recorded[k], engine[k]) for k in engine)
    if isinstance(engine, list):
        return isinstance(recorded, list) and len(recorded) == len(engine) and \
            all(_same(r, e) for r, e in zip(recorded, engine, strict=True))
    if engine is None:
        return recorded is None
    return type(recorded) is int and recorded == engine


def replay(record: dict) -> Game:
    """Replay a record through the engine; ScopaError at the first disagreement. Returns the game.

    The record's "rules" dict may lack options added after it was written: they take their
    classic defaults (Rules.from_dict), so old records replay as the classic game they were.
    Every part holds only the keys and JSON types of README "Game records"; "format" (1 when
    absent: records written before it) must be one this version reads."""
    try:
        _obj(record, "record", "record")
        check_format(record)
        if not isinstance(record["rules"], dict):
            raise ScopaError(f"rules is a JSON object of options, got {record['rules']!r}")
        rules = Rules.from_dict(record["rules"], stored=True)
        game = Game(rules, seed=record["seed"])
        n = game.n_players
        players = record["players"]
        if not isinstance(players, list) or len(players) != n or \
                not all(isinstance(p, str) for p in players):
            raise ScopaError(f"players must name the {n} seats' agents, got {players!r}")
        if any(has_control(p) for p in players):
            # the readers print the names as they are: terminal escapes in a file from elsewhere
            # reached the terminal raw (a security review); no agent is named so
            raise ScopaError(f"players must be printable names (no control characters), got {players!r}")
        if not isinstance(record["hands"], list) or not record["hands"]:
            raise ScopaError(f"hands is a list of the match's hands, got {record['hands']!r}")
        # the first hand is the one the seed deals (README)
        first = _obj(record["hands"][0], "hand", "hand 0")
        if first["dealer"] != game.dealer:
            raise ScopaError(f"hand 0: dealer {first['dealer']!r}, the engine deals seed {record['seed']} "
                             f"with dealer {game.dealer}")
        if not isinstance(first["deals"], list) or not first["deals"]:
            raise ScopaError(f"hand 0: deals is a list of the hand's deals, got {first['deals']!r}")
        _check_deal("hand 0 deal 0", _obj(first["deals"][0], "deal", "hand 0 deal 0"), game, True,
                    f"seed {record['seed']}")
        for h, hand in enumerate(record["hands"]):
            _obj(hand, "hand", f"hand {h}")
            _whole(hand["dealer"], f"hand {h}: dealer")
            if not isinstance(hand["deals"], list) or not isinstance(hand["moves"], list):
                raise ScopaError(f"hand {h}: deals and moves are lists")
            for k, deal in enumerate(hand["deals"]):
                _obj(deal, "deal", f"hand {h} deal {k}")
                _card_list(deal["table"], f"hand {h} deal {k}: table")
                if not isinstance(deal["hands"], list):
                    raise ScopaError(f"hand {h} deal {k}: hands is a list of each seat's cards")
                for seat_cards in deal["hands"]:
                    _card_list(seat_cards, f"hand {h} deal {k}: a hand")
            if h > 0:
                if game.match_over:
                    raise ScopaError(f"hand {h}: the match was already over")
                if hand["dealer"] != (game.dealer + 1) % n:
                    raise ScopaError(f"hand {h}: dealer {hand['dealer']}, but the deal passes to "
                                     f"{(game.dealer + 1) % n}")
            if not rules.is_seat(hand["dealer"]):
                raise ScopaError(f"hand {h}: dealer {hand['dealer']!r} is not a seat 0..{n - 1}")
            if not hand["deals"]:
                raise ScopaError(f"hand {h}: the record lists no deals, these rules deal the 40 "
                                 f"cards in {rules.deals_per_hand}")
            deck = _deck_of(hand, rules, h)     # every card read, naming its hand and deal
            if h == 0:      # the seed deals the whole first hand, its later deals too
                _check_seed_deck(deck, game, rules, record["seed"])
            try:
                game.deal_hand(hand["dealer"], deck)
            except ScopaError as e:
                raise ScopaError(f"hand {h}: {e}") from None
            _check_deal(f"hand {h} deal 0", hand["deals"][0], game, True)
            deals = 1
            for i, mv in enumerate(hand["moves"]):
                where = f"hand {h} move {i}"
                _obj(mv, "move", where)
                _whole(mv["player"], f"{where}: player")
                if not isinstance(mv["card"], str):
                    raise ScopaError(f"{where}: card is written as text like \"7D\", got {mv['card']!r}")
                _card_list(mv["captured"], f"{where}: captured")
                if mv["player"] != game.to_move:
                    raise ScopaError(f"{where}: player {mv['player']} moved, but {game.to_move} was to move")
                if "legal" in mv:
                    legal = [m.to_json() for m in game.legal_moves()]
                    if legal != mv["legal"]:
                        raise ScopaError(f"{where}: recorded legal moves differ from the engine's")
                try:
                    for text in (mv["card"], *mv["captured"]):
                        _record_card(text)
                    result = game.play(mv["card"], mv["captured"])
                except ScopaError as e:
                    raise ScopaError(f"{where}: {e}") from None
                if result.dealt:
                    if deals >= len(hand["deals"]):
                        raise ScopaError(f"{where}: the engine dealt again, the record lists "
                                         f"{len(hand['deals'])} deals")
                    _check_deal(f"hand {h} deal {deals}", hand["deals"][deals], game, False)
                    deals += 1
            if not game.hand_over:
                raise ScopaError(f"hand {h}: the moves end before the hand does")
            if deals != len(hand["deals"]):
                raise ScopaError(f"hand {h}: the record lists {len(hand['deals'])} deals, the "
                                 f"hand had {deals}")
            if not _same(hand["score"], game.hand_score()):
                raise ScopaError(f"hand {h}: score {hand['score']} differs from the engine's {game.hand_score()}")
        totals = game.scores if game.match_over else None     # null until the match is over
        if not _same(record["totals"], totals):
            raise ScopaError(f"totals {record['totals']} differ from the engine's {totals}")
        if not _same(record["winner"], game.winner):
            raise ScopaError(f"winner {record['winner']} differs from the engine's {game.winner}")
        return game
    except KeyError as e:
        raise ScopaError(f"malformed record: the key {e} is missing") from None
    except (TypeError, IndexError) as e:
        raise ScopaError(f"malformed record: {type(e).__name__} {e}") from None
