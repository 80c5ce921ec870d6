"""The batched environment as training uses it: construction, legal-move views, saved state.

A resumed run must continue bit for bit, so a checkpoint holds the environment's whole state
(BatchedScopa.state_dict(): the engine state rows, each game's generator, and the arrays of the
current position), as tensors.
"""
from __future__ import annotations

import numpy as np
import torch

from scopa_env.batched import BatchedScopa

from .config import TrainConfig


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


def env_state(env: BatchedScopa) -> dict:
    """The env's state_dict() with arrays as tensors (loadable with weights_only=True)."""
    return {k: torch.from_numpy(v) if isinstance(v, np.ndarray) else v
            for k, v in env.state_dict().items()}


def set_env_state(env: BatchedScopa, d: dict) -> None:
    env.load_state_dict({k: v.numpy() if isinstance(v, torch.Tensor) else v for k, v in d.items()})
