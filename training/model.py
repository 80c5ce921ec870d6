"""The network both algorithms train: it scores each legal move from its features.

A move is described by the card played (one-hot, 40) and the cards it captures (mask, 40), so the
16,200 action ids never need one output each: the network sees the observation once, then gives
every legal move a score (DMC: the move's expected return; PPO: its logit). PPO also reads a state
value from the observation part.

Inputs are the int8 observation of scopa_env/observation.py (scaled to 0..1 by OBS_HIGH) and the
legal moves as (card id, captured mask) pairs padded to a common width with a count.
"""
from __future__ import annotations

import numpy as np
import torch
from torch import nn

from scopa_env.observation import OBS_HIGH, OBS_SIZE

MOVE_FEATURES = 80
_BITS = torch.tensor([1 << c for c in range(40)], dtype=torch.int64)


def obs_tensor(obs: np.ndarray) -> torch.Tensor:
    """int8 observations (..., OBS_SIZE) -> float32 tensor scaled to 0..1."""
    return torch.from_numpy(np.ascontiguousarray(obs)).float() / _OBS_SCALE


_OBS_SCALE = torch.from_numpy(OBS_HIGH.astype(np.float32))


def move_features(cards: torch.Tensor, captured: torch.Tensor) -> torch.Tensor:
    """(…,) card ids and (…,) captured masks (int64) -> (…, 80) float features."""
    onehot = nn.functional.one_hot(cards.clamp(0, 39), 40).float()
    bits = ((captured.unsqueeze(-1) & _BITS) != 0).float()
    return torch.cat([onehot, bits], dim=-1)


class MoveScorer(nn.Module):
    """score(obs, move) = head(relu(A·enc(obs) + B·features(move))), value(obs) = v(enc(obs))."""

    def __init__(self, hidden: int = 256):
        super().__init__()
        self.hidden = hidden
        self.encoder = nn.Sequential(
            nn.Linear(OBS_SIZE, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
        )
        self.state_part = nn.Linear(hidden, hidden)
        self.move_part = nn.Linear(MOVE_FEATURES, hidden, bias=False)
        self.head = nn.Sequential(nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))
        self.value_head = nn.Linear(hidden, 1)

    def encode(self, obs: torch.Tensor) -> torch.Tensor:
        return self.encoder(obs)

    def score_moves(self, h: torch.Tensor, cards: torch.Tensor, captured: torch.Tensor) -> torch.Tensor:
        """h (B, H) encoded states, cards/captured (B, L) -> scores (B, L)."""
        z = self.state_part(h).unsqueeze(1) + self.move_part(move_features(cards, captured))
        return self.head(z).squeeze(-1)

    def score_chosen(self, obs: torch.Tensor, cards: torch.Tensor, captured: torch.Tensor) -> torch.Tensor:
        """One move per state: obs (N, OBS), cards/captured (N,) -> scores (N,)."""
        h = self.encode(obs)
        return self.score_moves(h, cards.unsqueeze(1), captured.unsqueeze(1)).squeeze(1)

    def value(self, h: torch.Tensor) -> torch.Tensor:
        return self.value_head(h).squeeze(-1)


def masked_scores(model: MoveScorer, obs: torch.Tensor, cards: torch.Tensor, captured: torch.Tensor,
                  count: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Scores of padded legal moves with the padding set to -inf, and the encoded states."""
    h = model.encode(obs)
    scores = model.score_moves(h, cards, captured)
    pad = torch.arange(cards.shape[1]).unsqueeze(0) >= count.unsqueeze(1)
    return scores.masked_fill(pad, float("-inf")), h


def model_config(model: MoveScorer) -> dict:
    return {"kind": "MoveScorer", "hidden": model.hidden}


def build_model(cfg: dict) -> MoveScorer:
    if cfg.get("kind") != "MoveScorer":
        raise ValueError(f"unknown model kind {cfg.get('kind')!r}")
    return MoveScorer(hidden=int(cfg["hidden"]))
