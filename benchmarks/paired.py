"""Two evaluation runs on the same deals, compared match by match: the difference in match wins.

    python evaluate.py --agent checkpoints/scopa-default.pt:search=9000 --opponent easy \
        --matches 640 --workers 2 --record a.jsonl
    python evaluate.py --agent checkpoints/scopa-default.pt:search=27000 --opponent easy \
        --matches 640 --workers 2 --record b.jsonl
    python benchmarks/paired.py a.jsonl b.jsonl

evaluate.py with the same --seed, --matches and opponent plays the same deals in the same order,
each once with the agent in either seat; two agents that play alike win the same matches. So the
difference between two agents is measured far more finely match by match than by comparing the
two win rates and their intervals (docs/experiments.md's paired differences since 2026-12-03).

Reads two files of game records (README "Game records"; 2-player matches) written by
`evaluate.py --record`, one opponent each (evaluate.py writes the matches of all its opponents
into one file: run it once per opponent). Each file's agent is the first player of its first
record (evaluate.py seats it first), or `--players A B` names the two; the other player of every
record is the opponent. The two files must hold the same deals under the same rules, against
the same opponent: the same match seeds in the same order, the agent in the same seat each time
(else one error naming the first record that differs; files that agree as far as the shorter
goes are one error giving both counts; a match seed met twice with the agent in one seat, whose
deal would count twice, is an error too).

Prints each run's wins, and B's wins minus A's in points of match win rate with a 95% interval:
the unit is the deal (the matches of one seed, which share their cards), Student's t over deals
(agents/stats.py `mean_ci`), or when fewer than 10 matches ended differently, or every deal
differed alike (t's interval then has zero width), the bound of `few_differ_ci`; how many
matches ended differently; and B's points per hand minus A's (each run's agent's hand points
minus its opponent's, over its hands, as evaluate.py's points/hand), with a cluster-robust 95%
interval over the same deals (`ratio_difference_ci`; none, `[n/a, no spread]`, when every deal's
difference is alike, as for two runs that played alike, and `[n/a, one deal]` from one deal):
finer than the win rate, since every hand counts, not only who reached the target.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.stats import mean_ci, points_interval_text, ratio_difference_ci, wilson  # noqa: E402
from agents import player_key  # noqa: E402
from benchmarks._cli import errors_as_one_line, parser  # noqa: E402
from scopa_env.errors import ScopaError  # noqa: E402
from scopa_env.records import read_numbered, rules_of, seat_of, two_totals  # noqa: E402

FEW_DIFFER = 10     # fewer matches ended differently: few_differ_ci's bound, not Student's t
Z975_EACH = 2.241402727604947      # the normal's 0.9875 quantile: two 97.5% intervals


def load(path: str, player: str | None) -> tuple[str, str, dict, list[tuple[int, int, int, int, int, int]]]:
    """The agent's name, its opponent's, the rules, and per record (match seed, the agent's seat,
    1 if it won else 0, the line, its hand points minus the opponent's over the match, the
    match's hands); one opponent and one rules set in the file."""
    rows = []
    rules = opponent = None
    seen: dict[tuple[int, int], int] = {}      # (match seed, the agent's seat): line
    # read yields any JSON object: the format is checked here (format 2 was read; review)
    for n, record in read_numbered(path, format_checked=True):
        try:
            seat = seat_of(record, player)
            names = record["players"]
            player = names[seat]
            seed, winner, these = record["seed"], record["winner"], rules_of(record)
            if type(seed) is not int:
                raise ValueError(f"seed {seed!r}")
            if type(winner) is not int or winner not in (0, 1):
                raise ValueError(f"winner {winner!r}")
            margin, hands = _margin(record["hands"], seat)
        except ScopaError as e:        # both players of one name (records.seat_of)
            raise ScopaError(f"{path}:{n}: {e}") from None
        except (ValueError, KeyError, TypeError) as e:
            what = f" naming {player!r} once" if player is not None else ""
            raise ScopaError(f"{path}:{n}: not a finished 2-player match record{what} "
                             f"({type(e).__name__}: {e})") from None
        if rules is None:
            rules, opponent, first = these, names[1 - seat], n
        elif player_key(names[1 - seat]) != player_key(opponent):
            raise ScopaError(f"{path}:{n}: against {names[1 - seat]!r}, the file's first record against "
                             f"{opponent!r}: one opponent per file (evaluate.py --record once per "
                             f"opponent)")
        elif these != rules:
            raise ScopaError(f"{path}:{n}: other rules than the file's first record "
                             f"({these.differences(rules, f'in line {n}', f'in line {first}')})")
        if (seed, seat) in seen:
            # the same match twice (a file appended to itself, two runs with one --seed) counted
            # its deal twice and narrowed the interval (review; evaluate.py --pool refuses it)
            raise ScopaError(f"{path}:{n}: match seed {seed} with the agent in seat {seat} is also "
                             f"line {seen[seed, seat]}: the same deal would count twice")
        seen[seed, seat] = n
        rows.append((seed, seat, int(winner == seat), n, margin, hands))
    if not rows:
        raise ScopaError(f"{path}: no records")
    return player, opponent, rules, rows


def compare(path_a: str, path_b: str, players: list[str] | None = None) -> dict:
    """Wins of each run and the paired difference (module text)."""
    name_a, opp_a, rules_a, a = load(path_a, players[0] if players else None)
    name_b, opp_b, rules_b, b = load(path_b, players[1] if players else None)
    # one opponent and one rules set per file (load): their first records stand for all
    # one opponent however its options were ordered (evaluate.py names a player with its options
    # as typed: 'hard:worlds=2,rollouts=1' and 'hard:rollouts=1,worlds=2' were refused; review)
    if player_key(opp_a) != player_key(opp_b):
        raise ScopaError(f"{path_a}:{a[0][3]} is against {opp_a!r}, {path_b}:{b[0][3]} against "
                         f"{opp_b!r}: compare runs against the same opponent")
    if rules_a != rules_b:
        differ = rules_b.differences(rules_a, f"in {path_b}:{b[0][3]}", f"in {path_a}:{a[0][3]}")
        raise ScopaError(f"{path_b}:{b[0][3]} was played under other rules than {path_a}:{a[0][3]} "
                         f"({differ}): compare runs under the same rules")
    # per deal (match seed; load refused a seed twice in one seat): B's wins minus A's, and A's
    # margin and hands, B's margin and hands
    deals: dict[int, list[int]] = {}
    points: dict[int, list[int]] = {}
    lines: dict[int, int] = {}      # match seed -> its first line in A
    # as far as the shorter goes (strict=False): a deal that differs is named first, then the lengths
    pairs = zip(a, b, strict=False)
    for (seed, seat, win_a, line_a, pa, ha), (seed_b, seat_b, win_b, line_b, pb, hb) in pairs:
        lines.setdefault(seed, line_a)
        if (seed, seat) != (seed_b, seat_b):
            raise ScopaError(f"{path_b}:{line_b} is not the deal of {path_a}:{line_a} (match seed "
                             f"{seed_b} seat {seat_b}, against seed {seed} seat {seat}): compare "
                             f"runs made with the same --seed, --matches and opponent")
        deals.setdefault(seed, []).append(win_b - win_a)
        for i, x in enumerate((pa, ha, pb, hb)):
            points.setdefault(seed, [0, 0, 0, 0])[i] += x
    if len(a) != len(b):
        raise ScopaError(f"{path_a} holds {len(a)} matches, {path_b} {len(b)} (the same deals as "
                         f"far as the shorter goes): compare runs of the same --matches")
    for seed, d in deals.items():
        # a deal with one seat only (a file cut with head) weighed its match as two: the
        # difference contradicted the two win rates printed above it (review)
        if len(d) != 2:
            raise ScopaError(f"{path_a}:{lines[seed]}: match seed {seed} has {len(d)} match(es) in "
                             f"these files, not one with the agent in each seat as evaluate.py "
                             f"writes a deal: compare whole deals")
    mean, (lo, hi) = mean_ci([sum(d) / len(d) for d in deals.values()])
    b_only = sum(1 for d in deals.values() for x in d if x > 0)
    a_only = sum(1 for d in deals.values() for x in d if x < 0)
    # Student's t over deals that all differ alike has zero width ([+50, +50] with 10 deals each
    # B's by one match: review): the bound then too
    bounded = (False if len(deals) < 2 else "few" if b_only + a_only < FEW_DIFFER
               else "no spread" if lo == hi else False)
    if bounded:
        lo, hi = few_differ_ci(b_only, a_only, len(a))
    per_hand, per_hand_ci = ratio_difference_ci(*zip(*points.values(), strict=True))
    return {"per_hand": per_hand, "per_hand_ci": per_hand_ci, "hands": (sum(r[5] for r in a), sum(r[5] for r in b)),
            "a": (name_a, sum(r[2] for r in a)), "b": (name_b, sum(r[2] for r in b)),
            "matches": len(a), "deals": len(deals), "opponent": opp_a,
            "differ": b_only + a_only, "diff": mean, "ci": (lo, hi), "bounded": bounded}


def few_differ_ci(b_only: int, a_only: int, n: int) -> tuple[float, float]:
    """A 95% interval for B's match win rate minus A's when fewer than FEW_DIFFER matches ended
    differently. Student's t over deals then covered far less than 95% (review, simulated: 52%
    at 18 deals with a 2% chance that a match ends differently, half of those intervals of zero
    width; 0 matches differing gave [+0, +0]). The difference is (b_only - a_only) / n = r (2 pi
    - 1), r the share of matches that end differently and pi the share of those B wins: each gets
    a Wilson interval at 97.5% (Bonferroni, so that both hold together 95% of the time), and the
    interval spans r (2 pi - 1) over both. It treats matches as independent (the t interval's
    unit is the deal) and is conservative: with 0 of 36 matches differing, +-12.2 points."""
    z = Z975_EACH
    r_lo, r_hi = wilson(b_only + a_only, n, z)
    p_lo, p_hi = wilson(b_only, b_only + a_only, z)     # (0, 1) when none differ
    low, high = 2 * p_lo - 1, 2 * p_hi - 1
    return min(r_lo * low, r_hi * low), max(r_lo * high, r_hi * high)


def _margin(hands, seat: int) -> tuple[int, int]:
    """The agent's hand points minus the opponent's over a match's hands, and their count."""
    if not isinstance(hands, list) or not hands:
        raise ValueError("hands: a list of at least one hand")
    margin = 0
    for hand in hands:
        totals = two_totals(hand)
        margin += totals[seat] - totals[1 - seat]
    return margin, len(hands)


@errors_as_one_line(Path(__file__).name)
def main(argv=None) -> int:
    p = parser(__file__, __doc__)
    p.add_argument("a", help="game records of run A (JSON Lines, evaluate.py --record)")
    p.add_argument("b", help="game records of run B, on the same deals")
    p.add_argument("--players", nargs=2, metavar=("A", "B"),
                   help="the agent's name in each file (default: the first player of its first record)")
    args = p.parse_args(argv)
    try:
        same = os.path.samefile(args.a, args.b)
    except OSError:         # a missing file: compare() names it
        same = False
    if same:                # it printed a zero difference (review)
        p.error(f"{args.a} and {args.b} are one file: compare two runs' records")
    r = compare(args.a, args.b, args.players)
    n = r["matches"]
    for label, path in (("a", args.a), ("b", args.b)):
        name, wins = r[label]
        print(f"{label.upper()} {path}: {name} won {wins:,} of {n:,} matches against {r['opponent']} "
              f"({100 * wins / n:.1f}%)")
    lo, hi = r["ci"]
    if r["deals"] == 1:       # no spread over one deal: infinite bounds
        interval = "95% CI [n/a, one deal]"
    elif r["bounded"]:
        why = (f"fewer than {FEW_DIFFER} matches ended differently" if r["bounded"] == "few"
               else "every deal differed alike, so Student t has no spread")
        interval = f"95% CI [{100 * lo:+.2f}, {100 * hi:+.2f}] ({why}: bounded by their share and split, Wilson)"
    else:
        interval = f"95% CI [{100 * lo:+.2f}, {100 * hi:+.2f}] (Student t over {r['deals']:,} deals)"
    matches = "1 match" if r["differ"] == 1 else f"{r['differ']:,} matches"
    print(f"B - A: {100 * r['diff']:+.2f} points of match win rate, {interval}; {matches} ended "
          f"differently")
    lo, hi = r["per_hand_ci"]
    deals = "1 deal" if r["deals"] == 1 else f"{r['deals']:,} deals"     # it said "over 1 deals"
    why = "one deal" if r["deals"] == 1 else "no spread"    # every deal's difference alike
    print(f"B - A: {r['per_hand']:+.3f} points per hand, 95% CI {points_interval_text(lo, hi, why)} "
          f"(cluster-robust over {deals}; {r['hands'][0]:,} and {r['hands'][1]:,} hands)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
