"""The `normal` level: weighs each play as a player does, and asks what it leaves the opponent.

RULES.md: it values the settebello, sevens (then sixes and aces, for primiera), denari and a
scopa, and before playing a card it asks whether it leaves the opponent a scopa (a table summing
to 10 or less that an unseen card can take). The score of a move, in rough hand points, is

    value of what I take now (+1 for a scopa)
    - expected value of the opponent's best reply on the table I leave

where the reply is estimated from the unseen cards alone: for each rank, the chance that the
opponent holds one (hypergeometric, from the unseen count and its hand size) and the best
capture that rank makes on the new table (a sweep counts +1). Once three re are out a re on the
table is safe, which falls out of the unseen counts. The scoring kernel `score_moves` is
compiled: the hard level's rollouts use the same one for both sides.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from scopa_env.core import RANK, popcount
from scopa_env.errors import ScopaError
from scopa_env.observation import SLICES

from .base import Agent

# weights in rough hand points, one array so that tuning needs no recompilation:
# [carte per card, denari per card, settebello, scopa, keep, primiera of rank 1..10 at 5..14,
#  weight of the opponent's expected reply at 15]
I_CARD, I_DENARO, I_SETTEBELLO, I_SCOPA, I_KEEP, I_PRIMIERA, I_REPLY = 0, 1, 2, 3, 4, 4, 15
WEIGHTS = np.array([
    0.09,    # carte: 21 of 40 cards win one point
    0.25,    # denari: 6 of 10 win one point
    1.0,     # the settebello is a point of its own
    1.0,     # a scopa
    0.0,     # laying a card gives up the chance to take with it later (x its value)
    0.08, 0.02, 0.02, 0.03, 0.04, 0.12, 0.25, 0.0, 0.0, 0.0,   # primiera by rank 1..10
    1.6,     # how much the opponent's expected best reply counts against a move (measured
             # against easy: 1.6 beat 1.0, 1.3, 2.0 and 2.5)
])
MAX_TABLE_ENUM = 12    # the threat enumerates subsets of at most this many table cards
SCRATCH = 2 * (1 << MAX_TABLE_ENUM) + 128

DENARI = (1 << 10) - 1
ALL = (1 << 40) - 1


def new_scratch() -> np.ndarray:
    return np.zeros(SCRATCH, dtype=np.float64)


@njit(cache=True)
def card_values(my_pile, opp_pile, w, vals):
    """vals[c]: what card c is worth to whoever takes it, given the piles so far."""
    den_done = popcount(my_pile & DENARI) >= 6 or popcount(opp_pile & DENARI) >= 6
    carte_done = popcount(my_pile) >= 21 or popcount(opp_pile) >= 21
    for c in range(40):
        v = w[I_PRIMIERA + RANK[c]]
        if not carte_done:
            v += w[I_CARD]
        if c < 10 and not den_done:
            v += w[I_DENARO]
        if c == 6:
            v += w[I_SETTEBELLO]
        vals[c] = v


@njit(cache=True)
def _mask_value(mask, vals):
    v = 0.0
    while mask != 0:
        low = mask & -mask
        mask ^= low
        v += vals[popcount(low - 1)]
    return v


@njit(cache=True)
def reply_threat(table, unseen, h, opp_last, w, vals, scratch):
    """Expected value of the opponent's best capture on `table` with `h` cards drawn from `unseen`."""
    if h <= 0 or table == 0:
        return 0.0
    # table cards (at most MAX_TABLE_ENUM, lowest ids first) and their subset sums and values
    nt = 0
    ids = scratch[0:MAX_TABLE_ENUM]
    has_rank = scratch[16:27]
    best = scratch[32:43]
    p = scratch[48:59]
    for r in range(11):
        has_rank[r] = 0.0
        best[r] = -1.0
        p[r] = 0.0
    rest = table
    while rest != 0 and nt < MAX_TABLE_ENUM:
        low = rest & -rest
        rest ^= low
        c = popcount(low - 1)
        ids[nt] = c
        has_rank[RANK[c]] = 1.0
        nt += 1
    sums = scratch[64:64 + (1 << nt)]
    tval = scratch[64 + (1 << MAX_TABLE_ENUM):64 + (1 << MAX_TABLE_ENUM) + (1 << nt)]
    sums[0] = 0.0
    tval[0] = 0.0
    full = (1 << nt) - 1
    scopa = 0.0 if (opp_last or rest != 0) else w[I_SCOPA]
    for m in range(1, full + 1):
        j = popcount((m & -m) - 1)
        c = np.int64(ids[j])
        prev = m & (m - 1)
        s = sums[prev] + RANK[c]
        sums[m] = s
        tval[m] = tval[prev] + vals[c]
        if s > 10:
            continue
        r = np.int64(s)
        if (m & (m - 1)) != 0 and has_rank[r] > 0:
            continue          # a card of that rank on the table must be taken instead
        g = tval[m] + (scopa if m == full else 0.0)
        if g > best[r]:
            best[r] = g
    # chance the opponent holds each rank, and the value of the card it plays to take
    u = popcount(unseen)
    for r in range(1, 11):
        if best[r] < 0:
            continue
        of_rank = unseen & (np.int64(0x40100401) << (r - 1))
        k = popcount(of_rank)
        if k == 0:
            continue
        miss = 1.0
        for i in range(h):
            if u - i <= 0:
                break
            miss *= max(0.0, (u - k - i) / (u - i))
        p[r] = 1.0 - miss
        best[r] += _mask_value(of_rank, vals) / k
    # expected maximum over independent ranks: take the best gains first
    expected = 0.0
    none_yet = 1.0
    for _ in range(10):
        r_best = -1
        g_best = 0.0
        for r in range(1, 11):
            if p[r] > 0 and best[r] > g_best:
                g_best = best[r]
                r_best = r
        if r_best < 0:
            break
        expected += none_yet * p[r_best] * g_best
        none_yet *= 1.0 - p[r_best]
        p[r_best] = 0.0
    return expected


@njit(cache=True)
def score_moves(hand, table, my_pile, opp_pile, unseen, opp_hand, deck_left, last_capturer,
                cards, masks, n, w, out, scratch):
    """out[i] = heuristic value of move (cards[i], masks[i]) for the player to move.

    last_capturer: 0 nobody yet, 1 me, 2 the opponent. unseen: cards the mover has not seen.
    """
    vals = scratch[SCRATCH - 48:SCRATCH - 8]
    card_values(my_pile, opp_pile, w, vals)
    for i in range(n):
        c = cards[i]
        m = masks[i]
        bit = np.int64(1) << c
        hand_after = hand & ~bit
        last_play = hand_after == 0 and opp_hand == 0 and deck_left == 0
        if m != 0:
            new_table = table & ~m
            gain = _mask_value(m, vals) + vals[c]
            if new_table == 0 and not last_play:
                gain += w[I_SCOPA]
        else:
            new_table = table | bit
            gain = -w[I_KEEP] * vals[c]
        if last_play:
            left = _mask_value(new_table, vals)
            if m != 0 or last_capturer == 1:
                gain += left
            elif last_capturer == 2:
                gain -= left
            out[i] = gain
            continue
        h = opp_hand
        if h == 0 and hand_after == 0 and deck_left > 0:
            h = 3                 # both hands empty: a new deal, the opponent plays first
        opp_last = deck_left == 0 and h == 1 and hand_after == 0
        out[i] = gain - w[I_REPLY] * reply_threat(new_table, unseen, h, opp_last, w, vals, scratch)
    return out


# ---- from an observation -------------------------------------------------------------------
_BITS = np.int64(1) << np.arange(40, dtype=np.int64)


def obs_mask(obs: np.ndarray, name: str) -> int:
    """A 40-card slice of an observation vector as a card mask."""
    return int((obs[SLICES[name]].astype(np.int64) * _BITS).sum())


def obs_scalar(obs: np.ndarray, name: str) -> int:
    return int(obs[SLICES[name].start])


class NormalAgent(Agent):
    """Plays the move with the best heuristic value (first in engine order on ties)."""

    name = "normal"

    def __init__(self, rules=None, seed: int = 0, weights=None):
        super().__init__(rules, seed)
        self.weights = np.array(WEIGHTS if weights is None else weights, dtype=np.float64)
        if self.weights.shape != WEIGHTS.shape:
            raise ScopaError(f"normal weights need {WEIGHTS.size} values, got {self.weights.size}")
        self._scratch = new_scratch()

    def scores(self, observation: dict) -> tuple[np.ndarray, np.ndarray]:
        """Legal action ids and their heuristic values."""
        obs = observation["observation"]
        legal = self.legal_actions(observation)
        cards = self.actions.card[legal]
        masks = self.actions.captured[legal]
        out = np.zeros(len(legal))
        score_moves(obs_mask(obs, "hand"), obs_mask(obs, "table"), obs_mask(obs, "my_pile"),
                    obs_mask(obs, "opp_pile"), obs_mask(obs, "unseen"), obs_scalar(obs, "opp_hand_size"),
                    obs_scalar(obs, "deck_left"), obs_scalar(obs, "last_capturer"),
                    cards, masks, len(legal), self.weights, out, self._scratch)
        return legal, out

    def act(self, observation: dict) -> int:
        legal, values = self.scores(observation)
        return int(legal[int(np.argmax(values))])
