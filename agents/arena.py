"""Matches between agents through `Game`, on duplicate deals, and their summary.

Every deal is played twice: match seed s with agent A in seat 0 and B in seat 1, then the same
seed with the seats swapped. The game's generator only shuffles, so hand k of both matches is
dealt identically (as long as both matches last that long), and the luck of the cards cancels.
Each agent is reset before a match with a seed derived from the pair seed and its role (agent
or opponent), so the same agent uses the same seed in both matches of a pair and a pair gives the
same result in any process: `workers=2` reproduces `workers=1` exactly.

`evaluate(agent, opponent, matches, seed, rules)` is the one evaluation path (evaluate.py and
training use it); it returns the keys evaluate.py --json writes.
"""
from __future__ import annotations

import multiprocessing as mp
from dataclasses import dataclass, field

import numpy as np

from scopa_env.errors import ScopaError
from scopa_env.game import Game
from scopa_env.records import Recorder
from scopa_env.rules import Rules

from . import stats
from .base import Agent

AGENT, OPPONENT = 0, 1


@dataclass
class MatchResult:
    """One match, seen by seat. `agent_seat` is where the evaluated agent (role AGENT) sat."""

    seed: int
    agent_seat: int
    winner: int
    totals: list[int]
    hand_points: list[list[int]]          # per hand: [seat 0 points, seat 1 points]
    hand_scope: list[list[int]]           # per hand: [seat 0 scope, seat 1 scope]
    record: dict | None = field(default=None, repr=False)

    @property
    def agent_won(self) -> bool:
        return self.winner == self.agent_seat


def pair_seed(seed: int, index: int) -> int:
    """The match seed of duplicate pair `index` in a run seeded `seed`."""
    return int(np.random.SeedSequence([int(seed) & (2**63 - 1), index]).generate_state(1, np.uint64)[0]
               & (2**62 - 1))


def agent_seed(match_seed: int, role: int) -> int:
    return int(np.random.SeedSequence([match_seed, 7919 + role]).generate_state(1, np.uint64)[0]
               & (2**62 - 1))


def play_match(seats: list[Agent], rules: Rules, seed: int, seat_seeds: list[int],
               agent_seat: int = 0, record: bool = False) -> MatchResult:
    """Play one match: seats[p] plays seat p; each agent is reset with seat_seeds[p] first."""
    if seats[0] is seats[1]:
        raise ScopaError("the two seats need two agent objects (an agent keeps per-match state)")
    for a, s in zip(seats, seat_seeds):
        a.reset(s)
    g = Game(rules, seed)
    recorder = Recorder(g, [a.name for a in seats]) if record else None
    play = recorder.play_action if recorder else g.play_action
    points, scope = [], []
    while True:
        while not g.hand_over:
            p = g.to_move
            play(seats[p].act(g.observation(p)))
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
    return MatchResult(int(seed), agent_seat, int(g.winner), g.scores, points, scope, rec)


def play_pair(agent: Agent, opponent: Agent, rules: Rules, seed: int,
              record: bool = False) -> tuple[MatchResult, MatchResult]:
    """The duplicate pair of match seed `seed`: agent in seat 0, then agent in seat 1."""
    seeds = [agent_seed(seed, AGENT), agent_seed(seed, OPPONENT)]
    first = play_match([agent, opponent], rules, seed, seeds, agent_seat=0, record=record)
    second = play_match([opponent, agent], rules, seed, seeds[::-1], agent_seat=1, record=record)
    return first, second


# ---- running many pairs, in one process or several -------------------------------------
_WORKER: dict = {}


def _build(spec_or_agent, rules: Rules, seed: int) -> Agent:
    if isinstance(spec_or_agent, Agent):
        return spec_or_agent
    from . import make_agent
    return make_agent(str(spec_or_agent), rules=rules, seed=seed)


def _init_worker(agent, opponent, rules, seed, record):
    _WORKER.update(agent=_build(agent, rules, seed), opponent=_build(opponent, rules, seed + 1),
                   rules=rules, seed=seed, record=record)


def _run_pair(index: int) -> tuple[MatchResult, MatchResult]:
    w = _WORKER
    return play_pair(w["agent"], w["opponent"], w["rules"], pair_seed(w["seed"], index), w["record"])


def run_pairs(agent, opponent, pairs: int, seed: int = 0, rules: Rules | None = None,
              workers: int = 1, record: bool = False, progress=None) -> list[MatchResult]:
    """Play `pairs` duplicate pairs; results in pair order (match 2i, 2i+1 share deals).

    agent/opponent: Agent objects or specs for make_agent. `progress(n_matches_done)` is called
    as pairs finish.
    """
    rules = rules or Rules()
    if not isinstance(agent, Agent):
        agent = _build(agent, rules, seed)
    if not isinstance(opponent, Agent):
        opponent = _build(opponent, rules, seed + 1)
    if agent is opponent:
        raise ScopaError("agent and opponent must be two objects (make two agents of one spec)")
    out: list[MatchResult] = []
    if workers <= 1 or pairs <= 1:
        _init_worker(agent, opponent, rules, seed, record)
        for i in range(pairs):
            out.extend(_run_pair(i))
            if progress:
                progress(2)
        return out
    # spawn, not fork: a forked child of a process that has run torch (a checkpoint agent) can
    # deadlock in the inherited OpenMP thread pool. Agents reach the workers pickled, so the
    # workers play with exactly the parent's agents and give the same numbers as one worker.
    ctx = mp.get_context("spawn")
    with ctx.Pool(workers, initializer=_init_worker,
                  initargs=(agent, opponent, rules, seed, record)) as pool:
        for pair in pool.imap(_run_pair, range(pairs), chunksize=max(1, min(8, pairs // (4 * workers)))):
            out.extend(pair)
            if progress:
                progress(2)
    return out


def summarize(results: list[MatchResult]) -> dict:
    """The evaluated agent's numbers over duplicate pairs (consecutive results 2i, 2i+1)."""
    n = len(results)
    wins = sum(r.agent_won for r in results)
    diffs, hands, my_scope, opp_scope = [], [], 0, 0
    for i in range(0, n, 2):
        d = h = 0
        for r in results[i:i + 2]:
            a, o = r.agent_seat, 1 - r.agent_seat
            d += sum(p[a] - p[o] for p in r.hand_points)
            h += len(r.hand_points)
            my_scope += sum(s[a] for s in r.hand_scope)
            opp_scope += sum(s[o] for s in r.hand_scope)
        diffs.append(d)
        hands.append(h)
    total_hands = int(sum(hands))
    first = np.array([float(r.agent_won) for r in results[0::2]])
    second = np.array([float(r.agent_won) for r in results[1::2]])
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
        "opp_scope_per_hand": opp_scope / total_hands if total_hands else float("nan"),
        # <= 0 means the Wilson interval over matches is conservative (see agents/stats.py)
        "pair_win_correlation": stats.correlation(first, second),
    }


def evaluate(agent, opponent, matches: int, seed: int = 0, rules: Rules | None = None,
             workers: int = 1, record: bool = False, progress=None) -> dict:
    """Play `matches` matches (an even number: each deal twice, seats swapped) and summarize.

    agent/opponent: Agent objects or specs ('easy', 'hard', 'path.pt'). Returns the evaluate.py
    --json keys (matches, win_rate, win_ci, points_per_hand, points_ci, ...); with record=True
    also "records", the game records of every match.
    """
    if isinstance(matches, bool) or not isinstance(matches, (int, np.integer)) or matches < 2 or matches % 2:
        raise ScopaError(f"matches must be an even number >= 2 (each deal is played twice), got {matches!r}")
    results = run_pairs(agent, opponent, int(matches) // 2, seed, rules, workers, record, progress)
    out = summarize(results)
    if record:
        out["records"] = [r.record for r in results]
    return out
