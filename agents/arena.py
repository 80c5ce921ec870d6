"""Matches between agents through `Game`, on duplicate deals, and their summary.

Every deal is played once per side (rotation of the sides): with 2 players, match seed s with
agent A in seat 0 and B in seat 1, then the same seed with the seats swapped. With any rules,
rotation r puts the agent at seat r (so it plays for side r), its partner opposite in pairs (a
copy of the agent, or the `partner` given), and opponent copies on every other seat, each in the
same place relative to the agent in every rotation: 2 matches a deal with 2 sides (2 players,
pairs), 3 with 3 sides (3 players, six in three pairs). The game's generator only shuffles and
draws the first dealer, so hand k of every match of a deal is dealt identically (as long as the
matches last that long) and each side gets the agent once: the luck of the cards cancels.
Each agent is reset before a match with a seed derived from the deal seed and its role (agent,
opponent, partner, further opponents), so the same object uses the same seed in every match of a
deal and a deal gives the same result in any process: `workers=2` reproduces `workers=1` exactly.

`evaluate(agent, opponent, matches, seed, rules)` is the one evaluation path (evaluate.py and
training use it); it returns the keys evaluate.py --json writes.
"""
from __future__ import annotations

import copy
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from scopa_env.cards import is_whole, number_text
from scopa_env.errors import ScopaError
from scopa_env.game import Game
from scopa_env.presets import resolve_rules
from scopa_env.records import Recorder
from scopa_env.rules import Rules
from scopa_env.seeds import check_seed, offset_seed, pair_entropy

from . import stats
from ._workers import Workers
from .base import Agent

AGENT, OPPONENT, PARTNER = 0, 1, 2      # roles; extra opponents have roles 3, 4, ...


@dataclass
class MatchResult:
    """One match, seen by side. `agent_seat` is where the evaluated agent (role AGENT) sat and
    `agent_side` the side it played for (the same number with 2 or 3 players, and in pairs too,
    where the agent sits at seat = its side and its partner opposite)."""

    seed: int
    agent_seat: int
    winner: int                           # the winning side
    totals: list[int]                     # match totals per side
    hand_points: list[list[int]]          # per hand: points of side 0, side 1, ...
    hand_scope: list[list[int]]           # per hand: scope of side 0, side 1, ...
    record: dict | None = field(default=None, repr=False)
    agent_side: int = -1

    def __post_init__(self):
        if self.agent_side < 0:
            self.agent_side = self.agent_seat

    @property
    def agent_won(self) -> bool:
        return self.winner == self.agent_side


def pair_seed(seed: int, index: int) -> int:
    """The match seed of duplicate deal `index` in a run seeded `seed` (0 <= seed < 2**63):
    a hash of scopa_env.seeds.pair_entropy (below 2**32 [seed, index], as it always was; every
    figure quoted used such seeds)."""
    words = pair_entropy(seed, index)
    return int(np.random.SeedSequence(words).generate_state(1, np.uint64)[0] & (2**62 - 1))


def agent_seed(match_seed: int, role: int) -> int:
    return int(np.random.SeedSequence([match_seed, 7919 + role]).generate_state(1, np.uint64)[0]
               & (2**62 - 1))


def play_match(seats: list[Agent], rules: Rules, seed: int, seat_seeds: list[int],
               agent_seat: int = 0, record: bool = False,
               before_move: Callable[[Game, int], None] | None = None) -> MatchResult:
    """Play one match: seats[p] plays seat p; each agent is reset with seat_seeds[p] first.
    before_move(game, seat), if given, is called before each decision (a measuring hook:
    benchmarks/hand_value.py tells its search the opponent's hand there)."""
    rules = resolve_rules(rules)     # a preset name was an AttributeError
    if len(seats) != rules.players:
        raise ScopaError(f"these rules need {rules.players} seats, got {len(seats)} agents")
    if len({id(a) for a in seats}) != len(seats):
        raise ScopaError("every seat needs its own agent object (an agent keeps per-match state)")
    # zip cut a short list: the seats past it were never reset, and the match was another each
    # time (review)
    if not isinstance(seat_seeds, (list, tuple)) or len(seat_seeds) != len(seats):
        raise ScopaError(f"seat_seeds: one seed per seat, {len(seats)} of them, got {number_text(seat_seeds)}")
    for a, s in zip(seats, seat_seeds, strict=True):
        a.reset(s)
    g = Game(rules, seed)
    recorder = Recorder(g, [a.name for a in seats]) if record else None
    play = recorder.play_action if recorder else g.play_action
    points, scope = [], []
    while True:
        while not g.hand_over:
            p = g.to_move
            if before_move is not None:
                before_move(g, p)
            action = seats[p].act(g.observation(p))
            try:
                play(action)
            except ScopaError as e:
                # the engine's words alone named neither the agent nor its answer: someone's own
                # agent was hard to tell from a bug of the game (review)
                raise ScopaError(f"agent {seats[p].name!r} (seat {p}) chose illegal action "
                                 f"{number_text(action)}: {e}") from None
        score = g.hand_score()
        points.append([s["total"] for s in score])
        scope.append([s["scope"] for s in score])
        if g.match_over:
            break
        if recorder:
            recorder.next_hand()
        else:
            g.next_hand()
    rec = recorder.record if recorder else None
    return MatchResult(int(seed), agent_seat, int(g.winner), g.scores, points, scope, rec,
                       agent_side=rules.team_of(agent_seat))


def rotation_seats(rules: Rules, r: int) -> list[tuple[str, int]]:
    """Who sits where in rotation r of a deal: per seat ("agent" | "partner" | "opponent", k),
    k the index among the opponents (0 the main one), counted in turn order from the agent.

    The agent sits at seat r (so it plays for side r) and its partner, in pairs, opposite; the
    other seats go to the opponents in turn order after the agent, so each object keeps its
    place relative to the agent in every rotation."""
    n, sides = rules.players, rules.teams
    out: list[tuple[str, int]] = [("", 0)] * n
    k = 0
    for j in range(n):
        s = (r + j) % n
        if j == 0:
            out[s] = ("agent", 0)
        elif s % sides == r % sides:
            out[s] = ("partner", 0)
        else:
            out[s] = ("opponent", k)
            k += 1
    return out


def play_deal(agent: Agent, opponents: list[Agent], rules: Rules, seed: int, record: bool = False,
              partner: Agent | None = None) -> tuple[MatchResult, ...]:
    """The duplicate deal of match seed `seed`: one match per side, the agent's side rotated over
    the sides (rotation r: agent at seat r). `opponents`: one object per opponent seat."""
    rules = resolve_rules(rules)
    objects = {"agent": [agent], "partner": [partner], "opponent": opponents}
    seeds = {"agent": [agent_seed(seed, AGENT)], "partner": [agent_seed(seed, PARTNER)],
             "opponent": [agent_seed(seed, OPPONENT if k == 0 else PARTNER + k) for k in range(len(opponents))]}
    out = []
    for r in range(rules.teams):
        where = rotation_seats(rules, r)
        seats = [objects[role][k] for role, k in where]
        out.append(play_match(seats, rules, seed, [seeds[role][k] for role, k in where], agent_seat=r,
                              record=record))
    return tuple(out)


def play_pair(agent: Agent, opponent: Agent, rules: Rules, seed: int,
              record: bool = False) -> tuple[MatchResult, MatchResult]:
    """The duplicate pair of a 2-player match seed `seed`: agent in seat 0, then agent in seat 1."""
    return play_deal(agent, [opponent], rules, seed, record)


# ---- running many deals, in one process or several -------------------------------------
_WORKER: dict = {}


def _build(spec_or_agent, rules: Rules, seed: int) -> Agent:
    if isinstance(spec_or_agent, Agent):
        if spec_or_agent.rules != rules:    # it would judge the game by the other rules
            raise ScopaError(f"agent {spec_or_agent.name} was made for rules "
                             f"{spec_or_agent.rules.describe()}, the matches are played under "
                             f"{rules.describe()}: make it with rules=")
        return spec_or_agent
    if isinstance(spec_or_agent, os.PathLike):      # a checkpoint's Path, as make_agent takes
        spec_or_agent = os.fspath(spec_or_agent)
    if not isinstance(spec_or_agent, str):
        # an object with act() and reset() was 'unknown agent <object at 0x...>: use easy, ...'
        raise ScopaError(f"an agent is an agents.Agent object or a spec text ('easy', 'path.pt'), got "
                         f"{type(spec_or_agent).__name__}: subclass Agent (README, 'Your own player')")
    from . import make_agent
    return make_agent(spec_or_agent, rules=rules, seed=seed)


def _another(spec_or_agent, built: Agent, rules: Rules, seed: int) -> Agent:
    """One more agent like `built` for another seat: from its spec, or a copy of the object."""
    if isinstance(spec_or_agent, Agent):
        return copy.deepcopy(built)
    return _build(spec_or_agent, rules, seed)


def _lineup(agent, opponent, partner, rules: Rules, seed: int) -> dict:
    """Every object a deal needs: the agent, its partner in pairs (a copy of the agent unless
    `partner` is given), one opponent per opponent seat (copies of `opponent`)."""
    a = _build(agent, rules, seed)
    o = _build(opponent, rules, offset_seed(seed, 1))
    if a is o:
        raise ScopaError("agent and opponent must be two objects (make two agents of one spec)")
    n_opp = rules.players - (1 if rules.players <= 3 else 2)
    opponents = [o] + [_another(opponent, o, rules, offset_seed(seed, 2 + k)) for k in range(n_opp - 1)]
    mate = None
    if rules.players > 3:
        mate = _another(agent, a, rules, offset_seed(seed, 2 + n_opp)) if partner is None else \
            _build(partner, rules, offset_seed(seed, 2 + n_opp))
        if mate is a or any(mate is x for x in opponents):
            raise ScopaError("the partner must be an object of its own")
    elif partner is not None:
        raise ScopaError(f"a partner needs pairs (4 or 6 players); these rules have {rules.players}")
    return {"agent": a, "opponents": opponents, "partner": mate}


def _init_worker(agent, opponent, rules, seed, record, partner=None):
    _WORKER.update(_lineup(agent, opponent, partner, rules, seed), rules=rules, seed=seed, record=record)


def _run_pair(index: int) -> tuple[MatchResult, ...]:
    w = _WORKER
    return play_deal(w["agent"], w["opponents"], w["rules"], pair_seed(w["seed"], index), w["record"],
                     w["partner"])


def _run_pairs(indices: range) -> list[tuple[MatchResult, ...]]:
    return [_run_pair(i) for i in indices]


def run_pairs(agent, opponent, pairs: int, seed: int = 0, rules: Rules | None = None,
              workers: int = 1, record: bool = False, progress=None, partner=None,
              on_record=None) -> list[MatchResult]:
    """Play `pairs` duplicate deals (each once per side: two matches with 2 sides, three with 3);
    results in deal order (matches S*i .. S*i + S - 1 share deals).

    record=True keeps each match's game record in its result's `record`; on_record(record) is
    called instead with each record, in match order, as its deal finishes, and the result keeps
    none (evaluate.py --record writes them as they come: kept, they grew its memory by about
    80 KB a match; review).

    agent/opponent/partner: Agent objects or specs for make_agent; the other seats get copies.
    `progress(n)` is called as each deal finishes, with the n matches it just finished (a step,
    as tqdm's update(n) takes it, not a running total). `workers` is capped at `pairs` (the
    numbers are the same with any count). Ctrl-C raises KeyboardInterrupt here, in the calling
    process only, after the workers are terminated. rules: a Rules object, a preset name or None.
    """
    rules = resolve_rules(rules)
    # 1.7 played seed 1's deals, and True, "3" or None ran or failed deep inside (an API review):
    # the README's one error, as evaluate.py's --seed
    seed = check_seed(seed, "seed")
    if progress is not None and not callable(progress):
        raise ScopaError(f"progress must be a function of the matches just finished (tqdm's update), "
                         f"got {progress!r}")
    # 1.5, None or "2" were a TypeError in min(); 0 and -1 ran as 1 (review); a numpy integer
    # counts, as it does for matches and seed
    if not is_whole(workers) or workers < 1:
        raise ScopaError(f"workers must be a whole number of processes, at least 1, got {number_text(workers)}")
    workers = int(workers)
    if on_record is not None:
        if not callable(on_record):
            raise ScopaError(f"on_record must be a function of one game record, got {on_record!r}")
        if record:
            raise ScopaError("record=True keeps the records in the results and on_record takes them "
                             "as they come: give one of the two")
        record = True
    if not isinstance(agent, Agent):
        agent = _build(agent, rules, seed)
    if not isinstance(opponent, Agent):
        opponent = _build(opponent, rules, offset_seed(seed, 1))
    if agent is opponent:
        raise ScopaError("agent and opponent must be two objects (make two agents of one spec)")
    out: list[MatchResult] = []
    per_deal = rules.teams

    def deal_done(results: list[MatchResult]) -> None:
        if on_record is not None:
            for r in results:
                on_record(r.record)
                r.record = None
        out.extend(results)
        if progress:
            progress(per_deal)

    workers = min(workers, pairs)       # a process per deal at most: more would have nothing to do
    if workers <= 1:
        _init_worker(agent, opponent, rules, seed, record, partner)
        try:
            for i in range(pairs):
                deal_done(_run_pair(i))
        finally:
            # the lineup (a learned agent, its copies, their search's tables) stayed referenced
            # here until the next call, held for the life of a Python session (review)
            _WORKER.clear()
        return out
    # The workers play with exactly the parent's agents (they reach them pickled) and give the
    # same numbers as one worker. Ctrl-C reaches the workers too (one process group): they ignore
    # SIGINT and never print a KeyboardInterrupt traceback; the parent gets it as
    # KeyboardInterrupt and the `with` terminates the workers.
    with Workers(workers, _init_worker, _run_pairs) as crew:
        crew.hand_out((agent, opponent, rules, seed, record, partner))
        size = max(1, min(8, pairs // (4 * workers)))
        for chunk in crew.run([range(i, min(i + size, pairs)) for i in range(0, pairs, size)]):
            for pair in chunk:
                deal_done(pair)
    return out


def summarize(results: list[MatchResult], sides: int | None = None) -> dict:
    """The evaluated agent's numbers over duplicate deals (consecutive groups of `sides` results,
    one per rotation; `sides` is read from the results when not given).

    points_per_hand: the agent side's points minus the mean of the other sides' points, per hand
    (with two sides the plain difference); points_per_side: points per hand of the agent's side
    and of each other side in turn order after it; scope likewise (opponents: mean per side)."""
    n = len(results)
    if sides is None:
        sides = len(results[0].hand_points[0]) if n else 2
    others = sides - 1
    wins = sum(r.agent_won for r in results)
    diffs, hands, my_scope, opp_scope = [], [], 0, 0
    side_points = np.zeros(sides, dtype=np.int64)
    for i in range(0, n, sides):
        d = h = 0
        for r in results[i:i + sides]:
            a = r.agent_side
            rest = [(a + k) % sides for k in range(1, sides)]
            for p in r.hand_points:
                d += others * p[a] - sum(p[o] for o in rest)
                for k in range(sides):
                    side_points[k] += p[(a + k) % sides]
            h += len(r.hand_points)
            my_scope += sum(s[a] for s in r.hand_scope)
            opp_scope += sum(s[o] for s in r.hand_scope for o in rest)
        diffs.append(d / others if others > 1 else d)
        hands.append(h)
    total_hands = int(sum(hands))
    # the agent's wins in each seat rotation of the deals; with 3 sides the mean over the three
    # pairs of rotations (the first two alone could say the opposite of the whole)
    seats = [np.array([float(r.agent_won) for r in results[k::sides]]) for k in range(sides)]
    pairs = [stats.correlation(seats[i], seats[j]) for i in range(sides) for j in range(i + 1, sides)]
    pairs = [c for c in pairs if not math.isnan(c)]
    pph, pci = stats.ratio_ci(diffs, hands)
    lo, hi = stats.wilson(wins, n)
    return {
        "matches": n,
        "hands": total_hands,
        "wins": int(wins),
        "win_rate": wins / n if n else float("nan"),
        "win_ci": [lo, hi],
        "points_per_hand": pph,
        "points_ci": [pci[0], pci[1]],
        "scope_per_hand": my_scope / total_hands if total_hands else float("nan"),
        "opp_scope_per_hand": opp_scope / others / total_hands if total_hands else float("nan"),
        # <= 0 means the Wilson interval over matches is conservative (see agents/stats.py)
        "pair_win_correlation": float(np.mean(pairs)) if pairs else math.nan,
        "points_per_side": [float(x) / total_hands if total_hands else float("nan") for x in side_points],
    }


def round_matches(matches: int, rules: Rules) -> int:
    """The smallest valid match count (a multiple of the number of sides) >= `matches`."""
    sides = rules.teams
    return max(sides, -(-int(matches) // sides) * sides)


# far past any useful run: 14 days of easy against easy at the 83 matches a second a scale
# review measured here (2 cores), 80 with the shipped network; every match's result is kept
# to the end, about 0.7 KB each, some 70 GB at the cap (it said 28 hours at 1,000 a second)
MAX_MATCHES = 100_000_000


def check_matches(matches, rules: Rules) -> int:
    """`matches` as an int: a positive multiple of the number of sides (each deal once per side)."""
    sides = rules.teams
    ok = not isinstance(matches, bool) and isinstance(matches, (int, np.integer)) and matches >= sides \
        and matches % sides == 0
    if ok and matches > MAX_MATCHES:     # 10^12 with two workers filled memory before a match
        raise ScopaError(f"matches must be at most {MAX_MATCHES:,}, got {matches:,}")
    if not ok:
        if sides == 2:
            raise ScopaError(f"matches must be an even number >= 2 (each deal is played twice), got {number_text(matches)}")
        raise ScopaError(f"matches must be a multiple of {sides} (each deal is played once with the agent "
                         f"on each of the {sides} sides), got {number_text(matches)}")
    return int(matches)


def evaluate(agent, opponent, matches: int, seed: int = 0, rules: Rules | None = None,
             workers: int = 1, record: bool = False, progress=None, partner=None,
             on_record=None) -> dict:
    """Play `matches` matches (a multiple of the number of sides: each deal once per side, the
    agent's side rotated) and summarize.

    agent/opponent/partner: Agent objects or specs ('easy', 'hard', 'path.pt'); every seat that
    is not the agent's is an opponent copy, and in pairs the agent's partner is a copy of the agent
    unless `partner` is given. Returns the evaluate.py --json keys (matches, win_rate, win_ci,
    points_per_hand, points_ci, points_per_side, ...); with record=True also "records", the game
    records of every match; on_record(record) instead takes each match's record as its deal
    finishes, in match order, and none is kept (run_pairs). rules: a Rules object, a preset name
    or None (classic).
    """
    rules = resolve_rules(rules)
    matches = check_matches(matches, rules)
    results = run_pairs(agent, opponent, matches // rules.teams, seed, rules, workers, record, progress,
                        partner, on_record)
    out = summarize(results, rules.teams)
    if record:
        out["records"] = [r.record for r in results]
    return out
