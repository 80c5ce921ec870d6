"""Engine speed: random-play full hands per second on one core, and the cost of a state clone.

    python benchmarks/bench_engine.py [--hands 300000] [--repeats 5] [--presets] [--baseline DIR]

Measured side by side in one run: the compiled path (core.random_hands: deal, legal-move
generation, play, scoring, all in numba), random hands of the same game driven move by move
through the validated Python `Game` API (another sample of hands, and fewer: a 500th of
--hands, at least 200; the ratio is per hand), and state clones inside compiled code and from
Python. With
--presets, also every rules preset of presets.py through core.random_hands_rules (a tenth of the
hands each), with its speed relative to the classic game. Medians of the repeats; the machine is
noisy, so read the ratios. With --baseline DIR (another checkout, e.g. a fresh `git worktree add
/tmp/base <commit>`), the classic compiled path of both, timed in turns in this process (load
from other processes hits both alike), and whether they played the same hands (their
checksums); nothing else is timed then, and --presets is refused.
"""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import numpy as np  # noqa: E402

from benchmarks._cli import errors_as_one_line, load_baseline, parser, positive_int  # noqa: E402
from scopa_env import Game, core  # noqa: E402
from scopa_env.presets import PRESETS  # noqa: E402


def timed(fn, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def python_clones(state, n):
    """`n` copies of `state` from Python, each dropped as the next is made, as clone_many's are
    (a list that kept them all, 150 MB, paid for fresh memory too: about 3x the time; review)."""
    copy = state.copy
    for _ in range(n):
        copy()


def python_api_hands(n):
    g = Game(seed=1)
    rng = np.random.default_rng(1)
    done = 0
    while done < n:
        ms = g.legal_moves()
        m = ms[rng.integers(len(ms))]
        r = g.play(m.card, m.captured)
        if r.hand_over:
            done += 1
            g = Game(seed=done) if r.match_over else g
            if not r.match_over:
                g.next_hand()


@errors_as_one_line(os.path.basename(__file__))
def main(argv=None) -> int:
    ap = parser(__file__, __doc__)
    ap.add_argument("--hands", type=positive_int, default=300_000)
    ap.add_argument("--repeats", type=positive_int, default=5)
    ap.add_argument("--presets", action="store_true", help="also time every rules preset")
    ap.add_argument("--baseline", metavar="DIR", help="another checkout to compare with")
    args = ap.parse_args(argv)
    if args.baseline is not None and args.presets:
        # compare() times the classic engine of both checkouts: --presets was dropped (review)
        ap.error("--baseline times the classic engine only: drop --presets")
    if args.baseline is not None:
        compare(args)
        return 0
    core.random_hands(0, 10, 2, 0, 11)  # compile
    state = Game(seed=1).state
    core.clone_many(state, 10)

    t_fast = timed(lambda: core.random_hands(1, args.hands, 2, 0, 11), args.repeats)
    n_py = max(200, args.hands // 500)
    py_repeats = max(1, args.repeats // 2) | 1      # odd: a median of 2 runs was their mean
    t_py = timed(lambda: python_api_hands(n_py), py_repeats)
    n_clone = 1_000_000
    t_clone_c = timed(lambda: core.clone_many(state, n_clone), args.repeats)
    t_clone_py = timed(lambda: python_clones(state, 100_000), args.repeats) / 100_000

    fast = args.hands / t_fast
    py = n_py / t_py
    print(f"compiled engine  : {fast:12,.0f} hands/s  (median of {args.repeats}, {args.hands:,} hands each, one core)")
    print(f"Python Game API  : {py:12,.0f} hands/s  (median of {py_repeats}, {n_py:,} hands each; validated move-by-move calls into the same kernels)")
    print(f"ratio            : {fast / py:12,.1f} x")
    print(f"state clone      : {t_clone_c / n_clone * 1e9:9.1f} ns in compiled code, "
          f"{t_clone_py * 1e9:.0f} ns from Python (state = {core.STATE_SIZE} int64)")
    print(f"target >= 150,000 hands/s per core: {'met' if fast >= 150_000 else 'NOT met'}")
    if args.presets:
        n = max(1000, args.hands // 10)
        for name, p in PRESETS.items():
            header = p.rules.to_header()
            core.random_hands_rules(0, 10, header)  # compile
            rate = n / timed(lambda: core.random_hands_rules(1, n, header), args.repeats)
            print(f"  {name:<20} {rate:12,.0f} hands/s  ({rate / fast:4.2f} x classic)")
    return 0


def compare(args) -> None:
    """This checkout's compiled engine against another's, in turns (see the module text)."""
    base = load_baseline(args.baseline, needs=("core.random_hands",)).core
    engines = {"baseline": base, "this checkout": core}
    for e in engines.values():
        e.random_hands(0, 10, 2, 0, 11)    # compile
    same = len({e.random_hands(1, args.hands, 2, 0, 11) for e in engines.values()}) == 1
    times = {k: [] for k in engines}
    for r in range(args.repeats):
        # in turns: each goes first in every other pair, so a drift in load hits both alike (the
        # baseline went first in every pair; review)
        for k, e in list(engines.items())[::1 if r % 2 == 0 else -1]:
            t = time.perf_counter()
            e.random_hands(1, args.hands, 2, 0, 11)
            times[k].append(time.perf_counter() - t)
    rates = {k: args.hands / statistics.median(v) for k, v in times.items()}
    pairs = [b / t for b, t in zip(times["baseline"], times["this checkout"], strict=True)]
    print(f"compiled engine, classic rules, {args.repeats} interleaved pairs of {args.hands:,} hands; "
          f"baseline {args.baseline}")
    for k, r in rates.items():
        print(f"{k:<14}: {r:12,.0f} hands/s")
    print(f"ratio         : {statistics.median(pairs):12.2f} x  (median of the pairs: "
          f"{', '.join(f'{x:.2f}' for x in pairs)})")
    print(f"same hands    : {'yes' if same else 'NO: the two engines played different hands'}")


if __name__ == "__main__":
    sys.exit(main())
