"""The fixed action table: every (played card, captured set) the rules can ever allow.

An action id means the same move in every state and every run. For the classic rules the table
holds 16,200 moves. Per played card c of rank v, in this order:

- id base[c] + 0: lay c on the table (captures nothing);
- base[c] + 1..3: take the one other card of rank v, the other suits in D, C, S, B order;
- base[c] + 4 + k: take the k-th set of cards (all of rank < v) summing to v, the sets of rank v
  sorted by their 40-bit mask. Such a set is the same for the four suits of the played card.

40 lays + 120 equal-rank takes + 4 * 4,010 sum captures = 16,200. The count of sum sets per rank
(v = 2..10: 6, 20, 47, 96, 186, 340, 597, 1020, 1698) includes sets with repeated ranks, such as
a re taking 1+1+1+1+2+2+2.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit

from .cards import N_CARDS, as_card, card_str, cards_of, cards_str, rank_of, suit_of
from .errors import ScopaError
from .rules import Rules

ACTION_LAYOUT_VERSION = 1


def _sum_sets(v: int) -> list[int]:
    """Every set of cards of rank < v whose ranks sum to v, as sorted masks."""
    out = []

    def rec(rank: int, remaining: int, mask: int):
        if remaining == 0:
            out.append(mask)
            return
        if rank >= v or rank > remaining:
            return
        # choose a subset of the four suits of this rank (possibly empty)
        for sub in range(16):
            k = bin(sub).count("1")
            if k * rank > remaining:
                continue
            m = mask
            for s in range(4):
                if sub >> s & 1:
                    m |= 1 << (s * 10 + rank - 1)
            rec(rank + 1, remaining - k * rank, m)

    rec(1, v, 0)
    return sorted(out)


class ActionTable:
    """The action ids of one rules set, with encode/decode and arrays for compiled code."""

    def __init__(self, rules: Rules | None = None):
        self.rules = rules or Rules()
        sums = {v: np.array(_sum_sets(v), dtype=np.int64) for v in range(1, 11)}
        base = np.zeros(N_CARDS + 1, dtype=np.int64)
        for c in range(N_CARDS):
            base[c + 1] = base[c] + 4 + len(sums[rank_of(c)])
        self.size = int(base[-1])
        self.base = base
        self.sum_offset = np.zeros(12, dtype=np.int64)
        self.sum_masks = np.concatenate([sums[v] for v in range(1, 11)])
        for v in range(1, 11):
            self.sum_offset[v + 1] = self.sum_offset[v] + len(sums[v])
        self.card = np.zeros(self.size, dtype=np.int64)
        self.captured = np.zeros(self.size, dtype=np.int64)
        for c in range(N_CARDS):
            v = rank_of(c)
            b = base[c]
            self.card[b:base[c + 1]] = c
            others = [s * 10 + v - 1 for s in range(4) if s != suit_of(c)]
            for i, o in enumerate(others):
                self.captured[b + 1 + i] = 1 << o
            self.captured[b + 4:base[c + 1]] = sums[v]

    def encode(self, card, captured=()) -> int:
        """(played card, captured cards) -> action id; raises ScopaError for a move no state allows."""
        c = as_card(card)
        mask = captured if isinstance(captured, (int, np.integer)) else _mask(captured)
        a = _encode(self.base, self.sum_offset, self.sum_masks, c, int(mask))
        if a < 0:
            raise ScopaError(
                f"{card_str(c)} x {' '.join(cards_str(int(mask)))} is not a move the rules allow")
        return int(a)

    def decode(self, action) -> tuple[int, int]:
        """action id -> (played card id, captured mask)."""
        a = int(action)
        if not 0 <= a < self.size:
            raise ScopaError(f"action id {action!r} is not in 0..{self.size - 1}")
        return int(self.card[a]), int(self.captured[a])

    def describe(self, action) -> str:
        c, m = self.decode(action)
        return card_str(c) + (" x " + " ".join(cards_str(m)) if m else "")


def _mask(cards) -> int:
    m = 0
    for x in cards:
        m |= 1 << as_card(x)
    return m


@njit(cache=True)
def _encode(base, sum_offset, sum_masks, card, mask):
    """Action id of (card, mask), or -1 if the table has no such move."""
    v = card % 10 + 1
    b = base[card]
    if mask == 0:
        return b
    if mask & (np.int64(1) << card):
        return -1
    same = np.int64(0)
    for s in range(4):
        same |= np.int64(1) << (s * 10 + v - 1)
    if mask & same:
        if mask & (mask - 1):  # more than one card
            return -1
        k = 1
        for s in range(4):
            o = s * 10 + v - 1
            if o == card:
                continue
            if mask == (np.int64(1) << o):
                return b + k
            k += 1
        return -1
    lo = sum_offset[v]
    hi = sum_offset[v + 1]
    i = lo + np.searchsorted(sum_masks[lo:hi], mask)
    if i < hi and sum_masks[i] == mask:
        return b + 4 + (i - lo)
    return -1


@njit(cache=True)
def encode_moves(base, sum_offset, sum_masks, cards, masks, n, out):
    """Action ids of the first n moves (cards[i], masks[i]) into out[:n]."""
    for i in range(n):
        out[i] = _encode(base, sum_offset, sum_masks, cards[i], masks[i])


@lru_cache(maxsize=None)
def action_table(rules: Rules | None = None) -> ActionTable:
    return ActionTable(rules or Rules())


def encode(card, captured=(), rules: Rules | None = None) -> int:
    """Public helper: the action id of playing `card` and taking `captured` (cards or a mask)."""
    return action_table(rules).encode(card, captured)


def decode(action, rules: Rules | None = None) -> tuple[str, list[str]]:
    """Public helper: action id -> ('7D', ['4C', '3S']) in the notation of RULES.md."""
    c, m = action_table(rules).decode(action)
    return card_str(c), cards_str(m)


def n_actions(rules: Rules | None = None) -> int:
    return action_table(rules).size
