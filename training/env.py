"""The batched environment as training uses it: construction, legal-move views, saved state.

A resumed run must continue bit for bit, so a checkpoint holds the environment's whole state
(BatchedScopa.state_dict(): the engine state rows, each game's generator, and the arrays of the
current position), as tensors.

Checkpoints written before the rules variants hold engine states of the older layout (134 slots:
a 16-slot header, score lines of 8 slots), and those written before cirulla's options the
version 2 layout (156 slots: a 32-slot header, 9-slot lines); `set_env_state` moves them into
today's layout (a 48-slot header whose new slots are 0; 11-slot lines), so such a run resumes
where it stopped.
"""
from __future__ import annotations

import numpy as np
import torch

from scopa_env import core
from scopa_env.batched import BatchedScopa
from scopa_env.seeds import SEED_LIMIT

from .config import TrainConfig


def make_env(cfg: TrainConfig) -> BatchedScopa:
    """The run's games, dealt from the run's seed."""
    reward = "points" if cfg.episode == "hand" else "win"
    seed = (cfg.seed * 1_000_003) % SEED_LIMIT      # any config seed stays a seed
    env = BatchedScopa(cfg.num_envs, rules=cfg.rules, seed=seed, episode=cfg.episode, reward=reward)
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
    d = {k: v.numpy() if isinstance(v, torch.Tensor) else v for k, v in d.items()}
    if d["states"].ndim == 2 and d["states"].shape[1] == V1_STATE_SIZE != core.STATE_SIZE:
        d["states"] = migrate_v2_states(migrate_v1_states(d["states"]))
    elif d["states"].ndim == 2 and d["states"].shape[1] == V2_STATE_SIZE != core.STATE_SIZE:
        d["states"] = migrate_v2_states(d["states"])
    env.load_state_dict(d)


# the engine's state layout before the rules variants (2-player classic games only)
V1_HEADER, V1_MAXP, V1_NLINES, V1_LINE_NAMES = 16, 6, 8, 7
V1_LINES = V1_HEADER + 5 * V1_MAXP          # after HANDS, PILES, PLAYED, SCOPE, SCORES
V1_DECK = V1_LINES + V1_MAXP * V1_NLINES
V1_STATE_SIZE = V1_DECK + 40                # 134


def migrate_v1_states(old: np.ndarray) -> np.ndarray:
    """Engine states of the pre-variant layout -> the version 2 layout, same games."""
    new = np.zeros((old.shape[0], V2_STATE_SIZE), dtype=np.int64)
    new[:, :V1_HEADER] = old[:, :V1_HEADER]                      # same slots, options 0: classic
    new[:, V2_HEADER:V2_LINES] = old[:, V1_HEADER:V1_LINES]     # hands, piles, played, scope, scores
    for side in range(V1_MAXP):
        new[:, V2_LINES + side * V2_NLINES:V2_LINES + side * V2_NLINES + V1_LINE_NAMES] = \
            old[:, V1_LINES + side * V1_NLINES:V1_LINES + side * V1_NLINES + V1_LINE_NAMES]
    new[:, V2_DECK:V2_DECK + 40] = old[:, V1_DECK:V1_DECK + 40]
    return new


# the layout from the variants to cirulla's options (until 2026-12-02): a 32-slot header,
# 9-slot lines
V2_HEADER, V2_NLINES = 32, 9
V2_LINES = V2_HEADER + 5 * V1_MAXP
V2_DECK = V2_LINES + V1_MAXP * V2_NLINES
V2_STATE_SIZE = V2_DECK + 40                # 156


def migrate_v2_states(old: np.ndarray) -> np.ndarray:
    """Engine states of the version 2 layout -> today's layout, same games: the header's slots
    stay where they were (the new ones 0: options off, no hand bonus), the rest moves down, and
    the score lines gain their new slots (0)."""
    if core.MAXP != V1_MAXP or core.NLINES < V2_NLINES or core.LINES - core.HANDS != 5 * V1_MAXP \
            or core.HEADER_SIZE < V2_HEADER:
        raise ValueError("the engine's state layout changed again: no migration from version 2")
    new = np.zeros((old.shape[0], core.STATE_SIZE), dtype=np.int64)
    new[:, :V2_HEADER] = old[:, :V2_HEADER]
    new[:, core.HANDS:core.LINES] = old[:, V2_HEADER:V2_LINES]
    for side in range(V1_MAXP):
        new[:, core.LINES + side * core.NLINES:core.LINES + side * core.NLINES + V2_NLINES] = \
            old[:, V2_LINES + side * V2_NLINES:V2_LINES + side * V2_NLINES + V2_NLINES]
    new[:, core.DECK:core.DECK + 40] = old[:, V2_DECK:V2_DECK + 40]
    return new
