"""What the benchmark scripts share on the command line: argument types that check a number where
argparse reads it, and the CLIs' parser whose errors are one line (scopa_env/cli.py).

Bad input is one line `PROG: error: WHAT`, exit code 2, before any work: a bad number from the
types below, a bad preset or agent or an unreadable file as a ScopaError or OSError caught by
`errors_as_one_line` around each script's main.
"""
from __future__ import annotations

import argparse
import functools
import math
import os
import sys
from pathlib import Path

from scopa_env.cli import Parser, escaping_streams, first_repeat, quiet_stdout
from scopa_env.errors import ScopaError
from scopa_env.kernel_cache import drop_stale, kernel_sources
from scopa_env.seeds import check_seed

ROOT = Path(__file__).resolve().parents[1]     # the checkout: defaults such as checkpoints/ live here


def parser(file: str, doc: str, **kw) -> Parser:
    """The parser of the script `file` (its __file__), named by it whoever calls main(), its
    description the first paragraph of `doc` (the script's text: its first line cut a sentence
    short; review)."""
    return Parser(prog=Path(file).name, description=" ".join(doc.split("\n\n")[0].split()), **kw)


INT_MAX = 2**31 - 1     # far past any useful count; numpy sizes and int64 seeds stay in range


def positive_int(text: str) -> int:
    """An argparse type: a whole number 1..2**31-1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= INT_MAX:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 to {INT_MAX:,}, got {text!r}")
    return value


def positive_float(text: str) -> float:
    """An argparse type: a finite number > 0 (e.g. seconds to time for)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text!r}")
    return value


def seed_arg(text: str) -> int:
    """An argparse type: a seed, 0..2**63-1 (scopa_env.seeds.check_seed)."""
    try:
        return check_seed(int(text))
    except (ValueError, ScopaError):
        raise argparse.ArgumentTypeError(f"must be a whole number 0..2**63-1, got {text!r}") from None


def distinct(p: argparse.ArgumentParser, flag: str, values, key=lambda v: v) -> None:
    """A list option naming one value twice (as `key` reads it: scopa_env.presets.preset_key for
    preset names) is a parser error: the scripts dropped the second, or ran it again beside the first
    (a review)."""
    twice = first_repeat(values, key)
    if twice:
        first, v = twice
        p.error(f"{flag} names {v} twice" if first == v else f"{flag} names one value twice: {first} and {v}")


def errors_as_one_line(prog: str):
    """Decorate a main(): a ScopaError, OSError or MemoryError it raises becomes `prog: error:
    ...` on stderr and exit code 2 (return value 2), as in evaluate.py; a reader that goes away
    (`| head -1`) ends it quietly, exit 0, as the CLIs (it was 'error: Broken pipe', exit 2)."""

    def wrap(main):
        @functools.wraps(main)
        def run(*args, **kwargs):
            escaping_streams()
            try:
                code = main(*args, **kwargs)
                sys.stdout.flush()      # a block-buffered stdout meets a closed pipe here, not at exit
                return code
            except BrokenPipeError:
                quiet_stdout()
                return 0
            except ScopaError as e:
                print(f"{prog}: error: {e}", file=sys.stderr)
            except OSError as e:
                where = f"{e.filename}: " if e.filename else ""
                print(f"{prog}: error: {where}{e.strerror or e}", file=sys.stderr)
            except MemoryError as e:       # a size far past this machine (--sizes 99999999999)
                print(f"{prog}: error: not enough memory for these sizes ({e})", file=sys.stderr)
            return 2
        return run

    return wrap


BASELINE_STAMP = "kernels.baseline.sha256"     # load_baseline's digest of the checkout's kernels


def _baseline_cache() -> Path:
    """The baseline's kernel cache: a folder of this user's alone. numba unpickles a cache's index
    before any check, and the shared `scopa-rl-baseline-numba-cache` in the temporary folder, a
    name anyone could make first, let another user of the machine plant an index that ran code
    as whoever ran a benchmark with --baseline (a security review). Per user, made 0700, and
    refused when it is a link, another user's, or writable by others; without user ids
    (Windows) a new temporary folder each run, removed at exit (one was left each run: a disk
    review). It keeps one subfolder per baseline folder (numba's, by path): remove it at will."""
    import stat
    import tempfile
    uid = getattr(os, "getuid", None)
    if uid is None:
        import atexit
        import shutil
        folder = tempfile.mkdtemp(prefix="scopa-rl-baseline-numba-")
        atexit.register(shutil.rmtree, folder, True)
        return Path(folder)
    folder = Path(tempfile.gettempdir()) / f"scopa-rl-baseline-numba-cache-{uid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        st = folder.lstat()
    except OSError as e:
        raise ScopaError(f"--baseline: cannot make its kernel cache folder {str(folder)!r} "
                         f"({e.strerror or e})") from None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != uid() or st.st_mode & 0o022:
        raise ScopaError(f"--baseline: its kernel cache folder {str(folder)!r} is not a folder of "
                         f"this user's alone (a link, another user's, or writable by others): "
                         f"remove it")
    return folder


def load_baseline(root: str, needs: tuple[str, ...] = ()):
    """The scopa_env package of another checkout (`--baseline DIR`, e.g. `git worktree add
    /tmp/base <commit>`), imported as `baseline_scopa_env` beside this one.

    Its compiled kernels are cached in a folder of their own (numba's CACHE_DIR while it is
    imported), not beside its sources: a cache written under the name baseline_scopa_env beside
    them was read back by the next plain `import scopa_env` of that checkout, which then failed
    with "No module named 'baseline_scopa_env'" (this checkout's own tests did, after a
    --baseline of itself).

    `needs`: the names the caller uses ('core.random_hands', 'BatchedScopa'). A package that
    fails to import, or lacks one of them (a checkout from before it existed), is one ScopaError
    naming the folder (it was a traceback)."""
    import importlib.util

    import numba

    if not root.strip():
        raise ScopaError("--baseline needs a folder: got an empty value")
    pkg = Path(root).resolve() / "scopa_env"
    if not (pkg / "__init__.py").is_file():
        raise ScopaError(f"--baseline {root}: not a checkout (no {pkg / '__init__.py'})")
    spec = importlib.util.spec_from_file_location("baseline_scopa_env", pkg / "__init__.py",
                                                  submodule_search_locations=[str(pkg)])
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    kept = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = str(_baseline_cache())
    try:
        # this version's check that its cached kernels follow its sources: a checkout from before
        # kernel_cache.py (or whose drop_stale looked only in __pycache__) has its Game play an
        # edited core.py while its BatchedScopa ran the old one from this cache (an upgrades
        # review); under a stamp of its own, beside the checkout's own check
        drop_stale(pkg, kernel_sources(pkg), BASELINE_STAMP)
        spec.loader.exec_module(mod)
    except Exception as e:      # anything its code raises: the folder is not a usable baseline
        sys.modules.pop(spec.name, None)
        raise ScopaError(f"--baseline {root}: its scopa_env cannot be imported "
                         f"({type(e).__name__}: {e})") from None
    finally:
        numba.config.CACHE_DIR = kept
    for name in needs:
        obj = mod
        for part in name.split("."):
            obj = getattr(obj, part, None)
        if obj is None:
            raise ScopaError(f"--baseline {root}: its scopa_env has no {name} (a checkout from "
                             f"before it existed cannot be compared)")
    return mod
