"""Write game records of matches played by uniformly random legal moves, under any rules preset.

python -m scopa_env.simulate --matches N --seed S --out FILE [--rules PRESET] [--napola] [--target T]
                             [--rule OPTION=VALUE ...] [--with-legal] [--no-check]
python -m scopa_env.simulate --list-rules

Match i is dealt from seed S + i, and its random player draws from its own generator
(`player_rng(S, i)`), so any single match can be regenerated alone. Every record written is replayed
through the engine (records.replay) before the next one, unless --no-check. The file is written
to a temporary name and renamed over --out when complete: an error or Ctrl-C (exit 130) leaves
an existing --out as it was, and an --out that is a zip file (a checkpoint, as torch saves
one) is refused. `--out -` writes the records to standard output as they are made
(and the closing line to standard error), for a pipe.
"""
from __future__ import annotations

import sys

import numpy as np

from .atomic import AtomicFile, refuse_checkpoint
from .cli import Parser, StdoutFailed, add_rules_flags, list_rules_alone, on_terminal, run_main
from .errors import ScopaError
from .game import Game
from .presets import changed_options, list_rules_text, rules_from_flags, rules_from_preset
from .records import Recorder, dumps, replay
from .rules import Rules
from .seeds import check_seed, pair_entropy


def random_match(rules: Rules, seed: int, rng: np.random.Generator, with_legal: bool = False) -> dict:
    game = Game(rules, seed)
    rec = Recorder(game, ["random"] * rules.players, with_legal=with_legal)
    while True:
        moves = game.legal_moves()
        m = moves[rng.integers(len(moves))]
        result = rec.play(m.card, m.captured)
        if result.match_over:
            return rec.record
        if result.hand_over:
            rec.next_hand()


def player_rng(seed: int, i: int) -> np.random.Generator:
    """The random player's generator in match `i` of a run seeded `seed`: seeded [seed, i] below
    2**32, as it always was; from 2**32 up by fixed-width words (seeds.pair_entropy), where
    [seed, i] gave match 0 of seed s + k * 2**32 the draws of match k of seed s."""
    return np.random.default_rng(pair_entropy(seed, i))


def main(argv=None) -> int:
    ap = Parser(prog="python -m scopa_env.simulate", description=__doc__.split("\n")[0])
    ap.add_argument("--matches", type=int, help="number of matches")
    ap.add_argument("--seed", type=int, help="seed of the first match")
    ap.add_argument("--out", help="JSON Lines file to write (- for standard output)")
    add_rules_flags(ap)
    ap.add_argument("--with-legal", action="store_true", help="write every move's legal moves too")
    ap.add_argument("--no-check", action="store_true", help="do not replay each record after writing it")
    args = ap.parse_args(argv)
    if args.list_rules:
        list_rules_alone(ap, args)
        print(list_rules_text())
        return 0
    try:
        missing = [f"--{k}" for k in ("matches", "seed", "out") if getattr(args, k) is None]
        if missing:
            raise ScopaError(f"missing {', '.join(missing)} (or give --list-rules)")
        if args.matches < 0:
            raise ScopaError("--matches must be >= 0")
        check_seed(args.seed, "--seed")
        if args.matches:
            check_seed(args.seed + args.matches - 1, "--seed + --matches - 1 (the last match's seed)")
        rules = rules_from_flags(args.rules, args.napola, args.target, args.rule)
        if not args.out:
            raise ScopaError("--out needs a file name")
        if args.out == "-":
            if sys.stdout is None:      # started with standard output closed (>&-)
                raise ScopaError("--out -: standard output is closed")
            write_records(sys.stdout, rules, args)
            sys.stdout.flush()
        else:
            # a temporary file renamed over --out when complete: a failure or Ctrl-C keeps the old
            # file; never over a checkpoint (evaluate.py's --record refused it, this did not; review)
            refuse_checkpoint(args.out, "--out")
            with AtomicFile(args.out) as f:
                write_records(f, rules, args)
    except BrokenPipeError:         # the reader stopped (| head): run_main ends quietly
        raise
    except StdoutFailed:            # run_main says so, as for every script
        raise
    except (ScopaError, OSError) as e:
        print(f"{ap.prog}: error: {e}", file=sys.stderr)     # as argparse's errors (review)
        return 2
    except KeyboardInterrupt:
        print(f"{ap.prog}: interrupted" + ("" if args.out == "-" else "; nothing written"), file=sys.stderr)
        return 130
    changed = changed_options(rules, args.rules)
    print(f"wrote {args.matches} match{'' if args.matches == 1 else 'es'} under rules {args.rules} ({rules_from_preset(args.rules).describe()}"
          + (f"; changed: {changed}" if changed else "") + ") to "
          + ("standard output" if args.out == "-" else args.out)
          + ("" if args.no_check else "; each replayed through the engine"),
          file=sys.stderr if args.out == "-" else sys.stdout)
    return 0


def write_records(f, rules: Rules, args) -> None:
    """The matches' records, a line each, with a progress bar on stderr when it is a terminal
    and the records do not go to one (3,000 matches were half a minute without a word: a timing
    review); no bar object otherwise (tqdm's, even disabled, makes a multiprocessing lock:
    train.py's side-effects review)."""
    bar = None
    # not between the records of `--out -` on the same terminal (each line followed the bar's)
    if args.matches and not on_terminal(f) and on_terminal(sys.stderr):
        from tqdm import tqdm
        bar = tqdm(total=args.matches, unit="match", file=sys.stderr, dynamic_ncols=True)
    try:
        for i in range(args.matches):
            rng = player_rng(args.seed, i)
            record = random_match(rules, args.seed + i, rng, args.with_legal)
            if not args.no_check:
                replay(record)
            f.write(dumps(record) + "\n")
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()


if __name__ == "__main__":
    sys.exit(run_main(main, "python -m scopa_env.simulate"))
