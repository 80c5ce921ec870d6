"""Helpers shared by the agents' tests to build positions and read the levels' card values."""
import numpy as np

from agents import _scoring
from scopa_env import core
from scopa_env.cards import as_mask
from scopa_env.game import Game


def unused_cards(*used):
    """The cards in none of `used` (each a list of cards or a mask), in id order: what a set-up
    position deals into the deck and the piles."""
    taken = 0
    for group in used:
        taken |= as_mask(group)
    return [c for c in range(40) if not taken >> c & 1]


def seat0_values(rules, my_pile=(), opp_pile=()):
    """values_any: what each card is worth to seat 0 under `rules`, given the two piles (lists of
    cards or masks) in a 2-player game."""
    state = np.zeros(core.STATE_SIZE, dtype=np.int64)
    state[:core.HEADER_SIZE] = rules.to_header()
    piles = np.array([as_mask(my_pile), as_mask(opp_pile), 0, 0, 0, 0], dtype=np.int64)
    vals = np.zeros(40)
    _scoring.values_any(state, piles, 2, 0, _scoring.WEIGHTS, vals)
    return vals


def random_play(rules, seed, plies):
    """The game `seed` under `rules` after `plies` random legal moves (a generator seeded with
    `seed` picks them), or None when the hand ends before."""
    g = Game(rules, seed)
    rng = np.random.default_rng(seed)
    for _ in range(plies):
        ids = g.legal_action_ids()
        g.play_action(ids[rng.integers(len(ids))])
        if g.hand_over:
            return None
    return g
