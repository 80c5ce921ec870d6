"""What one player may know, as a flat int8 vector with named slices (layout version 1).

Built by a compiled kernel straight from the state array, and only from what that player has
seen: its own hand, the table, both piles, the cards each player has played this hand, and
public counts. The opponent's hand and the deck order never reach it, so two states that differ
only in hidden cards give the same vector (a test proves it). Every agent decides from this
vector and the action mask alone.

Layout (2 players; "me" is the viewer, "opp" the other player):

| slice            | size | meaning                                                        |
|------------------|------|----------------------------------------------------------------|
| hand             | 40   | my hand                                                        |
| table            | 40   | the table                                                      |
| my_pile          | 40   | cards I captured this hand                                     |
| opp_pile         | 40   | cards the opponent captured this hand                          |
| my_played        | 40   | cards I played this hand                                       |
| opp_played       | 40   | cards the opponent played this hand                            |
| unseen           | 40   | cards I have not seen (opponent's hand + deck)                 |
| opp_hand_size    | 1    | cards in the opponent's hand                                   |
| deck_left        | 1    | cards left in the deck                                         |
| my_scope         | 1    | my scope this hand                                             |
| opp_scope        | 1    | the opponent's scope this hand                                 |
| my_score         | 1    | my match total before this hand (clipped to 127)               |
| opp_score        | 1    | the opponent's match total (clipped to 127)                    |
| target           | 1    | match target (clipped to 127)                                  |
| i_deal           | 1    | 1 if I am the dealer                                           |
| napola           | 1    | 1 if napola is scored                                          |
| last_capturer    | 1    | 0 nobody yet, 1 me, 2 the opponent                             |
| to_move          | 1    | 1 if it is my turn                                             |

Total 291 values. Card masks index cards by id (cards.py).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from . import core

OBS_LAYOUT_VERSION = 1

_FIELDS = (
    ("hand", 40), ("table", 40), ("my_pile", 40), ("opp_pile", 40), ("my_played", 40),
    ("opp_played", 40), ("unseen", 40), ("opp_hand_size", 1), ("deck_left", 1),
    ("my_scope", 1), ("opp_scope", 1), ("my_score", 1), ("opp_score", 1), ("target", 1),
    ("i_deal", 1), ("napola", 1), ("last_capturer", 1), ("to_move", 1),
)
SLICES: dict[str, slice] = {}
_at = 0
for _name, _size in _FIELDS:
    SLICES[_name] = slice(_at, _at + _size)
    _at += _size
OBS_SIZE = _at
# the highest value each slot can take (for Box bounds)
OBS_HIGH = np.ones(OBS_SIZE, dtype=np.int8)
for _name, _high in (("opp_hand_size", 3), ("deck_left", 40), ("my_scope", 40), ("opp_scope", 40),
                     ("my_score", 127), ("opp_score", 127), ("target", 127), ("last_capturer", 2)):
    OBS_HIGH[SLICES[_name]] = _high

_HAND, _TABLE, _MY_PILE, _OPP_PILE, _MY_PLAYED, _OPP_PLAYED, _UNSEEN = (
    SLICES[n].start for n in ("hand", "table", "my_pile", "opp_pile", "my_played", "opp_played", "unseen"))
_SCALARS = SLICES["opp_hand_size"].start


@njit(cache=True, inline="always")
def _write_mask(out, at, mask):
    for c in range(40):
        out[at + c] = (mask >> c) & 1


@njit(cache=True)
def write_observation(state, player, out):
    """Fill out[:OBS_SIZE] (int8) with what `player` may know in `state`."""
    opp = (player + 1) % state[core.NPLAYERS]
    hand = state[core.HANDS + player]
    table = state[core.TABLE]
    my_pile = state[core.PILES + player]
    opp_pile = state[core.PILES + opp]
    _write_mask(out, _HAND, hand)
    _write_mask(out, _TABLE, table)
    _write_mask(out, _MY_PILE, my_pile)
    _write_mask(out, _OPP_PILE, opp_pile)
    _write_mask(out, _MY_PLAYED, state[core.PLAYED + player])
    _write_mask(out, _OPP_PLAYED, state[core.PLAYED + opp])
    seen = hand | table | my_pile | opp_pile
    _write_mask(out, _UNSEEN, ~seen & ((np.int64(1) << 40) - 1))
    out[_SCALARS + 0] = core.popcount(state[core.HANDS + opp])
    out[_SCALARS + 1] = 40 - state[core.DECK_POS]
    out[_SCALARS + 2] = min(state[core.SCOPE + player], 40)
    out[_SCALARS + 3] = min(state[core.SCOPE + opp], 40)
    out[_SCALARS + 4] = min(state[core.SCORES + player], 127)
    out[_SCALARS + 5] = min(state[core.SCORES + opp], 127)
    out[_SCALARS + 6] = min(state[core.TARGET], 127)
    out[_SCALARS + 7] = 1 if state[core.DEALER] == player else 0
    out[_SCALARS + 8] = 1 if state[core.NAPOLA] else 0
    lc = state[core.LAST_CAPTURER]
    out[_SCALARS + 9] = 0 if lc < 0 else (1 if lc == player else 2)
    out[_SCALARS + 10] = 1 if state[core.TO_MOVE] == player else 0


def observe(state: np.ndarray, player: int) -> np.ndarray:
    """A fresh int8 observation vector of `player` in `state`."""
    out = np.zeros(OBS_SIZE, dtype=np.int8)
    write_observation(state, player, out)
    return out


def view(obs: np.ndarray, name: str) -> np.ndarray:
    """A named part of an observation vector, e.g. view(obs, 'table')."""
    return obs[..., SLICES[name]]
