"""train.py: self-play training of a scopa agent, then its evaluation table.

    python train.py                                   # configs/default.toml (<= 10 min on 2 cores)
    python train.py --config configs/long.toml        # the run behind checkpoints/scopa-default.pt
    python train.py --algo ppo --total-steps 200000   # any config field as a flag ...
    python train.py --set learning_rate=3e-4          # ... or as key=value (repeatable)
    python train.py --rules scopone                   # another rules set (--list-rules) ...
    python train.py --rules napola --set rules.target=31   # ... with one option changed
    python train.py --resume checkpoints/<run>        # continue a run exactly (file, folder or name)
    python train.py --export checkpoints/<run>/best.pt my-agent.pt   # an agent-only file

Config fields, their meaning and defaults: training/config.py. TensorBoard: `tensorboard --logdir runs`.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

# Idle OpenMP threads sleep instead of spinning: on a busy 2-core machine spinning threads made
# two-thread training ~20x slower than one thread (measured); passive, two threads cost nothing.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

# Ctrl-C while the modules load (numba's caches, about half a second) or the parser imports
# the training package: one line too
INTERRUPTED_AT_START = "train.py: interrupted before the run started: nothing written"
try:
    from scopa_env.cli import Once, Parser, flags_given, list_rules_alone, quiet_stdout, run_main
    from scopa_env.errors import ScopaError
except KeyboardInterrupt:
    print(INTERRUPTED_AT_START, file=sys.stderr)
    sys.exit(130)

DEFAULT_CONFIG = Path(__file__).resolve().parent / "configs" / "default.toml"


def build_parser() -> argparse.ArgumentParser:
    from training.config import FIELDS, LEGACY_RULES_KEYS, TrainConfig

    p = Parser(prog="train.py", description="Self-play training of a scopa agent.",
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="Every config field is also a flag (--total-steps N ...). A default shown 'from "
                                       "configs/default.toml' is what `python train.py` uses; --config FILE "
                                       "applies over the dataclass's defaults instead.")
    p.add_argument("--config", help=f"TOML config file (default: {DEFAULT_CONFIG.relative_to(DEFAULT_CONFIG.parents[1])})")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override one config field (repeatable)")
    p.add_argument("--resume", metavar="PATH_OR_RUN",
                   help="continue a run from a checkpoint file, a run folder or a run name")
    p.add_argument("--export", nargs=2, metavar=("CHECKPOINT", "OUT"),
                   help="write the agent-only part of CHECKPOINT to OUT (a .pt file): the weights, config, "
                        "rules, versions and counters, without the optimizer, RNG and training state")
    p.add_argument("--stop-at", type=int, metavar="STEPS",
                   help="stop (checkpointed, resumable) once the run has this many steps")
    p.add_argument("--print-config", action="store_true", help="print the resolved config and exit")
    p.add_argument("--list-rules", action="store_true", help="list the rules presets and exit")
    fields = p.add_argument_group("config fields")
    try:    # what `python train.py` uses, shown beside the dataclass's own default
        from training.config import load_toml
        run_defaults = load_toml(DEFAULT_CONFIG)
    except (ScopaError, OSError):    # a broken default config is reported when a run loads it
        run_defaults = {}
    for name in FIELDS:
        if name == "rules":
            fields.add_argument("--rules", dest="field_rules", metavar="PRESET", default=None, action=Once,
                                help="train for a rules preset (--list-rules), replacing the config "
                                     "file's rules; --set rules.OPTION=V changes one option (default classic)")
            # as in evaluate.py, play.py and simulate (--list-rules says --rule): argparse read
            # '--rule X=V' as an abbreviation of --rules, 'unknown rules preset' (review)
            fields.add_argument("--rule", dest="rule_options", metavar="OPTION=VALUE", action="append",
                                default=[], help="set one rules option, as --set rules.OPTION=VALUE "
                                                 "(repeatable; values as evaluate.py's --rule reads them)")
            continue
        default = getattr(TrainConfig, name)
        used = run_defaults.get(name, default)
        used = tuple(used) if isinstance(used, list) else used      # TOML lists are the tuples
        if used != default:
            shown = f"(default {_as_typed(used)}, from configs/default.toml; dataclass {_as_typed(default)})"
        else:
            shown = f"(default {_as_typed(default)})"
        fields.add_argument("--" + name.replace("_", "-"), dest="field_" + name, metavar="V",
                            default=None, help=shown, action=Once)
    for name in LEGACY_RULES_KEYS:
        # a bare --napola turns it on, as in evaluate.py and play.py; --napola false turns it off
        flag = dict(nargs="?", const="true") if name == "napola" else {}
        fields.add_argument("--" + name, dest="field_" + name, metavar="V", default=None, **flag,
                            action=Once,
                            help=f"the rules option {name} (same as --set rules.{name}=V"
                                 + ("; alone: true)" if flag else ")"))
    return p


def _as_typed(value) -> str:
    """A default as the flag takes it: a list of names comma-separated ('easy,normal', not the
    tuple ('easy', 'normal'), which the flag does not read); anything else as repr."""
    return repr(",".join(value)) if isinstance(value, tuple) else repr(value)


def explicit_overrides(args) -> dict:
    from training.config import FIELDS, LEGACY_RULES_KEYS, _coerce, parse_override, rules_option

    out = {}
    texts = list(args.overrides)
    texts += [f"{name}={getattr(args, 'field_' + name)}" for name in (*FIELDS, *LEGACY_RULES_KEYS)
              if getattr(args, "field_" + name) is not None]
    from scopa_env.presets import rule_option
    # (what was typed, config key, value): --rule read as the other scripts read it
    typed = [(f"--rule {text}", f"rules.{name}", value)
             for text in args.rule_options for name, value in [rule_option(text)]]
    for text in texts:
        k, v = parse_override(text)
        if rules_option(k) is not None and isinstance(v, str):
            # text TOML did not read is read as --rule reads it (true/false and the choices in
            # any case: --rule napola=TRUE took, --set rules.napola=TRUE did not; review)
            try:
                v = rule_option(f"{rules_option(k)}={v}")[1]
            except ScopaError:
                pass            # Rules names the bad value
        typed.append((text, k, v))
    given = {}
    for text, k, v in typed:
        # the last one used to win silently; a rules option by any of its names (--target,
        # --rule target=... and --set rules.target) is one key
        key = f"rules.{rules_option(k)}" if rules_option(k) is not None else k
        if key in given:
            raise ScopaError(f"config key {key!r} given twice on the command line: {given[key]!r} "
                             f"and {text!r}")
        given[key] = text
        # a rules option is checked with the rules it changes (make_config)
        out[k] = v if rules_option(k) is not None else _coerce(k, v)
    return out


def export_target(out: str, src: str) -> Path:
    """The file --export may write: a new or regular file named *.pt (never a folder, a device
    or a pipe, never the checkpoint it exports) in an existing folder; else one ScopaError
    naming it."""
    if not out or "\0" in out:
        raise ScopaError(f"--export needs an output file path, got {out!r}")
    if not out.endswith(".pt"):
        # evaluate.py and play.py take a checkpoint by its .pt name: e.txt could not be used (review)
        raise ScopaError(f"--export output {out!r} must end in .pt (agent specs name checkpoints "
                         f"by their .pt file)")
    path = Path(out)
    if path.name == ".pt":
        # a hidden file of no name, which tables would call '.pt' (review)
        raise ScopaError(f"--export output {out!r} needs a name before .pt (the agent's name in tables)")
    try:
        if path.exists() or path.is_symlink():
            if path.is_dir():
                raise ScopaError(f"--export output {out!r} is a folder, not a file")
            if not path.is_file():
                raise ScopaError(f"--export output {out!r} exists and is not a regular file "
                                 "(a device, a pipe or a broken link): it is not replaced")
            if Path(src).exists() and path.samefile(src):
                raise ScopaError(f"--export output {out!r} is the checkpoint it exports: write "
                                 "the agent to another file")
            if _resumable_file(path):
                # a run's latest.pt replaced by an agent-only file could no longer be resumed,
                # silently (review); another agent-only file may be replaced
                raise ScopaError(f"--export output {out!r} is a run's resumable checkpoint (it holds "
                                 "the optimizer and environment state): an agent-only file would "
                                 "replace it and the run could not be resumed; write the agent to "
                                 "another file")
        parent = path.parent
        if not parent.is_dir():
            what = "is not a folder" if parent.exists() else "does not exist"
            raise ScopaError(f"--export output {out!r}: {str(parent)!r} {what}")
    except OSError as e:
        raise ScopaError(f"--export output {out!r}: {e.strerror or e}") from None
    return path


def _resumable_file(path: Path) -> bool:
    """Whether `path` is a checkpoint --resume can continue (one that does not load is not)."""
    from agents import checkpoint
    try:
        ckpt = checkpoint.load(path)
    except ScopaError:
        return False
    return checkpoint.resumable(ckpt)


def export(src: str, out: str) -> None:
    from agents import checkpoint

    from scopa_env.atomic import deferred_interrupts

    ckpt = checkpoint.load(src)
    from agents.learned import LearnedAgent
    agent = LearnedAgent(path=src)      # its network builds and scores: an export is an agent (review)
    if agent.network_digest != checkpoint.network_digest(ckpt):
        # the agent reads the file again: a run saving latest.pt between the two reads had one
        # network checked and another written
        raise ScopaError(f"checkpoint {src!r} changed while --export read it (a run still saving "
                         f"it?): export it again, or export a file no run writes (step_*.pt)")
    target = export_target(out, src)
    with deferred_interrupts():     # a Ctrl-C during the write acts once it is written and said
        try:
            path = checkpoint.save_atomic(checkpoint.agent_only(ckpt), target)
            size = path.stat().st_size
        except OSError as e:
            raise ScopaError(f"cannot write --export output {out!r} ({e.strerror or e})") from None
        print(f"wrote {path} ({size / 1e6:.1f} MB) from {src}")


def checked_config(loaded: dict, **overrides):
    """make_config, and the share of bot games it gives (check_bot_games: bot_games = 0.001 of
    a file did not name the file; review)."""
    from training.config import check_bot_games, make_config
    cfg = make_config(loaded, **overrides)
    check_bot_games(cfg)
    return cfg


def config_error(e: ScopaError, loaded: dict, overrides: dict, path) -> str:
    """checked_config's error, naming the config file when the file alone makes it (a bad value
    there, or two of its keys setting one rules option); one the flags make is theirs."""
    try:
        checked_config({}, **overrides)     # the flags alone on the defaults: their error is theirs
    except ScopaError as flags:
        if str(flags) == str(e):
            return str(e)
    try:
        checked_config(loaded)
    except ScopaError as alone:
        if str(alone) == str(e):
            return f"{path}: {e}"
    return str(e)


def _resumable(run, args) -> bool:
    """Whether a run stopped now leaves a checkpoint that --resume continues."""
    return run.checkpointed if run is not None else args.resume is not None


def _nothing_to_resume(run) -> str:
    """What a run stopped before its first checkpoint leaves: nothing to resume, and the folders
    its start made, named (Run.made_folders: not one that was there, which may hold another
    run's events). A default name is new at each start, so no later run of it clears them, and
    each such start left a TensorBoard run of its own without a word (a disk review)."""
    from scopa_env.errors import escape_control
    text = "no checkpoint was written yet (nothing to resume)"
    if run is None:
        return text
    left = [escape_control(str(p)) for p in run.made_folders if p.is_dir()]
    if left:
        text += (f"; {' and '.join(left)} stay{'s' if len(left) == 1 else ''}, with no "
                 f"checkpoint: remove {'it' if len(left) == 1 else 'them'} if not wanted")
    return text


def main(argv=None) -> int:
    try:    # the parser imports training's modules (torch): Ctrl-C there was a traceback (review)
        parser = build_parser()
    except KeyboardInterrupt:
        print(INTERRUPTED_AT_START, file=sys.stderr)
        return 130
    args = parser.parse_args(argv)
    run = None
    training = False
    try:
        if args.list_rules:
            list_rules_alone(parser, args)
            from scopa_env.presets import list_rules_text
            print(list_rules_text())
            return 0
        if args.export:
            # it writes a file and trains nothing: another flag would be ignored, --print-config
            # (write nothing) included (review)
            other = flags_given(parser, args, "export")
            if other:
                raise ScopaError(f"--export copies a checkpoint's agent and does nothing else: "
                                 f"drop {', '.join(other)}")
            export(*args.export)
            return 0
        if args.stop_at is not None and args.stop_at < 1:
            raise ScopaError(f"--stop-at must be a number of steps, at least 1, got {args.stop_at}")
        if args.print_config and args.stop_at is not None:     # it was dropped without a word (review)
            raise ScopaError("--print-config prints the config and trains nothing: drop --stop-at")
        from training.config import check_read, load_toml, make_config
        from training.loop import InitFromError, check_new_run, start

        # an empty value is a mistake (an unset shell variable), not "flag not given"
        for flag, value in (("--resume", args.resume), ("--config", args.config)):
            if value is not None and not value.strip():
                raise ScopaError(f"{flag} needs a value: got an empty one")
        overrides = explicit_overrides(args)
        # a closed standard output from here on stops a run, which says so (set for a new run only,
        # it let a resumed one stop with exit 0 and no word; review)
        training = not args.print_config
        if args.resume is not None:
            if args.config is not None:
                raise ScopaError("--resume continues a run with its own config: drop --config")
            base = make_config(**{k: v for k, v in overrides.items()
                                  if k in ("checkpoints_dir", "runs_dir")})
            # with --print-config standard output holds the TOML alone: start()'s notes go to
            # standard error (a note printed first made the output no TOML)
            log = (lambda *a, **k: print(*a, file=sys.stderr)) if args.print_config else print
            run = start(base, resume=args.resume, overrides=overrides, log=log)
            if args.print_config:         # the resumed run's config, overrides applied; no training
                print(run.cfg.to_toml(), end="")
                return 0
        else:
            path = DEFAULT_CONFIG if args.config is None else args.config
            loaded = load_toml(path)
            for key in ("init_from", "run_name"):
                # an empty value where the config has none changes nothing: an unset shell
                # variable ($CKPT), and a fine-tune silently started from random weights (review);
                # emptying a value the config sets (finetune.toml's init_from) is a choice
                if overrides.get(key) == "" and not loaded.get(key):
                    raise ScopaError(f"config key {key!r} is given empty on the command line (an "
                                     f"unset shell variable?), and {path} sets none either: give "
                                     f"a value, or leave it out")
            try:
                cfg = checked_config(loaded, **overrides)
            except ScopaError as e:
                raise ScopaError(config_error(e, loaded, overrides, path)) from None
            check_read(overrides, cfg)     # typed, and never read: a no-op run (review)
            try:
                if args.print_config:
                    check_new_run(cfg)      # what the run would refuse is refused here too
                    print(cfg.to_toml(), end="")
                    return 0
                run = start(cfg)
            except InitFromError as e:      # the file's key: the file is named, as for its values
                from_file = "init_from" in loaded and "init_from" not in overrides
                raise ScopaError(f"{path}: {e}" if from_file else str(e)) from None
        run.train(stop_at=args.stop_at)
    except ScopaError as e:
        print(f"train.py: error: {e}", file=sys.stderr)
        return 2
    except ImportError as e:
        # a core install (no [train] extra): say what to install instead of a traceback (torch's
        # own tensorboard module raises without a name when tensorboard is missing)
        missing = e.name if e.name in ("torch", "tensorboard") else (
            "tensorboard" if "tensorboard" in str(e).lower() else None)
        if missing is None:
            raise
        print(f"train.py: error: training needs {missing}, which is not installed: pip install -e "
              f'".[train]" (on these machines first pip install torch==2.13.0)', file=sys.stderr)
        return 2
    except BrokenPipeError:
        # a reader gone (`| head -2`): --list-rules and --print-config end quietly, exit 0
        # (run_main); a run cut short says so (it stopped with exit 0 and no word: review)
        if not training:
            raise
        quiet_stdout()
        kept = ("the last checkpoint is intact; --resume continues" if _resumable(run, args)
                else _nothing_to_resume(run))
        print(f"train.py: standard output was closed (its reader has gone): the run stopped; {kept}",
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        if args.export:
            print("train.py: interrupted (--export wrote its output only if it said so above)",
                  file=sys.stderr)
        elif _resumable(run, args):
            print("train.py: interrupted (the last checkpoint is intact; --resume continues)",
                  file=sys.stderr)
        else:
            print(f"train.py: interrupted before the run's first checkpoint: "
                  f"{_nothing_to_resume(run)}", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    # each line as it is printed, also into a pipe or a file (`> log`, `| tee`): progress
    # and results of a long run are not held back in a block buffer until it ends
    if sys.stdout is not None:      # started with >&-: print() writes nothing (an AttributeError here)
        sys.stdout.reconfigure(line_buffering=True)
    sys.exit(run_main(main))
