"""Write game records of matches played by uniformly random legal moves.

python -m scopa_env.simulate --matches N --seed S --out FILE [--napola] [--target T] [--with-legal]

Match i is dealt from seed S + i, and its random player draws from its own generator seeded
from (S, i), so any single match can be regenerated alone.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from .errors import ScopaError
from .game import Game
from .records import Recorder, dumps
from .rules import Rules


def random_match(rules: Rules, seed: int, rng: np.random.Generator, with_legal: bool = False) -> dict:
    game = Game(rules, seed)
    rec = Recorder(game, ["random", "random"], with_legal=with_legal)
    while True:
        moves = game.legal_moves()
        m = moves[rng.integers(len(moves))]
        result = rec.play(m.card, m.captured)
        if result.match_over:
            return rec.record
        if result.hand_over:
            rec.next_hand()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m scopa_env.simulate", description=__doc__.split("\n")[0])
    ap.add_argument("--matches", type=int, required=True, help="number of matches")
    ap.add_argument("--seed", type=int, required=True, help="seed of the first match")
    ap.add_argument("--out", required=True, help="JSON Lines file to write")
    ap.add_argument("--napola", action="store_true", help="score the napola")
    ap.add_argument("--target", type=int, default=11, help="points that end a match (default 11)")
    ap.add_argument("--with-legal", action="store_true", help="write every move's legal moves too")
    args = ap.parse_args(argv)
    try:
        if args.matches < 0:
            raise ScopaError("--matches must be >= 0")
        rules = Rules(napola=args.napola, target=args.target)
        with open(args.out, "w", encoding="utf-8") as f:
            for i in range(args.matches):
                rng = np.random.default_rng([args.seed, i])
                f.write(dumps(random_match(rules, args.seed + i, rng, args.with_legal)) + "\n")
    except (ScopaError, OSError) as e:
        print(f"simulate: {e}", file=sys.stderr)
        return 2
    print(f"wrote {args.matches} matches to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
