"""The `normal` level: weighs each play as a player does, and asks what it leaves the opponent.

RULES.md: it values the settebello, sevens (then sixes and aces, for primiera), denari and a
scopa, and before playing a card it asks whether it leaves the opponent a scopa (a table summing
to 10 or less that an unseen card can take). The score of a move, in rough hand points, is

    value of what I take now (+1 for a scopa)
    - expected value of the opponent's best reply on the table I leave

where the reply is estimated from the unseen cards alone: for each rank, the chance that the
opponent holds one (hypergeometric, from the unseen count and its hand size) and the best
capture that rank makes on the new table (a sweep counts +1). Once three re are out a re on the
table is safe, which falls out of the unseen counts. The scoring kernel `score_moves`
(agents/_scoring.py, compiled, weights there) is also the hard level's rollout policy.

In the last deal (empty deck) the unseen cards are exactly the opponent's hand, so the reply
chances become certainties; and when at most `count_last` cards (default 4) are left in the two
hands it counts them out: it plays the rest of the deal exactly (alpha-beta to the hand's score,
agents/_rollout.py `last_deal_values`), as a player does with the last few cards. With the whole
last deal searched (6) it beat easy by more but hard by less; 4 keeps the ladder of README.

With the napola scored, the card values count what a denaro adds to the napola of the side it
helps most, and a capture of two or more denari counts what they add together to the mover's
napola (1D 2D 3D at once is a napola no one card makes) or, if more, the most one of them would
give the opponent (one is enough to keep it from its napola): `_scoring.napola_gain`,
`set_joint`; cirulla's grande is valued the same way (`grande_gain`). The reply feared still
values the opponent's captures card by card.

Any other rules (variants, 3 players, pairs) go through the same judgement generalised in
`_scoring.score_any`: card values per rules (re bello, napola and napoleone chances, cirulla's
grande, most-sevens),
my side's pile pooled with my partner's, the scopa that an ace sweep is not (unless ace_scopa),
and the reply feared is the next seat's (an opponent: partners sit opposite), its captures from
the engine's own legal move generator when the captures are not the classic ones (quindici, ace
takes all, fewest cards, free capture). The count-out of the last cards happens only when nothing
is hidden any more (deck empty and at most one other seat holding cards); with three sides the
other two are assumed to play against me.
"""
from __future__ import annotations

import numpy as np

from scopa_env import core
from scopa_env.observation import SLICES

from . import _exact, _rollout, _scoring
from ._rollout import last_deal_values
from ._scoring import WEIGHTS, new_scratch, score_moves
from .base import Agent, weights_option, whole_option


# ---- from an observation -------------------------------------------------------------------
_BITS = np.int64(1) << np.arange(40, dtype=np.int64)


def obs_mask(obs: np.ndarray, name: str) -> int:
    """A 40-card slice of an observation vector as a card mask."""
    return int((obs[SLICES[name]].astype(np.int64) * _BITS).sum())


def obs_scalar(obs: np.ndarray, name: str) -> int:
    return int(obs[SLICES[name].start])


class NormalAgent(Agent):
    """Plays the move with the best heuristic value (the lowest action id on ties); under the
    classic rules the last `count_last` cards of a hand are counted out exactly."""

    name = "normal"

    def __init__(self, rules=None, seed: int = 0, weights=None, count_last: int = 4):
        super().__init__(rules, seed)
        self.count_last = whole_option("normal", "count_last", count_last, 0)
        self.weights = weights_option("normal", WEIGHTS if weights is None else weights, WEIGHTS.size)
        self._scratch = new_scratch()
        self._classic = _rollout.classic_rules(self.rules)
        if not self._classic:
            self._header = np.asarray(self.rules.to_header(), dtype=np.int64)
            self._caps = _rollout.classic_captures(self.rules)
            self._tmp = np.zeros(core.STATE_SIZE, dtype=np.int64)
            self._tbuf = core.new_move_buffer()
            self._piles = np.zeros(6, dtype=np.int64)

    def _any_values(self, observation: dict, count: bool) -> tuple[np.ndarray, np.ndarray]:
        """Legal ids and values under any rules (count: the count-out when nothing is hidden)."""
        legal = self.legal_actions(observation)     # checked before the View reads it (review)
        view = _rollout.View(observation["observation"], self.rules, self._header)
        cards = self.actions.card[legal].astype(np.int64)
        masks = _rollout.resolve_masks(self.actions, legal, int(view.base[core.TABLE]))
        out = np.zeros(len(legal))
        holder = view.holder() if count else None
        # counted out when nothing is hidden, unless it has too many moves (free_capture's tables)
        counted = holder is not None and view.cards_left() <= min(self.count_last, _exact.EXACT_PLIES) \
            and _exact.exact_values_any(view.base, holder, view.unseen, cards, masks, len(legal),
                                        _exact.POINTS, out, False, _exact.EXACT_NODES)
        if not counted:
            _scoring.score_any(view.base, 0, view.sizes, view.unseen, cards, masks, len(legal),
                               self.weights, self._caps, out, self._scratch, self._tmp, self._tbuf,
                               self._piles)
        return legal, out

    def scores(self, observation: dict) -> tuple[np.ndarray, np.ndarray]:
        """Legal action ids and their heuristic values."""
        if not self._classic:
            return self._any_values(observation, False)
        legal = self.legal_actions(observation)
        return legal, self._judged(observation["observation"], legal)

    def _judged(self, obs: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """The heuristic values of the classic moves `legal` (checked ids) in observation `obs`."""
        cards = self.actions.card[legal]
        masks = self.actions.captured[legal]
        out = np.zeros(len(legal))
        score_moves(obs_mask(obs, "hand"), obs_mask(obs, "table"), obs_mask(obs, "my_pile"),
                    obs_mask(obs, "opp_pile"), obs_mask(obs, "unseen"), obs_scalar(obs, "opp_hand_size"),
                    obs_scalar(obs, "deck_left"), obs_scalar(obs, "last_capturer"), int(self.rules.napola),
                    cards, masks, len(legal), self.weights, out, self._scratch)
        return out

    def act(self, observation: dict) -> int:
        observation = self.check_observation(observation)
        if not self._classic:
            legal, values = self._any_values(observation, True)
            return int(legal[int(np.argmax(values))])
        # checked before the vector is read (a short one was an IndexError; review), once a move
        legal = self.legal_actions(observation)
        obs = observation["observation"]
        # counted out when it can be (at most EXACT_PLIES cards, the opponent's hand known) and
        # within EXACT_NODES moves (a set-up table of 30 cards: thousands a ply); else judged
        if _rollout.countable_last_deal(obs, self.count_last):
            values = np.zeros(len(legal))
            if last_deal_values(obs, self.rules.target, self.actions.card[legal], self.actions.captured[legal],
                                len(legal), _exact.POINTS, values, _exact.EXACT_NODES):
                return int(legal[int(np.argmax(values))])
        return int(legal[int(np.argmax(self._judged(obs, legal)))])
