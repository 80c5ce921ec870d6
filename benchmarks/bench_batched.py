"""Agent steps per second of BatchedScopa on one core, with and without the dense mask.

    python benchmarks/bench_batched.py [--sizes 256 1024 4096] [--seconds 1.0] [--repeats 5]
        [--rules PRESET ...] [--baseline OTHER_CHECKOUT]

One agent step = one move in one game. Each timed step includes everything a training loop
gets: the move played in compiled code, auto-reset of finished games, the new observation
(int8[291] with two players) of the player to move and the sparse legal moves (ids, cards, captured masks) of
every game. The random legal move is chosen in numpy, outside the kernel and inside the
timing: `idx = (rng.random(B) * env.legal_count).astype(int64)`, then `env.step_index(idx)`
("index" rows), or the same ids looked up as `env.legal_ids[arange(B), idx]` and passed to
`env.step(ids)` ("ids" rows; the env then finds each id in the legal list). The "+dense mask"
rows also call `env.action_masks()` (int8 (B, n_actions)) after every step, and its cost per
call is printed on its own, alone and with one pass over the mask (see mask_cost). The
kernels are single-threaded (no numba parallelism), so this is one core. Prints the median
over the repeats. `--rules` names presets (scopa_env/presets.py; default classic) to time, each
at every size (the observation and action table are the preset's). `--baseline DIR` loads the
scopa_env package of another checkout (e.g. `git worktree add /tmp/base <commit>`) beside this
one and times both classic envs interleaved in this process ("index" mode), printing the ratio:
a before/after comparison that load from other processes hits alike.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._cli import (distinct, errors_as_one_line, load_baseline, parser, positive_float,  # noqa: E402
                            positive_int)
from scopa_env import BatchedScopa  # noqa: E402
from scopa_env.batched import MAX_ENVS  # noqa: E402
from scopa_env.presets import preset_key, rules_from_preset  # noqa: E402


def run(env: BatchedScopa, mode: str, seconds: float, rng: np.random.Generator) -> float:
    """Agent steps per second for about `seconds`."""
    B = env.num_envs
    rows = np.arange(B)
    steps = 0
    start = time.perf_counter()
    while True:
        for _ in range(20):
            idx = (rng.random(B) * env.legal_count).astype(np.int64)
            if mode == "ids":
                env.step(env.legal_ids[rows, idx])
            else:
                env.step_index(idx)
            if mode == "index+dense mask":
                env.action_masks()
        steps += 20 * B
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps / elapsed


def mask_cost(env: BatchedScopa, read: bool, repeats: int = 20) -> float:
    """Median seconds of one action_masks() call, and with `read` one pass over the result.

    np.zeros hands out lazily zeroed pages, so the call alone leaves most of the cost to
    whoever first reads the mask; the pass (a count of its non-zeros) pays it."""
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        m = env.action_masks()
        if read:
            np.count_nonzero(m.view(np.bool_))
        times.append(time.perf_counter() - t)
    return statistics.median(times)


@errors_as_one_line(Path(__file__).name)
def main(argv=None) -> int:
    ap = parser(__file__, __doc__)
    ap.add_argument("--sizes", type=positive_int, nargs="+", default=[256, 1024, 4096])
    ap.add_argument("--seconds", type=positive_float, default=1.0)
    ap.add_argument("--repeats", type=positive_int, default=5)
    ap.add_argument("--rules", nargs="+", default=["classic"], metavar="PRESET")
    ap.add_argument("--baseline", metavar="DIR", help="another checkout to compare with")
    args = ap.parse_args(argv)
    if args.baseline is not None and [preset_key(r) for r in args.rules] != [preset_key("classic")]:
        # the other checkout's classic env is what it times: --rules was dropped without a word
        ap.error("--baseline times the classic batched env only: drop --rules")
    distinct(ap, "--sizes", args.sizes)
    if max(args.sizes) > MAX_ENVS:      # refused before the first size is timed
        ap.error(f"--sizes {max(args.sizes)}: a batch holds at most {MAX_ENVS:,} games")
    distinct(ap, "--rules", args.rules, key=preset_key)
    for preset in args.rules:       # every name checked before the first is timed
        rules_from_preset(preset)
    rng = np.random.default_rng(0)
    if args.baseline is not None:
        compare(args, rng)
        return 0
    modes = ("index", "ids", "index+dense mask")
    print(f"BatchedScopa, random legal moves chosen in numpy; median of {args.repeats} x "
          f"{args.seconds:g} s")
    for preset in args.rules:
        print(f"rules {preset}")
        bench_rules(preset, args, rng, modes)
    print("target: >= 1,000,000 agent steps/s at B >= 1024 with observations and sparse masks")
    return 0


def compare(args, rng: np.random.Generator) -> None:
    base = load_baseline(args.baseline, needs=("BatchedScopa",))
    print(f"classic rules, 'index' mode, {args.repeats} interleaved pairs of {args.seconds:g} s; "
          f"baseline {args.baseline}")
    print(f"{'B':>6s} {'baseline':>14s} {'this checkout':>14s} {'ratio':>7s}  per-pair ratios")
    for B in args.sizes:
        envs = {"base": base.BatchedScopa(B, seed=0), "this": BatchedScopa(B, seed=0)}
        for env in envs.values():
            env.reset()
            run(env, "index", 0.3, rng)
        res = {k: [] for k in envs}
        for r in range(args.repeats):
            for k in (("base", "this") if r % 2 == 0 else ("this", "base")):
                res[k].append(run(envs[k], "index", args.seconds, rng))
        b, t = statistics.median(res["base"]), statistics.median(res["this"])
        pairs = sorted(x / y for x, y in zip(res["this"], res["base"], strict=True))
        print(f"{B:6d} {b:14,.0f} {t:14,.0f} {t / b:7.3f}  "
              + " ".join(f"{x:.2f}" for x in pairs))


def bench_rules(preset: str, args, rng: np.random.Generator, modes) -> None:
    print(f"{'B':>6s} {'mode':18s} {'agent steps/s':>14s} {'min':>12s} {'max':>12s}")
    for B in args.sizes:
        env = BatchedScopa(B, rules=preset, seed=0)
        env.reset()
        run(env, "index", 0.2, rng)  # warm-up (loads the compiled kernels)
        run(env, "ids", 0.1, rng)
        if "index+dense mask" in modes:     # its kernel's first compile was timed in repeat 1
            run(env, "index+dense mask", 0.1, rng)
        res = {m: [] for m in modes}
        for _ in range(args.repeats):
            for m in modes:
                res[m].append(run(env, m, args.seconds, rng))
        for m in modes:
            v = res[m]
            print(f"{B:6d} {m:18s} {statistics.median(v):14,.0f} {min(v):12,.0f} {max(v):12,.0f}")
        step_s = B / statistics.median(res["index"])
        for read in (False, True):
            c = mask_cost(env, read)
            what = "action_masks() + one read" if read else "action_masks() alone"
            print(f"{B:6d} {what:25s}: {c * 1e3:6.2f} ms per call = {c / step_s:4.1f}x one "
                  f"batched step ({step_s * 1e3:.2f} ms)")


if __name__ == "__main__":
    sys.exit(main())
