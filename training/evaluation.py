"""Evaluating the network being trained, through the one evaluation path (agents/arena.py)."""
from __future__ import annotations

import copy

from agents.arena import evaluate, round_matches
from agents.learned import LearnedAgent
from agents.network import MoveScorer
from agents.stats import no_interval_reason, points_interval_text
from scopa_env.rules import Rules


def evaluate_model(model: MoveScorer, opponents, matches: int, seed: int, rules: Rules) -> dict:
    """{opponent: arena.evaluate(...) summary} for a frozen copy of `model` (duplicate deals;
    `matches` is rounded up to a multiple of the rules' number of sides)."""
    frozen = copy.deepcopy(model).eval()
    agent = LearnedAgent(rules=rules, seed=seed, model=frozen, name="trained")
    # each deal is played once with the agent on each side: a whole number of rounds
    matches = round_matches(matches, rules)
    return {opp: evaluate(agent, opp, matches, seed=seed, rules=rules) for opp in opponents}


def format_table(results: dict, title: str) -> str:
    """A plain-text table: matches, win rate with its 95% interval, points per hand."""
    lines = [title,
             f"{'opponent':<10} {'matches':>7} {'hands':>6} {'win rate':>9} {'95% CI':>15} "
             f"{'points/hand':>12} {'95% CI':>17}"]
    for opp, r in results.items():
        lo, hi = r["win_ci"]
        plo, phi = r["points_ci"]
        lines.append(f"{opp:<10} {r['matches']:>7} {r['hands']:>6} {r['win_rate']:>9.1%} "
                     f"{f'[{lo:.1%}, {hi:.1%}]':>15} {r['points_per_hand']:>+12.3f} "
                     f"{points_interval_text(plo, phi, no_interval_reason(r)):>17}")
    return "\n".join(lines)
