"""B games stepped at once in compiled code: the environment training uses.

The state of game b is row b of one (B, STATE_SIZE) int64 array; a step is one numba kernel
that plays every game's move with the engine's own kernels (core.apply_move, core.next_hand,
core.init_match), then writes each game's next legal moves and the observation of its player
to move. No rule lives here.

Legal moves are kept *sparse*: per game up to MAX_LEGAL action ids, the played card and the
captured mask of each, padded with -1 / -1 / 0. The dense (B, n_actions) mask is built only when
`action_masks()` is called (16,200 int8 per game: it costs more than the step itself).

MAX_LEGAL: in two-player scopa a hand holds at most 3 cards. An over-approximation of every
table the rules can reach (start from any 4 cards with at most 2 re; lay a card only when its
rank is neither on the table nor a sum of table cards; capture one equal card or a set summing
to the rank) has 17,960 rank multisets, and the most legal moves any of them allows with any
3-card hand is 75 (three re against 1, 2, 3, 3, 3, 3, 4, 5, 7, 8). tests/test_batched.py
recomputes this bound. MAX_LEGAL = 80 leaves a margin; a state with more raises instead of
truncating.

Episodes and rewards (per seat, zero-sum, float32 (B, 2)):
- episode="match": an episode is a whole match; hands follow each other inside it.
  episode="hand": an episode is one hand; the next episode is the next hand of the same match
  (a new match once one ends), so observations keep real match scores.
- reward="win": +1 / -1 when the match ends. reward="points": each hand's point difference,
  paid when that hand ends. The default is "win" for match episodes and "points" for hand
  episodes; "win" with hand episodes is refused (most episodes would carry no signal).
Finished games reset themselves: `dones[b]` marks the step that ended game b's episode, and the
returned observation of game b is already the first of its next episode.

Seeding: game b draws the seeds of its matches from its own generator, seeded from (seed, b),
so the same seed and B give the same games, bit for bit. `state_dict()` / `load_state_dict()`
save and restore all of it (checkpoints that resume bit for bit).

Arrays: `obs`, `to_move` and everything `step` returns are new arrays at every step (keep them
as they are). `legal_count`, `legal_ids`, `legal_card` and `legal_captured` describe the
current position and are rewritten in place by every step: copy them to keep them.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from . import core
from .actions import _encode, action_table
from .errors import ScopaError
from .observation import OBS_SIZE, write_observation
from .rules import Rules

MAX_LEGAL = 80

_OK = -1
# the arrays of the current position, saved by state_dict()
_POSITION = ("obs", "to_move", "legal_count", "legal_ids", "legal_card", "legal_captured")


def check_episode_reward(episode: str, reward: str | None) -> str:
    """Validate the episode/reward options (shared by every env); returns the reward to use."""
    if episode not in ("match", "hand"):
        raise ScopaError(f"episode must be 'match' or 'hand', got {episode!r}")
    if reward is None:
        reward = "win" if episode == "match" else "points"
    if reward not in ("win", "points"):
        raise ScopaError(f"reward must be 'win' or 'points', got {reward!r}")
    if reward == "win" and episode == "hand":
        raise ScopaError("reward='win' pays only when a match ends: with episode='hand' use "
                         "reward='points'")
    return reward


@njit(cache=True)
def _refresh(states, b, base, sum_offset, sum_masks, buf, obs, to_move, legal_count, legal_ids,
             legal_card, legal_captured):
    """Legal moves and the mover's observation of game b; returns the move count.

    The legal arrays are rewritten in place: only slots past the new count that held a move
    before are padded again."""
    st = states[b]
    prev = min(legal_count[b], MAX_LEGAL)
    n = core.legal_moves(st, buf)
    legal_count[b] = n
    if n > MAX_LEGAL:
        return n
    p = st[core.TO_MOVE]
    to_move[b] = p
    for i in range(n):
        c = buf[0, i]
        m = buf[1, i]
        legal_card[b, i] = c
        legal_captured[b, i] = m
        legal_ids[b, i] = _encode(base, sum_offset, sum_masks, c, m)
    for i in range(n, prev):
        legal_card[b, i] = -1
        legal_captured[b, i] = 0
        legal_ids[b, i] = -1
    write_observation(st, p, obs[b])
    return n


@njit(cache=True)
def _new_match(states, rng, b, napola, target):
    seed = np.int64(core.rng_next(rng, b) >> np.uint64(1))
    core.init_match(states[b], seed, 2, napola, target)


@njit(cache=True)
def _reset_all(states, rng, seed, napola, target, base, sum_offset, sum_masks, buf, obs, to_move,
               legal_count, legal_ids, legal_card, legal_captured):
    """Seed every game's generator from (seed, b), deal a first match; returns a game index
    whose legal moves overflow MAX_LEGAL, else _OK."""
    root = core.splitmix64(seed)
    for b in range(states.shape[0]):
        rng[b] = np.int64(core.splitmix64(root + np.uint64(b)))
        _new_match(states, rng, b, napola, target)
        if _refresh(states, b, base, sum_offset, sum_masks, buf, obs, to_move, legal_count,
                    legal_ids, legal_card, legal_captured) > MAX_LEGAL:
            return b
    return _OK


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
def _step(states, rng, chosen, hand_episodes, win_reward, napola, target, base, sum_offset,
          sum_masks, buf, obs, to_move, legal_count, legal_ids, legal_card, legal_captured,
          rewards, dones, hand_over, match_over, hand_points, final_scores, winner):
    """Play move chosen[b] of its legal list in every game b, auto-reset finished episodes,
    rewrite the legal lists and write the observations. Returns a game whose legal moves
    overflow MAX_LEGAL, else _OK."""
    bad = _OK
    for b in range(states.shape[0]):
        st = states[b]
        k = chosen[b]
        # read before _refresh below rewrites game b's legal lists
        flags = core.apply_move(st, legal_card[b, k], legal_captured[b, k])
        r0 = 0.0
        done = False
        h_over = (flags & core.F_HAND_OVER) != 0
        m_over = (flags & core.F_MATCH_OVER) != 0
        hp0 = 0
        hp1 = 0
        if h_over:
            hp0 = st[core.LINES + core.LINE_TOTAL]
            hp1 = st[core.LINES + core.NLINES + core.LINE_TOTAL]
            if not win_reward:
                r0 = float(hp0 - hp1)
            if hand_episodes:
                done = True
        if m_over:
            done = True
            if win_reward:
                r0 = 1.0 if st[core.WINNER] == 0 else -1.0
            final_scores[b, 0] = st[core.SCORES]
            final_scores[b, 1] = st[core.SCORES + 1]
            winner[b] = st[core.WINNER]
        else:
            final_scores[b, 0] = 0
            final_scores[b, 1] = 0
            winner[b] = -1
        rewards[b, 0] = r0
        rewards[b, 1] = -r0
        dones[b] = done
        hand_over[b] = h_over
        match_over[b] = m_over
        hand_points[b, 0] = hp0
        hand_points[b, 1] = hp1
        if m_over:
            _new_match(states, rng, b, napola, target)
        elif h_over:
            core.next_hand(st)
        if _refresh(states, b, base, sum_offset, sum_masks, buf, obs, to_move, legal_count,
                    legal_ids, legal_card, legal_captured) > MAX_LEGAL and bad == _OK:
            bad = b
    return bad


@njit(cache=True)
def _dense_masks(legal_count, legal_ids, out):
    for b in range(legal_count.shape[0]):
        for i in range(legal_count[b]):
            out[b, legal_ids[b, i]] = 1


class BatchedScopa:
    """`num_envs` two-player games stepped together. See the module docstring for the arrays."""

    def __init__(self, num_envs: int, rules: Rules | None = None, seed: int = 0,
                 episode: str = "match", reward: str | None = None):
        if (isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer))
                or num_envs < 1):
            raise ScopaError(f"num_envs must be a whole number >= 1, got {num_envs!r}")
        reward = check_episode_reward(episode, reward)
        self.rules = rules if rules is not None else Rules()
        if not isinstance(self.rules, Rules):
            raise ScopaError(f"rules must be a Rules object, got {type(rules).__name__}")
        self.num_envs = B = int(num_envs)
        self.seed = int(seed)
        self.episode, self.reward = episode, reward
        self.table = action_table(self.rules)
        self.n_actions = self.table.size
        self.obs_size = OBS_SIZE
        self.max_legal = MAX_LEGAL
        self._states = np.zeros((B, core.STATE_SIZE), dtype=np.int64)
        self._rng = np.zeros(B, dtype=np.int64)
        self._buf = core.new_move_buffer()
        self._chosen = np.zeros(B, dtype=np.int64)
        self._alloc()

    # ---- public arrays --------------------------------------------------------------------
    def _alloc(self):
        """The arrays that describe the current moves, padded (rewritten in place by steps)."""
        B = self.num_envs
        self.legal_count = np.zeros(B, dtype=np.int64)
        self.legal_ids = np.full((B, MAX_LEGAL), -1, dtype=np.int64)
        self.legal_card = np.full((B, MAX_LEGAL), -1, dtype=np.int64)
        self.legal_captured = np.zeros((B, MAX_LEGAL), dtype=np.int64)
        self._new_outputs()

    def _new_outputs(self):
        """Fresh obs / to_move arrays, so an observation handed out is never overwritten."""
        self.obs = np.empty((self.num_envs, OBS_SIZE), dtype=np.int8)
        self.to_move = np.empty(self.num_envs, dtype=np.int64)

    def _kernel_args(self):
        t = self.table
        return (t.base, t.sum_offset, t.sum_masks, self._buf, self.obs, self.to_move,
                self.legal_count, self.legal_ids, self.legal_card, self.legal_captured)

    @property
    def states(self) -> np.ndarray:
        """The (B, STATE_SIZE) engine states (read them; writing breaks the cached moves)."""
        return self._states

    # ---- API --------------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> np.ndarray:
        """Deal a new match in every game (from `seed`, else the constructor's); returns obs."""
        if seed is not None:
            self.seed = int(seed)
        self._alloc()
        bad = _reset_all(self._states, self._rng, np.uint64(self.seed & (2**64 - 1)),
                         int(self.rules.napola), self.rules.target, *self._kernel_args())
        self._check_overflow(bad)
        return self.obs

    def step(self, actions) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
        """Play action ids (B,). Raises ScopaError naming the first game whose id is illegal."""
        return self._play(actions, by_index=False)

    def step_index(self, idx) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
        """Play legal_ids[b, idx[b]] in every game b (for policies that score legal moves)."""
        return self._play(idx, by_index=True)

    def action_masks(self) -> np.ndarray:
        """Dense int8 (B, n_actions) mask of the legal moves, built on demand."""
        out = np.zeros((self.num_envs, self.n_actions), dtype=np.int8)
        _dense_masks(self.legal_count, self.legal_ids, out)
        return out

    def state_dict(self) -> dict:
        """Copies of everything that determines the games from here on (numpy arrays)."""
        d = {"seed": self.seed, "states": self._states.copy(), "rng": self._rng.copy()}
        for name in _POSITION:
            d[name] = getattr(self, name).copy()
        return d

    def load_state_dict(self, d: dict) -> None:
        """Restore what state_dict() saved (same num_envs); later steps repeat bit for bit."""
        if np.shape(d["states"]) != self._states.shape:
            raise ScopaError(f"saved games have shape {np.shape(d['states'])}, this env has "
                             f"{self._states.shape} (num_envs differs?)")
        self.seed = int(d["seed"])
        self._states[:] = d["states"]
        self._rng[:] = d["rng"]
        for name in _POSITION:
            setattr(self, name, np.array(d[name], dtype=getattr(self, name).dtype, copy=True))
        self._started = True

    # ---- internals --------------------------------------------------------------------------
    def _play(self, actions, by_index: bool):
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or not np.issubdtype(a.dtype, np.integer):
            raise ScopaError(f"step needs an integer array of shape ({self.num_envs},), "
                             f"got {a.dtype} {a.shape}")
        a = a.astype(np.int64, copy=False)
        if not hasattr(self, "_started"):
            raise ScopaError("call reset() before step()")
        bad = _choose(a, by_index, self.legal_count, self.legal_ids, self._chosen)
        if bad != _OK:
            what = "legal-move index" if by_index else "action"
            n = int(self.legal_count[bad])
            raise ScopaError(f"game {bad}: {what} {int(a[bad])} is not legal (the game has {n} "
                             f"legal moves; ids {self.legal_ids[bad, :n].tolist()})")
        B = self.num_envs
        rewards = np.empty((B, 2), dtype=np.float32)
        dones = np.empty(B, dtype=np.bool_)
        hand_over = np.empty(B, dtype=np.bool_)
        match_over = np.empty(B, dtype=np.bool_)
        hand_points = np.empty((B, 2), dtype=np.int64)
        final_scores = np.empty((B, 2), dtype=np.int64)
        winner = np.empty(B, dtype=np.int64)
        mover = self.to_move
        self._new_outputs()
        bad = _step(self._states, self._rng, self._chosen, self.episode == "hand",
                    self.reward == "win", int(self.rules.napola), self.rules.target,
                    *self._kernel_args(), rewards, dones, hand_over, match_over, hand_points,
                    final_scores, winner)
        self._check_overflow(bad)
        info = {"mover": mover, "hand_over": hand_over, "match_over": match_over,
                "hand_points": hand_points, "final_scores": final_scores, "winner": winner}
        return self.obs, rewards, dones, info

    def _check_overflow(self, bad: int):
        self._started = True
        if bad != _OK:
            raise ScopaError(f"game {bad}: {int(self.legal_count[bad])}+ legal moves, more than "
                             f"MAX_LEGAL={MAX_LEGAL}; raise MAX_LEGAL in scopa_env/batched.py")
