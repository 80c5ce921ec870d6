"""Checks of a checkpoint's training state against what a fresh run of its config writes.

A resumed run (training/loop.py, Run._restore) loads the algorithm's state, the optimizer's and
the generators'; torch and numpy check little of it, so an edited or mismatched file would fail
at the first step, or train on. These checks name the first part that does not fit (its path in
the checkpoint, what it holds and what a fresh run's holds), for one clear error.
"""
from __future__ import annotations

import numpy as np
import torch

from agents.checkpoint import show_value


# the saved arrays' dimensions a run's own play sets (the moves carried from unfinished episodes;
# the widest legal-move list a PPO tail was taken from); every other is a fresh run's
_FREE_DIMS = {"algo_state.carry": (0,), "algo_state.tail.cards": (1,), "algo_state.tail.captured": (1,)}
# parts of the algorithm's state that files of earlier versions lack, and resume without
# (PPO's tails; DMC's exploration span): any other part a fresh run writes must be there
_MAY_LACK = {"algo_state.tail", "algo_state.epsilon_span"}


def misshapen(have, want, path: str) -> str | None:
    """'algo_state.tail.obs (int8, 16 x 290; a fresh run's int8, 16 x 291)': the first array of a
    checkpoint's algorithm state (`have`) of another kind or shape than the one a fresh run of its
    config writes (`want`), or a part it lacks (but _MAY_LACK), or None. The environment's games
    are checked by BatchedScopa, the pool by load_state_dict; keys the file has and a fresh run
    does not are not read."""
    if isinstance(want, dict) and isinstance(have, dict):
        for k in want:
            if k not in have and f"{path}.{k}" not in _MAY_LACK:
                return f"{path} lacks {k!r} (a fresh run's has it)"
            if k in have and k not in ("env", "pool"):
                found = misshapen(have[k], want[k], f"{path}.{k}")
                if found:
                    return found
        if path == "algo_state.carry":       # one length of time for all its arrays
            lengths = {k: v.shape[0] for k, v in have.items() if isinstance(v, torch.Tensor) and v.dim()}
            if len(set(lengths.values())) > 1:
                return f"{path} holds arrays of {sorted(set(lengths.values()))} moves ({lengths})"
        return None
    if not isinstance(want, torch.Tensor):
        return None
    free = _FREE_DIMS.get(path, _FREE_DIMS.get(path.rpartition(".")[0], ()))
    fits = (isinstance(have, torch.Tensor) and have.dtype == want.dtype and have.dim() == want.dim()
            and all(a == b or i in free for i, (a, b) in enumerate(zip(have.shape, want.shape, strict=True))))
    if fits:
        return None
    return f"{path} ({_kind(have)}; a fresh run's {_kind(want, free)})"


def _kind(v, free=()) -> str:
    """'int8, 20 x 16 x 291' ('any x 16 x 291' where a dimension is free); a non-array's type."""
    if not isinstance(v, torch.Tensor):
        return type(v).__name__
    dims = ["any" if i in free else str(n) for i, n in enumerate(v.shape)]
    return f"{str(v.dtype).removeprefix('torch.')}, " + (" x ".join(dims) or "a scalar")


def misshapen_optimizer(optimizer: torch.optim.Optimizer, model: torch.nn.Module,
                        fresh: dict, saved: dict) -> str | None:
    """The first setting of a loaded optimizer's param_groups other than in `fresh` (the state_dict
    of a fresh run's optimizer: the settings come from the config, which a resume does not
    change; torch takes any value, and an lr of 'x' failed in Adam's first step, one of -1 trained
    on), or the first Adam moment whose shape is not its parameter's (torch does not check: the
    first step raised), or None. The moments are read from `saved`, the file's own optimizer
    state_dict: loading cast an int or complex moment to float32."""
    loaded = optimizer.state_dict()
    for i, (have, want) in enumerate(zip(loaded["param_groups"], fresh["param_groups"], strict=True)):
        for key, v in want.items():
            # a setting the file lacks (one a torch version added) is torch's default, as fresh
            if key != "params" and key in have and not _same_setting(have[key], v):
                return (f"optimizer.param_groups[{i}].{key} ({show_value(have[key])}; a fresh "
                        f"run's {show_value(v)})")
    params = list(model.parameters())
    for i, state in saved["state"].items():
        if not (isinstance(i, int) and 0 <= i < len(params)):
            return f"optimizer state names parameter {i!r} of {len(params)}"
        lacking = [k for k in ("step", "exp_avg", "exp_avg_sq") if k not in state]
        if lacking:                # Adam's step read it (a KeyError)
            return f"optimizer.state[{i}] lacks {lacking[0]!r}"
        for key, v in state.items():
            want = torch.Size([]) if key == "step" else params[i].shape
            if not isinstance(v, torch.Tensor) or v.shape != want:
                shape = " x ".join(map(str, want))
                return (f"optimizer.state[{i}].{key} ({_kind(v)}; "
                        + (f"its parameter is {shape})" if shape else "a scalar is needed)"))
            # torch casts any dtype without a word, and a negative step or second moment made
            # Adam's update complex or NaN after the run had started (review)
            if key in ("step", "exp_avg", "exp_avg_sq") and v.dtype != params[i].dtype:
                return (f"optimizer.state[{i}].{key} ({str(v.dtype).removeprefix('torch.')}; its "
                        f"parameter is {str(params[i].dtype).removeprefix('torch.')})")
            if key in ("step", "exp_avg_sq") and v.numel() and bool((v < 0).any()):
                return f"optimizer.state[{i}].{key} (below 0: {show_value(float(v.min()))})"
    return None


def _same_setting(a, b) -> bool:
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.shape == b.shape \
            and bool(torch.equal(a, b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):   # betas: a list once saved
        return len(a) == len(b) and all(_same_setting(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _first_bad(bad: np.ndarray) -> int | None:
    """The first game where `bad` holds, or None: `bad` is (B,) per game or (T, B) per carried move."""
    cols = np.flatnonzero(bad.reshape(-1, bad.shape[-1]).any(axis=0))
    return int(cols[0]) if len(cols) else None


def ppo_misfit(algo) -> str | None:
    """What of a loaded PPO state does not fit its run, or None: each game's opponent is -1 exactly
    where a rule bot plays, else 0 (the current policy) or a pool snapshot it holds
    (1..len(pool)); the tails' move lists are no wider than the env's (the rollout's rows take
    the env's width, a tail's row its own), and a carried tail's move is one of its count of
    moves, of cards 0..39."""
    opp = algo.opponent
    bots = algo.bots.seat >= 0
    checks = ((bots & (opp != -1), "a rule bot plays there, but the opponent is {v}, not -1"),
              (~bots & (opp == -1), "no rule bot plays there, but the opponent is -1 (a bot)"),
              (~bots & ((opp < -1) | (opp > len(algo.pool))),
               f"its opponent is {{v}}: 0 (the policy) or a pool snapshot 1..{len(algo.pool)}"))
    for bad, what in checks:
        b = _first_bad(bad)
        if b is not None:
            return f"algo_state.opponent of game {b}: " + what.format(v=int(opp[b]))
    tail = algo.tail
    width, env_width = tail["cards"].shape[1], algo.env.legal_card.shape[1]
    if width > env_width:
        return f"algo_state.tail holds moves {width} wide, its games' legal moves {env_width}"
    on = tail["on"]
    checks = ((on & ((tail["count"] < 1) | (tail["count"] > width)), "count", f"1..{width}"),
              (on & ((tail["idx"] < 0) | (tail["idx"] >= tail["count"])), "idx", "below its count"),
              (on & ((tail["cards"] < 0) | (tail["cards"] > 39)).any(axis=1), "cards", "cards 0..39"))
    for bad, key, want in checks:
        b = _first_bad(bad)
        if b is not None:
            return f"algo_state.tail.{key} of game {b} is out of range (it must be {want})"
    return None


def dmc_misfit(algo) -> str | None:
    """What of a loaded DMC carry does not fit its run, or None: the seats moving are the rules'
    (the rewards are read at them) and the cards played 0..39."""
    carry, n = algo.carry, algo.env.n_players
    for key, lo, hi in (("seat", 0, n - 1), ("card", 0, 39)):
        b = _first_bad((carry[key] < lo) | (carry[key] > hi))
        if b is not None:
            return f"algo_state.carry.{key} of game {b} is out of range (it must be {lo}..{hi})"
    return None


def lacking(have, want, key, path: str) -> str | None:
    """The first place ('algo_state.env', 'optimizer.param_groups[0].params') where `want` (what a
    fresh run writes) has `key` and `have` (the checkpoint's) lacks it; None if there is none."""
    if isinstance(have, dict) and isinstance(want, dict):
        if key in want and key not in have:
            return f"{path}.{key}"
        for k in want:
            found = lacking(have[k], want[k], key, f"{path}.{k}") if k in have else None
            if found:
                return found
    elif isinstance(have, (list, tuple)) and isinstance(want, (list, tuple)) and want:
        for i, h in enumerate(have):
            found = lacking(h, want[min(i, len(want) - 1)], key, f"{path}[{i}]")
            if found:
                return found
    return None
