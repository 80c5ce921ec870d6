"""The training configuration: one frozen dataclass, filled from a TOML file and the command line.

`configs/*.toml` files hold flat `key = value` pairs named like the fields below (a `[rules]`
table may hold `napola` and `target` instead of the top-level keys). Anything not named is left
at its default; an unknown key or a value of the wrong type raises ScopaError naming it. The whole
config is written to TensorBoard and into every checkpoint.
"""
from __future__ import annotations

import tomllib
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

from scopa_env.errors import ScopaError
from scopa_env.rules import Rules

ALGOS = ("dmc", "ppo")
EPISODES = ("hand", "match")
LEVELS = ("random", "easy", "normal", "hard")


@dataclass(frozen=True)
class TrainConfig:
    """Everything a training run depends on. Same config and seed, same run, bit for bit
    (unless `max_minutes` stops it early)."""

    algo: str = "dmc"
    """'dmc' (Deep Monte-Carlo action values, DouZero-style) or 'ppo' (PPO with action masking
    against a pool of past snapshots)."""
    seed: int = 1
    """Seed of everything random: deals, exploration, network initialisation."""
    total_steps: int = 2_000_000
    """Budget in environment steps (one step = one card played, by either seat)."""
    max_minutes: float = 0.0
    """Stop after this many minutes of training even if the step budget is not spent
    (0 = no limit). When it triggers, the run is no longer reproducible from its seed."""
    napola: bool = False
    """Rules: score the napola."""
    target: int = 11
    """Rules: points that end a match."""
    episode: str = "hand"
    """Training episode: 'hand' (return = the hand's points, mine minus the opponent's) or
    'match' (return = +1 for winning the match, -1 for losing)."""

    num_envs: int = 128
    """Games stepped side by side in the batched environment."""
    rollout_steps: int = 64
    """Environment steps per iteration (each of the num_envs games moves this many times)."""
    hidden: int = 256
    """Width of the network's hidden layers."""
    learning_rate: float = 5e-4
    """Adam learning rate."""
    max_grad_norm: float = 1.0
    """Gradients are clipped to this global norm."""
    minibatch_size: int = 1024
    """Samples per gradient step."""
    update_epochs: int = 1
    """Passes over each iteration's data."""

    epsilon_start: float = 0.2
    """DMC: exploration rate (random legal move) at the start."""
    epsilon_end: float = 0.02
    """DMC: exploration rate after `epsilon_decay_frac` of the budget."""
    epsilon_decay_frac: float = 0.5
    """DMC: fraction of the step budget over which epsilon decays linearly."""

    td_lambda: float = 1.0
    """DMC: 1 = Monte-Carlo returns (DouZero). Below 1: lambda-returns over the mover's own
    decisions, bootstrapping from the greedy value the network gave the mover's next position
    when it acted there (lower variance, some bias)."""
    bot_games: float = 0.0
    """Share of the games in which one seat is played by the `normal` rule bot (compiled, in the
    batched env); the bot's moves are not trained on. 0 = pure self-play."""

    gamma: float = 1.0
    """PPO: discount per learner decision."""
    gae_lambda: float = 0.95
    """PPO: GAE lambda."""
    clip_coef: float = 0.2
    """PPO: policy ratio clipping."""
    ent_coef: float = 0.01
    """PPO: entropy bonus weight."""
    vf_coef: float = 0.5
    """PPO: value loss weight."""
    pool_size: int = 8
    """PPO: past snapshots kept as opponents."""
    snapshot_every: int = 20
    """PPO: iterations between snapshots added to the pool."""
    latest_opponent_prob: float = 0.5
    """PPO: share of games whose opponent is the current policy (the rest draw from the pool)."""

    eval_every: int = 500_000
    """Environment steps between evaluations during training (0 = none)."""
    eval_matches: int = 100
    """Matches per opponent in each periodic evaluation (duplicate deals: played in pairs)."""
    eval_opponents: tuple = ("easy", "normal")
    """Opponents of the periodic evaluations; the first one picks best.pt."""
    final_matches: int = 200
    """Matches per opponent in the evaluation table at the end."""
    final_opponents: tuple = ("easy", "normal")
    """Opponents of the evaluation table at the end ('hard' is slow: add it for long runs)."""
    checkpoint_every: int = 500_000
    """Environment steps between periodic checkpoints (latest.pt is written at each)."""
    torch_threads: int = 2
    """Threads torch may use (the machine's cores)."""
    run_name: str = ""
    """Name of the run ('' = scopa__{algo}__{seed}__{unix time})."""
    runs_dir: str = "runs"
    """TensorBoard logs go to runs_dir/run_name."""
    checkpoints_dir: str = "checkpoints"
    """Checkpoints go to checkpoints_dir/run_name."""

    def __post_init__(self):
        _check(self)

    @property
    def rules(self) -> Rules:
        return Rules(napola=self.napola, target=self.target)

    def to_dict(self) -> dict:
        d = asdict(self)
        for k, v in d.items():
            if isinstance(v, tuple):
                d[k] = list(v)
        return d

    def to_toml(self) -> str:
        lines = []
        for k, v in self.to_dict().items():
            lines.append(f"{k} = {_toml_value(v)}")
        return "\n".join(lines) + "\n"


FIELDS = {f.name: f for f in fields(TrainConfig)}


def _field_type(name: str) -> type:
    return type(getattr(TrainConfig, name)) if hasattr(TrainConfig, name) else str


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return repr(v)


def _coerce(name: str, value):
    """Check and convert one value to the type of field `name`; ScopaError names a mismatch."""
    if name not in FIELDS:
        raise ScopaError(f"unknown config key {name!r} (known: {', '.join(FIELDS)})")
    want = _field_type(name)
    if want is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false", "1", "0", "yes", "no"):
            return value.lower() in ("true", "1", "yes")
    elif want is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str):
            try:
                return int(value.replace("_", ""))
            except ValueError:
                pass
    elif want is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                pass
    elif want is tuple:
        if isinstance(value, str):
            value = [v.strip() for v in value.split(",") if v.strip()]
        if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            return tuple(value)
    elif want is str:
        if isinstance(value, str):
            return value
    raise ScopaError(f"config key {name!r} needs a {want.__name__}, got {value!r}")


def _check(c: TrainConfig) -> None:
    for f in fields(c):
        v = getattr(c, f.name)
        if _coerce(f.name, v) != v:
            raise ScopaError(f"config key {f.name!r} has a bad value {v!r}")
    if c.algo not in ALGOS:
        raise ScopaError(f"config key 'algo' must be one of {', '.join(ALGOS)}, got {c.algo!r}")
    if c.episode not in EPISODES:
        raise ScopaError(f"config key 'episode' must be one of {', '.join(EPISODES)}, got {c.episode!r}")
    for name in ("total_steps", "num_envs", "rollout_steps", "hidden", "minibatch_size",
                 "update_epochs", "pool_size", "snapshot_every", "torch_threads", "target"):
        if getattr(c, name) < 1:
            raise ScopaError(f"config key {name!r} must be at least 1, got {getattr(c, name)}")
    for name in ("eval_every", "eval_matches", "final_matches", "checkpoint_every", "max_minutes"):
        if getattr(c, name) < 0:
            raise ScopaError(f"config key {name!r} must not be negative, got {getattr(c, name)}")
    for name in ("eval_opponents", "final_opponents"):
        for level in getattr(c, name):
            if level not in LEVELS:
                raise ScopaError(f"config key {name!r}: unknown opponent {level!r} "
                                 f"(use {', '.join(LEVELS)})")
    for name in ("epsilon_start", "epsilon_end", "epsilon_decay_frac", "latest_opponent_prob",
                 "gae_lambda", "gamma", "bot_games", "td_lambda"):
        if not 0.0 <= getattr(c, name) <= 1.0:
            raise ScopaError(f"config key {name!r} must be within 0..1, got {getattr(c, name)}")
    if c.learning_rate <= 0:
        raise ScopaError(f"config key 'learning_rate' must be positive, got {c.learning_rate}")
    if any(ch in c.run_name for ch in "/\\") or c.run_name in (".", ".."):
        raise ScopaError(f"config key 'run_name' must be a plain name, got {c.run_name!r}")
    c.rules  # the rules options themselves are checked by Rules (ScopaError naming the option)


# the [rules] table takes exactly the options of scopa_env.rules.Rules
RULES_KEYS = tuple(f.name for f in fields(Rules))


def _flatten_toml(data: dict, source: str) -> dict:
    out = {}
    for k, v in data.items():
        if k == "rules" and isinstance(v, dict):
            for rk, rv in v.items():
                if rk not in RULES_KEYS:
                    raise ScopaError(f"{source}: unknown config key 'rules.{rk}'")
                out[rk] = rv
        elif isinstance(v, dict):
            raise ScopaError(f"{source}: unknown config table [{k}]")
        else:
            out[k] = v
    return out


def load_toml(path: str | Path) -> dict:
    """The key/value pairs of a config file, checked against the fields (ScopaError names a bad one)."""
    path = Path(path)
    if not path.is_file():
        raise ScopaError(f"config file {str(path)!r} does not exist")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ScopaError(f"config file {str(path)!r} is not valid TOML: {e}") from None
    flat = _flatten_toml(data, str(path))
    for k in flat:
        if k not in FIELDS:
            raise ScopaError(f"{path}: unknown config key {k!r}")
    return flat


def parse_override(text: str) -> tuple[str, object]:
    """'key=value' -> (key, value); the value is read as TOML when it parses, else as text."""
    if "=" not in text:
        raise ScopaError(f"override {text!r} must look like key=value")
    key, raw = (s.strip() for s in text.split("=", 1))
    if key not in FIELDS:
        raise ScopaError(f"unknown config key {key!r}")
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    return key, value


def make_config(base: dict | None = None, **overrides) -> TrainConfig:
    """A TrainConfig from a dict of values (e.g. a TOML file's) plus overrides, all checked."""
    values = {}
    for source in (base or {}, overrides):
        for k, v in source.items():
            values[k] = _coerce(k, v)
    return TrainConfig(**values)


def from_dict(d: dict) -> TrainConfig:
    """The config stored in a checkpoint (unknown keys rejected by name)."""
    return make_config(d)


__all__ = ["TrainConfig", "FIELDS", "load_toml", "parse_override", "make_config", "from_dict",
           "replace"]
