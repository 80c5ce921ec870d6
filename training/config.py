"""The training configuration: one frozen dataclass, filled from a TOML file and the command line.

`configs/*.toml` files hold flat `key = value` pairs named like the fields below. Anything not
named is left at its default; an unknown key or a value of the wrong type raises ScopaError naming
it (a file's values keep their TOML types, `seed = "3"` is refused; what is typed on the command
line is converted, `--seed 3`). The whole config is written to TensorBoard and into every checkpoint.

The rules (`rules`, a scopa_env.rules.Rules) are given in one of three ways:

    rules = "scopone"            # a preset of scopa_env/presets.py (`train.py --list-rules`)

    [rules]                      # options of scopa_env.rules.Rules; the rest keep the classic
    napola = true                #   defaults
    target = 21

    [rules]                      # a preset plus overrides: the preset's options, then these
    preset = "scopone"
    target = 21

On the command line `--rules PRESET` (or `--set rules=PRESET`) replaces the file's rules as a
whole, and `--set rules.OPTION=VALUE` changes one option of the result; `--napola V` /
`--target T` (and top-level `napola` / `target` keys, as configs and checkpoints written before
the variants have them) are the same as `rules.napola` / `rules.target`. An unknown option or
preset is one ScopaError naming it.
"""
from __future__ import annotations

import math
import sys
import tomllib
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

from scopa_env.errors import ScopaError, has_control, regular_file
from scopa_env.presets import rules_from_preset
from scopa_env.rules import Rules
from scopa_env.seeds import check_seed

ALGOS = ("dmc", "ppo")
EPISODES = ("hand", "match")
BOT_LEVELS = ("easy", "normal")   # the rule bots that can play inside the batched env
# upper bounds of the sizes that allocate memory or threads (the field docstrings say them)
MAX_INT = {"num_envs": 65_536, "rollout_steps": 65_536, "hidden": 4_096, "pool_size": 1_000,
           "torch_threads": 256}
MAX_MOVES_PER_ITERATION = 4_194_304      # num_envs x rollout_steps
MAX_MATCHES = 100_000_000      # evaluate's bound (agents/arena.py MAX_MATCHES; a test checks)
MAX_WHOLE = 2**53       # any other whole-number key: exact in a float, and in an int64 counter
MAX_RUN_NAME = 100


def opponent_names() -> tuple[str, ...]:
    """The names eval_opponents and final_opponents take: agents.REGISTRY's (random and the
    levels, and an agent a contributor adds there), as evaluate.py's --opponent."""
    from agents import REGISTRY
    return tuple(REGISTRY)


@dataclass(frozen=True)
class TrainConfig:
    """Everything a training run depends on. Same config and seed, same run, bit for bit
    (unless `max_minutes` stops it early). Every whole-number key but `seed` (0..2**63-1) is at most 2**53
    (where its docstring gives no other bound), every number a float can hold."""

    algo: str = "dmc"
    """'dmc' (Deep Monte-Carlo action values, DouZero-style) or 'ppo' (PPO with action masking
    against a pool of past snapshots)."""
    seed: int = 1
    """Seed of everything random: deals, exploration, network initialisation."""
    total_steps: int = 2_000_000
    """Budget in environment steps (one step = one card played, by either seat)."""
    max_minutes: float = 0.0
    """Stop after this many minutes of training even if the step budget is not spent
    (0 = no limit; finite): minutes of this leg, the train.py command, on the monotonic clock,
    from the start of training, its periodic evaluations and saves included (and on a first run
    the kernel compiles they wait for), checked after each iteration (a resumed run's earlier
    legs do not count; a value given to a resume stays in the run's config for later resumes,
    as every setting does). When it triggers, the run is no longer reproducible from its seed."""
    rules: Rules = Rules()
    """The rules trained for: a preset name, a [rules] table of Rules options, or a preset plus
    overrides (module docstring). A network is trained for one rules set; its checkpoints carry it."""
    episode: str = "hand"
    """Training episode: 'hand' (return = the hand's points, my side's minus the other side's;
    with three sides, minus the mean of the other two) or 'match' (return = +1 for winning the
    match, -1 for losing; three sides: +1 / -1/2). Partners in pairs share their side's return."""

    num_envs: int = 128
    """Games stepped side by side in the batched environment (1..65,536; num_envs x
    rollout_steps at most 4,194,304 moves an iteration)."""
    rollout_steps: int = 64
    """Environment steps per iteration (each of the num_envs games moves this many times;
    1..65,536)."""
    hidden: int = 256
    """Width of the network's hidden layers (1..4,096)."""
    learning_rate: float = 5e-4
    """Adam learning rate (above 0, at most 1)."""
    max_grad_norm: float = 1.0
    """Gradients are clipped to this global norm (above 0, finite)."""
    minibatch_size: int = 1024
    """Samples per gradient step (the last step of a pass takes what is left; an iteration with
    fewer samples than this makes one step of all of them)."""
    update_epochs: int = 1
    """Passes over each iteration's data."""

    epsilon_start: float = 0.2
    """DMC: exploration rate (random legal move) at the start."""
    epsilon_end: float = 0.02
    """DMC: exploration rate after `epsilon_decay_frac` of the budget (linear from
    epsilon_start; an end above the start makes it grow, which is allowed)."""
    epsilon_decay_frac: float = 0.5
    """DMC: fraction of the step budget over which epsilon decays linearly (the budget the run
    started with: a resume with a new total_steps keeps the schedule)."""

    td_lambda: float = 1.0
    """DMC: 1 = Monte-Carlo returns (DouZero). Below 1: lambda-returns over the mover's own
    decisions, bootstrapping from the greedy value the network gave the mover's next position
    when it acted there (lower variance, some bias)."""
    bot_games: float = 0.0
    """Share of the games in which one seat is played by a rule bot (in the batched env,
    training/bots.py); the bots' moves are not trained on. 0 = pure self-play. 2-player rules
    only."""
    bot_levels: tuple = ("normal",)
    """The rule bots of the bot games ('easy', 'normal'), sharing those games in turn."""
    init_from: str = ""
    """A checkpoint (a run's or an exported agent) whose network weights start a new run; its
    rules, algorithm (its scores are dmc's points or ppo's logits) and network shape must match
    this config's. The optimizer, counters and exploration schedule start afresh (fine-tuning).
    '' = random initialisation. Ignored by --resume."""

    gamma: float = 1.0
    """PPO: discount per learner decision."""
    gae_lambda: float = 0.95
    """PPO: GAE lambda."""
    clip_coef: float = 0.2
    """PPO: policy ratio clipping (above 0, at most 1)."""
    ent_coef: float = 0.01
    """PPO: entropy bonus weight (0..100)."""
    vf_coef: float = 0.5
    """PPO: value loss weight (0..100)."""
    pool_size: int = 8
    """PPO: past snapshots kept as opponents (1..1,000)."""
    snapshot_every: int = 20
    """PPO: iterations between snapshots added to the pool."""
    latest_opponent_prob: float = 0.5
    """PPO: share of games whose opponents are the current policy (the rest draw from the pool;
    with several opponent seats, one snapshot plays them all)."""

    eval_every: int = 500_000
    """Environment steps between evaluations during training (0 = none)."""
    eval_matches: int = 100
    """Matches per opponent in each periodic evaluation (duplicate deals, each played once per
    side: rounded up to a multiple of the number of sides, 2 in the 2-player game, and a line at
    the run's start says so; at least 1 while eval_every > 0: eval_every = 0 turns the evaluations
    off; at most 100,000,000 once rounded)."""
    eval_opponents: tuple = ("easy", "normal")
    """Opponents of the periodic evaluations (at least one while eval_every > 0); best.pt keeps
    the best mean points per hand over them."""
    final_matches: int = 200
    """Matches per opponent in the evaluation table at the end (0 = none; rounded up to a
    multiple of the number of sides, as eval_matches, and a line at the run's start says so; at most
    100,000,000 once rounded)."""
    final_opponents: tuple = ("easy", "normal")
    """Opponents of the evaluation table at the end (at least one while final_matches > 0; 'hard'
    is slow: add it for long runs)."""
    checkpoint_every: int = 500_000
    """Environment steps between periodic checkpoints (latest.pt is written at each). 0 = none:
    latest.pt is written with the first best.pt (the first periodic evaluation) and at the end,
    so a run killed midway resumes from its first evaluation, or, with eval_every = 0 too, has
    nothing to resume."""
    torch_threads: int = 2
    """Threads torch may use (the machine's cores; 1..256)."""
    run_name: str = ""
    """Name of the run ('' = scopa__{algo}__{seed}__{unix time}; scopa-{preset}__... or
    scopa-variant__... under other rules than the classic; a -2 suffix for a name taken in the
    same second): a plain folder name of at most 100 characters (no '/', '\\' or control
    characters). A new run refuses a name whose checkpoints folder already holds checkpoints
    (--resume continues that run)."""
    runs_dir: str = "runs"
    """TensorBoard logs go to runs_dir/run_name (not empty)."""
    checkpoints_dir: str = "checkpoints"
    """Checkpoints go to checkpoints_dir/run_name (not empty)."""

    def __post_init__(self):
        _check(self)

    def to_dict(self) -> dict:
        d = asdict(self)
        for k, v in d.items():
            if isinstance(v, tuple):
                d[k] = list(v)
        d["rules"] = self.rules.to_dict()
        return d

    def to_toml(self) -> str:
        lines = []
        d = self.to_dict()
        rules = d.pop("rules")
        for k, v in d.items():
            lines.append(f"{k} = {_toml_line(k, v)}")
        lines.append("")
        lines.append("[rules]")
        for k, v in rules.items():
            lines.append(f"{k} = {_toml_line('rules.' + k, v)}")
        return "\n".join(lines) + "\n"


FIELDS = {f.name: f for f in fields(TrainConfig)}
# the fields one algorithm reads and the other does not (their docstrings start 'DMC:' / 'PPO:')
ALGO_FIELDS = {"dmc": ("epsilon_start", "epsilon_end", "epsilon_decay_frac", "td_lambda"),
               "ppo": ("gamma", "gae_lambda", "clip_coef", "ent_coef", "vf_coef", "pool_size",
                       "snapshot_every", "latest_opponent_prob")}


# settings read only while another is above 0: (key, the gate, what 0 means)
GATED_FIELDS = (("bot_levels", "bot_games", "no game has a rule bot"),
                ("eval_matches", "eval_every", "no periodic evaluation"),
                ("eval_opponents", "eval_every", "no periodic evaluation"),
                ("final_opponents", "final_matches", "no final table"))


def check_read(keys, cfg: "TrainConfig") -> None:
    """ScopaError for a key given on the command line (`--set K=V` or its flag) that the run
    never reads: `--clip-coef 0.3` on a dmc run trained as if it had not been typed, and so did
    `--bot-levels easy` with bot_games 0 (review). A config file may hold both algorithms'
    settings (configs/default.toml sets td_lambda, and `--algo ppo` on it trains ppo), so this is
    for what was typed only."""
    for key in keys:
        for other, names in ALGO_FIELDS.items():
            if key in names and other != cfg.algo:
                raise ScopaError(f"config key {key!r} is a {other} setting, and this run trains "
                                 f"{cfg.algo}: given on the command line it would change nothing "
                                 f"(train with --algo {other}, or drop it)")
        for name, gate, off in GATED_FIELDS:
            if key == name and not getattr(cfg, gate) > 0:
                raise ScopaError(f"config key {key!r} is read only while {gate} > 0, and this run "
                                 f"has {gate} = {_toml_value(getattr(cfg, gate))} ({off}): given on "
                                 f"the command line it would change nothing (set {gate} too, or "
                                 f"drop it)")


# the [rules] table takes exactly the options of scopa_env.rules.Rules (plus `preset`)
RULES_KEYS = tuple(f.name for f in fields(Rules))
# top-level keys that set one rules option (configs and checkpoints from before the variants)
LEGACY_RULES_KEYS = ("napola", "target")


def _field_type(name: str) -> type:
    return type(getattr(TrainConfig, name)) if hasattr(TrainConfig, name) else str


def rules_option(key: str) -> str | None:
    """The Rules option a config key sets ('rules.target' or legacy 'target'), else None;
    ScopaError for 'rules.<unknown>'."""
    if key in LEGACY_RULES_KEYS:
        return key
    if key.startswith("rules."):
        name = key[len("rules."):]
        if name == "preset":
            raise ScopaError(f"config key {key!r}: a preset replaces the rules, give it with "
                             f"--rules PRESET (or --set rules=PRESET)")
        if name not in RULES_KEYS:
            raise ScopaError(f"unknown config key {key!r} (rules options: {', '.join(RULES_KEYS)})")
        return name
    return None


def rules_from_config(value) -> Rules:
    """A Rules from what a config may hold: a Rules, a preset name, or a table of options with
    an optional `preset` key whose options the others override."""
    if isinstance(value, Rules):
        return value
    if isinstance(value, str):
        return rules_from_preset(value)
    if isinstance(value, dict):
        table = dict(value)
        preset = table.pop("preset", None)
        for k in table:
            if k not in RULES_KEYS:
                raise ScopaError(f"unknown config key 'rules.{k}' (rules options: preset, "
                                 f"{', '.join(RULES_KEYS)})")
        base = rules_from_preset(preset) if preset is not None else Rules()
        return base.replace(**table) if table else base
    raise ScopaError(f"config key 'rules' needs a preset name or a table of rules options, "
                     f"got {value!r}")


_TOML_ESCAPES = {"\\": "\\\\", '"': '\\"', "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _toml_char(ch: str) -> str:
    """A character inside a TOML basic string: \\, " and control characters escaped (a path with
    a control character made --print-config's output invalid TOML)."""
    if ch in _TOML_ESCAPES:
        return _TOML_ESCAPES[ch]
    if 0xD800 <= ord(ch) <= 0xDFFF:     # a byte that was not UTF-8 (a path from the command line)
        raise _NotUtf8(ch.encode("utf-8", "surrogateescape"))
    return ch if 32 <= ord(ch) != 127 else f"\\u{ord(ch):04x}"


class _NotUtf8(ScopaError):
    def __init__(self, byte: bytes):
        super().__init__(f"a config value holds a byte that is not UTF-8 text ({byte!r})")
        self.byte = byte

    def __reduce__(self):       # pickled whole, as every ScopaError of the project (a test)
        return type(self), (self.byte,)


def _toml_line(key: str, v) -> str:
    """The TOML of one config value; ScopaError naming the key for a byte TOML cannot hold."""
    try:
        return _toml_value(v)
    except _NotUtf8 as e:       # the message named no key, and "a config file" (review)
        if _utf8_the_locale_cannot_read(v):
            # LC_ALL=C with PYTHONUTF8=0: 'caffè' typed in UTF-8 reached Python as escaped bytes,
            # and was called "not UTF-8" (an environment review)
            raise ScopaError(f"config key {key!r} holds UTF-8 text that this system's locale cannot "
                             f"read (its file-name encoding is {sys.getfilesystemencoding()}): use "
                             f"an ASCII name, or a UTF-8 locale (PYTHONUTF8=1)") from None
        raise ScopaError(f"config key {key!r} holds a byte that is not UTF-8 text ({e.byte!r}): a "
                         f"run keeps its config as TOML (checkpoints, TensorBoard, --print-config), "
                         f"which cannot hold it; use a name in UTF-8") from None


def _utf8_the_locale_cannot_read(v) -> bool:
    """Whether every text in `v` is UTF-8 once its escaped bytes are put back (the bytes were
    UTF-8; the system's encoding could not decode them), and the system's encoding is not UTF-8."""
    texts = [v] if isinstance(v, str) else [x for x in v if isinstance(x, str)]   # what _toml_value refused
    if not texts or sys.getfilesystemencoding().lower().replace("-", "") == "utf8":
        return False
    try:
        for text in texts:
            text.encode("utf-8", "surrogateescape").decode("utf-8")
    except UnicodeError:
        return False
    return True


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):      # a TOML basic string
        return '"' + "".join(_toml_char(ch) for ch in v) + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return repr(v)


def _coerce(name: str, value):
    """Check and convert one value to the type of field `name`; ScopaError names a mismatch."""
    if name not in FIELDS:
        raise ScopaError(f"unknown config key {name!r} (known: {', '.join(FIELDS)})")
    want = _field_type(name)
    if want is Rules:
        return rules_from_config(value)
    if want is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if name == "seed" and isinstance(value, float):
            check_seed(value, "config key 'seed'")     # a float seed is never truncated
        if isinstance(value, float) and value.is_integer():
            if abs(value) > 2**53:
                # 1e99 became 9999999999999999673361688... without a word (a review)
                raise ScopaError(f"config key {name!r}: {value!r} is past the whole numbers a "
                                 f"float holds exactly (2**53); write the number out in digits")
            return int(value)
        if isinstance(value, str) and value.isascii():
            # digits as Python writes them: '1_000' is TOML's already, and the underscores
            # dropped before made '_1' a 1; int() alone reads other scripts' digits, '٣' as 3 (review)
            try:
                return int(value)
            except ValueError:
                pass
    elif want is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            try:
                return float(value)
            except OverflowError:       # a TOML integer of 400 digits was a traceback (review)
                raise ScopaError(f"config key {name!r} needs a number a float can hold, got an integer "
                                 f"of {len(str(abs(value)))} digits") from None
        if isinstance(value, str) and value.isascii():     # not '٣' (review)
            try:
                return float(value)
            except ValueError:
                pass
    elif want is tuple:
        if isinstance(value, str):
            items = [v.strip() for v in value.split(",")]
            if value.strip() and not all(items):
                # 'easy,,normal' and 'easy,' were read as names with the gap dropped, so a name
                # lost in typing went unsaid; '' alone still means no names
                raise ScopaError(f"config key {name!r}: an empty name in {value!r} (names are "
                                 f"separated by single commas: easy,normal)")
            value = [v for v in items if v]
        if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            # every list is of level names, read in any case as evaluate.py and play.py read
            # them: 'Easy' was refused here alone; kept (and shown) as the level's own name
            return tuple(v.lower() for v in value)
    elif want is str:
        if isinstance(value, str):
            return value
    kind = {int: "a whole number", float: "a number", tuple: "a list of names (or one name)",
            str: "a text"}.get(want, want.__name__)
    raise ScopaError(f"config key {name!r} needs {kind}, got {value!r}")


def _check(c: TrainConfig) -> None:
    for f in fields(c):
        v = getattr(c, f.name)
        if isinstance(v, float) and math.isnan(v):
            raise ScopaError(f"config key {f.name!r} must be a number, got nan")
        coerced = _coerce(f.name, v)
        # a list of level names differs only in case when given as 'Easy' (dataclasses.replace
        # does not coerce): the level check below names the level (the diff review)
        if coerced != v and not (isinstance(v, tuple) and coerced == tuple(x.lower() for x in v)):
            # a preset name or a table, as make_config and the files take them, is a Rules here
            hint = (": TrainConfig holds a Rules object; make_config reads a preset name or a "
                    "table of options" if f.name == "rules" and isinstance(v, (str, dict)) else "")
            raise ScopaError(f"config key {f.name!r} has a bad value {v!r}{hint}")
    if c.algo not in ALGOS:
        raise ScopaError(f"config key 'algo' must be one of {', '.join(ALGOS)}, got {c.algo!r}")
    if c.episode not in EPISODES:
        raise ScopaError(f"config key 'episode' must be one of {', '.join(EPISODES)}, got {c.episode!r}")
    for name in ("total_steps", "num_envs", "rollout_steps", "hidden", "minibatch_size",
                 "update_epochs", "pool_size", "snapshot_every", "torch_threads"):
        if getattr(c, name) < 1:
            raise ScopaError(f"config key {name!r} must be at least 1, got {getattr(c, name)}")
    for f in fields(c):
        most = MAX_INT.get(f.name, MAX_WHOLE)
        if _field_type(f.name) is int and f.name != "seed" and getattr(c, f.name) > most:
            # total_steps of 400 digits passed --print-config and was an OverflowError in the
            # run; matches past evaluate's bound were refused after the training (review)
            v = getattr(c, f.name)
            shown = f"{v:,}" if len(str(v)) <= 30 else f"an integer of {len(str(v))} digits"
            raise ScopaError(f"config key {f.name!r} must be at most {most:,}, got {shown}")
    if c.num_envs * c.rollout_steps > MAX_MOVES_PER_ITERATION:
        raise ScopaError(f"config keys 'num_envs' x 'rollout_steps' must be at most "
                         f"{MAX_MOVES_PER_ITERATION:,} moves an iteration, got {c.num_envs:,} x "
                         f"{c.rollout_steps:,}")
    for name in ("eval_every", "eval_matches", "final_matches", "checkpoint_every", "max_minutes"):
        if getattr(c, name) < 0:
            raise ScopaError(f"config key {name!r} must not be negative, got {getattr(c, name)}")
    for name in ("eval_matches", "final_matches"):
        v, sides = getattr(c, name), c.rules.teams
        if -(-v // sides) * sides > MAX_MATCHES:     # refused after the training (review)
            raise ScopaError(f"config key {name!r} must be at most {MAX_MATCHES:,} once rounded up to "
                             f"a multiple of the {sides} sides, got {v:,}")
    if c.eval_every > 0 and c.eval_matches < 1:
        raise ScopaError("config key 'eval_matches' must be at least 1 while eval_every > 0 "
                         "(eval_every = 0 turns the periodic evaluations off)")

    if c.eval_every > 0 and not c.eval_opponents:
        raise ScopaError("config key 'eval_opponents' needs at least one opponent while "
                         "eval_every > 0 (eval_every = 0 turns the periodic evaluations off)")
    if c.final_matches > 0 and not c.final_opponents:     # the table vanished without a word
        raise ScopaError("config key 'final_opponents' needs at least one opponent while "
                         "final_matches > 0 (final_matches = 0 turns the final table off)")
    # (name, low, low allowed, high): every float field's range; all finite
    for name, low, low_ok, high in (("max_minutes", 0.0, True, math.inf),
                                    ("learning_rate", 0.0, False, 1.0),
                                    ("max_grad_norm", 0.0, False, math.inf),
                                    ("clip_coef", 0.0, False, 1.0),
                                    ("ent_coef", 0.0, True, 100.0),
                                    ("vf_coef", 0.0, True, 100.0)):
        v = getattr(c, name)
        if not (math.isfinite(v) and (v >= low if low_ok else v > low) and v <= high):
            lo = f"at least {low:g}" if low_ok else f"above {low:g}"
            hi = "finite" if high == math.inf else f"at most {high:g}"
            raise ScopaError(f"config key {name!r} must be {lo} and {hi}, got {v!r}")
    for name in ("eval_opponents", "final_opponents"):
        for level in getattr(c, name):
            levels = opponent_names()
            if level not in levels:
                raise ScopaError(f"config key {name!r}: unknown opponent {level!r} "
                                 f"(use {', '.join(levels)})")
    for name in ("epsilon_start", "epsilon_end", "epsilon_decay_frac", "latest_opponent_prob",
                 "gae_lambda", "gamma", "bot_games", "td_lambda"):
        if not 0.0 <= getattr(c, name) <= 1.0:
            raise ScopaError(f"config key {name!r} must be within 0..1, got {getattr(c, name)}")
    check_seed(c.seed, "config key 'seed'")
    if any(ch in c.run_name for ch in "/\\") or c.run_name in (".", "..") or \
            has_control(c.run_name):
        raise ScopaError(f"config key 'run_name' must be a plain name (no '/', '\\' or control "
                         f"characters), got {c.run_name!r}")
    if c.run_name and not c.run_name.strip():   # '' is the default name; blank was read as ''
        raise ScopaError(f"config key 'run_name' is blank ({c.run_name!r}): give a name, or none "
                         f"for the default")
    if len(c.run_name) > MAX_RUN_NAME:
        raise ScopaError(f"config key 'run_name' must be at most {MAX_RUN_NAME} characters, got "
                         f"{len(c.run_name)}")
    for name in ("runs_dir", "checkpoints_dir"):
        folder = getattr(c, name)
        if not folder.strip():
            raise ScopaError(f"config key {name!r} must name a folder, got {folder!r}")
        if "\0" in folder:
            raise ScopaError(f"config key {name!r} must not hold a NUL character, got {folder!r}")
    for name in ("eval_opponents", "final_opponents", "bot_levels"):
        names = getattr(c, name)
        twice = sorted({level for level in names if names.count(level) > 1})
        if twice:      # merged into one row (or one bot) without a word (a review)
            raise ScopaError(f"config key {name!r} names {', '.join(twice)} twice")
    for level in c.bot_levels:
        if level not in BOT_LEVELS:
            raise ScopaError(f"config key 'bot_levels': unknown bot {level!r} (use {', '.join(BOT_LEVELS)})")
    if not c.bot_levels:
        raise ScopaError(f"config key 'bot_levels' needs at least one bot ({', '.join(BOT_LEVELS)})")
    if c.bot_games > 0 and c.rules.players != 2:
        raise ScopaError(f"config key 'bot_games' needs 2-player rules (an in-env rule bot "
                         f"plays one opponent), these rules have {c.rules.players} players")


def check_bot_games(c: TrainConfig) -> None:
    """A new run's bot games: at least 2 per level (a run saved before this check resumes as it
    was: its bot_games and num_envs cannot change on resume)."""
    n_bot, need = bot_game_count(c.bot_games, c.num_envs), 2 * len(c.bot_levels)
    if c.bot_games > 0 and n_bot < need:
        # a share that rounded to 0 games was pure self-play without a word; fewer games than
        # 2 per level left a level out, or out of one seat
        more = (f"a bot_games share of at least {need / c.num_envs:.4g}" if need <= c.num_envs
                else f"num_envs of at least {need}")
        raise ScopaError(
            f"config key 'bot_games' = {c.bot_games} of {c.num_envs} game{'s' if c.num_envs != 1 else ''} "
            f"(num_envs) is {n_bot} bot game{'s' if n_bot != 1 else ''}; bot_levels "
            f"({', '.join(c.bot_levels)}) need {need}, each level in both seats: use {more}, or "
            f"bot_games = 0")


def bot_game_count(bot_games: float, num_envs: int) -> int:
    """How many of the num_envs training games have a rule bot (training/bots.py BotSeats)."""
    return int(round(bot_games * num_envs))


def _check_tables(data: dict, source: str) -> dict:
    for k, v in data.items():
        if isinstance(v, dict) and k != "rules":
            raise ScopaError(f"{source}: unknown config table [{k}]")
    return data


def _typed(name: str, value) -> bool:
    """Whether a config file's `value` has the TOML type of field `name`: a file states its types,
    so a whole-number field takes an integer (not "4096" nor 256.0) and a number field an integer
    or a float (not "5e-4"). Text, lists and the rules are checked as they are by _coerce; the
    conversions of _coerce are for what is typed on the command line."""
    want = _field_type(name)
    if want is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if want is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if want is bool:
        return isinstance(value, bool)
    return True


def load_toml(path: str | Path) -> dict:
    """The key/value pairs of a config file, checked against the fields (ScopaError names a bad one)."""
    path = regular_file("config file", path)
    try:
        # utf-8-sig: a byte order mark at the start (Windows Notepad writes one) is skipped, as
        # the record readers skip it; tomllib refused it as "Invalid statement" at 1:1 (review)
        data = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except OSError as e:        # no read permission: a PermissionError traceback (review)
        raise ScopaError(f"config file {str(path)!r} cannot be read ({e.strerror or e})") from None
    except (ValueError, UnicodeDecodeError) as e:
        # TOMLDecodeError is a ValueError; so is an integer of over 4,300 digits
        raise ScopaError(f"config file {str(path)!r} is not valid TOML: {e}") from None
    except RecursionError:       # [[[...]]] thousands deep: tomllib's parser recurses
        raise ScopaError(f"config file {str(path)!r}: a value is nested too deeply") from None
    flat = _check_tables(data, str(path))
    for k in flat:
        if k == "rules.preset":     # a quoted "rules.preset" key: the advice was the flags' (review)
            raise ScopaError(f"{path}: config key 'rules.preset': write the preset in the rules "
                             f"table, [rules] then preset = \"NAME\"")
        try:
            option = None if k in FIELDS else rules_option(k)
        except ScopaError as e:     # "rules.bogus" = 1 did not name the file (review)
            raise ScopaError(f"{path}: {e}") from None
        if k not in FIELDS and option is None:
            raise ScopaError(f"{path}: unknown config key {k!r}")
        if k in FIELDS and not _typed(k, flat[k]):
            kind = {int: "a whole number", float: "a number", bool: "true or false"}[_field_type(k)]
            how = " without quotes" if isinstance(flat[k], str) else ""
            raise ScopaError(f"{path}: config key {k!r} needs {kind}, got {flat[k]!r} (a config "
                             f"file's values keep their TOML types: write it as one{how})")
    if "rules" in flat:
        try:
            rules_from_config(flat["rules"])
        except ScopaError as e:
            raise ScopaError(f"{path}: {e}") from None
    return flat


def parse_override(text: str) -> tuple[str, object]:
    """'key=value' -> (key, value); the value is read as TOML when it parses, else as text (and
    always as text for a text field: a run name '2024' or '2024-06-01' is not a number or date)."""
    if "=" not in text:
        raise ScopaError(f"override {text!r} must look like key=value")
    key, typed = text.split("=", 1)
    key, raw = key.strip(), typed.strip()
    if typed and not raw:           # kept blank: a text field refuses it, not read as '' (review)
        raw = typed
    if key not in FIELDS and rules_option(key) is None:
        raise ScopaError(f"unknown config key {key!r}")
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except ValueError:           # not TOML (TOMLDecodeError), or an integer of over 4,300 digits
        value = raw
    except RecursionError:       # [[[...]]] thousands deep: tomllib's parser recurses
        raise ScopaError(f"config key {key!r}: the value is nested too deeply") from None
    if key in FIELDS and _field_type(key) is str and not isinstance(value, str):
        value = raw              # a text field keeps what was typed: --run-name 2024 is a name
    return key, value


def make_config(base: dict | None = None, **overrides) -> TrainConfig:
    """A TrainConfig from a dict of values (e.g. a TOML file's) plus overrides, all checked.

    Within each of the two, `rules` is read first and the single-option keys ('rules.target',
    legacy 'napola' / 'target') change it; an override's `rules` replaces the base's rules with
    their option changes."""
    values = {}
    for source in (base or {}, overrides):
        changes, set_by = {}, {}
        table = source.get("rules") if isinstance(source.get("rules"), dict) else {}
        for k, v in source.items():
            option = rules_option(k)
            if option is None:
                values[k] = _coerce(k, v)
            else:
                # one option set twice in one place (top-level `target` and [rules] target,
                # --target and --set rules.target) would silently keep one of them
                if option in table:
                    raise ScopaError(f"config keys {k!r} and 'rules.{option}' both set the rules "
                                     f"option {option!r} ({v!r} and {table[option]!r}): keep one")
                if option in set_by:
                    raise ScopaError(f"config keys {set_by[option]!r} and {k!r} both set the rules "
                                     f"option {option!r} ({changes[option]!r} and {v!r}): keep one")
                set_by[option] = k
                changes[option] = v
        if changes:
            values["rules"] = values.get("rules", Rules()).replace(**changes)
    return TrainConfig(**values)


def rules_overrides(overrides: dict) -> dict:
    """The overrides (e.g. from the command line) that touch the rules."""
    return {k: v for k, v in overrides.items() if k == "rules" or rules_option(k) is not None}


def saved_config(d: dict) -> dict:
    """A config stored in a checkpoint, in today's terms: before 2026-12-02 an empty
    final_opponents with final_matches > 0 was taken and meant no final table; it is refused
    now, so such a run's config reads as final_matches = 0, the table it had (none). A level
    named twice in eval_opponents, final_opponents or bot_levels was merged into one before
    2026-12-03; it is refused now, so a stored list reads with the repeat dropped."""
    d = dict(d)
    for name in ("eval_opponents", "final_opponents", "bot_levels"):
        # a level named twice was merged before 2026-12-03 and is refused now: a stored run reads
        # as it played (bot_levels cannot change on resume, so it could not be mended; review)
        if isinstance(d.get(name), (list, tuple)) and all(isinstance(x, str) for x in d[name]):
            d[name] = list(dict.fromkeys(d[name]))
    if isinstance(d.get("final_opponents"), (list, tuple)) and not d["final_opponents"] \
            and d.get("final_matches", TrainConfig.final_matches) != 0:
        d["final_matches"] = 0
    return d


def from_dict(d: dict) -> TrainConfig:
    """The config stored in a checkpoint (unknown keys rejected by name)."""
    return make_config(saved_config(d))


__all__ = ["TrainConfig", "FIELDS", "RULES_KEYS", "load_toml", "parse_override", "make_config",
           "from_dict", "saved_config", "rules_from_config", "rules_option", "replace"]
