"""The 40-card Italian deck: card ids, the text notation of RULES.md, and card-set masks.

Card id = suit * 10 + (rank - 1), suits in the order D (denari), C (coppe), S (spade),
B (bastoni). So 0 is 1D, 6 is 7D (the settebello), 39 is 10B. A set of cards is an int whose
bit `id` is set for each card in it (40 bits), which is how the engine stores hands, the table
and the piles.
"""
from __future__ import annotations

from typing import Iterable

import numpy as np

from .errors import ScopaError

SUITS = "DCSB"
SUIT_NAMES_IT = ("denari", "coppe", "spade", "bastoni")
SUIT_SYMBOLS = ("\u2666", "\u2665", "\u2660", "\u2663")  # the compact names shown by play.py
RANK_NAMES_IT = {1: "Asso", 8: "Fante", 9: "Cavallo", 10: "Re"}
N_CARDS = 40
ALL_CARDS_MASK = (1 << N_CARDS) - 1
SETTEBELLO = 6


def is_whole(value) -> bool:
    """Whether `value` is one whole number (Python's or numpy's; a 0-d integer array), not a bool:
    what may be a card id, a mask or a seat. Every numpy array has __index__, so an array of
    cards was taken for one number, and int() of it was a TypeError: it is a list of cards."""
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, np.ndarray):
        return value.ndim == 0 and np.issubdtype(value.dtype, np.integer)
    # other arrays with __index__ (a torch tensor of cards) are lists too, unless 0-d
    return hasattr(value, "__index__") and getattr(value, "ndim", 0) == 0


def is_list(value) -> bool:
    """Whether `value` may be read as a list (of cards, of hands): iterable, and not a text, a
    mapping or a 0-d array (which has __iter__ but cannot be iterated)."""
    return hasattr(value, "__iter__") and not isinstance(value, (str, bytes, dict)) and \
        not (isinstance(value, np.ndarray) and value.ndim == 0)


def card_id(rank: int, suit: int) -> int:
    return suit * 10 + (rank - 1)


def rank_of(card: int) -> int:
    return card % 10 + 1


def suit_of(card: int) -> int:
    return card // 10


def card_str(card: int) -> str:
    """The RULES.md notation of a card id, e.g. 6 -> '7D'."""
    if not is_whole(card) or not 0 <= card < N_CARDS:
        raise ScopaError(f"card id {number_text(card)} is not in 0..39")
    return f"{rank_of(card)}{SUITS[suit_of(card)]}"


def parse_card(text: str) -> int:
    """'7D', '10b', ' 1c ' -> card id. Anything else raises ScopaError naming the text (a long
    text cut short in the message)."""
    if not isinstance(text, str):
        raise ScopaError(f"a card is written as text like '7D', got {number_text(text)}")
    t = text.strip()
    # ascii before upper(): '7\u017f' (a long s) upper-cased to '7S' and was read as a card (review)
    t = t.upper() if t.isascii() else ""
    if len(t) < 2 or not t[:-1].isdigit() or t[-1] not in SUITS:
        problem = "write rank 1-10 then suit D/C/S/B, e.g. '7D' or '10B'"
    elif t[0] == "0" and t[:-1].strip("0"):     # '07D' was read as 7D: the notation has no leading zeros
        problem = "write the rank without leading zeros, e.g. '7D'"
    elif len(t) > 20:     # before int(): Python refuses more than 4,300 digits (a ValueError, review)
        problem = "the rank is not in 1..10"
    else:
        rank = int(t[:-1])
        if 1 <= rank <= 10:
            return card_id(rank, SUITS.index(t[-1]))
        problem = f"rank {rank} is not in 1..10"
    # the text shown only for an error (records replay parses every card of every move)
    raise ScopaError(f"bad card {shown_text(text, 40)}: {problem}")


def shown_text(text: str, most: int = 60) -> str:
    """`text` quoted, cut short when long (a 5,000-digit value was echoed whole, twice)."""
    return repr(text) if len(text) <= most else f"{text[:most]!r}... ({len(text):,} characters)"


def number_text(value) -> str:
    """A value as a message shows it: a whole number as Python prints one (numpy 2's repr of
    np.int64(5) is 'np.int64(5)'), another numpy number or bool as the Python value it holds
    (np.float64(2.5) as 2.5), a list or tuple item by item, anything else by its repr."""
    if isinstance(value, np.generic):
        value = value.item()
    if is_whole(value):
        return str(int(value))
    if type(value) is list:
        return "[" + ", ".join(number_text(v) for v in value) + "]"
    if type(value) is tuple:
        return "(" + ", ".join(number_text(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return repr(value)


def as_card(card: int | str) -> int:
    """A card given as an id or as notation -> card id."""
    if isinstance(card, str):
        return parse_card(card)
    if is_whole(card):  # int or numpy integer
        c = int(card)
        if 0 <= c < N_CARDS:
            return c
    raise ScopaError(f"bad card {number_text(card)}: give a card id 0..39 or notation like '7D'")


def mask_of(cards: Iterable[int | str]) -> int:
    """The mask of a list of cards (ids or notation). A text is refused, not read letter by
    letter: '7C' is the list ['7C']; a card listed twice is refused, not counted once."""
    if isinstance(cards, str):
        raise ScopaError(f"cards are a list like ['7C', '3S'], got the text {cards!r}")
    try:
        items = iter(cards)
    except TypeError:
        raise ScopaError(f"cards are a list like ['7C', '3S'], got {number_text(cards)}") from None
    m = 0
    for c in items:
        bit = 1 << as_card(c)
        if m & bit:
            raise ScopaError(f"card {card_str(as_card(c))} is listed twice in {number_text(cards)}")
        m |= bit
    return m


def as_mask(cards, what: str = "cards") -> int:
    """Cards given as a mask (an int of 40 bits) or as a list of ids or notation -> mask."""
    if isinstance(cards, bool):
        raise ScopaError(f"{what} are a list like ['7C', '3S'] or a 40-bit mask, got {number_text(cards)}")
    if is_whole(cards):
        m = int(cards)
        if not 0 <= m <= ALL_CARDS_MASK:
            raise ScopaError(f"{what}: the mask {m} is not in 0..2^40-1")
        return m
    if not is_list(cards):
        raise ScopaError(f"{what} are a list like ['7C', '3S'] or a 40-bit mask, got {number_text(cards)}")
    return mask_of(cards)


def cards_of(mask: int) -> list[int]:
    """Card ids in a mask, ascending."""
    mask = int(mask)
    return [c for c in range(N_CARDS) if mask >> c & 1]


def cards_str(mask_or_cards) -> list[str]:
    """The notation of the cards in a mask or a list, e.g. 65 -> ['1D', '7D']."""
    if is_whole(mask_or_cards):
        return [card_str(c) for c in cards_of(as_mask(mask_or_cards))]
    if not is_list(mask_or_cards):
        raise ScopaError(f"cards are a list like ['7C', '3S'] or a 40-bit mask, got {number_text(mask_or_cards)}")
    return [card_str(as_card(c)) for c in mask_or_cards]


def card_name_it(card: int) -> str:
    """'7 di denari', 'Re di spade': the Italian name play.py shows."""
    r = rank_of(card)
    return f"{RANK_NAMES_IT.get(r, str(r))} di {SUIT_NAMES_IT[suit_of(card)]}"


def card_name_compact(card: int) -> str:
    """'7\u2666', '10\u2660': the compact name play.py shows."""
    return f"{rank_of(card)}{SUIT_SYMBOLS[suit_of(card)]}"
