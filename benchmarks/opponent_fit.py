"""How well the opponent models of hard's `infer` explain a level's moves (the soft model's beta).

    python benchmarks/opponent_fit.py [--level hard] [--pairs 40] [--seed 5]

Plays the level against normal (duplicate deals, classic rules, one process) and, at each of the
level's choices before the deck is empty (more than one legal move), scores the legal moves by the
normal judgement from the same observation. Prints how often the level played normal's best move,
then the mean log-likelihood per choice of the moves it played under the models hand_weights uses:
the soft model (a chance in proportion to exp(beta x normal score)) for several beta, the normal
model (normal's best with probability 1 - eps, else any move at random) for several eps, and a
uniformly random choice. The best beta is the default of hard's `infer_beta`. Here the level sees
its own hand, as it does in a match, so the fit is of its judgement, not of any inference.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents import REGISTRY  # noqa: E402
from agents.arena import run_pairs  # noqa: E402
from agents.normal import NormalAgent  # noqa: E402
from benchmarks._cli import errors_as_one_line, parser, positive_int, seed_arg  # noqa: E402
from scopa_env.observation import SLICES  # noqa: E402
from scopa_env.rules import Rules  # noqa: E402


def recording(cls):
    """A subclass of the level's class that keeps (normal scores - best, index played) per choice."""

    class Recording(cls):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            self.judge = NormalAgent(self.rules, 0)
            self.choices: list[tuple[np.ndarray, int]] = []

        def act(self, observation):
            action = super().act(observation)
            if observation["observation"][SLICES["deck_left"].start] > 0:
                legal, scores = self.judge.scores(observation)
                if len(legal) > 1:
                    self.choices.append((scores - scores.max(), int(np.flatnonzero(legal == action)[0])))
            return action

    return Recording


@errors_as_one_line(Path(__file__).name)
def main(argv=None) -> int:
    p = parser(__file__, __doc__)
    p.add_argument("--level", default="hard", choices=sorted(set(REGISTRY) - {"random"}))
    p.add_argument("--pairs", type=positive_int, default=40, help="duplicate deals (two matches each)")
    p.add_argument("--seed", type=seed_arg, default=5)
    args = p.parse_args(argv)
    rules = Rules()
    level = recording(REGISTRY[args.level])(rules, args.seed)
    run_pairs(level, "normal", args.pairs, args.seed, rules, workers=1)
    choices = level.choices
    best = np.mean([v[i] >= -1e-9 for v, i in choices])
    print(f"{args.level} vs normal, {2 * args.pairs} matches (seed {args.seed}): {len(choices)} choices, "
          f"{best:.1%} of them normal's best move")
    for beta in (1.0, 2.0, 2.5, 3.0, 5.0, 10.0):
        ll = np.mean([beta * v[i] - np.log(np.exp(beta * v).sum()) for v, i in choices])
        print(f"  soft model, beta {beta:>4}: mean log-likelihood {ll:+.3f}")
    for eps in (0.02, 0.1, 0.3, 0.5):
        ll = np.mean([np.log((1 - eps) * (v[i] >= -1e-9) + eps / len(v)) for v, i in choices])
        print(f"  normal model, eps {eps:>4}: mean log-likelihood {ll:+.3f}")
    print(f"  uniformly random:        mean log-likelihood {-np.mean([np.log(len(v)) for v, _ in choices]):+.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
