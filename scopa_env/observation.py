"""What one player may know, as a flat int8 vector with named slices (layout version 1).

Built by a compiled kernel straight from the state array, and only from what that player has
seen: its own hand, the table, every pile, the cards each player has played this hand, and
public counts (and, under cirulla's hand bonuses, the cards a declared bonus showed: below).
Any other card of the other hands (a partner's too) and the deck order never reach it, so two
states that differ only in hidden cards give the same vector (a test proves it). Every agent
decides from this vector and the action mask alone.

The layout depends only on the number of players and on whether the rules have cirulla's hand
bonuses (`layout(players, bonus=...)`, the last part below); no other rules option is in it (a
network is trained per rules set, and checkpoints carry their rules).

Two players (`SLICES`, `OBS_SIZE`, `OBS_HIGH`; "me" is the viewer, "opp" the other player):

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
| to_move          | 1    | 1 if it is my turn (0 once the hand is over)                   |

Total 291 values.

N = 3, 4 or 6 players (`layout(N)`). Seats are relative to the viewer: seat k is the k-th
player after me in turn order (0 me, 1 the next to play, ...); sides likewise (side k is the
side of seat k, k < number of sides). With pairs, partners sit opposite: my partner is seat
N / 2 and shares my side (`my_side`).

| slice         | size   | meaning                                                           |
|---------------|--------|-------------------------------------------------------------------|
| hand          | 40     | my hand                                                           |
| table         | 40     | the table                                                         |
| unseen        | 40     | cards I have not seen (the other hands + deck)                    |
| pile          | 40 N   | row k: cards seat k captured this hand (reshape (N, 40))          |
| played        | 40 N   | row k: cards seat k played this hand                              |
| hand_size     | N      | cards in seat k's hand                                            |
| scope         | N      | seat k's scope this hand (clipped to 40)                          |
| score         | sides  | side k's match total before this hand (clipped to 127)            |
| deck_left     | 1      | cards left in the deck                                            |
| target        | 1      | match target (clipped to 127)                                     |
| napola        | 1      | 1 if napola is scored                                             |
| dealer        | N      | one-hot: the dealer's seat                                        |
| last_capturer | N      | one-hot: the seat that captured last (all 0: nobody yet)          |
| to_move       | N      | one-hot: the seat to move (all 0 once the hand is over)           |
| my_side       | N      | 1 for the seats on my side (me, and my partner in pairs)          |

Sizes: 3 players 384, 4 players 469, 6 players 642. Card masks index cards by id (cards.py).

Rules with cirulla's hand bonuses (`Rules.hand_bonus`; `layout(players, hand_cards, bonus=True)`)
add, after the parts above, what the declared bonuses made public (a hand that declares a bonus
is shown until the end of its deal; `unseen` then leaves its cards out):

| slice (2 players) | size | meaning                                                      |
|-------------------|------|--------------------------------------------------------------|
| my_shown          | 40   | cards of my hand that I showed                               |
| opp_shown         | 40   | cards of the opponent's hand it showed                       |
| my_bonus          | 1    | hand-bonus points I declared this hand                       |
| opp_bonus         | 1    | hand-bonus points the opponent declared this hand            |
| joker_value       | 1    | the capture value the 7 of coppe holds now (0: it is a 7)    |

With N players: `shown` (40 N, row k: the shown cards seat k holds), `bonus` (N, seat k's
hand-bonus points this hand) and `joker_value` (1). Sizes: 2 players 374, 3 players 508, 4
players 634, 6 players 889.

In both layouts the scores are the match totals before this hand while it is played; in an
observation of a finished hand (the last one of a hand episode) they include that hand.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numba import njit

from . import core
from .cards import is_whole, number_text
from .errors import ScopaError
from .presets import resolve_rules

OBS_LAYOUT_VERSION = 1
PLAYER_COUNTS = (2, 3, 4, 6)


def sides_of(players: int) -> int:
    """Number of sides: 2 and 3 players each for self, 4 and 6 in pairs (RULES.md)."""
    return players if players <= 3 else players // 2


def _fields(players: int, bonus: bool = False) -> tuple:
    if bonus:
        extra = ((("my_shown", 40), ("opp_shown", 40), ("my_bonus", 1), ("opp_bonus", 1)) if players == 2
                 else (("shown", 40 * players), ("bonus", players)))
        return _fields(players) + extra + (("joker_value", 1),)
    if players == 2:
        return (
            ("hand", 40), ("table", 40), ("my_pile", 40), ("opp_pile", 40), ("my_played", 40),
            ("opp_played", 40), ("unseen", 40), ("opp_hand_size", 1), ("deck_left", 1),
            ("my_scope", 1), ("opp_scope", 1), ("my_score", 1), ("opp_score", 1), ("target", 1),
            ("i_deal", 1), ("napola", 1), ("last_capturer", 1), ("to_move", 1),
        )
    n = players
    return (
        ("hand", 40), ("table", 40), ("unseen", 40), ("pile", 40 * n), ("played", 40 * n),
        ("hand_size", n), ("scope", n), ("score", sides_of(n)), ("deck_left", 1),
        ("target", 1), ("napola", 1), ("dealer", n), ("last_capturer", n), ("to_move", n),
        ("my_side", n),
    )


@dataclass(frozen=True, eq=False)
class Layout:
    """The observation layout for `players` players: named slices, size, per-slot highs."""

    players: int
    hand_cards: int
    bonus: bool
    slices: dict
    size: int
    high: np.ndarray
    version: int = OBS_LAYOUT_VERSION


@lru_cache(maxsize=None)
def layout(players: int = 2, hand_cards: int = 3, bonus: bool = False) -> Layout:
    """The layout for `players` players; `hand_cards` (cards per deal) only sets the highest
    hand size in `high` (the Box bound); the slices depend on `players` and on `bonus` (the
    hand bonuses' parts) alone."""
    if players not in PLAYER_COUNTS:
        raise ScopaError(f"players must be one of {PLAYER_COUNTS}, got {number_text(players)}")
    slices = {}
    at = 0
    for name, size in _fields(players, bonus):
        slices[name] = slice(at, at + size)
        at += size
    high = np.ones(at, dtype=np.int8)
    if players == 2:
        for name, h in (("opp_hand_size", hand_cards), ("deck_left", 40), ("my_scope", 40),
                        ("opp_scope", 40), ("my_score", 127), ("opp_score", 127),
                        ("target", 127), ("last_capturer", 2)):
            high[slices[name]] = h
    else:
        for name, h in (("hand_size", hand_cards), ("scope", 40), ("score", 127),
                        ("deck_left", 40), ("target", 127)):
            high[slices[name]] = h
    if bonus:   # at most 10 points a deal, 6 deals a hand with 3 cards each and 2 players
        for name in ("my_bonus", "opp_bonus") if players == 2 else ("bonus",):
            high[slices[name]] = 60
        high[slices["joker_value"]] = 10
    high.setflags(write=False)
    return Layout(players, hand_cards, bonus, slices, at, high)


def layout_for(rules) -> Layout:
    """The layout of a rules set (a Rules object, a preset name or None for the classic game)."""
    rules = resolve_rules(rules)
    return layout(rules.players, rules.hand_cards, rules.hand_bonus)


# the two-player layout under the names agents import
SLICES: dict[str, slice] = layout(2).slices
OBS_SIZE = layout(2).size
OBS_HIGH = layout(2).high.copy()  # the highest value each slot can take (for Box bounds)
_SIZES = np.zeros((7, 2), dtype=np.int64)     # [players, hand bonuses] -> size
for _n in PLAYER_COUNTS:
    _SIZES[_n, 0] = layout(_n).size
    _SIZES[_n, 1] = layout(_n, 3, True).size

_HAND, _TABLE, _MY_PILE, _OPP_PILE, _MY_PLAYED, _OPP_PLAYED, _UNSEEN = (
    SLICES[n].start for n in ("hand", "table", "my_pile", "opp_pile", "my_played", "opp_played", "unseen"))
_SCALARS = SLICES["opp_hand_size"].start
_ALL = (np.int64(1) << 40) - 1


@njit(cache=True, inline="always")
def _write_mask(out, at, mask):
    for c in range(40):
        out[at + c] = (mask >> c) & 1


@njit(cache=True)
def _write_two(state, player, out):
    opp = (player + 1) % 2
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
    seen = hand | table | my_pile | opp_pile | state[core.SHOWN]
    _write_mask(out, _UNSEEN, ~seen & _ALL)
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
    out[_SCALARS + 10] = 1 if state[core.TO_MOVE] == player and state[core.PHASE] == core.PLAYING else 0


@njit(cache=True)
def _write_many(state, player, out):
    n = state[core.NPLAYERS]
    sides = n if n <= 3 else n // 2
    hand = state[core.HANDS + player]
    table = state[core.TABLE]
    seen = hand | table | state[core.SHOWN]
    at = 120  # hand, table, unseen
    for k in range(n):
        s = (player + k) % n
        pile = state[core.PILES + s]
        seen |= pile
        _write_mask(out, at + 40 * k, pile)
        _write_mask(out, at + 40 * (n + k), state[core.PLAYED + s])
    _write_mask(out, 0, hand)
    _write_mask(out, 40, table)
    _write_mask(out, 80, ~seen & _ALL)
    at += 80 * n
    for k in range(n):
        s = (player + k) % n
        out[at + k] = core.popcount(state[core.HANDS + s])
        out[at + n + k] = min(state[core.SCOPE + s], 40)
    at += 2 * n
    for k in range(sides):
        out[at + k] = min(state[core.SCORES + (player + k) % n % sides], 127)
    at += sides
    out[at] = 40 - state[core.DECK_POS]
    out[at + 1] = min(state[core.TARGET], 127)
    out[at + 2] = 1 if state[core.NAPOLA] else 0
    at += 3
    lc = state[core.LAST_CAPTURER]
    mover = state[core.TO_MOVE] if state[core.PHASE] == core.PLAYING else -1
    for k in range(n):
        s = (player + k) % n
        out[at + k] = 1 if state[core.DEALER] == s else 0
        out[at + n + k] = 1 if lc == s else 0
        out[at + 2 * n + k] = 1 if mover == s else 0
        out[at + 3 * n + k] = 1 if k % sides == 0 else 0


@njit(cache=True)
def _write_bonus(state, player, out):
    """The hand bonuses' parts, after the layout's others (at _SIZES[n, 0])."""
    n = state[core.NPLAYERS]
    at = _SIZES[n, 0]
    shown = state[core.SHOWN]
    for k in range(n):
        s = (player + k) % n
        _write_mask(out, at + 40 * k, state[core.HANDS + s] & shown)
        out[at + 40 * n + k] = min(state[core.BONUS + s], 60)
    out[at + 41 * n] = state[core.JOKER_VALUE]


@njit(cache=True)
def write_observation(state, player, out):
    """Fill out[:size] (int8; size = layout(players, 3, hand bonuses).size) with what `player`
    may know."""
    if state[core.NPLAYERS] == 2:
        _write_two(state, player, out)
    else:
        _write_many(state, player, out)
    if state[core.HAND_BONUS] != 0:
        _write_bonus(state, player, out)


def observe(state: np.ndarray, player: int) -> np.ndarray:
    """A fresh int8 observation vector of `player` in `state` (a Game's state array: its slots
    are trusted, Game.from_state checks one from elsewhere); ScopaError if `player` is not a seat
    of the state's game (the compiled writer read other state slots, the deck among them) or
    `state` is not a state array (a float array was a compiler traceback, a short one read
    memory past its end, a player count outside PLAYER_COUNTS crashed the process)."""
    if not isinstance(state, np.ndarray) or state.dtype != np.int64 or state.shape != (core.STATE_SIZE,):
        what = (f"an array of {state.dtype} with shape {state.shape}" if isinstance(state, np.ndarray)
                else f"a {type(state).__name__}")
        raise ScopaError(f"observe needs a game's state array (int64, {core.STATE_SIZE} slots), "
                         f"got {what}")
    n = int(state[core.NPLAYERS])
    if n not in PLAYER_COUNTS:
        raise ScopaError(f"the state's player count {n} is not one of {PLAYER_COUNTS}: not a "
                         f"game's state array")
    if not is_whole(player) or not 0 <= int(player) < n:
        raise ScopaError(f"player {number_text(player)} is not a seat 0..{n - 1}")
    out = np.zeros(int(_SIZES[n, int(state[core.HAND_BONUS] != 0)]), dtype=np.int8)
    write_observation(state, player, out)
    return out


def view(obs: np.ndarray, name: str, players: int | None = None) -> np.ndarray:
    """A named part of an observation vector, e.g. view(obs, 'table'). The layout is found from
    the vector's length unless `players` is given; 'pile', 'played' and 'shown' of N players
    come as (..., N, 40). The dict the environments and Game.observation give is read by its
    'observation' (it was an AttributeError on the dict: an API review); a list as an array."""
    if isinstance(obs, dict) and "observation" in obs:
        obs = obs["observation"]
    obs = np.asarray(obs)
    if obs.ndim == 0:
        raise ScopaError(f"an observation is a vector of values, got {obs!r}")
    found = [(n, b) for n in (PLAYER_COUNTS if players is None else (players,)) for b in (False, True)
             if layout(n, 3, b).size == obs.shape[-1]]
    if not found:
        if players is None:
            raise ScopaError(f"no observation layout has {obs.shape[-1]} values")
        # the slices of another layout read the wrong values (or none) without a word
        raise ScopaError(f"an observation of {players} players has {layout(players).size} values "
                         f"({layout(players, 3, True).size} with hand bonuses), this one has {obs.shape[-1]}")
    players, bonus = found[0]
    slices = layout(players, 3, bonus).slices
    if name not in slices:
        raise ScopaError(f"the observation of {players} players has no part {name!r} (its parts: "
                         f"{', '.join(slices)})")
    part = obs[..., slices[name]]
    if players != 2 and name in ("pile", "played", "shown"):
        return part.reshape(*obs.shape[:-1], players, 40)
    return part
