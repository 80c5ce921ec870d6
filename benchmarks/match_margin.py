"""What margin per hand a match win rate needs: the measured hands, resampled into matches.

    python benchmarks/match_margin.py --agent checkpoints/scopa-default.pt --opponent easy \
        [--matches 400] [--seed 0] [--shifts 0,0.25,0.5,0.75,1] [--workers 1] [--samples 40000]

Plays the matches (duplicate deals, seats swapped, as evaluate.py does), keeps every hand's
points (agent, opponent), and prints the measured match win rate and points per hand. Then it
builds matches to the target from hands drawn independently from the measured ones (both past
the target and level: another hand, as in a real match) and prints their win rate: first as
measured (a check of the model: it should be close to the measured rate), then with the agent
given `shift` more points per hand than the opponent (in each hand, with the chance that makes
the mean margin grow by `shift`, one point moves from the opponent to the agent). That tells how far a given margin goes in matches to 11: e.g. how much more per
hand a 95% match win rate needs than an agent makes. A model (hands independent, the margin
moved evenly), not a measurement of any agent: docs/experiments.md ("How far the targets are")
says which figures came from it.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.arena import check_matches, run_pairs  # noqa: E402
from benchmarks._cli import ROOT, distinct, errors_as_one_line, parser, positive_int, seed_arg  # noqa: E402
from scopa_env.errors import ScopaError  # noqa: E402
from scopa_env.rules import Rules  # noqa: E402

DEFAULT_AGENT = "checkpoints/scopa-default.pt"     # in the checkout, wherever this runs from


def move_chance(hands: np.ndarray, shift: float) -> float:
    """The chance per hand the opponent scored in that one of its points moves to the agent, so
    that the mean margin grows by `shift`; a shift these hands cannot give is a ScopaError."""
    can = hands[:, 1] >= 1
    p = 0.0 if shift <= 0 else shift / (2 * can.mean()) if can.any() else math.inf
    if p > 1:
        raise ScopaError(f"shift {shift} is more than moving a point in every hand the opponent "
                         f"scored in can give: at most {2 * can.mean():.3f} with these hands")
    x, y = hands[:, 0], hands[:, 1]
    # a hand may end uneven as measured (unless its point always moves) or with its point moved
    uneven = ((x != y) & (~can | (p < 1))) | (can & (p > 0) & (x + 1 != y - 1))
    if not uneven.any():
        # no hand can break a tie: the resampling loop never ended (reviews: every hand level
        # and no point moved; every point moved making every hand level, as 0-2 and 1-3 at 2)
        raise ScopaError(f"every hand is level {'with a point moved' if p == 1 else 'and no point is moved'}"
                         f": a match of them never ends")
    return p


def resampled_win_rate(hands: np.ndarray, shift: float, target: int, n: int,
                       rng: np.random.Generator) -> float:
    """Win rate of n matches made of hands drawn from `hands`, each hand moving one point from
    the opponent to the agent with the chance that adds `shift` to the mean margin (points stay
    whole, so level scores past the target still mean another hand)."""
    can = hands[:, 1] >= 1
    p = move_chance(hands, shift)
    won = 0
    for _ in range(n):
        a = b = 0
        while not ((a >= target or b >= target) and a != b):
            i = rng.integers(len(hands))
            x, y = int(hands[i, 0]), int(hands[i, 1])
            if can[i] and rng.random() < p:
                x, y = x + 1, y - 1
            a += x
            b += y
        won += a > b
    return won / n


def shift_list(text: str) -> list[float]:
    """An argparse type: '0,0.5,1' -> [0.0, 0.5, 1.0], each a number 0..2 (a point moved from
    the opponent to the agent in every hand adds 2 to the margin: the most a shift can be; the
    measured hands may allow less, checked once they are played)."""
    try:
        shifts = [float(s) for s in text.split(",")]
    except ValueError:
        shifts = [math.nan]
    if not all(math.isfinite(s) and 0 <= s <= 2 for s in shifts):
        raise argparse.ArgumentTypeError(f"must be numbers 0..2 separated by commas (moving a point "
                                         f"in every hand adds 2), got {text!r}")
    return shifts


@errors_as_one_line(Path(__file__).name)
def main(argv=None) -> int:
    p = parser(__file__, __doc__)
    p.add_argument("--agent", help=f"the agent's spec (default {DEFAULT_AGENT} of this checkout)")
    p.add_argument("--opponent", default="easy")
    p.add_argument("--matches", type=int, default=400)
    p.add_argument("--seed", type=seed_arg, default=0)
    p.add_argument("--workers", type=positive_int, default=1)
    p.add_argument("--shifts", type=shift_list, default="0,0.25,0.5,0.75,1.0")
    p.add_argument("--samples", type=positive_int, default=40_000, help="resampled matches per shift")
    args = p.parse_args(argv)
    distinct(p, "--shifts", args.shifts)
    rules = Rules()
    try:                                  # found before the matches are played, not after
        matches = check_matches(args.matches, rules)
    except ScopaError as e:
        p.error(str(e))
    agent, label = (str(ROOT / DEFAULT_AGENT), DEFAULT_AGENT) if args.agent is None else (args.agent,) * 2
    results = run_pairs(agent, args.opponent, matches // 2, args.seed, rules, args.workers)
    hands = np.array([(h[r.agent_side], h[1 - r.agent_side]) for r in results for h in r.hand_points])
    wins = sum(r.agent_won for r in results)
    diff = hands[:, 0] - hands[:, 1]
    for shift in args.shifts:       # every shift, before any row (a bad one came after the good ones)
        move_chance(hands, shift)
    print(f"{label} vs {args.opponent}: {len(results)} matches (seed {args.seed}), measured win "
          f"rate {wins / len(results):.1%}; {len(hands)} hands, points per hand "
          f"{hands[:, 0].mean():.3f} - {hands[:, 1].mean():.3f} = {diff.mean():+.3f} (sd {diff.std():.2f})")
    rng = np.random.default_rng(args.seed)
    for shift in args.shifts:
        rate = resampled_win_rate(hands, shift, rules.target, args.samples, rng)
        print(f"  margin {diff.mean() + shift:+.2f} per hand: resampled match win rate {rate:.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
