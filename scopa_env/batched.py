"""B games stepped at once in compiled code: the environment training uses.

The state of game b is row b of one (B, STATE_SIZE) int64 array; a step is one numba kernel
that plays every game's move with the engine's own kernels (core.apply_move, core.next_hand,
core.init_match_rules), then writes each game's next legal moves and the observation of its
player to move. No rule lives here. Any rules set works (`rules`: a Rules object or a preset
name): N seats, the rules' action table and observation layout (scopa_env/observation.py).

Legal moves are kept *sparse*: per game up to `max_legal` action ids, the played card and the
captured mask of each, padded with -1 / -1 / 0. The dense (B, n_actions) mask is built only when
`action_masks()` is called (16,200 int8 per game with the classic table: it costs more than the
step itself).

max_legal: the width of the legal arrays. It starts at MAX_LEGAL = 80 (MAX_LEGAL_QUINDICI = 256
with scopa a quindici) and doubles (up to core.MAX_MOVES) in the step that meets a position with
more moves, so a wide position is never truncated; read the arrays from the env after each step.
- Classic captures, 3 cards a deal, 4 on the table, the 3-re redeal on: 80 is never exceeded.
  An over-approximation of every table the rules can reach (start from any 4 cards with at most
  2 re; lay a card only when its rank is neither on the table nor a sum of table cards; capture
  one equal card or a set summing to the rank) has 17,960 rank multisets, and the most legal
  moves any of them allows with any 3-card hand is 75 (three re against 1, 2, 3, 3, 3, 3, 4, 5,
  7, 8); the number of players does not enter it. tests/test_batched.py recomputes this bound.
- Other rules have no proven bound. Most legal moves met in uniformly random play, 400,000 hands
  per preset (`python benchmarks/max_moves.py`: 4 seeds x 100,000): classic 27, napola 25,
  re-bello 25, scopa-d-assi 17, asso-piglia-tutto 24, quindici 188, quindici-both 26 (a later run,
  once its fewest cards were left to the option), quindici-assi 24, escopa-15 188, escoba 179,
  three-players 21, pairs 27, six-players 27, scopone 56, scopone-scientifico 40, scopone-trentino
  54, scopone-milanese 32; cirulla 21 and cirulla-pairs 24 (`--rules cirulla cirulla-pairs`, a
  later run of the same seeds). Only the 15-captures without the classic ones (quindici,
  escopa-15, escoba: the table grows while no card makes 15) go past 80.
- free_capture (any card may be laid): players who lay card after card grow the table until one
  card has thousands of captures (7,166 moves met with quindici "both", laying the lowest card
  every turn). core.MAX_MOVES (76,680) bounds every position of every rules set.

Episodes and rewards (float32 (B, N), one column per seat):
- episode="match": an episode is a whole match; hands follow each other inside it.
  episode="hand": an episode is one hand; the next episode is the next hand of the same match
  (a new match once one ends), so observations keep real match scores.
- reward="win": the match winner's side is worth 1, the others 0. reward="points": each hand's
  points, paid when that hand ends. A side's reward is its value minus the mean of the other
  sides' values (zero-sum over the sides; with two sides +1/-1 and the point difference), and
  every seat of a side gets it (partners in pairs alike; seat s plays for side s % sides).
  The default is "win" for match episodes and "points" for hand episodes; "win" with hand
  episodes is refused (most episodes would carry no signal).
Finished games reset themselves: `dones[b]` marks the step that ended game b's episode, and the
returned observation of game b is already the first of its next episode. `info` holds
"mover" (B,): the seat that made this step's move in each game (the transitions' owner);
"hand_over" and "match_over" (B,) bool: whether that move ended a hand, the match; per side,
"hand_points" (B, sides), the hand's points where a hand ended (else 0), and "final_scores"
(B, sides), the match's scores where it ended (else 0); and "winner" (B,), the winning side
where a match ended (else -1).

Seeding: game b draws the seeds of its matches from its own generator, seeded from (seed, b),
so the same seed and B give the same games, bit for bit. `state_dict()` / `load_state_dict()`
save and restore all of it (checkpoints that resume bit for bit).

Arrays: `obs`, `to_move` and everything `step` returns are new arrays at every step (keep them
as they are). `legal_count`, `legal_ids`, `legal_card` and `legal_captured` describe the
current position and are rewritten in place by every step (new, wider arrays when max_legal
grows): copy them to keep them.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from . import core
from .actions import _encode, action_table, encode_move, is_classic
from .cards import number_text
from .errors import ScopaError
from .observation import layout_for, write_observation
from .presets import resolve_rules
from .rules import Rules
from .seeds import check_seed

MAX_LEGAL = 80
MAX_LEGAL_QUINDICI = 256

_OK = -1
# the arrays of the current position, saved by state_dict()
_POSITION = ("obs", "to_move", "legal_count", "legal_ids", "legal_card", "legal_captured")


def side_rewards(values) -> list[float]:
    """Zero-sum rewards of the sides from one value per side: a side gets its value minus the
    mean of the other sides' values (two sides: the difference; a win worth 1 among three
    sides: +1 for the winner, -1/2 for each other side)."""
    total = float(sum(values))
    k = len(values)
    return [float(v) - (total - float(v)) / (k - 1) for v in values]


def check_episode_reward(episode: str, reward: str | None) -> str:
    """Validate the episode/reward options (shared by every env); returns the reward to use."""
    if episode not in ("match", "hand"):
        raise ScopaError(f"episode must be 'match' or 'hand', got {number_text(episode)}")
    if reward is None:
        reward = "win" if episode == "match" else "points"
    if reward not in ("win", "points"):
        raise ScopaError(f"reward must be 'win' or 'points', got {number_text(reward)}")
    if reward == "win" and episode == "hand":
        raise ScopaError("reward='win' pays only when a match ends: with episode='hand' use "
                         "reward='points'")
    return reward


@njit(cache=True)
def _refresh(states, b, kernel, buf, obs, to_move, legal_count, legal_ids, legal_card,
             legal_captured, classic, base, sum_offset, sum_masks):
    """Legal moves and the mover's observation of game b; returns the move count (more than
    the width of the legal arrays: nothing written but the count, the caller widens them).

    The legal arrays are rewritten in place: only slots past the new count that held a move
    before are padded again."""
    st = states[b]
    width = legal_ids.shape[1]
    prev = min(legal_count[b], width)
    n = core.legal_moves(st, buf)
    legal_count[b] = n
    if n > width:
        return n
    p = st[core.TO_MOVE]
    to_move[b] = p
    table = st[core.TABLE]
    for i in range(n):
        c = buf[0, i]
        m = buf[1, i]
        legal_card[b, i] = c
        legal_captured[b, i] = m
        if classic:
            legal_ids[b, i] = _encode(base, sum_offset, sum_masks, c, m)
        else:
            legal_ids[b, i] = encode_move(kernel, c, m, table)
    for i in range(n, prev):
        legal_card[b, i] = -1
        legal_captured[b, i] = 0
        legal_ids[b, i] = -1
    write_observation(st, p, obs[b])
    return n


@njit(cache=True)
def _refresh_one(states, b, kernel, buf, obs, to_move, legal_count, legal_ids, legal_card,
                 legal_captured):
    """_refresh of one game, from Python."""
    return _refresh(states, b, kernel, buf, obs, to_move, legal_count, legal_ids, legal_card,
                    legal_captured, is_classic(kernel), kernel[0], kernel[1], kernel[2])


@njit(cache=True)
def _new_match(states, rng, b, header):
    seed = np.int64(core.rng_next(rng, b) >> np.uint64(1))
    core.init_match_rules(states[b], seed, header)


@njit(cache=True)
def _reset_all(states, rng, seed, header, kernel, buf, obs, to_move, legal_count, legal_ids,
               legal_card, legal_captured):
    """Seed every game's generator from (seed, b), deal a first match; returns how many games
    have more legal moves than the legal arrays hold."""
    root = core.splitmix64(seed)
    over = 0
    classic = is_classic(kernel)
    base, sum_offset, sum_masks = kernel[0], kernel[1], kernel[2]
    for b in range(states.shape[0]):
        rng[b] = np.int64(core.splitmix64(root + np.uint64(b)))
        _new_match(states, rng, b, header)
        if _refresh(states, b, kernel, buf, obs, to_move, legal_count, legal_ids, legal_card,
                    legal_captured, classic, base, sum_offset, sum_masks) > legal_ids.shape[1]:
            over += 1
    return over


@njit(cache=True)
def _choose(actions, by_index, legal_count, legal_ids, chosen):
    """Index into each game's legal list of its action; returns the first bad game, else _OK."""
    for b in range(actions.shape[0]):
        a = actions[b]
        k = -1
        if by_index:
            if 0 <= a < legal_count[b]:
                k = a
        else:
            for i in range(legal_count[b]):
                if legal_ids[b, i] == a:
                    k = i
                    break
        if k < 0:
            return b
        chosen[b] = k
    return _OK


@njit(cache=True)
def _step(states, rng, chosen, hand_episodes, win_reward, header, kernel, buf, obs, to_move,
          legal_count, legal_ids, legal_card, legal_captured, rewards, dones, hand_over,
          match_over, hand_points, final_scores, winner):
    """Play move chosen[b] of its legal list in every game b, auto-reset finished episodes,
    rewrite the legal lists and write the observations. Returns how many games have more legal
    moves than the legal arrays hold.

    Rewards per seat: a side's value (hand points, or 1 for the match winner) minus the mean of
    the other sides' values, paid to every seat of the side."""
    over = 0
    classic = is_classic(kernel)
    base, sum_offset, sum_masks = kernel[0], kernel[1], kernel[2]
    n_seats = rewards.shape[1]
    sides = hand_points.shape[1]
    value = np.zeros(sides, dtype=np.float64)
    for b in range(states.shape[0]):
        st = states[b]
        k = chosen[b]
        # read before _refresh below rewrites game b's legal lists
        flags = core.apply_move(st, legal_card[b, k], legal_captured[b, k])
        done = False
        h_over = (flags & core.F_HAND_OVER) != 0
        m_over = (flags & core.F_MATCH_OVER) != 0
        # the outputs come zeroed (winner -1): only the end of a hand writes to them
        if h_over:
            for t in range(sides):
                hand_points[b, t] = st[core.LINES + t * core.NLINES + core.LINE_TOTAL]
                value[t] = hand_points[b, t]
            paid = not win_reward
            done = hand_episodes
            if m_over:
                done = True
                w = st[core.WINNER]
                winner[b] = w
                for t in range(sides):
                    final_scores[b, t] = st[core.SCORES + t]
                    if win_reward:
                        value[t] = 1.0 if t == w else 0.0
                paid = True
            if paid:
                total = 0.0
                for t in range(sides):
                    total += value[t]
                for p in range(n_seats):
                    t = p % sides
                    rewards[b, p] = value[t] - (total - value[t]) / (sides - 1)
        dones[b] = done
        hand_over[b] = h_over
        match_over[b] = m_over
        if m_over:
            _new_match(states, rng, b, header)
        elif h_over:
            core.next_hand(st)
        if _refresh(states, b, kernel, buf, obs, to_move, legal_count, legal_ids, legal_card,
                    legal_captured, classic, base, sum_offset, sum_masks) > legal_ids.shape[1]:
            over += 1
    return over


@njit(cache=True)
def _dense_masks(legal_count, legal_ids, out):
    for b in range(legal_count.shape[0]):
        for i in range(legal_count[b]):
            out[b, legal_ids[b, i]] = 1


def _as_array(v):
    """np.asarray(v), or v itself when it is no array-like (the checks then name its type)."""
    try:
        return np.asarray(v)
    except (TypeError, ValueError, RuntimeError):
        return v


MAX_ENVS = 1 << 20     # some 5.5 KB of arrays a game (classic): under 6 GB at the most


class BatchedScopa:
    """`num_envs` games under `rules` stepped together. See the module docstring for the arrays."""

    def __init__(self, num_envs: int, rules: Rules | None = None, seed: int = 0,
                 episode: str = "match", reward: str | None = None, napola: bool | None = None,
                 target: int | None = None):
        if (isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer))
                or not 1 <= num_envs <= MAX_ENVS):      # 2**70 was numpy's "maximum dimension" (review)
            raise ScopaError(f"num_envs must be a whole number from 1 to {MAX_ENVS:,}, got {number_text(num_envs)}")
        reward = check_episode_reward(episode, reward)
        self.rules = resolve_rules(rules, napola, target)
        self.num_envs = B = int(num_envs)
        self.seed = check_seed(seed)
        self.episode, self.reward = episode, reward
        self.table = action_table(self.rules)
        self.n_actions = self.table.size
        self.n_players = self.rules.players
        self.n_sides = self.rules.teams
        obs_layout = layout_for(self.rules)
        self.obs_size = obs_layout.size
        self.max_legal = initial_max_legal(self.rules)
        self._header = self.rules.to_header()
        self._states = np.zeros((B, core.STATE_SIZE), dtype=np.int64)
        self._rng = np.zeros(B, dtype=np.int64)
        self._buf = core.new_move_buffer()
        self._chosen = np.zeros(B, dtype=np.int64)
        self._alloc()
        # before reset() there is no game: no seat to move, a blank observation (the kernels
        # fill np.empty arrays on every step; unset, these showed whatever memory held)
        self.obs.fill(0)
        self.to_move.fill(-1)

    # ---- public arrays --------------------------------------------------------------------
    def _alloc(self):
        """The arrays that describe the current moves, padded (rewritten in place by steps)."""
        B, W = self.num_envs, self.max_legal
        self.legal_count = np.zeros(B, dtype=np.int64)
        self.legal_ids = np.full((B, W), -1, dtype=np.int64)
        self.legal_card = np.full((B, W), -1, dtype=np.int64)
        self.legal_captured = np.zeros((B, W), dtype=np.int64)
        self._new_outputs()

    def _new_outputs(self):
        """Fresh obs / to_move arrays, so an observation handed out is never overwritten."""
        self.obs = np.empty((self.num_envs, self.obs_size), dtype=np.int8)
        self.to_move = np.empty(self.num_envs, dtype=np.int64)

    def _kernel_args(self):
        return (self.table.kernel, self._buf, self.obs, self.to_move, self.legal_count,
                self.legal_ids, self.legal_card, self.legal_captured)

    @property
    def states(self) -> np.ndarray:
        """The (B, STATE_SIZE) engine states (read them; writing breaks the cached moves)."""
        return self._states

    # ---- API --------------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> np.ndarray:
        """Deal a new match in every game (from `seed`, else the last seed given: to reset() or
        else the constructor); returns obs."""
        if seed is not None:
            self.seed = check_seed(seed)
        self.max_legal = initial_max_legal(self.rules)
        self._alloc()
        over = _reset_all(self._states, self._rng, np.uint64(self.seed & (2**64 - 1)),
                          self._header, *self._kernel_args())
        self._widen(over)
        self._started = True
        return self.obs

    def step(self, actions) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
        """Play action ids (B,). Raises ScopaError naming the first game whose id is illegal."""
        return self._play(actions, by_index=False)

    def step_index(self, idx) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
        """Play legal_ids[b, idx[b]] in every game b (for policies that score legal moves)."""
        return self._play(idx, by_index=True)

    def action_masks(self) -> np.ndarray:
        """Dense int8 (B, n_actions) mask of the legal moves, built on demand."""
        if not hasattr(self, "_started"):
            raise ScopaError("call reset() before action_masks(): there are no games yet")
        out = np.zeros((self.num_envs, self.n_actions), dtype=np.int8)
        _dense_masks(self.legal_count, self.legal_ids, out)
        return out

    def state_dict(self) -> dict:
        """Copies of everything that determines the games from here on (numpy arrays)."""
        if not hasattr(self, "_started"):
            raise ScopaError("call reset() before state_dict(): there are no games to save yet")
        d = {"seed": self.seed, "states": self._states.copy(), "rng": self._rng.copy()}
        for name in _POSITION:
            d[name] = getattr(self, name).copy()
        return d

    def load_state_dict(self, d: dict) -> None:
        """Restore what state_dict() saved (same num_envs and rules); later steps repeat bit
        for bit. What is not such a dict (a key missing, an array of another kind or shape) is
        one ScopaError naming it (they were KeyError, TypeError, ValueError; review); so is a game
        that is not one (Game.from_state's checks) or whose saved moves and observation are not
        its own (a checkpoint edited by hand, its checksum made again, trained on with a card
        999 or a move id 10**9; review)."""
        if not isinstance(d, dict):
            raise ScopaError(f"load_state_dict needs the dict state_dict() returns, got {type(d).__name__}")
        missing = [k for k in ("seed", "states", "rng", *_POSITION) if k not in d]
        if missing:
            raise ScopaError(f"the saved state lacks {', '.join(map(repr, missing))}: not what "
                             f"state_dict() returns")
        check_seed(d["seed"], "the saved state's seed")
        # torch tensors (training's checkpoints hold them) and lists are taken as arrays
        d = {k: (v if isinstance(v, np.ndarray) or k == "seed" or v is None else _as_array(v))
             for k, v in d.items()}
        B = self.num_envs
        width = np.shape(d["legal_ids"])[1:2]
        for name in ("states", "rng", *_POSITION):
            a = d[name]
            if not isinstance(a, np.ndarray) or not np.issubdtype(a.dtype, np.integer):
                what = f"{a.dtype} array" if isinstance(a, np.ndarray) else type(a).__name__
                raise ScopaError(f"the saved state's {name!r} must be an integer array, got {what}")
            want = {"states": self._states.shape, "rng": self._rng.shape, "obs": (B, self.obs_size),
                    "to_move": (B,), "legal_count": (B,)}.get(name, (B, *width))
            if name not in ("states", "obs") and a.shape != want:
                hint = " (num_envs differs?)" if a.shape[:1] != (B,) else ""
                raise ScopaError(f"the saved state's {name!r} has shape {a.shape}, this env needs "
                                 f"{want}{hint}")
        if len(width) != 1 or width[0] < 1:
            raise ScopaError(f"the saved state's 'legal_ids' has shape {np.shape(d['legal_ids'])}: "
                             f"one row of legal moves per game")
        if np.shape(d["states"]) != self._states.shape:
            # the hint as for the arrays above: a state of other width is another engine layout,
            # which a resume (whose env has the file's num_envs) blamed on num_envs (an upgrades review)
            saved = np.shape(d["states"])
            hint = (" (num_envs differs?)" if saved[:1] != (B,) else
                    f": an engine state of {saved[1]} slots where this version's has "
                    f"{self._states.shape[1]} (another version's layout, or an edited file; "
                    f"training/env.py converts the 134- and 156-slot states of older checkpoints)"
                    if len(saved) == 2 else "")
            raise ScopaError(f"saved games have shape {saved}, this env has "
                             f"{self._states.shape}{hint}")
        if np.shape(d["obs"])[1:] != (self.obs_size,):
            raise ScopaError(f"saved observations have {np.shape(d['obs'])[1:]} values, this "
                             f"env's rules give {self.obs_size} (rules differ?)")
        # the rules are in each game's header slots: other rules with the same observation size
        # (quindici for classic) loaded, and their action ids overran this env's masks
        header = self.rules.to_header()
        slots = list(core.OPTION_SLOTS)
        other = (np.asarray(d["states"])[:, slots] != header[slots]).any(axis=1)
        if other.any():
            game = int(np.flatnonzero(other)[0])
            raise ScopaError(f"saved game {game} was played under other rules than this env's "
                             f"({self.rules.describe()})")
        saved = {name: np.array(d[name], dtype=getattr(self, name).dtype, copy=True) for name in _POSITION}
        self._check_games(np.array(d["states"], dtype=np.int64), saved)
        self.seed = int(d["seed"])
        self._states[:] = d["states"]
        self._rng[:] = d["rng"]
        for name in _POSITION:
            setattr(self, name, saved[name])
        self.max_legal = self.legal_ids.shape[1]
        self._started = True

    def _check_games(self, states: np.ndarray, saved: dict) -> None:
        """Each saved game is one (Game.from_state's checks), and the saved moves and
        observations are what it gives (worked out again)."""
        from .game import Game
        B, W = saved["legal_ids"].shape
        again = {"obs": np.zeros_like(saved["obs"]), "to_move": np.zeros(B, dtype=np.int64),
                 "legal_count": np.zeros(B, dtype=np.int64), "legal_ids": np.full((B, W), -1, dtype=np.int64),
                 "legal_card": np.full((B, W), -1, dtype=np.int64),
                 "legal_captured": np.zeros((B, W), dtype=np.int64)}
        for b in range(B):
            try:
                Game.from_state(self.rules, states[b])
            except ScopaError as e:
                raise ScopaError(f"saved game {b} is not a game of these rules: {e}") from None
            # a batched game never rests at a hand's or a match's end (step deals on): one that
            # did jammed every step of the batch, or played on in a match said to be over (review)
            if states[b, core.PHASE] != core.PLAYING:
                raise ScopaError(f"saved game {b} is at the end of a "
                                 f"{'hand' if states[b, core.PHASE] == core.HAND_OVER else 'match'}, "
                                 f"where a batched game never rests: the saved state was changed")
            _refresh_one(states, b, self.table.kernel, self._buf, *(again[n] for n in _POSITION))
            if again["legal_count"][b] > W:
                # arrays narrower than the game's moves: the refresh wrote only the count, so
                # zeroed arrays matched, and a step played card -1 (review)
                raise ScopaError(f"saved game {b} has {int(again['legal_count'][b])} legal moves, its "
                                 f"saved legal arrays hold {W}: the saved state was changed")
            for name in _POSITION:
                if not np.array_equal(again[name][b], saved[name][b]):
                    raise ScopaError(f"saved game {b}'s {name} is not what its state gives: the saved "
                                     f"state was changed")

    # ---- internals --------------------------------------------------------------------------
    def _play(self, actions, by_index: bool):
        a = _as_array(actions)      # a ragged list was numpy's ValueError (review)
        if not isinstance(a, np.ndarray) or a.shape != (self.num_envs,) or not np.issubdtype(a.dtype, np.integer):
            got = f"{a.dtype} {a.shape}" if isinstance(a, np.ndarray) else f"{type(a).__name__} {actions!r:.60}"
            raise ScopaError(f"step needs an integer array of shape ({self.num_envs},), got {got}")
        given, a = a, a.astype(np.int64, copy=False)    # a uint64 above 2**63 wraps: illegal
        if not hasattr(self, "_started"):
            raise ScopaError("call reset() before step()")
        bad = _choose(a, by_index, self.legal_count, self.legal_ids, self._chosen)
        if bad != _OK:
            what = "legal-move index" if by_index else "action"
            n = int(self.legal_count[bad])
            raise ScopaError(f"game {bad}: {what} {int(given[bad])} is not legal (the game has {n} "
                             f"legal moves; ids {self.legal_ids[bad, :n].tolist()})")
        B, N, T = self.num_envs, self.n_players, self.n_sides
        rewards = np.zeros((B, N), dtype=np.float32)
        dones = np.empty(B, dtype=np.bool_)
        hand_over = np.empty(B, dtype=np.bool_)
        match_over = np.empty(B, dtype=np.bool_)
        hand_points = np.zeros((B, T), dtype=np.int64)
        final_scores = np.zeros((B, T), dtype=np.int64)
        winner = np.full(B, -1, dtype=np.int64)
        mover = self.to_move
        self._new_outputs()
        over = _step(self._states, self._rng, self._chosen, self.episode == "hand",
                     self.reward == "win", self._header, *self._kernel_args(), rewards, dones,
                     hand_over, match_over, hand_points, final_scores, winner)
        self._widen(over)
        info = {"mover": mover, "hand_over": hand_over, "match_over": match_over,
                "hand_points": hand_points, "final_scores": final_scores, "winner": winner}
        return self.obs, rewards, dones, info

    def _widen(self, over: int) -> None:
        """Some games have more legal moves than the legal arrays hold: widen the arrays
        (doubling, up to core.MAX_MOVES) and describe those games' positions again."""
        if not over:
            return
        need = int(self.legal_count.max())
        width = self.max_legal
        while width < need:
            width *= 2
        width = min(width, core.MAX_MOVES)
        old = self.max_legal
        for name, pad in (("legal_ids", -1), ("legal_card", -1), ("legal_captured", 0)):
            a = getattr(self, name)
            wide = np.full((self.num_envs, width), pad, dtype=np.int64)
            wide[:, :old] = a
            setattr(self, name, wide)
        self.max_legal = width
        for b in np.flatnonzero(self.legal_count > old):
            _refresh_one(self._states, int(b), *self._kernel_args())


def initial_max_legal(rules: Rules) -> int:
    """The starting width of the legal-move arrays for `rules` (see the module docstring)."""
    return MAX_LEGAL if rules.quindici == "off" else MAX_LEGAL_QUINDICI
