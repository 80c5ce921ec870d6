"""The hand scores of game records, counted: the data of agents/_equity.py's match-equity tables.

    python evaluate.py --agent checkpoints/scopa-default.pt --opponent easy --matches 640 \
        --workers 2 --record easy.jsonl
    python benchmarks/hand_points.py easy.jsonl --player scopa-default [--symmetric]

Reads game records (README "Game records"; 2-player classic matches) and counts every hand by its
points (the player's, the other seat's). Prints the count as the Python literal
agents/_equity.py keeps (HAND_POINTS), with the hands counted and the mean margin.
`--symmetric` counts every hand both ways round (the "even" table: a match between equals).
A match met twice (the same seed, seats and hands: two runs with one --seed, a file copied into
another) is an error, as are hand totals that are not integers; the same deal played again with
other play (the agents' roles swapped, so their seeds differ) is another match and counts.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents import player_key  # noqa: E402
from benchmarks._cli import errors_as_one_line, parser  # noqa: E402
from scopa_env.errors import ScopaError  # noqa: E402
from scopa_env.records import read_numbered, rules_of, seat_of, two_totals  # noqa: E402
from scopa_env.rules import Rules  # noqa: E402


def count_hands(paths: list[str], player: str) -> dict[tuple[int, int], int]:
    """{(player's points, other's points): hands} over every hand of every record; the records
    played under the classic rules against one opponent (other rules and several opponents were
    pooled without a word; the tables are for one opponent model; review)."""
    counts: dict[tuple[int, int], int] = {}
    first = None        # (file:line, opponent) of the first record
    seen: dict[tuple, str] = {}     # (match seed, the player's seat, the hands' text): file:line
    named = [os.path.realpath(path) for path in paths]
    for i, path in enumerate(paths):
        if named[i] in named[:i]:      # its hands were counted twice without a word (review)
            raise ScopaError(f"{path} is named twice: its hands would be counted twice")
        # the records module reads the lines (a regular file, UTF-8, JSON objects of this
        # version's format: one ScopaError naming the file and line; format 2 was read, review);
        # the fields this count needs are checked here
        for n, record in read_numbered(path, format_checked=True):
            try:
                me = seat_of(record, player)
                rules, opponent, seed = rules_of(record), record["players"][1 - me], record["seed"]
                if type(seed) is not int:
                    raise ValueError(f"seed {seed!r}")
                hands = []
                for hand in record["hands"]:
                    # two whole totals, as paired.py reads them (a third side was counted by
                    # the first two; review)
                    totals = two_totals(hand)
                    hands.append((totals[me], totals[1 - me]))
            except ScopaError as e:        # both players of one name (records.seat_of)
                raise ScopaError(f"{path}:{n}: {e}") from None
            except (ValueError, KeyError, TypeError, AttributeError) as e:
                raise ScopaError(f"{path}:{n}: not a 2-player game record naming {player!r} once "
                                 f"({type(e).__name__}: {e})") from None
            if rules != Rules():
                # the tables are for the classic match to 11 (napola to 21 or cirulla were counted)
                raise ScopaError(f"{path}:{n}: rules {rules.describe()}, not the classic game "
                                 f"the match-equity tables are for")
            if first is None:
                first = (f"{path}:{n}", opponent)
            elif player_key(opponent) != player_key(first[1]):     # options in any order (review)
                raise ScopaError(f"{path}:{n}: against {opponent!r}, {first[0]} against {first[1]!r}: "
                                 f"count the hands against one opponent at a time")
            # the same match twice (two runs with one --seed, or a file copied into another)
            # counted its hands twice; only the same path was refused (review). The same deal
            # and seat is not enough: with the roles swapped evaluate.py seeds the agents
            # otherwise and the match is another (review)
            same = (seed, me, json.dumps(record["hands"], sort_keys=True))
            if same in seen:
                raise ScopaError(f"{path}:{n}: match seed {seed} with {player!r} in seat {me}, the "
                                 f"same match as {seen[same]}: its hands would be counted twice")
            seen[same] = f"{path}:{n}"
            for key in hands:
                counts[key] = counts.get(key, 0) + 1
    if not counts:
        raise ScopaError("no hands in the records")
    return dict(sorted(counts.items()))


@errors_as_one_line(Path(__file__).name)
def main(argv=None) -> int:
    p = parser(__file__, __doc__)
    p.add_argument("records", nargs="+", help="game record files (JSON Lines)")
    p.add_argument("--player", required=True, help="the player's name in the records")
    p.add_argument("--symmetric", action="store_true", help="count every hand both ways round")
    args = p.parse_args(argv)
    counts = count_hands(args.records, args.player)
    hands = sum(counts.values())
    margin = sum((x - y) * n for (x, y), n in counts.items()) / hands
    # the hands read, not the table's entries: --symmetric counted each twice there (review)
    twice = f", each counted both ways round ({2 * hands:,} in the table)" if args.symmetric else ""
    print(f"# {hands:,} hands{twice}, mean margin {margin:+.3f}")
    if args.symmetric:
        counts = symmetric(counts)
    print("{" + ", ".join(f"({x}, {y}): {n}" for (x, y), n in counts.items()) + "}")
    return 0


def symmetric(counts: dict[tuple[int, int], int]) -> dict[tuple[int, int], int]:
    """Every hand counted both ways round (the "even" table: a match between equals)."""
    both: dict[tuple[int, int], int] = {}
    for (x, y), n in counts.items():
        for key in ((x, y), (y, x)):
            both[key] = both.get(key, 0) + n
    return dict(sorted(both.items()))


if __name__ == "__main__":
    sys.exit(main())
