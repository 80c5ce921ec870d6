"""Random play through the scopa AEC env (raw and wrapped) and PettingZoo's own classic envs.

    python benchmarks/bench_aec.py [--seconds 1.0] [--repeats 5] [--rules PRESET ...]

`--rules` adds a raw_env row per named preset (scopa_env/presets.py) beside the classic envs.

All envs run in this one process, interleaved round-robin (so load from other processes hits
them alike), each repeat for about `--seconds`. A step is one live agent action: the loop is
`env.last()`, a uniformly random legal action from the observation's action mask (numpy
`flatnonzero` of the mask as bool + a numpy Generator, the same code for every env),
`env.step()`. Steps of dead
agents at the end of an episode (`step(None)`) are done but not counted. Prints the median
steps/s over the repeats and its ratio to each reference env.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._cli import distinct, errors_as_one_line, parser, positive_float, positive_int  # noqa: E402
from scopa_env.presets import preset_key  # noqa: E402


def random_play(env, seconds: float, rng: np.random.Generator, seed: int) -> float:
    """Live steps per second of uniformly random legal play for about `seconds`."""
    steps = 0
    start = time.perf_counter()
    while True:
        env.reset(seed=seed)
        seed += 1
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            # as bool: numpy's nonzero on an int8 array of 16,200 is ~15x slower than on bool
            legal = np.flatnonzero(np.asarray(obs["action_mask"], dtype=bool))
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps / elapsed


def make_envs(presets=()) -> dict:
    import pettingzoo

    import scopa_env

    envs = {"scopa raw_env": scopa_env.raw_env(), "scopa env (wrapped)": scopa_env.env()}
    for name in presets:
        envs[f"raw_env {name}"] = scopa_env.raw_env(rules=name)
    # the references need extras: connect_four pygame, leduc rlcard (pip install pygame rlcard)
    for name in ("connect_four_v3", "leduc_holdem_v4"):
        try:
            envs[name] = pettingzoo.make("aec", f"classic/{name}")
        except Exception as e:  # an extra is missing: say so and go on with the others
            print(f"{name} skipped (needs pip install pygame rlcard): {type(e).__name__}: {e}")
    return envs


@errors_as_one_line(Path(__file__).name)
def main(argv=None) -> int:
    ap = parser(__file__, __doc__)
    ap.add_argument("--seconds", type=positive_float, default=1.0, help="time per env per repeat")
    ap.add_argument("--repeats", type=positive_int, default=5)
    ap.add_argument("--rules", nargs="*", default=[], metavar="PRESET",
                    help="also time the raw env under these presets")
    args = ap.parse_args(argv)
    distinct(ap, "--rules", args.rules, key=preset_key)
    envs = make_envs(args.rules)
    rng = np.random.default_rng(0)
    for env in envs.values():  # warm up: numba kernels loaded, caches filled
        random_play(env, 0.2, rng, seed=10_000)
    results = {name: [] for name in envs}
    for r in range(args.repeats):
        for name, env in envs.items():
            results[name].append(random_play(env, args.seconds, rng, seed=r * 100_000))
    med = {name: statistics.median(v) for name, v in results.items()}
    refs = [n for n in ("connect_four_v3", "leduc_holdem_v4") if n in med]
    print(f"median live steps/s over {args.repeats} repeats of {args.seconds:g} s, one process")
    header = f"{'env':30s} {'steps/s':>10s} {'min':>10s} {'max':>10s}" + "".join(
        f" {'x ' + n:>20s}" for n in refs)
    print(header)
    for name, m in med.items():
        row = f"{name:30s} {m:10,.0f} {min(results[name]):10,.0f} {max(results[name]):10,.0f}"
        row += "".join(f" {m / med[n]:20.2f}" for n in refs)
        print(row)
    raw, wrapped = med["scopa raw_env"], med["scopa env (wrapped)"]
    print(f"targets: raw >= 20,000 ({'met' if raw >= 20_000 else 'NOT met'}), "
          f"wrapped >= 10,000 ({'met' if wrapped >= 10_000 else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
