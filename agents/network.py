"""The network both algorithms train: it scores each legal move from its features.

A move is described by the card played (one-hot, 40), the cards it captures (mask, 40), and what
it leaves: the table after the move (mask, 40), its rank sum / 10, whether that sum is at most 10
(a table the opponent may sweep), whether the move is a sweep itself, and for each rank 1..10
whether a card of that rank could capture on the table left (10) and sweep it (10). The last ones
are functions of the first two and the table, given to the network because "what do I leave" is
most of the game's tactics (the `normal` level's whole idea) and a small network learns subset
sums slowly. Features version 4 adds what the next player might do to that table, from the
cards the mover has not seen: per rank, how many unseen cards of it would capture and sweep, and
the chance that the next player's hand (its size is in the observation) holds a capturing card,
and a sweeping one (`risk_features`). Version 5 (2026-12-07) reads the next player's hand right
where a deal ends: after the last card of a deal, with cards left in the deck, the next player
holds none yet but replies from a fresh hand of `hand_cards`, where version 4 took that hand as
empty and both chances as 0 (about one move in seven of a classic hand). Version 3 and 4
networks still load and play as they were trained; for fine-tuning, `widen_features` makes a
version 3 network one of a later version that scores every move as before (a version 4 one
scores all but the moves that end a deal as before).

So the 16,200 action ids never need one output each: the network sees the observation once, then
gives every legal move a score (DMC: the move's expected return; PPO: its logit). PPO also reads a
state value from the observation part.

Inputs are the int8 observation of scopa_env/observation.py in the layout of the rules' player
count (`layout(players)`: 291 values for 2 players, the version-1 layout, 469 for 4; with
cirulla's hand bonuses the longer `layout(players, 3, bonus=True)`: 374 for 2), scaled to
0..1 by that layout's highs, and the legal moves as (card id, captured mask) pairs padded to a
common width with a count. Every rules set's moves fit this description: a 15-capture or an ace
taking the table is a card and the mask it captures (the ace-takes-the-table id's mask is the
table of the moment, resolved by whoever builds the inputs). The move features are the same for
every rules set (they describe classic captures; under variants they are still facts about the
table left, and the network learns the rest from the rules it is trained on).
"""
from __future__ import annotations

import numpy as np
import torch
from numba import njit
from torch import nn

from scopa_env.observation import OBS_HIGH, layout

MOVE_FEATURES = 143
RISK_FEATURES = 22
FEATURES_VERSION = 5
# move features of each version this code builds networks for: 3 (checkpoints before the risk
# features; still loaded and played), 4 (the risk features, with the next deal's hand read as
# empty; still loaded and played) and 5
FEATURE_SIZES = {3: MOVE_FEATURES, 4: MOVE_FEATURES + RISK_FEATURES, 5: MOVE_FEATURES + RISK_FEATURES}
_BITS = torch.tensor([1 << c for c in range(40)], dtype=torch.int64)
_RANKS = torch.tensor([c % 10 + 1 for c in range(40)], dtype=torch.float32)


def obs_tensor(obs: np.ndarray, scale: torch.Tensor | None = None) -> torch.Tensor:
    """int8 observations (..., size) -> float32 tensor scaled to 0..1 (by `scale`, the layout's
    highs; default the 2-player layout's)."""
    return torch.from_numpy(np.ascontiguousarray(obs)).float() / (_OBS_SCALE if scale is None else scale)


_OBS_SCALE = torch.from_numpy(OBS_HIGH.astype(np.float32))


@njit(cache=True)
def reply_tactics(tables, out):
    """For each table mask: out[i, r-1] = 1 if a card of rank r captures something on it,
    out[i, 10 + r-1] = 1 if it sweeps it (takes every card)."""
    for i in range(tables.shape[0]):
        t = tables[i]
        for j in range(20):
            out[i, j] = 0.0
        if t == 0:
            continue
        has = np.zeros(11, dtype=np.int64)
        total = 0
        reach = 1          # bit s: some of the table's cards sum to s (none: 0), s up to 10
        rest = t
        while rest != 0:
            low = rest & -rest
            rest ^= low
            c = 0
            while (low >> c) != 1:
                c += 1
            r = c % 10 + 1
            has[r] += 1
            total += r
            reach |= (reach << r) & 0x7FF
        for r in range(1, 11):
            # its equal if the table holds one (then no sum may be taken), else a sum
            if has[r] > 0 or (reach >> r) & 1:
                out[i, r - 1] = 1.0
        # a card of rank = the table's sum sweeps it: a lone card is taken by its equal, and a
        # table of several cards holds no card of rank = its sum (every rank is at least 1)
        if total <= 10:
            out[i, 10 + total - 1] = 1.0


def move_features(table: torch.Tensor, cards: torch.Tensor, captured: torch.Tensor) -> torch.Tensor:
    """table (B, 40) 0/1 floats, cards/captured (B, L) int64 -> (B, L, MOVE_FEATURES) floats."""
    onehot = nn.functional.one_hot(cards.clamp(0, 39), 40).float()
    taken = ((captured.unsqueeze(-1) & _BITS) != 0).float()
    laid = (captured == 0).float().unsqueeze(-1)
    after = table.unsqueeze(1) * (1 - taken) + onehot * laid
    rank_sum = (after * _RANKS).sum(-1, keepdim=True)
    sweepable = ((rank_sum <= 10) & (rank_sum > 0)).float()
    scopa = ((rank_sum == 0) & (laid == 0)).float()
    table_mask = (table.long() * _BITS).sum(-1, keepdim=True)
    after_mask = (table_mask & ~captured) | torch.where(captured == 0, _BITS[cards.clamp(0, 39)], 0)
    flat = after_mask.reshape(-1).numpy()
    tactics = np.zeros((len(flat), 20), dtype=np.float32)
    reply_tactics(flat, tactics)
    tactics = torch.from_numpy(tactics).reshape(*after_mask.shape, 20)
    return torch.cat([onehot, taken, after, rank_sum / 10, sweepable, scopa, tactics], dim=-1)


def risk_features(tactics: torch.Tensor, unseen: torch.Tensor, next_hand: torch.Tensor) -> torch.Tensor:
    """What the next player might do to the table left, from the cards the mover has not seen.

    tactics (B, L, 20) from reply_tactics (ranks that capture on / sweep the table left), unseen
    (B, 40) 0/1, next_hand (B,) the next player's hand size -> (B, L, 22): per rank, the unseen
    cards of that rank that would capture (10) and sweep (10), / 4; then the chance that a hand
    of next_hand cards drawn from the unseen cards holds at least one capturing card, and one
    sweeping card (hypergeometric; the normal level's threat, as a feature)."""
    count = unseen.reshape(-1, 4, 10).sum(1).unsqueeze(1)          # (B, 1, 10) unseen per rank
    cap = tactics[..., :10] * count
    sweep = tactics[..., 10:] * count
    total = unseen.sum(-1, keepdim=True)                             # (B, 1)
    hand = next_hand.reshape(-1, 1)
    width = int(hand.max().item()) if hand.numel() else 0

    def chance(k: torch.Tensor) -> torch.Tensor:                     # P(at least one of k in hand)
        none = torch.ones_like(k)
        for i in range(width):
            step = (total - k - i).clamp(min=0) / (total - i).clamp(min=1)
            none = torch.where(hand > i, none * step, none)
        return 1 - none

    return torch.cat([cap / 4, sweep / 4, chance(cap.sum(-1)).unsqueeze(-1),
                      chance(sweep.sum(-1)).unsqueeze(-1)], dim=-1)


class MoveScorer(nn.Module):
    """score(obs, move) = head(relu(A·enc(obs) + B·features(move))), value(obs) = v(enc(obs)).

    `players`, `hand_cards` and `bonus` (cirulla's hand bonuses) pick the observation layout
    (its size and highs): 2, 3 and False are the classic game's version-1 layout. `features`:
    the move features' version (3 without the risk features, 4 and 5 with them)."""

    def __init__(self, hidden: int = 256, players: int = 2, hand_cards: int = 3,
                 features: int = FEATURES_VERSION, bonus: bool = False):
        super().__init__()
        if features not in FEATURE_SIZES:
            raise ValueError(f"move features version {features!r}, this code builds "
                             f"{', '.join(map(str, FEATURE_SIZES))}")
        self.hidden = hidden
        self.players = int(players)
        self.hand_cards = int(hand_cards)
        self.features = int(features)
        self.bonus = bool(bonus)
        lay = layout(self.players, self.hand_cards, self.bonus)
        self.obs_size = lay.size
        self._scale = torch.from_numpy(lay.high.astype(np.float32))
        self._table = lay.slices["table"]
        self._unseen = lay.slices["unseen"]
        # the next player's hand size (scaled in the input; times its high it is a count)
        at = lay.slices["opp_hand_size"].start if self.players == 2 else lay.slices["hand_size"].start + 1
        self._next_hand = at
        self._next_high = float(lay.high[at])
        self._deck = lay.slices["deck_left"].start
        self._deck_high = float(lay.high[self._deck])
        self.encoder = nn.Sequential(
            nn.Linear(self.obs_size, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
        )
        self.state_part = nn.Linear(hidden, hidden)
        self.move_part = nn.Linear(FEATURE_SIZES[self.features], hidden, bias=False)
        self.head = nn.Sequential(nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))
        self.value_head = nn.Linear(hidden, 1)

    @classmethod
    def for_rules(cls, hidden: int, rules, features: int = FEATURES_VERSION) -> "MoveScorer":
        """The network for a rules set (scopa_env.rules.Rules)."""
        return cls(hidden, players=rules.players, hand_cards=rules.hand_cards, features=features,
                   bonus=rules.hand_bonus)

    def obs_tensor(self, obs: np.ndarray) -> torch.Tensor:
        """int8 observations of this network's layout -> float32 tensor scaled to 0..1."""
        if obs.shape[-1] != self.obs_size:
            raise ValueError(f"observation of {obs.shape[-1]} values, this network reads "
                             f"{self.obs_size} ({self.players} players)")
        return obs_tensor(obs, self._scale)

    def encode(self, obs: torch.Tensor) -> torch.Tensor:
        return self.encoder(obs)

    def score_moves(self, obs: torch.Tensor, h: torch.Tensor, cards: torch.Tensor,
                    captured: torch.Tensor) -> torch.Tensor:
        """obs (B, OBS) scaled observations, h (B, H) their encodings, cards/captured (B, L)
        -> scores (B, L)."""
        feats = move_features(obs[:, self._table], cards, captured)
        if self.features >= 4:
            next_hand = torch.round(obs[:, self._next_hand] * self._next_high)
            if self.features >= 5:
                # the next player holds no card and the deck has some: this move ends the deal,
                # and the next player replies from a fresh hand (every seat's count is equal)
                deck = torch.round(obs[:, self._deck] * self._deck_high)
                next_hand = torch.where((next_hand == 0) & (deck > 0),
                                        torch.full_like(next_hand, self.hand_cards), next_hand)
            feats = torch.cat([feats, risk_features(feats[..., MOVE_FEATURES - 20:], obs[:, self._unseen],
                                                    next_hand)], dim=-1)
        z = self.state_part(h).unsqueeze(1) + self.move_part(feats)
        return self.head(z).squeeze(-1)

    def score_chosen(self, obs: torch.Tensor, cards: torch.Tensor, captured: torch.Tensor) -> torch.Tensor:
        """One move per state: obs (N, OBS), cards/captured (N,) -> scores (N,)."""
        h = self.encode(obs)
        return self.score_moves(obs, h, cards.unsqueeze(1), captured.unsqueeze(1)).squeeze(1)

    def value(self, h: torch.Tensor) -> torch.Tensor:
        return self.value_head(h).squeeze(-1)


def masked_scores(model: MoveScorer, obs: torch.Tensor, cards: torch.Tensor, captured: torch.Tensor,
                  count: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Scores of padded legal moves with the padding set to -inf, and the encoded states."""
    h = model.encode(obs)
    scores = model.score_moves(obs, h, cards, captured)
    pad = torch.arange(cards.shape[1]).unsqueeze(0) >= count.unsqueeze(1)
    return scores.masked_fill(pad, float("-inf")), h


def model_config(model: MoveScorer) -> dict:
    """What rebuilds the network: kind, width, features version and the observation layout
    (`players`, `hand_cards`; absent in checkpoints from before the variants: 2 and 3; `bonus`,
    only when on: cirulla's hand bonuses)."""
    cfg = {"kind": "MoveScorer", "hidden": model.hidden, "features": model.features,
           "players": model.players, "hand_cards": model.hand_cards}
    if model.bonus:     # absent otherwise: checkpoints from before it are byte for byte the same
        cfg["bonus"] = True
    return cfg


def build_model(cfg: dict) -> MoveScorer:
    if cfg.get("kind") != "MoveScorer":
        raise ValueError(f"unknown model kind {cfg.get('kind')!r}")
    if cfg.get("features") not in FEATURE_SIZES:
        raise ValueError(f"move features version {cfg.get('features')!r}, this code builds "
                         f"{', '.join(map(str, FEATURE_SIZES))}")
    # its weights are loaded next: the first ones, drawn from torch's generator, are drawn
    # from a fork of it, so loading a checkpoint agent leaves a caller's torch stream as it
    # was (it moved it on: review)
    with torch.random.fork_rng(devices=[]):
        return MoveScorer(hidden=int(cfg["hidden"]), players=int(cfg.get("players", 2)),
                          hand_cards=int(cfg.get("hand_cards", 3)), features=int(cfg["features"]),
                          bonus=bool(cfg.get("bonus", False)))


def widen_features(state: dict, old: int, new: int) -> dict:
    """A state_dict of a network with move features `old` made one with `new` (a later version):
    the added features' weights start at zero, so from version 3 the network scores every move
    as before. From version 4 to 5 nothing is added, but the risk inputs of a move that ends a
    deal change (module text): those moves score otherwise until fine-tuning adapts to them."""
    out = dict(state)
    w = out["move_part.weight"]
    extra = FEATURE_SIZES[new] - FEATURE_SIZES[old]
    out["move_part.weight"] = torch.cat([w, w.new_zeros(w.shape[0], extra)], dim=1)
    return out
