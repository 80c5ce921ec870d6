"""The most legal moves met in uniformly random play, per rules preset: what the batched env's
starting widths rest on.

    python benchmarks/max_moves.py [--rules PRESET ...] [--hands 100000] [--seeds 4]

Each preset (scopa_env/presets.py; default all of them) plays `--seeds` runs of `--hands` hands,
seeds 0.. (new matches as matches end), every move drawn uniformly among the legal ones by the
engine's own kernels (core.legal_moves, core.apply_move, the generator of core.random_move), and
the largest number of legal moves any position had is printed per run and over all runs, beside
the width BatchedScopa starts at for those rules (`initial_max_legal`): a position past it only
widens the arrays in that step (scopa_env/batched.py). The counts are a measure of random play,
not a bound: only the classic captures have a proven one (75; tests/test_batched.py).
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import numpy as np  # noqa: E402
from numba import njit  # noqa: E402

from benchmarks._cli import distinct, errors_as_one_line, parser, positive_int  # noqa: E402
from scopa_env import core  # noqa: E402
from scopa_env.batched import initial_max_legal  # noqa: E402
from scopa_env.presets import PRESETS, preset_key, rules_from_preset  # noqa: E402


@njit
def most_moves(seed, n_hands, header):
    """The most legal moves of any position met in n_hands random hands (core.random_hands_rules'
    play, counting the moves on the way)."""
    state = np.zeros(core.STATE_SIZE, dtype=np.int64)
    core.init_match_rules(state, seed, header)
    rng = np.zeros(1, dtype=np.int64)
    core.seed_rng(rng, 0, seed ^ 0x5DEECE66D)
    buf = np.empty((3, core.MAX_MOVES), dtype=np.int64)
    done = 0
    most = 0
    while done < n_hands:
        n = core.legal_moves(state, buf)
        most = max(most, n)
        k = core.rng_below(rng, 0, n)
        flags = core.apply_move(state, buf[0, k], buf[1, k])
        if flags & core.F_HAND_OVER:
            done += 1
            if flags & core.F_MATCH_OVER:
                core.init_match_rules(state, seed + done, header)
            else:
                core.next_hand(state)
    return most


@errors_as_one_line(os.path.basename(__file__))
def main(argv=None) -> int:
    ap = parser(__file__, __doc__)
    ap.add_argument("--rules", nargs="+", default=list(PRESETS), metavar="PRESET",
                    help="presets to play (default: all)")
    ap.add_argument("--hands", type=positive_int, default=100_000, help="hands per run")
    ap.add_argument("--seeds", type=positive_int, default=4, help="runs per preset, seeds 0..")
    args = ap.parse_args(argv)
    distinct(ap, "--rules", args.rules, key=preset_key)
    rules = {name: rules_from_preset(name) for name in args.rules}   # every name checked first
    print(f"most legal moves met in random play: {args.seeds} runs x {args.hands:,} hands per preset")
    print(f"{'preset':<20} {'most':>6} {'start width':>12}  per run")
    for name, r in rules.items():
        header = r.to_header()
        t = time.perf_counter()
        runs = [int(most_moves(seed, args.hands, header)) for seed in range(args.seeds)]
        width = initial_max_legal(r)
        past = "  (past the start width)" if max(runs) > width else ""
        print(f"{name:<20} {max(runs):>6} {width:>12}  {', '.join(map(str, runs))}  "
              f"[{time.perf_counter() - t:.0f} s]{past}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
