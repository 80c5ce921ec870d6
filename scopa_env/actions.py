"""The fixed action table: every (played card, captured set) the rules can ever allow.

An action id means the same move in every state and every run. The classic table (every rules
set without scopa a quindici and without scopa d'assi) holds 16,200 moves. Per played card c of
rank v, in this order:

- id base[c] + 0: lay c on the table (captures nothing);
- base[c] + 1..3: take the one other card of rank v, the other suits in D, C, S, B order;
- base[c] + 4 + k: take the k-th set of cards (all of rank < v) summing to v, the sets of rank v
  sorted by their 40-bit mask. Such a set is the same for the four suits of the played card.

40 lays + 120 equal-rank takes + 4 * 4,010 sum captures = 16,200. The count of sum sets per rank
(v = 2..10: 6, 20, 47, 96, 186, 340, 597, 1020, 1698) includes sets with repeated ranks, such as
a re taking 1+1+1+1+2+2+2.

What changes with the rules (ACTION_LAYOUT_VERSION 1 covers all of it): the first 16,200 ids
are the classic ones in every table, with the same meaning; the variants only append ids.

- `quindici` "only" or "both" (one table for both: "only" never makes the classic captures
  legal, but a classic id keeps its meaning, so tables differ only by what they append): then,
  per played card c in id order, every set of table cards of any rank, c excluded, summing to
  15 - v, sorted by mask: 84,448 ids (an ace has 6,405 sets summing to 14 without itself, a re 100
  summing to 5). A set is never both a classic capture of c and a 15-capture of c (its sum is v or
  15 - v), so no move has two ids.
- `ace_takes_all`: then 4 more ids, one per ace (D, C, S, B): "this ace takes the whole table".
  Its captured set is the table at that moment, so decoding it needs the table (`decode(id,
  table=...)`; `captured[id]` holds TAKES_TABLE). An ace capture that a fixed id describes
  (the burned ace taking the one ace on the table, a 15-capture that happens to be the whole
  table) keeps that fixed id: the ace-takes-the-table id is the move no other id names.

- `joker` with `hand_bonus` (cirulla: the 7 of coppe keeps the capture value 1..10 it was shown
  as): then, after the ids above, the captures that exist only because the joker is not a 7.
  Per played card c in id order: for the 7C, every set of other cards whose values sum to 1..14
  (an equal card, a sum or a 15 for some value of the joker); for any other card, every set
  holding the 7C whose other cards sum to t, for each t that some joker value 1..10 turns into
  c's value or 15 minus it; in both, sorted by mask, leaving out each set the ids above already
  give c (no move has two ids). Last, one id "the 7C takes the whole table" (the joker shown as
  an ace, under scopa d'assi), TAKES_TABLE like the aces'.

Sizes: classic 16,200; quindici 100,648; ace takes all 16,204; both 100,652; cirulla (both and
the joker) 271,697.
Compiled code encodes with `encode_move(kernel, card, mask, table)` where `kernel` is the
table's `kernel` tuple of arrays.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit

from .cards import N_CARDS, as_card, as_mask, card_str, cards_str, number_text, rank_of, suit_of
from .errors import ScopaError
from .presets import resolve_rules
from .rules import Rules

ACTION_LAYOUT_VERSION = 1
CLASSIC_SIZE = 16_200
TAKES_TABLE = -1
"""`captured[id]` of an ace-takes-the-table id: the captured set is the whole table."""
ACES = tuple(s * 10 for s in range(4))
JOKER = 16          # 7C (scopa_env/core.py JOKER_CARD)


def _sets_summing_to(total: int, max_rank: int) -> list[int]:
    """Every set of cards of rank 1..max_rank whose ranks sum to `total`, as sorted masks."""
    out = []

    def rec(rank: int, remaining: int, mask: int):
        if remaining == 0:
            out.append(mask)
            return
        if rank > max_rank or rank > remaining:
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

    rec(1, total, 0)
    return sorted(out)


def _sum_sets(v: int) -> list[int]:
    """The classic sum captures of a card of rank v: sets of cards of rank < v summing to v."""
    return _sets_summing_to(v, v - 1)


def _joker_blocks(existing: list[np.ndarray]) -> list[np.ndarray]:
    """Per played card, the joker's captured sets that `existing[c]` (the masks the other ids
    give card c) lacks, sorted (module text)."""
    by_total = {0: np.zeros(1, dtype=np.int64)}
    for t in range(1, 15):
        by_total[t] = np.array(_sets_summing_to(t, 10), dtype=np.int64)
    jbit = np.int64(1) << JOKER
    blocks = []
    for c in range(N_CARDS):
        if c == JOKER:
            sets = np.concatenate([by_total[t] for t in range(1, 15)])
            sets = sets[(sets & jbit) == 0]
        else:
            v = rank_of(c)
            totals = sorted({goal - j for goal in (v, 15 - v) for j in range(1, 11) if goal - j >= 0})
            sets = np.concatenate([by_total[t] for t in totals])
            sets = sets[((sets & jbit) == 0) & ((sets >> c) & 1 == 0)] | jbit
        sets = np.unique(sets)
        blocks.append(sets[~np.isin(sets, existing[c])])
    return blocks


@lru_cache(maxsize=None)
def _arrays(quindici: bool, ace_takes_all: bool, joker: bool = False) -> dict:
    """The id arrays of one table kind (shared by every rules set of that kind)."""
    sums = {v: np.array(_sum_sets(v), dtype=np.int64) for v in range(1, 11)}
    base = np.zeros(N_CARDS + 1, dtype=np.int64)
    for c in range(N_CARDS):
        base[c + 1] = base[c] + 4 + len(sums[rank_of(c)])
    sum_offset = np.zeros(12, dtype=np.int64)
    for v in range(1, 11):
        sum_offset[v + 1] = sum_offset[v] + len(sums[v])
    sum_masks = np.concatenate([sums[v] for v in range(1, 11)])
    # 15-captures, per played card (sets holding the card itself left out)
    q_offset = np.zeros(N_CARDS + 1, dtype=np.int64)
    q_blocks = []
    if quindici:
        by_total = {t: np.array(_sets_summing_to(t, 10), dtype=np.int64) for t in range(5, 15)}
        for c in range(N_CARDS):
            sets = by_total[15 - rank_of(c)]
            block = sets[(sets >> c) & 1 == 0]
            q_blocks.append(block)
            q_offset[c + 1] = q_offset[c] + len(block)
    q_masks = np.concatenate(q_blocks) if q_blocks else np.zeros(0, dtype=np.int64)
    q_start = int(base[-1])
    size = q_start + len(q_masks)
    ace_start = size if ace_takes_all else -1
    if ace_takes_all:
        size += len(ACES)
    # the joker's captures (after the ace ids: the tables without the joker keep their ids)
    j_offset = np.zeros(N_CARDS + 1, dtype=np.int64)
    j_blocks = []
    if joker:
        existing = []
        for c in range(N_CARDS):
            v = rank_of(c)
            own = [1 << (s * 10 + v - 1) for s in range(4) if s != suit_of(c)]
            existing.append(np.concatenate([np.array(own, dtype=np.int64), sums[v]]
                                           + ([q_blocks[c]] if quindici else [])))
        j_blocks = _joker_blocks(existing)
        for c in range(N_CARDS):
            j_offset[c + 1] = j_offset[c] + len(j_blocks[c])
    j_masks = np.concatenate(j_blocks) if j_blocks else np.zeros(0, dtype=np.int64)
    j_start = size
    size += len(j_masks)
    joker_sweep = size if joker and ace_takes_all else -1
    if joker_sweep >= 0:
        size += 1
    card = np.zeros(size, dtype=np.int64)
    captured = np.zeros(size, dtype=np.int64)
    for c in range(N_CARDS):
        v = rank_of(c)
        b = base[c]
        card[b:base[c + 1]] = c
        others = [s * 10 + v - 1 for s in range(4) if s != suit_of(c)]
        for i, o in enumerate(others):
            captured[b + 1 + i] = 1 << o
        captured[b + 4:base[c + 1]] = sums[v]
        lo, hi = q_start + q_offset[c], q_start + q_offset[c + 1]
        card[lo:hi] = c
        if quindici:
            captured[lo:hi] = q_blocks[c]
    if ace_takes_all:
        card[ace_start:ace_start + len(ACES)] = ACES
        captured[ace_start:ace_start + len(ACES)] = TAKES_TABLE
    for c in range(N_CARDS if joker else 0):
        lo, hi = j_start + j_offset[c], j_start + j_offset[c + 1]
        card[lo:hi] = c
        captured[lo:hi] = j_blocks[c]
    if joker_sweep >= 0:
        card[joker_sweep] = JOKER
        captured[joker_sweep] = TAKES_TABLE
    kernel = (base, sum_offset, sum_masks, q_offset, q_masks,
              np.array([q_start, ace_start, j_start, joker_sweep], dtype=np.int64), j_offset, j_masks)
    # shared by every table of the kind (and Agent.actions): read-only, as a write into one
    # (`captured[...] = 0`) made every env of those rules play an ace's sweep as a lay, an illegal
    # move, without an error (an API review)
    for arr in (card, captured, *kernel):
        arr.flags.writeable = False
    return {"base": base, "sum_offset": sum_offset, "sum_masks": sum_masks,
            "q_offset": q_offset, "q_masks": q_masks, "q_start": q_start,
            "ace_start": ace_start, "size": size, "card": card, "captured": captured,
            "kernel": kernel}


class ActionTable:
    """The action ids of one rules set, with encode/decode and arrays for compiled code."""

    def __init__(self, rules: Rules | str | None = None):
        self.rules = resolve_rules(rules)     # a preset name was taken for the classic rules
        self.quindici = self.rules.quindici != "off"
        self.ace_takes_all = bool(self.rules.ace_takes_all)
        self.joker = bool(self.rules.joker and self.rules.hand_bonus)   # a joker that keeps a value
        a = _arrays(self.quindici, self.ace_takes_all, self.joker)
        self.size: int = a["size"]
        self.base, self.sum_offset, self.sum_masks = a["base"], a["sum_offset"], a["sum_masks"]
        self.q_offset, self.q_masks, self.q_start = a["q_offset"], a["q_masks"], a["q_start"]
        self.ace_start: int = a["ace_start"]
        self.card, self.captured = a["card"], a["captured"]
        self.kernel = a["kernel"]
        """Arrays for `encode_move` / `encode_moves` in compiled code."""

    def encode(self, card, captured=(), table=None) -> int:
        """(played card, captured cards) -> action id; raises ScopaError for a move no state allows.

        `table` (cards or a mask) is needed only to name an ace taking the whole table."""
        c = as_card(card)
        mask = as_mask(captured, "the captured cards")
        t = -1 if table is None else as_mask(table, "the table")
        a = encode_move(self.kernel, c, mask, t)
        if a < 0:
            raise ScopaError(
                f"{card_str(c)} x {' '.join(cards_str(int(mask)))} is not a move the rules allow")
        return int(a)

    def encode_moves(self, cards, masks, n: int, table: int) -> np.ndarray:
        """Action ids of the first n moves (cards[i], masks[i]) on `table` (a mask)."""
        out = np.empty(n, dtype=np.int64)
        encode_moves_on(self.kernel, cards, masks, n, np.int64(table), out)
        return out

    def decode(self, action, table=None) -> tuple[int, int]:
        """action id -> (played card id, captured mask). An ace-takes-the-table id needs `table`
        (cards or a mask) and returns it as the captured mask."""
        a = action_id(action)
        if not 0 <= a < self.size:
            raise ScopaError(f"action id {number_text(action)} is not in 0..{self.size - 1}")
        m = int(self.captured[a])
        if m == TAKES_TABLE:
            if table is None:
                raise ScopaError(f"action id {a} ({card_str(int(self.card[a]))} takes the table) "
                                 "needs the table to decode")
            m = as_mask(table, "the table")
            if m == 0:    # decoded, it was the lay: a move of another id (encode refused it back)
                raise ScopaError(f"action id {a} ({card_str(int(self.card[a]))} takes the table) "
                                 "is no move on an empty table: there the card is laid, another id")
        return int(self.card[a]), m

    def takes_table(self, action) -> bool:
        """True for the ace-takes-the-table ids (their captured set depends on the table)."""
        a = action_id(action, "takes_table")     # a float or a string is refused, not truncated
        return 0 <= a < self.size and int(self.captured[a]) == TAKES_TABLE

    def describe(self, action, table=None) -> str:
        a = action_id(action, "describe")   # not takes_table's name in the error (review)
        if self.takes_table(a) and table is None:
            return card_str(int(self.card[a])) + " x the table"
        c, m = self.decode(a, table)
        return card_str(c) + (" x " + " ".join(cards_str(m)) if m else "")


def action_id(action, who: str = "") -> int:
    """An action given to an environment as an int id: a Python or numpy integer, or a
    one-element integer array. Anything else (a float such as 1.5, a bool, a string) is a
    ScopaError, not quietly truncated to a move; `who` prefixes the message."""
    if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
        return int(action)       # any size: the caller's range check names it (10**30 too)
    try:        # a ragged list ([[1], [1, 2]]) was numpy's ValueError (review)
        arr = None if isinstance(action, str) else np.asarray(action)
    except (ValueError, TypeError):
        arr = None
    if arr is None or arr.size != 1 or not np.issubdtype(arr.dtype, np.integer):
        raise ScopaError(f"{who + ': ' if who else ''}an action is an integer id, got {number_text(action)}")
    return int(arr.reshape(()))


@njit(cache=True)
def _encode(base, sum_offset, sum_masks, card, mask):
    """Classic action id of (card, mask), or -1 if the classic table has no such move."""
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


@njit(cache=True, inline="always")
def _in_block(offset, masks, card, mask):
    """Index of `mask` among card's sorted masks[offset[card]:offset[card + 1]], or -1."""
    lo = offset[card]
    hi = offset[card + 1]
    if hi > lo:
        i = lo + np.searchsorted(masks[lo:hi], mask)
        if i < hi and masks[i] == mask:
            return i
    return -1


@njit(cache=True)
def encode_move(kernel, card, mask, table):
    """Action id of (card, mask) played on `table` (a mask; -1 if unknown), or -1 if the table
    of ids `kernel` (ActionTable.kernel) has no such move."""
    base, sum_offset, sum_masks, q_offset, q_masks, starts, j_offset, j_masks = kernel
    a = _encode(base, sum_offset, sum_masks, card, mask)
    if a >= 0:
        return a
    i = _in_block(q_offset, q_masks, card, mask)
    if i >= 0:
        return starts[0] + i
    i = _in_block(j_offset, j_masks, card, mask)
    if i >= 0:
        return starts[2] + i
    if mask != 0 and mask == table and not mask & (np.int64(1) << card):   # a card never takes itself
        if starts[1] >= 0 and card % 10 == 0:
            return starts[1] + card // 10
        if starts[3] >= 0 and card == JOKER:
            return starts[3]
    return -1


@njit(cache=True, inline="always")
def is_classic(kernel):
    """Whether `kernel` is the classic table (no 15-captures, no ace sweep ids, no joker ids)."""
    return kernel[4].shape[0] == 0 and kernel[5][1] < 0 and kernel[7].shape[0] == 0


@njit(cache=True)
def encode_moves_on(kernel, cards, masks, n, table, out):
    """Action ids of the first n moves (cards[i], masks[i]) on `table` into out[:n]."""
    # the classic table through _encode directly: encode_move per move costs ~2x (measured)
    if is_classic(kernel):
        base, sum_offset, sum_masks = kernel[0], kernel[1], kernel[2]
        for i in range(n):
            out[i] = _encode(base, sum_offset, sum_masks, cards[i], masks[i])
    else:
        for i in range(n):
            out[i] = encode_move(kernel, cards[i], masks[i], table)


@njit(cache=True)
def encode_moves(base, sum_offset, sum_masks, cards, masks, n, out):
    """Classic action ids of the first n moves into out[:n] (the classic table only; use
    encode_moves_on with ActionTable.kernel for any rules)."""
    for i in range(n):
        out[i] = _encode(base, sum_offset, sum_masks, cards[i], masks[i])


def action_table(rules: Rules | str | None = None) -> ActionTable:
    """The action table of a rules set (a Rules object, a preset name, or None for the classic
    game): one per rules set, shared."""
    return _table_of(resolve_rules(rules))


@lru_cache(maxsize=None)
def _table_of(rules: Rules) -> ActionTable:
    return ActionTable(rules)


def encode(card, captured=(), rules: Rules | str | None = None, table=None) -> int:
    """Public helper: the action id of playing `card` and taking `captured` (cards or a mask)."""
    return action_table(rules).encode(card, captured, table)


def decode(action, rules: Rules | str | None = None, table=None) -> tuple[str, list[str]]:
    """Public helper: action id -> ('7D', ['4C', '3S']) in the notation of RULES.md."""
    c, m = action_table(rules).decode(action, table)
    return card_str(c), cards_str(m)


def n_actions(rules: Rules | str | None = None) -> int:
    return action_table(rules).size
