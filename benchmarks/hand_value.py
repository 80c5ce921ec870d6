"""What the opponent's hidden hand is worth: the same search with and without being told it.

    python benchmarks/hand_value.py [--opponent easy] [--matches 300] [--seed 11] [--budget 9000]
        [--workers 2] [--told-deals 1,2,3,4,5] [--told-at every | blind | seen]
        [--agent hard | checkpoints/scopa-default.pt]

Plays the same duplicate deals (seats swapped, the deal and agent seeds evaluate.py uses) twice:
once with `hard:infer=true` (the search of the shipped agent's `search` option: it sees what a
player sees and infers the opponent's hand from its moves), once with the same search told the
opponent's true hand at every decision (the worlds still deal the deck at random; nothing else
changes, same seeds). `--agent PATH.pt` measures a learned agent with search instead (a DMC
checkpoint as `PATH.pt:search=BUDGET`, the shipped agent's form with the default budget): the
same agent twice, the second with its search told the hand. `--told-deals` tells it only in
those deals of each hand (1 to 5; the sixth is solved exactly by both, nothing being hidden
then) and lets it infer like the other in the rest: where in the hand the hidden cards cost
most. `--told-at blind` tells it only at the decisions before the opponent's first move of the
deal (it still holds every card of the deal: no player has seen anything of them, so no
inference could know more than the prior there), `--told-at seen` only at the others (after at
least one of its moves): the told gain at `seen` bounds what inferring the hand from the
opponent's moves could give this search. It prints both lines and their difference per deal.
The told search is not an agent: it reads the game, which no agent may (agents/base.py), so it
lives here, as a measure of how much of the gap to a target is hidden information rather than
play. docs/experiments.md ("How far the targets are", "Where in a deal the hidden hand costs")
quotes what it printed.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents import learned_agent_class, make_agent  # noqa: E402
from agents._workers import Workers  # noqa: E402
from agents.arena import (AGENT, OPPONENT, MatchResult, agent_seed, check_matches, pair_seed,  # noqa: E402
                          play_match, summarize)
from agents.hard import HardAgent  # noqa: E402
from agents.stats import no_interval_reason, points_interval_text, t95  # noqa: E402
from benchmarks._cli import errors_as_one_line, parser, positive_int, seed_arg  # noqa: E402
from scopa_env.errors import ScopaError, regular_file  # noqa: E402
from scopa_env.rules import Rules  # noqa: E402
from scopa_env.seeds import offset_seed  # noqa: E402


DEALS = 6          # deals of a classic 2-player hand: deal k leaves 36 - 6k cards in the deck
# --told-at: at which decisions of a told deal the search is told (module text)
TOLD_AT = {"every": "", "blind": "before the opponent's first move of the deal",
           "seen": "after the opponent's first move of the deal"}


class ToldHard(HardAgent):
    """hard:infer=true whose worlds give the opponent the hand in `told` (set by the loop below
    from the game before each of its decisions in a told deal; None: infer it as usual)."""

    told: int | None = None

    def hand_posterior(self, obs):
        if self.told is None:
            return super().hand_posterior(obs)
        # the models are still weighed on this deal's evidence, as the fair search weighs them
        # (skipped, a told deal's evidence never reached the later inferred deals' weights)
        self._weigh(obs, self.rows)
        return np.array([self.told], dtype=np.int64), np.array([1.0 + 1e-12])


def play(agent, opponent, rules: Rules, seed: int, seat: int, told_deals=frozenset(),
         told_at: str = "every") -> MatchResult:
    """One match of deal `seed` with the agent in `seat`, as evaluate.py plays it
    (agents.arena.play_match), the told search told the opponent's hand in `told_deals`, at
    the decisions `told_at` names (TOLD_AT)."""
    seats = [opponent, opponent]
    seats[seat] = agent
    seeds = [agent_seed(seed, OPPONENT)] * 2
    seeds[seat] = agent_seed(seed, AGENT)

    told = _told_search(agent)

    def tell(g, p):
        if p == seat and told is not None:
            deal = DEALS - g.deck_left // (2 * rules.hand_cards)
            blind = len(g.hand(1 - p)) == rules.hand_cards     # it has not moved in this deal
            at = told_at == "every" or blind == (told_at == "blind")
            told.told = sum(1 << c for c in g.hand(1 - p)) if deal in told_deals and at else None

    return play_match(seats, rules, seed, seeds, agent_seat=seat, before_move=tell)


_JOB: dict = {}


def fair_and_told(agent: str, rules: Rules, seed: int, budget: int) -> list:
    """[the agent that sees what a player sees, the same told the hand]: hard:infer=true, or a
    DMC checkpoint's learned agent with search=budget whose search (its hard level) is told."""
    if agent == "hard":
        return [HardAgent(rules, seed, budget=budget, infer=True),
                ToldHard(rules, seed, budget=budget, infer=True)]
    if ":" in agent and not Path(agent).is_file():
        raise ScopaError(f"--agent takes hard or a checkpoint's path without options (it plays "
                         f"PATH.pt:search=BUDGET, the budget from --budget), got {agent!r}")
    if not agent.endswith(".pt"):       # 'easy' said "checkpoint 'easy' does not exist" (review)
        raise ScopaError(f"--agent takes hard or a DMC checkpoint PATH.pt, got {agent!r}")
    regular_file("checkpoint", agent)
    LearnedAgent = learned_agent_class(agent)     # a core install: one line, not torch's traceback
    from agents.checkpoint import load
    algo = load(agent).get("algo")
    if algo != "dmc":       # the agent's own error advised search=0, which --agent cannot take
        raise ScopaError(f"--agent {agent} is a {algo} checkpoint: the search blends a DMC "
                         f"network's expected points, so --agent takes a DMC checkpoint")
    fair, told = (LearnedAgent(rules, seed, path=agent, search=budget) for _ in range(2))
    # the told agent's search is its own hard level, made a ToldHard in place: every option and
    # all its state stay the agent's (ToldHard adds the attribute `told` and nothing else)
    told._hard.__class__ = ToldHard
    return [fair, told]


def _told_search(agent):
    """The ToldHard that decides for `agent`, or None."""
    search = getattr(agent, "_hard", agent)
    return search if isinstance(search, ToldHard) else None


def _init(agent: str, opponent: str, budget: int, seed: int, told_deals: frozenset, told_at: str) -> None:
    rules = Rules()
    _JOB.update(rules=rules, seed=seed, told_deals=told_deals, told_at=told_at,
                opponent=make_agent(opponent, rules, offset_seed(seed, 1)),
                agents=fair_and_told(agent, rules, seed, budget))


def _deal(index: int) -> list[list[MatchResult]]:
    """Both agents on duplicate deal `index`: [[fair seat 0, seat 1], [told seat 0, seat 1]]."""
    j = _JOB
    seed = pair_seed(j["seed"], index)
    return [[play(a, j["opponent"], j["rules"], seed, s, j["told_deals"], j["told_at"]) for s in (0, 1)]
            for a in j["agents"]]


@errors_as_one_line(Path(__file__).name)
def main(argv=None) -> int:
    p = parser(__file__, __doc__)
    p.add_argument("--opponent", default="easy", help="the opponent's spec (easy, normal, hard, ...)")
    p.add_argument("--matches", type=int, default=300, help="matches per agent (even, at least 4: two deals)")
    p.add_argument("--seed", type=seed_arg, default=11)
    p.add_argument("--budget", type=positive_int, default=9000, help="the search's plies per decision")
    p.add_argument("--workers", type=positive_int, default=2)
    p.add_argument("--told-deals", default="1,2,3,4,5",
                   help="the deals of each hand (1-5) in which the told search is told the hand")
    p.add_argument("--told-at", choices=list(TOLD_AT), default="every",
                   help="the decisions of a told deal at which it is told: every one, those before "
                        "the opponent's first move of the deal (blind), or those after it (seen)")
    p.add_argument("--agent", default="hard",
                   help="hard (hard:infer=true, the default) or a DMC checkpoint PATH.pt, played as "
                        "PATH.pt:search=BUDGET")
    args = p.parse_args(argv)
    rules = Rules()
    try:                                           # a bad spec or count is one line before any work
        pairs = check_matches(args.matches, rules) // 2
        if pairs < 2:        # one deal has no spread: its intervals were nan and inf
            raise ScopaError(f"--matches needs at least 4 (two deals) for its intervals, got "
                             f"{args.matches}")
        make_agent(args.opponent, rules, 0)
        fair_and_told(args.agent, rules, 0, args.budget)
        told_deals = parse_deals(args.told_deals)
    except ScopaError as e:
        p.error(str(e))
    start = time.perf_counter()
    if args.workers <= 1:
        _init(args.agent, args.opponent, args.budget, args.seed, told_deals, args.told_at)
        deals = [_deal(i) for i in range(pairs)]
    else:
        with Workers(min(args.workers, pairs), _init, _deal) as crew:     # evaluate.py's workers
            crew.hand_out((args.agent, args.opponent, args.budget, args.seed, told_deals, args.told_at))
            deals = list(crew.run(list(range(pairs))))
    fair = [r for d in deals for r in d[0]]
    told = [r for d in deals for r in d[1]]
    print(f"opponent {args.opponent}: {args.matches} matches per agent ({pairs} deals x 2 seats), "
          f"seed {args.seed}, budget {args.budget} plies, {time.perf_counter() - start:.0f} s"
          + ("" if len(told_deals) == DEALS - 1 else
             f"; told in deals {','.join(map(str, sorted(told_deals)))} only")
          + (f"; told only at decisions {TOLD_AT[args.told_at]}" if TOLD_AT[args.told_at] else ""))
    print(f"{'agent':52s} {'win rate [95% CI]':>24s} {'points/hand [95% CI]':>26s}")
    name = "hard:infer=true" if args.agent == "hard" else f"{Path(args.agent).stem}:search={args.budget}"
    for label, results in ((f"{name} (sees what a player sees)", fair),
                           ("the same, its search told the opponent's hand", told)):
        s = summarize(results, 2)
        print(f"{label:52s} {100 * s['win_rate']:6.1f}% [{100 * s['win_ci'][0]:5.1f}, {100 * s['win_ci'][1]:5.1f}]"
              f"   {s['points_per_hand']:+.3f} {points_interval_text(*s['points_ci'], no_interval_reason(s))}")
    # per deal: the told search's points margin over both seats minus the fair one's, per hand
    gain = np.array([_margin(d[1]) - _margin(d[0]) for d in deals])
    half = t95(len(gain) - 1) * gain.std(ddof=1) / np.sqrt(len(gain))  # --matches >= 4: two deals or more
    print(f"told minus fair, per deal (points margin over the deal's hands / its hands): mean "
          f"{gain.mean():+.3f}, 95% CI [{gain.mean() - half:+.3f}, {gain.mean() + half:+.3f}]")
    return 0


def parse_deals(text: str) -> frozenset:
    """'1,2,3' -> frozenset({1, 2, 3}); each a deal 1..5 (the sixth hides nothing)."""
    try:
        named = [int(t) for t in text.split(",")]
    except ValueError:
        named = [0]
    deals = frozenset(named)
    if not deals or not deals <= set(range(1, DEALS)):
        raise ScopaError(f"--told-deals must be deals 1..{DEALS - 1} separated by commas, got {text!r}")
    if len(deals) < len(named):      # the repeat was dropped without a word (review)
        raise ScopaError(f"--told-deals names a deal twice: {text!r}")
    return deals


def _margin(results: list[MatchResult]) -> float:
    """The agent's points minus the opponent's per hand over the matches of one deal."""
    diff = sum(p[r.agent_side] - p[1 - r.agent_side] for r in results for p in r.hand_points)
    return diff / sum(len(r.hand_points) for r in results)


if __name__ == "__main__":
    sys.exit(main())
