"""evaluate.py: honest tournaments between agents, on duplicate deals with seats swapped.

    python evaluate.py --agent SPEC --opponent SPEC [--opponent SPEC ...] [--matches N] [--seed S]
                       [--rules PRESET] [--partner SPEC] [--napola] [--target T]
                       [--rule OPTION=VALUE ...] [--workers K] [--record FILE] [--json FILE]
    python evaluate.py --round-robin SPEC SPEC [SPEC ...] [--matches N] [same options]
    python evaluate.py --pool FILE FILE [...] [--json FILE]
    python evaluate.py --list-rules

SPEC is random | easy | normal | hard | path/to/checkpoint.pt, optionally with the agent's
options after a colon: `hard:worlds=50`, `checkpoints/scopa-default.pt:count_last=0`; every
agent takes `name=` (the name game records give it: --record refuses two agents whose records
would name them alike, e.g. two runs' latest.pt; an agent against itself is written, and one
copy needs a name= for paired.py and hand_points.py to tell the seats apart). --rules picks a preset (default
classic; --list-rules shows them); --napola and --target override the preset's, and each --rule
OPTION=VALUE one option of scopa_env.rules.Rules (`--rule fewest_cards=true`). N matches = N/S
deals for S sides, each deal played once with the agent's side on each side of the table
(agents/arena.py): with 2 players the seats swapped; with 3 players the agent on each of the
three seats, two opponent copies on the others; in pairs (4 or 6 players) the agent's side is
two copies of the agent, partners opposite (or the agent with --partner SPEC), against pairs of
opponent copies. So N must be a multiple of S (even with 2 sides, a multiple of 3 with 3). Per opponent one row: matches, match win rate
with a 95% Wilson interval, points per hand difference with a 95% interval (duplicate pairs as
the independent unit, agents/stats.py; with 3 sides the agent's points minus the mean of the
other two sides'), scope per hand, and with more than 2 players points per hand per side (the
agent's first). --round-robin plays every pair and adds
Elo ratings with 95% intervals (two sides only; in pairs each agent partners a copy of itself,
so --partner is refused there). --workers K splits the deals over K processes (at
most one per deal) and gives the same numbers as one. A bad SPEC or unreadable checkpoint prints one
line and exits with code 2. --json and --record are written to temporary files next to them,
created before the first match (so an unwritable path fails at once) and renamed over them when
all is done: an error or Ctrl-C (one line, exit 130) leaves existing files as they were.

--pool reads head-to-head results written by --json on other deals (the same agent, partner and
rules, each file its own seed: the same seed twice would count the same deals twice) and prints
one row per opponent over all of them: matches, hands and wins summed, the Wilson interval over
all the matches, points per hand weighted by hands with the runs' variances combined (each run's
interval half-width / t is its standard error, t the Student quantile of its deals - 1 degrees
of freedom; runs are independent; the pooled interval takes t of their degrees of freedom summed). Files
that name one checkpoint spec with two networks (the --json `checkpoints` digests of each
network's weights: a run's latest.pt trained on between two evaluations) are refused. A run added because
an earlier one was close makes the pooled interval a little optimistic: say so when quoting one.
"""
from __future__ import annotations

import argparse
import copy
import datetime
import json
import math
import os
import signal
import sys
import threading
from itertools import combinations
from pathlib import Path

try:    # Ctrl-C while the modules load (numba's caches, about half a second): one line too
    import numpy as np

    from agents import REGISTRY, make_agent, player_key, split_spec
    from agents.arena import check_matches, evaluate, round_matches
    from agents.stats import Z95, elo, no_interval_reason, points_interval_text, t95, wilson
    from scopa_env.cli import (Parser, StdoutFailed, add_rules_flags, first_repeat, flags_given, list_rules_alone,
                               quiet_stdout, rules_hint, run_main)
    from scopa_env.errors import ScopaError, has_control
    from scopa_env.presets import changed_options, list_rules_text, rules_from_flags, rules_from_preset
    from scopa_env.rules import option_text
    from scopa_env.atomic import STOP_SIGNALS, AtomicFile, refuse_checkpoint
    from scopa_env.records import dumps, unique_keys
    from scopa_env.rules import Rules
    from scopa_env.seeds import SEED_LIMIT, check_seed
except KeyboardInterrupt:
    print("evaluate.py: interrupted; nothing written", file=sys.stderr)
    sys.exit(130)


def same_agent_key(spec: str):
    """What makes two specs one agent: the level's name in any case, or the checkpoint file
    (its real path); the options in any order, name= aside. A spec that does not parse is its own key (the agent
    checks report it)."""
    key = player_key(spec)
    if len(key) == 1:
        return spec
    head, options = key
    # the file itself (a link to it, another spelling of its path), whatever name= shows it as
    head = os.path.realpath(os.path.expanduser(head)) if head.endswith(".pt") else head.lower()
    return head, options


def _agent_key(spec: str | None):
    """same_agent_key, with None (no partner) its own key."""
    return None if spec is None else same_agent_key(spec)


DEFAULT_MATCHES = 200       # per opponent, rounded up to a multiple of the number of sides


def parse_args(argv=None) -> argparse.Namespace:
    p = Parser(
        prog="evaluate.py", description="Evaluate agents on duplicate deals with seats swapped.")
    p.add_argument("--agent", help=f"the agent to evaluate: {'|'.join(REGISTRY)}|PATH.pt, with "
                                   "options after a colon (hard:worlds=50; any agent: name=TEXT)")
    p.add_argument("--opponent", action="append", default=[], metavar="SPEC",
                   help="an opponent (repeat for several)")
    p.add_argument("--round-robin", nargs="+", metavar="SPEC",
                   help="play every pair of these agents; cross table and Elo ratings")
    p.add_argument("--matches", type=int, default=None,
                   help="matches per opponent: a multiple of the number of sides (even with two: "
                        "each deal is played once with the agent on each side; 3 with three sides); "
                        "default 200, 201 with three sides")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and the agents, default 0")
    add_rules_flags(p)
    p.add_argument("--partner", metavar="SPEC",
                   help="in pairs: the agent's partner (default: a copy of the agent)")
    p.add_argument("--workers", type=int, default=1, help="processes to use, default 1")
    p.add_argument("--record", metavar="FILE", help="write every match as a game record (JSON Lines); "
                                                    "two different agents the records would name "
                                                    "alike are refused; an agent against itself is "
                                                    "written under one name in both seats (give one "
                                                    "copy name=... to tell the seats apart, as "
                                                    "benchmarks/paired.py needs)")
    p.add_argument("--json", metavar="FILE", help="write the results as JSON")
    p.add_argument("--pool", nargs="+", metavar="FILE",
                   help="pool the --json results of runs on other seeds: the same agent, partner and "
                        "rules, one seed each; counts summed, points per hand weighted by hands; a "
                        "checkpoint spec with two networks (by their weights' digest) is refused")
    args = p.parse_args(argv)
    if args.list_rules:
        list_rules_alone(p, args)
        return args
    for flag, path in (("--json", args.json), ("--record", args.record)):
        if path == "":
            p.error(f"{flag} needs a file name")
        if path == "-":      # it wrote a file named '-' (simulate's --out - is standard output)
            p.error(f"{flag} -: give a file name (these files are not written to standard output)")
        problem = path and unwritable(path)
        if problem:       # found before the matches are played, not after
            p.error(f"{flag} {path}: {problem}")
    if args.json and args.record and os.path.realpath(args.json) == os.path.realpath(args.record):
        p.error("--json and --record name the same file: one would replace the other")
    if args.pool:
        if args.record:
            p.error("--pool plays no matches: drop --record")
        if args.agent or args.opponent or args.round_robin:
            p.error("--pool reads finished runs: drop --agent/--opponent/--round-robin")
        if len(args.pool) < 2:
            p.error("--pool needs at least two result files")
        # typed at all, a default value included: `--rules classic` beside scopone files was
        # dropped without a word when this compared values with the defaults (review)
        played = [f for f in flags_given(p, args, "pool") if f != "--json"]
        if played:     # they were ignored: the pooled runs' own settings are in their files
            p.error(f"--pool plays no matches: drop {', '.join(played)} (each run's settings are in its file)")
        if args.json and any(os.path.realpath(args.json) == os.path.realpath(x) for x in args.pool):
            p.error(f"--json {args.json} is one of the --pool files: the pooled table would replace it")
        return args
    if args.partner == "":    # it printed the run's header first, then "unknown agent ''"
        p.error("--partner needs an agent: got an empty value")
    if args.round_robin:
        if args.agent or args.opponent:
            p.error("--round-robin replaces --agent/--opponent")
        if len(args.round_robin) < 2:
            p.error("--round-robin needs at least two agents")
        twice = first_repeat(args.round_robin, same_agent_key)   # one agent under two spellings (Easy, ./x.pt,
        if twice:                                # options in another order) played itself
            a, b = twice
            p.error(f"--round-robin names one agent twice: {a} and {b}" if a != b
                    else f"--round-robin names {a} twice")
        if args.partner:     # it went to the first agent of each pair only: an order-dependent table
            p.error("--partner is for --agent runs: in a --round-robin each agent's partner is a "
                    "copy of itself")
    elif args.agent == "":      # an unset shell variable: it said to give --agent
        p.error("--agent needs an agent: got an empty value")
    elif not args.agent or not args.opponent:
        p.error("give --agent and at least one --opponent, or --round-robin")
    else:
        twice = first_repeat(args.opponent, same_agent_key)
        if twice:      # it played the same deals twice, and --pool refused the file
            a, b = twice
            p.error(f"--opponent {a} is given twice" if a == b
                    else f"--opponent names one agent twice: {a} and {b}")
    for flag, path in (("--json", args.json), ("--record", args.record)):
        for spec in (args.round_robin or [args.agent, *args.opponent]) + [args.partner]:
            try:
                name = spec and split_spec(spec)[0]
            except ScopaError:
                continue           # a bad spec is named when the agents are built
            # only a .pt spec is a file (a level's name is no path, though a file may have it)
            if name and name.endswith(".pt") and path and os.path.realpath(name) == os.path.realpath(path):
                # it replaced the checkpoint under evaluation, exit 0 and no word
                p.error(f"{flag} {path} is the checkpoint of the agent {spec}: it would be replaced")
        if path:
            try:       # what --json and --record write is text, never a zip as torch saves
                refuse_checkpoint(path, flag)
            except ScopaError as e:
                p.error(str(e))
    if args.workers < 1:
        p.error("--workers must be >= 1")
    try:
        check_seed(args.seed, "--seed")
    except ScopaError as e:
        p.error(str(e))
    return args


def unwritable(path: str) -> str | None:
    """Why `path` cannot be written as a file, or None when it can (as far as the file system
    says: running as root it can say yes to /proc/x; open_outputs then tries for real)."""
    target = Path(path)
    folder = target.parent
    if target.is_dir():
        return "is a folder"
    if not folder.is_dir():
        return f"folder {str(folder)!r} does not exist"
    if not os.access(folder, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        return "not writable"
    return None


class Progress:
    """A tqdm bar with ETA on stderr when it is a terminal; nothing otherwise."""

    def __init__(self, total: int):
        self.bar = None
        if sys.stderr.isatty():
            from tqdm import tqdm
            self.bar = tqdm(total=total, unit="match", file=sys.stderr, dynamic_ncols=True)

    def __call__(self, n: int) -> None:
        if self.bar is not None:
            self.bar.update(n)

    def write(self, line: str) -> None:
        """Print a line to stdout without tearing the bar."""
        if self.bar is not None:
            self.bar.write(line, file=sys.stdout)
        else:
            print(line, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def build_rules(args) -> Rules:
    """The preset with the --napola/--target/--rule overrides (ScopaError for a bad name or value)."""
    return rules_from_flags(args.rules, args.napola, args.target, args.rule)


def check_specs(specs, rules: Rules, recording: bool = False) -> tuple[dict[str, str], dict]:
    """Build each agent once so that a bad SPEC fails before any match is played; with
    --record, two agents whose records would name them alike are an error too. Returns the
    digest of each checkpoint's network by its spec (the --json file's `checkpoints`), and the
    agents built from checkpoints by their spec: every row plays copies of them (play), so
    every row plays the network the digest names. Each row read the file again: a run's
    latest.pt replaced by training between two rows gave one table of two networks under the
    first one's digest, and a pruned step_*.pt failed a later row (a concurrency review)."""
    named: dict[str, str] = {}
    digests: dict[str, str] = {}
    built: dict = {}
    for s in dict.fromkeys(specs):
        agent = make_agent(s, rules=rules, seed=0)
        if getattr(agent, "network_digest", None):
            digests[s] = agent.network_digest
            built[s] = agent
        name = agent.name
        other = named.setdefault(name, s)
        # a record names a checkpoint by its file's stem: two runs' latest.pt were both 'latest',
        # and which seat was which network was lost without a word (review)
        if recording and other != s and same_agent_key(other) != same_agent_key(s):
            raise ScopaError(f"--record: {other} and {s} would both be named {name!r} in the game "
                             f"records; {_rename_hint(s)}")
    return digests, built


def _rename_hint(spec: str) -> str:
    """How to give `spec` a name of its own: a spec with options takes ',name=...' (the hint
    said 'x.pt:count_last=0:name=...', which does not parse), one with a name a new one."""
    options = split_spec(spec)[1]
    if "name" in options:
        return f"change the name= of {spec}"
    return f"tell them apart with a name option ({spec}{',' if options else ':'}name=...)"


class RecordSink:
    """--record's game records, counted, and written to its temporary file as each deal finishes
    (they were all kept until the end: about 80 KB of memory a match; review). A stream that is
    not a regular file (`--record /dev/stdout` on a pipe) is written directly, so there they are
    still held until the table is printed: written as they came, their lines would be cut by the
    table's rows."""

    def __init__(self, f: AtomicFile):
        self.f, self.count = f, 0
        self.held: list[dict] | None = [] if f.target is None else None

    def __call__(self, record: dict) -> None:
        if self.held is not None:
            self.held.append(record)
        else:
            self.f.write(dumps(record) + "\n")
        self.count += 1

    def finish(self) -> None:
        """Write the records held for a stream."""
        if self.held:
            for record in self.held:
                self.f.write(dumps(record) + "\n")
            self.held.clear()


def play(agent: str, opponent: str, args, rules: Rules, progress, records: RecordSink | None,
         built: dict) -> dict:
    """One row. A checkpoint spec plays a copy of the agent check_specs built from it (the
    numbers are those of the spec: every agent is reset with its seat's seed for each match)."""
    def seat(spec):
        return spec if spec not in built else copy.deepcopy(built[spec])
    res = evaluate(seat(agent), seat(opponent), args.matches, args.seed, rules, workers=args.workers,
                   progress=progress, partner=None if args.partner is None else seat(args.partner),
                   on_record=records)
    return {"agent": agent, "opponent": opponent, **res}


def name_width(names) -> int:
    """The first column's width: 16, or the longest name (a longer spec pushed its row's columns
    out of line with the header's)."""
    return max(16, *(len(n) for n in names))


# Column widths: a row's fields and the header's labels start at the same places. The win-rate
# field is always 21 characters; the points field is 23 for points below 10 a hand. A table
# printed whole (a pool) widens it to its longest field ('[n/a, a run had one deal]'); a live
# table prints each row as it comes, before the widths are known, so a row of 10 points or more
# a hand pushes the rest of its row out of line.
WIN_W, POINTS_W, SCOPE_W = 21, 23, len("scope/hand (agent / opp)")


def points_field(r: dict, no_interval: str | None = None) -> str:
    """`no_interval`: why a row without a points interval has none (default: the row says,
    agents.stats.no_interval_reason)."""
    plo, phi = r["points_ci"]
    why = no_interval or no_interval_reason(r)
    return f"{r['points_per_hand']:+6.3f} {points_interval_text(plo, phi, why)}"


def fmt_row(r: dict, first: str = "opponent", no_interval: str | None = None, width: int = 16,
            points_w: int = POINTS_W) -> str:
    lo, hi = r["win_ci"]
    points = points_field(r, no_interval)
    scope = f"{r['scope_per_hand']:.3f} / {r['opp_scope_per_hand']:.3f}"
    text = (f"{r[first]:<{width}} {r['matches']:>7} {r['hands']:>6}  "
            f"{100 * r['win_rate']:5.1f}% [{100 * lo:5.1f}, {100 * hi:5.1f}]  {points:<{points_w}}  ")
    if r.get("per_side"):
        return text + f"{scope:<{SCOPE_W}}  " + " / ".join(f"{x:.2f}" for x in r["points_per_side"])
    return text + scope


def header(width: int = 16, per_side: bool = False, points_w: int = POINTS_W) -> str:
    text = (f"{'opponent':<{width}} {'matches':>7} {'hands':>6}  {'win rate [95% CI]':<{WIN_W}}  "
            f"{'points/hand [95% CI]':<{points_w}}  {'scope/hand (agent / opp)':<{SCOPE_W}}")
    return text + ("  points/hand per side (agent's first)" if per_side else "")


def rules_text(rules: Rules, preset: str = "classic") -> str:
    """The rules line of the output: the preset picked (its options), the options --rule changed
    in it, and target/napola as played."""
    text = f"target {rules.target}, napola {'on' if rules.napola else 'off'}"
    if rules.replace(napola=False, target=11) == Rules():
        return text
    changed = changed_options(rules, preset, leave=("napola", "target"))
    more = f", changed by --rule: {changed}" if changed else ""
    return f"rules {preset} ({rules_from_preset(preset).describe()}){more}, " + text


def scheme(rules: Rules, matches: int, partner) -> str:
    """How the matches are played, as one line."""
    sides = rules.teams
    if rules.players == 2:
        return (f"{matches} matches per opponent ({matches // 2} deal{'s' if matches > 2 else ''} "
                f"x 2 seats)")
    if rules.players == 3:
        return (f"{matches} matches per opponent ({matches // 3} deal{'s' if matches > 3 else ''} x 3 seats for the agent, "
                f"two opponent copies on the other seats)")
    mate = "a copy of the agent" if partner is None else partner
    return (f"{matches} matches per opponent ({matches // sides} deal{'s' if matches > sides else ''} x {sides} sides for the agent's "
            f"pair; partner {mate}; opponents in pairs of copies)")


def head_to_head(args, rules: Rules, records) -> dict:
    digests, built = check_specs([args.agent, *args.opponent] + ([args.partner] if args.partner else []),
                                 rules, recording=records is not None)
    print(f"agent {args.agent}: {scheme(rules, args.matches, args.partner)}, "
          f"seed {args.seed}, {rules_text(rules, args.rules)}")
    width = name_width(args.opponent)
    print(header(width, per_side=rules.players > 2), flush=True)
    progress = Progress(args.matches * len(args.opponent))
    results = []
    try:
        for opp in args.opponent:
            r = play(args.agent, opp, args, rules, progress, records, built)
            results.append(r)
            progress.write(fmt_row({**r, "per_side": rules.players > 2}, width=width))
    finally:
        progress.close()
    return {"agent": args.agent, "partner": args.partner, "rules": rules.to_dict(),
            "preset": args.rules, "seed": args.seed,
            "scheme": scheme(rules, args.matches, args.partner), "results": results, "checkpoints": digests}


def round_robin(args, rules: Rules, records) -> dict:
    specs = list(args.round_robin)
    if len(specs) < 2:
        raise ScopaError("--round-robin needs at least two different agents")
    if rules.teams != 2:
        raise ScopaError(f"--round-robin needs two sides (2 players or 4 in pairs); these rules have "
                         f"{rules.teams}: use --agent and --opponent")
    digests, built = check_specs(specs + ([args.partner] if args.partner else []), rules,
                                 recording=records is not None)
    k = len(specs)
    pairs = list(combinations(range(k), 2))
    print(f"round robin of {k} agents: {args.matches} matches per pair, seed {args.seed}, "
          f"{rules_text(rules, args.rules)}", flush=True)
    progress = Progress(args.matches * len(pairs))
    wins = np.zeros((k, k))
    games = np.zeros((k, k))
    pph = np.full((k, k), np.nan)
    results = []
    try:
        for i, j in pairs:
            r = play(specs[i], specs[j], args, rules, progress, records, built)
            results.append(r)
            wins[i, j], wins[j, i] = r["wins"], r["matches"] - r["wins"]
            games[i, j] = games[j, i] = r["matches"]
            pph[i, j], pph[j, i] = r["points_per_hand"], -r["points_per_hand"]
    finally:
        progress.close()
    print("\ncross table: match win rate of the row against the column (points per hand)")
    width = max(10, *(len(s) for s in specs)) + 1
    print(" " * width + "".join(f"{s:>{width + 8}}" for s in specs))
    for i, s in enumerate(specs):
        cells = []
        for j in range(k):
            cells.append("-" if i == j else f"{100 * wins[i, j] / games[i, j]:.1f}% ({pph[i, j]:+z.2f})")
        print(f"{s:<{width}}" + "".join(f"{c:>{width + 8}}" for c in cells))
    ratings, (lo, hi) = elo(wins, games)
    print("\nElo (mean 0, 95% interval; one virtual draw per pair keeps sweeps finite)")
    order = np.argsort(-ratings)
    for i in order:
        # 'z': a rating that rounds to 0 is +0, not -0 (review)
        print(f"{specs[i]:<{width}} {ratings[i]:+z7.0f}  [{lo[i]:+z.0f}, {hi[i]:+z.0f}]")
    return {"rules": rules.to_dict(), "preset": args.rules, "seed": args.seed, "results": results,
            "elo": [{"agent": specs[i], "rating": float(ratings[i]), "ci": [float(lo[i]), float(hi[i])]}
                    for i in range(k)], "checkpoints": digests}


POOL_KEYS = ("agent", "partner", "rules", "seed", "results")
# the --json layout's version, the first key of every file written since 2026-12-06 (README
# "Evaluation JSON"); a file without it is read as this version, the dated marks telling its age
JSON_FORMAT = 1
# how this version makes the intervals, written into every --json file ("intervals"): --pool
# combines standard errors read back from them, which is right only for intervals made this way
# (files written before 2026-12-01 07:00 UTC used 1.96 for points_ci, and carry no mark)
INTERVALS = ("win_ci: Wilson score, 95%; points_ci: cluster-robust ratio over duplicate deals, "
             "Student t with deals - 1 degrees of freedom, 95%")
# --pool's output: its points_ci is built otherwise (and it is never read back: no 'seed')
POOLED_INTERVALS = ("win_ci: Wilson score over all the matches, 95%; points_ci: the runs' standard "
                    "errors (each run's " + INTERVALS.split("points_ci: ")[1] + ") combined, "
                    "Student t with the sum of the runs' (deals - 1) degrees of freedom, 95%")
MAX_MATCHES = 10**12        # far beyond any run; keeps the sums exact and the Wilson interval finite


def _whole(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


# a bound on a row's points no evaluation comes near (a hand's points are tens at most, an
# interval's half-width a few times that): a finite 1e308 overflowed the pool's arithmetic (review)
POINTS_MAX = 1_000_000
POINTS_RANGE = f"from -{POINTS_MAX:,} to {POINTS_MAX:,}"


def _points(x) -> bool:
    return _number(x) and abs(x) <= POINTS_MAX


def spec_problem(spec, rules: Rules) -> str | None:
    """Why `spec` is not an agent spec evaluate.py takes (its error), or None. A level is built as
    --agent/--opponent are (check_specs); a checkpoint's spec is read but its file not opened: a
    run's results stay valid after the file moves."""
    if not isinstance(spec, str) or not spec:
        return "not an agent spec"
    if has_control(spec):
        # printed in the pooled table as it is: terminal escapes in a file from elsewhere reached
        # the terminal raw (a security review); no spec evaluate.py takes has one
        return "it has a control character"
    try:
        head, _ = split_spec(spec)
        if not head.endswith(".pt"):
            make_agent(spec, rules=rules, seed=0)       # a level and its options, or "unknown agent"
    except ScopaError as e:
        return str(e)
    return None


def check_pool_row(r, rules: Rules) -> str | None:
    """What is wrong with one result row of a --json file ("field: problem"), or None."""
    sides = rules.teams
    if not isinstance(r, dict):
        return "a result row is not an object"
    missing = [k for k in ("opponent", "matches", "hands", "wins", "points_per_hand", "points_ci",
                           "scope_per_hand", "opp_scope_per_hand") if k not in r]
    if missing:
        return f"a result row has no {missing[0]!r}"
    bad = spec_problem(r["opponent"], rules)
    if bad:
        return f"opponent must be an agent spec, got {r['opponent']!r} ({bad})"
    m = r["matches"]
    if not _whole(m) or not 0 < m <= MAX_MATCHES or m % sides:
        return (f"matches must be a whole number > 0, a multiple of {sides} (the sides of its rules), "
                f"at most {MAX_MATCHES:.0e}; got {m!r}")
    if not _whole(r["hands"]) or not m <= r["hands"] <= 10**3 * MAX_MATCHES:
        # every match has at least one hand
        return (f"hands must be a whole number, at least matches ({m}), at most {10**3 * MAX_MATCHES:.0e}; "
                f"got {r['hands']!r}")     # the upper bound went unsaid: 2**70 read as too few (review)
    if not _whole(r["wins"]) or not 0 <= r["wins"] <= m:
        return f"wins must be a whole number from 0 to matches ({m}), got {r['wins']!r}"
    for key in ("points_per_hand", "scope_per_hand", "opp_scope_per_hand"):
        if not _points(r[key]) or (key != "points_per_hand" and r[key] < 0):
            # scope rates: from 0, not the range's low end ("a non-negative number from
            # -1,000,000", review)
            within = POINTS_RANGE if key == "points_per_hand" else f"from 0 to {POINTS_MAX:,}"
            return f"{key} must be a number {within}, got {r[key]!r}"
    ci = r["points_ci"]
    if not (isinstance(ci, list) and len(ci) == 2 and (ci == [None, None] or
                                                       (all(map(_points, ci)) and ci[0] <= ci[1]))):
        return (f"points_ci must be [low, high] (two numbers {POINTS_RANGE}, low <= high) or "
                f"[null, null], got {ci!r}")
    if ci != [None, None] and not ci[0] <= r["points_per_hand"] <= ci[1]:
        # an interval made around its estimate holds it (a hand-edited estimate was pooled)
        return f"points_per_hand {r['points_per_hand']!r} lies outside its points_ci {ci!r}"
    if ci != [None, None] and ci[0] == ci[1]:
        # a run whose deals all gave the same points writes no interval since a54a79b; one
        # written before carried [x, x], pooled as a standard error of 0 (review)
        return (f"points_ci {ci!r} has no width: a run whose deals show no spread has no interval, "
                f"[null, null] (files written before 2026-12-04 wrote [x, x]; write it as [null, null] "
                f"or evaluate that run again)")
    if ci != [None, None] and m == sides:
        # one deal has no spread to measure: evaluate.py writes [null, null] there, and a pool
        # dropped the interval an edited file claimed without a word (review)
        return f"points_ci {ci!r} for a run of one deal: one deal has no interval, [null, null]"
    wins, m = r["wins"], r["matches"]
    if "win_rate" in r and not (_points(r["win_rate"]) and abs(r["win_rate"] - wins / m) <= 1e-9):
        return f"win_rate {r['win_rate']!r} is not wins / matches ({wins} / {m})"     # (review)
    wci = r.get("win_ci", [0, 1])
    tol = 1e-12     # files written before 9e080b4 carry Wilson bounds of 2.8e-17 at 0 wins (review)
    if not (isinstance(wci, list) and len(wci) == 2 and all(map(_points, wci))
            and -tol <= wci[0] <= wins / m + tol and wins / m - tol <= wci[1] <= 1 + tol):
        return f"win_ci {wci!r} does not hold wins / matches ({wins} / {m}) within [0, 1]"
    return None


def check_pool_run(path: str, run) -> None:
    """One --json file as --pool needs it, every field checked before anything is printed."""
    if isinstance(run, dict) and "format" in run and (not _whole(run["format"]) or run["format"] != JSON_FORMAT):
        raise ScopaError(f"{path}: format {run['format']!r}, where this version reads evaluate.py "
                         f"--json format {JSON_FORMAT} (written by a newer version, or edited)")
    missing = [k for k in POOL_KEYS if not isinstance(run, dict) or k not in run]
    if missing == ["partner"]:
        # every other key there: a head-to-head file written before --partner (2026-11-30 05:25
        # UTC), whose intervals were made before this version's too (it was called not head-to-head)
        raise ScopaError(f"{path}: an evaluate.py --json file older than --partner (no 'partner'), "
                         f"which --pool does not read: evaluate that run again")
    if missing:
        raise ScopaError(f"{path}: not a head-to-head evaluate.py --json file (no {missing[0]!r})")
    if "checkpoints" in run and not (isinstance(run["checkpoints"], dict) and all(
            isinstance(k, str) and isinstance(v, str) and v.startswith(("net-sha256:", "sha256:"))
            for k, v in run["checkpoints"].items())):
        raise ScopaError(f"{path}: checkpoints must map each checkpoint spec to its network's "
                         f"\"net-sha256:HEX\" digest (\"sha256:HEX\" in older files), got {run['checkpoints']!r}")
    if "intervals" in run and run["intervals"] != INTERVALS:
        raise ScopaError(f"{path}: its intervals were made another way ({run['intervals']!r}); "
                         f"--pool combines only intervals made as {INTERVALS!r}")
    if not _whole(run["seed"]) or not 0 <= run["seed"] < SEED_LIMIT:
        # pair_seed takes 63 bits: 2**63 + 3 would be seed 3's deals again
        raise ScopaError(f"{path}: seed must be a whole number 0..2**63-1, got {run['seed']!r}")
    try:
        rules = Rules.from_dict(run["rules"], stored=True)     # null too is refused (review)
    except (ScopaError, TypeError, ValueError, AttributeError, KeyError) as e:
        raise ScopaError(f"{path}: rules are not a rules object ({e})") from None
    bad = spec_problem(run["agent"], rules)
    if bad:
        raise ScopaError(f"{path}: agent must be an agent spec, got {run['agent']!r} ({bad})")
    bad = run["partner"] is not None and spec_problem(run["partner"], rules)
    if bad:
        raise ScopaError(f"{path}: partner must be an agent spec or null, got {run['partner']!r} ({bad})")
    if run["partner"] is not None and rules.teams == rules.players:
        # evaluate.py refuses --partner without pairs, so no run of it wrote this
        raise ScopaError(f"{path}: partner must be null with rules of {rules.players} players "
                         f"each for self, got {run['partner']!r}")
    if not isinstance(run["results"], list) or not run["results"]:
        raise ScopaError(f"{path}: results must be a non-empty list of result rows")
    seen = set()
    for k, r in enumerate(run["results"]):
        problem = check_pool_row(r, rules)
        if problem:
            raise ScopaError(f"{path}: results[{k}]: {problem}")
        if same_agent_key(r["opponent"]) in seen:
            raise ScopaError(f"{path}: results[{k}]: opponent {r['opponent']!r} appears twice")
        seen.add(same_agent_key(r["opponent"]))


def pool(paths: list[str]) -> dict:
    """Head-to-head results of several --json files on other seeds, pooled (module text)."""
    runs = []
    for path in paths:
        if not Path(path).is_file():     # /dev/zero filled memory, a FIFO hung
            what = "is a folder" if Path(path).is_dir() else \
                "is not a regular file" if Path(path).exists() else "does not exist"
            raise ScopaError(f"{path}: {what} (--pool reads evaluate.py --json files)")
        try:
            with open(path, encoding="utf-8") as f:
                run = json.load(f, object_pairs_hook=unique_keys)     # a key twice: refused (review)
        except json.JSONDecodeError as e:
            raise ScopaError(f"{path}: not an evaluate.py --json file ({e.msg}, line {e.lineno})") from None
        except UnicodeDecodeError:
            raise ScopaError(f"{path}: not an evaluate.py --json file (not UTF-8 text)") from None
        except RecursionError:
            raise ScopaError(f"{path}: not an evaluate.py --json file (nested too deeply)") from None
        except ValueError as e:    # an integer of more digits than Python converts
            raise ScopaError(f"{path}: not an evaluate.py --json file ({e})") from None
        check_pool_run(path, run)
        runs.append(run)
    first = runs[0]
    rules = Rules.from_dict(first["rules"]).to_dict()
    for path, run in zip(paths[1:], runs[1:], strict=True):
        for key in ("agent", "partner"):
            # one agent by any spelling evaluate.py takes for it ('Easy', options in any order)
            if _agent_key(run[key]) != _agent_key(first[key]):
                raise ScopaError(f"{path}: {key} {run[key]!r} differs from {paths[0]}'s {first[key]!r}")
        # as Rules (a file written before an option existed has it at its classic default),
        # naming the options that differ
        other = Rules.from_dict(run["rules"]).to_dict()
        differ = [f"{k} {option_text(v)} (not {option_text(rules[k])})" for k, v in other.items() if rules[k] != v]
        if differ:
            raise ScopaError(f"{path}: its rules differ from {paths[0]}'s: {', '.join(differ)}")
    notes = _same_networks(paths, runs)
    seeds = [run["seed"] for run in runs]
    twice = sorted({x for x in seeds if seeds.count(x) > 1})
    if twice:
        raise ScopaError(f"seed {twice[0]} appears twice: the same deals would count twice")
    for note in notes:                     # after every check: an error stays one line
        print(note, file=sys.stderr)
    for path, run in zip(paths, runs, strict=True):
        if "intervals" not in run:      # said, not assumed in silence
            print(f"evaluate.py: note: {path} carries no intervals mark (written before 2026-12-02 06:40 UTC): "
                  f"pooled as if its intervals were made as this version's (those written before "
                  f"2026-12-01 07:00 UTC used 1.96: README)", file=sys.stderr)
    return _pooled(paths, first, seeds, runs)


def _same_networks(paths: list[str], runs: list[dict]) -> list[str]:
    """One checkpoint spec, one network: a run's latest.pt retrained between two evaluations was
    pooled as one agent (review). Files without `checkpoints` (written before 2026-12-04) are not
    compared: the notes that say so, for after every check."""
    seen: dict = {}     # same_agent_key -> (path, spec, digest)
    notes = []
    for path, run in zip(paths, runs, strict=True):
        if any(v.startswith("sha256:") for v in run.get("checkpoints", {}).values()):
            # the whole file's checksum, which a finished run resumed changed with the network
            # unchanged (review): not comparable with a network's digest, nor trusted to differ
            notes.append(f"evaluate.py: note: {path} names its checkpoints by their files' checksums "
                         f"(written before 2026-12-04 18:10 UTC), not their networks': its networks "
                         f"are taken to be the other files'")
            continue
        if "checkpoints" not in run:
            specs = [run["agent"], run["partner"]] + [r["opponent"] for r in run["results"]]
            if any(spec and split_spec(spec)[0].endswith(".pt") for spec in specs):
                notes.append(f"evaluate.py: note: {path} names no checkpoint networks (written before "
                             f"2026-12-04 10:00 UTC): its networks are taken to be the other files'")
            continue
        for spec, digest in run["checkpoints"].items():
            key = same_agent_key(spec)
            if key in seen and seen[key][2] != digest:
                raise ScopaError(f"{path}: {spec} is another network than {seen[key][0]}'s {seen[key][1]} "
                                 f"(digest {digest[:23]}... against {seen[key][2][:23]}...): the "
                                 f"file changed between the runs, or they ran where that path is "
                                 f"another file")
            seen.setdefault(key, (path, spec, digest))
    return notes


def _pooled(paths: list[str], first: dict, seeds: list, runs: list[dict]) -> dict:
    rows: dict = {}     # opponent's same_agent_key -> (seed, its row) per run
    for seed, run in zip(seeds, runs, strict=True):
        for r in run["results"]:
            rows.setdefault(same_agent_key(r["opponent"]), []).append((seed, r))
    results = []
    sides = Rules.from_dict(first["rules"]).teams
    for pairs in rows.values():
        rs = [r for _, r in pairs]
        opp = rs[0]["opponent"]       # as the first file that has it spells it
        matches = sum(r["matches"] for r in rs)
        hands = sum(r["hands"] for r in rs)
        wins = sum(r["wins"] for r in rs)
        w = [r["hands"] / hands for r in rs]
        pph = sum(wi * r["points_per_hand"] for wi, r in zip(w, rs, strict=True))
        # each run's standard error from its interval and its own t quantile (deals - 1 degrees
        # of freedom, as agents.stats.ratio_ci made it); a run without an interval (one deal,
        # or deals all alike: written as null) leaves the pool without one
        dfs = [r["matches"] // sides - 1 for r in rs]
        whole = all(None not in r["points_ci"] for r in rs) and min(dfs) >= 1
        se = math.sqrt(sum((wi * (r["points_ci"][1] - r["points_ci"][0]) / (2 * t95(df))) ** 2
                           for wi, r, df in zip(w, rs, dfs, strict=True))) if whole else math.inf
        z = t95(sum(dfs)) if whole else Z95
        lo, hi = wilson(wins, matches)
        results.append({
            "agent": first["agent"], "opponent": opp, "matches": matches, "hands": hands,
            "wins": wins, "win_rate": wins / matches, "win_ci": [lo, hi], "points_per_hand": pph,
            "points_ci": [pph - z * se, pph + z * se],
            "scope_per_hand": sum(wi * r["scope_per_hand"] for wi, r in zip(w, rs, strict=True)),
            "opp_scope_per_hand": sum(wi * r["opp_scope_per_hand"] for wi, r in zip(w, rs, strict=True)),
            "seeds": [seed for seed, _ in pairs],
        })
    # every option, as pool() compared them: not as the first file happens to write them (one
    # written before an option existed lacks it), so the output does not depend on the order
    return {"agent": first["agent"], "partner": first["partner"],
            "rules": Rules.from_dict(first["rules"]).to_dict(),
            "pooled": list(paths), "seeds": seeds, "results": results}


def print_pool(out: dict) -> None:
    print(f"agent {out['agent']}: pooled over seeds {', '.join(map(str, out['seeds']))} "
          f"({len(out['seeds'])} runs)")
    width = name_width(r["opponent"] for r in out["results"])
    # a pooled row has no points interval only when one of its runs had none
    why = "a run had one deal or no spread"
    points_w = max([POINTS_W] + [len(points_field(r, why)) for r in out["results"]])
    print(header(width, points_w=points_w))     # a pooled row has no per-side points
    for r in out["results"]:
        print(fmt_row(r, no_interval=why, width=width, points_w=points_w) + f"  seeds {', '.join(map(str, r['seeds']))}")


def json_safe(x):
    """NaN and infinities become null: JSON has no such numbers."""
    if isinstance(x, float) and not np.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: json_safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [json_safe(v) for v in x]
    return x


def open_outputs(args) -> dict[str, AtomicFile]:
    """The temporary files of --record and --json, created before any match is played (a real
    test that they can be written); each is renamed over its target only when all are complete."""
    outs: dict[str, AtomicFile] = {}
    try:
        for flag, path in (("--record", args.record), ("--json", args.json)):
            if path:
                try:
                    outs[flag] = AtomicFile(path)
                except ScopaError as e:
                    raise ScopaError(f"{flag}: {e}") from None
    except BaseException:
        discard(outs)
        raise
    return outs


def discard(outs: dict[str, AtomicFile]) -> None:
    for f in outs.values():
        f.discard()


def commit(outs: dict[str, AtomicFile]) -> None:
    """Finish every output, then rename them all over their targets, Ctrl-C, SIGTERM and SIGHUP
    ignored (not delivered later) during the renames so that they happen together."""
    for f in outs.values():
        f.finish()
    main_thread = threading.current_thread() is threading.main_thread()
    held = STOP_SIGNALS if main_thread else ()
    old = [signal.signal(s, signal.SIG_IGN) for s in held]
    try:
        for f in outs.values():
            f.replace()
    finally:
        for s, handler in zip(held, old, strict=True):
            signal.signal(s, handler)


def write_json(out: dict, f: AtomicFile) -> None:
    """`out` with how its intervals were made and when it was written (UTC, to the second: what
    a spec means has changed at dated times, README "Opponents and evaluation", and a file held
    nothing to tell which side of one it was written on; review)."""
    written = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    marked = {"format": JSON_FORMAT, **out,
              "intervals": POOLED_INTERVALS if "pooled" in out else INTERVALS, "written": written}
    f.write(json.dumps(json_safe(marked), indent=2) + "\n")


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.list_rules:
        print(list_rules_text())
        return 0
    outs: dict[str, AtomicFile] = {}
    try:
        if sys.stdout is None and not (args.json or args.record):
            # started with >&-: every match was played, the table printed nowhere, exit 0 (an
            # environment review); with a file to keep them the run goes on
            raise ScopaError("standard output is closed and no --json or --record file is given: "
                             "the results would be lost")
        if args.pool:
            out = pool(args.pool)
            outs = open_outputs(args)
            print_pool(out)
        else:
            rules = build_rules(args)
            if args.matches is None:    # 200 was an error, about a number never typed, with 3 sides
                args.matches = round_matches(DEFAULT_MATCHES, rules)
            check_matches(args.matches, rules)
            if args.partner is not None and rules.players <= 3:
                raise ScopaError(f"--partner needs pairs (4 or 6 players); these rules have {rules.players}")
            outs = open_outputs(args)
            records = RecordSink(outs["--record"]) if args.record else None
            out = round_robin(args, rules, records) if args.round_robin else head_to_head(args, rules, records)
            if records is not None:
                records.finish()
        if args.json:
            write_json(out, outs["--json"])
        commit(outs)
        outs = {}           # written: a closed stdout from here on loses nothing
        if args.record:
            print(f"wrote {records.count} game records to {args.record}")
        if args.json:
            print(f"wrote {args.json}")
    except ScopaError as e:
        print(f"evaluate.py: error: {e}{rules_hint(e)}", file=sys.stderr)
        return 2
    except StdoutFailed:
        raise                 # run_main says so, as for every script
    except BrokenPipeError:
        # a reader gone (`| head -1`): run_main ends quietly, exit 0 (it was "error: Broken
        # pipe", exit 2; review), unless files asked for are lost with the run: that is said
        if not outs:
            raise
        quiet_stdout()
        print(f"evaluate.py: standard output was closed before the evaluation ended: stopped, "
              f"nothing written to {', '.join(f'{flag} {f.path}' for flag, f in outs.items())}",
              file=sys.stderr)
        return 1
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        print(f"evaluate.py: error: {where}{e.strerror or e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("evaluate.py: interrupted; nothing written", file=sys.stderr)
        return 130
    finally:
        discard(outs)       # after a failure: the temporary files go, the targets stay as they were
    return 0


if __name__ == "__main__":
    # each line as it is printed, also into a pipe or a file (`> log`, `| tee`): progress
    # and results of a long run are not held back in a block buffer until it ends
    if sys.stdout is not None:      # started with >&-: print() writes nothing (an AttributeError here)
        sys.stdout.reconfigure(line_buffering=True)
    sys.exit(run_main(main))
