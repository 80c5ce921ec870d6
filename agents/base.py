"""The one agent interface: observation in, action id out.

An agent is handed exactly what the environment gives its player, the dict
`{"observation": int8[layout_for(rules).size], "action_mask": int8[action_table(rules).size]}`
(see scopa_env/observation.py and actions.py: the 291-value layout and the 16,200 ids for the
classic game), and returns an action id whose mask entry is 1 (a mask holds 0 and 1 only). An agent is built for one
rules set (`Agent(rules, seed)`) and plays only that one. It never sees
the game state, so "the computer never sees your cards or the deck" holds by construction.
Agents draw randomness only from their own generator, set by `reset(seed)`: the same
observation after the same reset gives the same action.
"""
from __future__ import annotations

import numpy as np

from scopa_env.actions import ActionTable, action_table
from scopa_env.cards import number_text
from scopa_env.errors import ScopaError
from scopa_env.observation import layout_for
from scopa_env.presets import resolve_rules
from scopa_env.rules import Rules
from scopa_env.seeds import check_seed


class Agent:
    """Base class. Subclasses implement `act`; `name` is what tables and records show."""

    name = "agent"

    def __init__(self, rules: Rules | None = None, seed: int = 0):
        self.rules = resolve_rules(rules)
        self.actions: ActionTable = action_table(self.rules)
        obs_layout = layout_for(self.rules)
        self._obs_size = obs_layout.size
        self._target_slot = obs_layout.slices["target"].start
        self._napola_slot = obs_layout.slices["napola"].start
        self._obs_layout = obs_layout
        # what an observation may hold: 0/1 in the card masks and flags; counts and scores 0..127,
        # beyond the Box bounds (a position set up with Game.setup may hold more cards in a hand)
        self._obs_high = np.where(obs_layout.high == 1, 1, 127).astype(np.int8)
        self.reset(check_seed(seed))

    @property
    def remembers_match(self) -> bool:
        """Whether act() reads the agent's earlier observations of the match (hard with infer, a
        learned agent with search): such an agent must see one game from one seat, so whoever
        seats an agent object twice (the arena, Scopa-v0) gives it a copy of its own."""
        return False

    def reset(self, seed: int | None = None) -> None:
        """Start a new match; with a seed, also reseed the agent's generator. __init__ calls it:
        a subclass that overrides it sets what it uses before calling super().__init__."""
        if seed is not None:
            self.seed = check_seed(seed)
            self.rng = np.random.default_rng(self.seed)

    def act(self, observation: dict) -> int:
        raise NotImplementedError

    @staticmethod
    def check_observation(observation) -> dict:
        """What act() was given, as the dict of two int8 vectors every agent reads: numpy arrays
        pass as they are; other array-likes of whole numbers (a torch tensor, a list) are turned
        into them. One ScopaError for anything else (None, a bare vector, a dict without the mask
        were a TypeError, IndexError or KeyError by agent; review). Every act() looks here first."""
        if not (isinstance(observation, dict) and "observation" in observation and "action_mask" in observation):
            what = (f"a dict of {', '.join(map(repr, observation))}" if isinstance(observation, dict)
                    else type(observation).__name__)
            raise ScopaError(f"an agent acts on a player's observation, a dict {{'observation': array, "
                             f"'action_mask': array}} (Game.observation(seat), an env's observe()), "
                             f"got {what}")
        parts = {}
        for key in ("observation", "action_mask"):
            given = observation[key]
            if isinstance(given, np.ndarray) and given.dtype == np.int8 and given.ndim == 1:
                parts[key] = given
                continue
            try:
                a = np.asarray(given)
                # the kind first: a complex array cast to int8 warned (ComplexWarning) on its way to
                # the refusal, as NaN or 1e10 did ('invalid value encountered in cast')
                fits = a.ndim == 1 and a.dtype.kind in "biuf"
                with np.errstate(invalid="ignore"):
                    v = a.astype(np.int8) if fits else None
                fits = fits and np.array_equal(a, v)
            except (TypeError, ValueError, RuntimeError, OverflowError):
                a, fits = None, False
            if not fits:
                what = type(given).__name__ + ("" if a is None else f" of {a.dtype} with shape {a.shape}")
                raise ScopaError(f"the observation's {key!r} must be a vector of small whole numbers "
                                 f"(int8, as Game.observation gives), got {what}")
            parts[key] = v
        if all(parts[k] is observation[k] for k in parts):
            return observation
        return parts

    def legal_actions(self, observation: dict) -> np.ndarray:
        """The legal action ids of an observation of this agent's rules; ScopaError for one of
        other rules (an agent built without rules= in a scopone env read the 469 values through
        the classic slices and played on, some moves taking half a minute) or without a move."""
        observation = self.check_observation(observation)
        obs, mask = observation["observation"], observation["action_mask"]
        if len(obs) != self._obs_size or len(mask) != self.actions.size or \
                obs[self._target_slot] != min(self.rules.target, 127) or \
                obs[self._napola_slot] != int(self.rules.napola):
            seen = f"{len(obs)} values, {len(mask)} action ids"
            if len(obs) == self._obs_size:
                seen += f", target {obs[self._target_slot]}, napola {obs[self._napola_slot]}"
            raise ScopaError(
                f"{self.name} was made for rules {self.rules.describe()}, this observation is of "
                f"other rules ({seen}): make the agent with the env's rules (make_agent(spec, rules=...))")
        high = self._obs_high
        if obs.min() < 0 or (obs > high).any():
            # a card slot of -1 or 3 made a mask of 64 bits: normal's compiled scoring read past
            # its arrays (a segmentation fault) and the network's reply features never ended (review)
            at = int(np.flatnonzero((obs < 0) | (obs > high))[0])
            name = next(k for k, sl in self._obs_layout.slices.items() if sl.start <= at < sl.stop)
            raise ScopaError(f"the observation holds {int(obs[at])} at {at} ({name!r}), outside "
                             f"0..{int(high[at])}: it is not an observation of a game (Game.observation, "
                             f"an env's observe())")
        legal = np.flatnonzero(mask != 0)    # 3.5 us; on the int8 mask itself 28 us (numpy 2.4)
        if len(legal) == 0:
            raise ScopaError("the observation's action mask has no legal move")
        odd = mask[legal] != 1
        if odd.any():
            # a mask of -1 for 'illegal' played those ids as legal moves (review)
            at = int(legal[np.argmax(odd)])
            raise ScopaError(f"the observation's action mask holds {int(mask[at])} at id {at}: its "
                             f"entries are 1 (legal) and 0 (illegal), as the environments give them")
        return legal


class RandomAgent(Agent):
    """Plays a uniformly random legal move."""

    name = "random"

    def act(self, observation: dict) -> int:
        legal = self.legal_actions(observation)
        return int(legal[self.rng.integers(len(legal))])


# Checks of an agent's options as users type them (`hard:budget=9000`, agents.split_spec): a value
# of the wrong kind is one ScopaError naming the agent and the option, never a ValueError from
# int() or a silent guess (bool("maybe") is True).
WHOLE_MAX = 10 ** 9     # far above any useful count; the compiled kernels take 64-bit integers


def whole_option(agent: str, name: str, v, low: int, high: int = WHOLE_MAX, why: str = "") -> int:
    """`v` as a whole number in low..high; else one ScopaError naming both ends (`why` says
    why the top is where it is)."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or \
            not low <= v <= high:
        raise ScopaError(f"{agent} option {name} must be a whole number from {low} to "
                         f"{high:,}{why}, got {number_text(v)}")
    return int(v)


def number_option(agent: str, name: str, v) -> float:
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise ScopaError(f"{agent} option {name} must be a number, got {number_text(v)}")
    try:
        return float(v)
    except OverflowError:       # epsilon=10**400 was the OverflowError's traceback (review)
        raise ScopaError(f"{agent} option {name} must be a number a float can hold, got an integer "
                         f"of {len(str(abs(int(v))))} digits") from None


def flag_option(agent: str, name: str, v) -> bool:
    if not isinstance(v, (bool, np.bool_)):
        raise ScopaError(f"{agent} option {name} must be true or false, got {number_text(v)}")
    return bool(v)


def weights_option(agent: str, v, size: int) -> np.ndarray:
    """A weight vector: numbers, or in a spec (where ',' separates options) text 'a;b;c;...'."""
    given = v
    if isinstance(v, str):
        v = v.split(";")
    try:
        w = np.array(v, dtype=np.float64)
    except (TypeError, ValueError):
        raise ScopaError(f"{agent} option weights must be {size} numbers (in a spec separated by "
                         f"';'), got {given!r}") from None
    if w.shape != (size,):
        # the shape, not the count: 16 numbers nested in a list said "need 16 values, got 16"
        got = (f"{w.size}" if w.ndim == 1 else f"a single value, {number_text(given)}" if w.ndim == 0
               else f"{w.size} nested as an array of shape {w.shape}")
        raise ScopaError(f"{agent} weights need {size} values, got {got}")
    if not np.isfinite(w).all():
        raise ScopaError(f"{agent} weights must be finite numbers, got {number_text(given)}")
    return w
