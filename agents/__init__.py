"""Players behind one interface (agents/base.py): the random agent, the rule levels and learned
policies. `make_agent(spec)` builds one from the names users type on the command line. A learned
policy's network (network.py) and its checkpoint files (checkpoint.py) live here too, below
training/, which trains that network and writes those files (they need torch: imported when a
learned agent is made, not with this package)."""
from __future__ import annotations

import inspect
import os
from pathlib import Path

import scopa_env
from scopa_env.errors import ScopaError, has_control, regular_file
from scopa_env.kernel_cache import drop_stale, ensure_cache, kernel_sources
from scopa_env.presets import resolve_rules
from scopa_env.rules import Rules

# the kernels here call the engine's: rebuilt when either changed (scopa_env/kernel_cache.py)
ensure_cache(Path(__file__).parent)
drop_stale(Path(__file__).parent, kernel_sources(Path(__file__).parent, Path(scopa_env.__file__).parent))

from .base import Agent, RandomAgent
from .easy import EasyAgent
from .hard import HardAgent
from .normal import NormalAgent

# name -> class, kept here by hand: a name here is a spec evaluate.py, play.py and train.py's
# eval_opponents / final_opponents take (an agent class added to the project is added here)
REGISTRY: dict[str, type[Agent]] = {"random": RandomAgent, "easy": EasyAgent, "normal": NormalAgent,
                                   "hard": HardAgent}


def _option_value(text: str):
    """A spec option's value: true/false, a whole number, a decimal number, else the text."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    if low.lstrip("+-").isdigit() and len(low) > 100:
        # int() refuses more than 4,300 digits, and float() then read them as inf
        raise ScopaError(f"an option value of {len(low):,} digits is no number an option takes")
    if text.isascii():      # as config values: int() alone read other scripts' digits, '٣' as 3 (review)
        for kind in (int, float):
            try:
                return kind(text)
            except ValueError:
                pass
    return text.strip()


def _is_file(path: str) -> bool:
    try:
        return Path(path).expanduser().is_file()
    except OSError:         # a name too long: make_agent says so
        return False


def split_spec(spec: str) -> tuple[str, dict]:
    """'hard:worlds=50,rollouts=2' -> ('hard', {'worlds': 50, 'rollouts': 2}); a spec without
    ':key=value' is returned as it is with no options.

    The options start after the first colon that ends an agent's name (a level, any case) or a
    .pt path; a path with colons of its own is whole: a .pt file that exists is a path with no
    options ('runs/exp:lr=1e-3/latest.pt'), and where several colons end a .pt path the one
    after an existing file wins ('a.pt:b.pt:search=9' for a file named 'a.pt:b.pt'). A value may
    then hold a colon ('x.pt:name=v1:best')."""
    spec = str(spec)
    if spec.endswith(".pt") and _is_file(spec):
        return spec, {}
    heads = [i for i, ch in enumerate(spec) if ch == ":" and
             (spec[:i].lower() in REGISTRY or spec[:i].endswith(".pt"))]
    if heads:
        cut = next((i for i in heads if _is_file(spec[:i])), heads[0])
        head, tail = spec[:cut], spec[cut + 1:]
    elif spec.endswith(".pt"):
        return spec, {}         # a path: 'C:/runs/x.pt', 'D:\\a=b\\x.pt' (its error: does not exist)
    else:
        head, sep, tail = spec.rpartition(":")
        if not sep or "=" not in tail:
            return spec, {}     # no options
    options = {}
    for item in tail.split(","):
        key, eq, value = item.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise ScopaError(f"bad agent option {item!r} in {spec!r}: write SPEC:key=value[,key=value]")
        if key.strip() in options:      # the last one used to win silently
            raise ScopaError(f"agent option {key.strip()!r} given twice in {spec!r}")
        # a name is text as typed (name=123 was the number 123, and game records need text)
        options[key.strip()] = value.strip() if key.strip() == "name" else _option_value(value)
    return head, options


def player_key(spec: str) -> tuple:
    """What makes two spellings one agent: the head as written (a level, a checkpoint) and the
    options in any order, name= aside ('hard:worlds=2,rollouts=1' and 'hard:rollouts=1,worlds=2';
    a game record names a player so too). A spec that does not parse is its own key."""
    try:
        head, options = split_spec(spec)
    except ScopaError:
        return (spec,)
    return head, tuple(sorted((k, repr(v)) for k, v in options.items() if k != "name"))


def _check_options(cls, name: str, options: dict, also: tuple = ()) -> None:
    """Refuse an option `cls` does not take; `also`: options make_agent takes for it (a level's
    name=), listed among the known ones (a level's said 'known: none' without it)."""
    known = set(inspect.signature(cls.__init__).parameters) | set(also)
    known -= {"self", "rules", "seed", "path", "model"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise ScopaError(f"unknown option {unknown[0]!r} for agent {name!r} "
                         f"(known: {', '.join(sorted(known)) or 'none'})")


def _without_default_nones(cls, options: dict) -> dict:
    """`options` less those given as None where None is the constructor's default: from Python,
    make_agent('hard', match_equity=None) was named 'hard:match_equity=None', another agent in
    records than 'hard' though it plays alike. None for any other option stays, and is refused
    as before (review: dropping every None let bogus=None and rollouts=None through)."""
    params = inspect.signature(cls.__init__).parameters
    return {k: v for k, v in options.items()
            if not (v is None and k in params and params[k].default is None)}


def _with_options(name: str, options: dict) -> str:
    """`name` with its options as a spec writes them ('hard:worlds=4,infer=true'), so that game
    records tell one agent's settings from another's."""
    if not options:
        return name
    text = ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in options.items())
    return f"{name}:{text}"


def learned_agent_class(spec: str):
    """LearnedAgent, imported with torch only when a checkpoint is asked for; on a core install
    (no [train] extra, no torch) one ScopaError naming the checkpoint `spec` and the install."""
    try:
        from .learned import LearnedAgent
    except ImportError as e:
        raise ScopaError(f"checkpoint {spec!r}: a trained agent needs torch, which is not "
                         f"installed ({e.name or e}); pip install -e \".[train]\" (on these "
                         f"machines first pip install torch==2.13.0)") from None
    return LearnedAgent


def make_agent(spec: str, rules: Rules | None = None, seed: int = 0, **options) -> Agent:
    """'random' | a level name | path/to/checkpoint.pt -> an Agent. Bad specs raise ScopaError.

    A spec may carry options for the agent's constructor after a colon, as users type them on
    the command line: `hard:worlds=50`, `checkpoints/scopa-default.pt:count_last=0`. Keyword
    `options` given here override those of the spec.
    """
    spec, spec_options = split_spec(spec)
    options = {**spec_options, **options}
    name = options.get("name")
    if isinstance(name, str) and has_control(name):
        # tables, records and their readers print the name as it is: terminal escapes and
        # newlines in it reached the terminal raw (a security review)
        raise ScopaError(f"option name must be printable text (no control characters), got {name!r}")
    rules = None if rules is None else resolve_rules(rules)
    if spec not in REGISTRY and str(spec).lower() in REGISTRY:
        spec = str(spec).lower()        # 'Normal' as presets, commands and cards: any case
    if spec in REGISTRY:
        cls = REGISTRY[spec]
        # the name game records give the player, as a checkpoint's name= is: without it a level
        # playing itself (normal against normal) was one name twice, which no record reader
        # could tell apart (review)
        name = options.pop("name", None)
        if name is not None and (not isinstance(name, str) or not name):
            raise ScopaError(f"{spec} option name must be a non-empty text, got {name!r}")
        options = _without_default_nones(cls, options)
        _check_options(cls, spec, options, also=("name",))
        agent = cls(rules=rules, seed=seed, **options)
        agent.name = name if name is not None else _with_options(spec, options)
        return agent
    if str(spec).endswith(".pt"):
        # '~/x.pt': a shell leaves --agent=~/x.pt as typed (review: "does not exist")
        spec = os.path.expanduser(spec)
        regular_file("checkpoint", spec)
        LearnedAgent = learned_agent_class(spec)
        options = _without_default_nones(LearnedAgent, options)
        _check_options(LearnedAgent, spec, options)
        agent = LearnedAgent(rules=rules, seed=seed, path=str(spec), **options)
        if "name" not in options:       # a name given is the name
            agent.name = _with_options(agent.name, options)
        return agent
    raise ScopaError(
        f"unknown agent {spec!r}: use {', '.join(sorted(REGISTRY))} or a path to a checkpoint .pt")


__all__ = ["Agent", "RandomAgent", "REGISTRY", "make_agent"]
