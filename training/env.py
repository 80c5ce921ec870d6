"""The batched environment as training uses it: construction, legal-move views, saved state.

A resumed run must continue bit for bit, so a checkpoint holds the environment's whole state: the
engine state rows, each game's generator, and the arrays of the current position. BatchedScopa has
no public accessor for its generators, so `env_state` reads the `_rng` array directly; if that
attribute ever goes, saving raises instead of resuming differently.
"""
from __future__ import annotations

import numpy as np
import torch

from scopa_env.batched import BatchedScopa
from scopa_env.errors import ScopaError

from .config import TrainConfig

_ARRAYS = ("obs", "to_move", "legal_count", "legal_ids", "legal_card", "legal_captured")


def make_env(cfg: TrainConfig, seed_offset: int = 0) -> BatchedScopa:
    """The run's games, dealt from the run's seed."""
    reward = "points" if cfg.episode == "hand" else "win"
    env = BatchedScopa(cfg.num_envs, rules=cfg.rules, seed=cfg.seed * 1_000_003 + seed_offset,
                       episode=cfg.episode, reward=reward)
    env.reset()
    return env


def legal_slice(env: BatchedScopa) -> tuple[np.ndarray, np.ndarray]:
    """Cards and captured masks of the legal moves, cut to the widest game (pads: card 0)."""
    width = max(1, int(env.legal_count.max()))
    cards = np.maximum(env.legal_card[:, :width], 0)
    return cards, env.legal_captured[:, :width]


def _inner(env: BatchedScopa) -> tuple[np.ndarray, np.ndarray]:
    if not hasattr(env, "_rng") or not hasattr(env, "_states"):
        raise ScopaError("this BatchedScopa does not expose its state: cannot checkpoint it")
    return env._states, env._rng


def env_state(env: BatchedScopa) -> dict:
    states, rng = _inner(env)
    d = {"states": torch.from_numpy(states.copy()), "rng": torch.from_numpy(rng.copy()),
         "seed": int(env.seed)}
    for name in _ARRAYS:
        d[name] = torch.from_numpy(np.array(getattr(env, name), copy=True))
    return d


def set_env_state(env: BatchedScopa, d: dict) -> None:
    states, rng = _inner(env)
    if tuple(d["states"].shape) != states.shape:
        raise ScopaError(f"saved environment has shape {tuple(d['states'].shape)}, "
                         f"this run has {states.shape} (num_envs changed?)")
    states[:] = d["states"].numpy()
    rng[:] = d["rng"].numpy()
    env.seed = int(d["seed"])
    for name in _ARRAYS:
        setattr(env, name, d[name].numpy().copy())
