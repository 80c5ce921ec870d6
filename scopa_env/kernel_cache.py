"""Compiled-kernel caches that follow the code they were compiled from.

numba's on-disk cache (`@njit(cache=True)`, files `__pycache__/*.nbi` and `*.nbc`) checks only the
source file of each cached function. A kernel that calls a kernel of another file (batched.py,
the agents and training call into core.py) keeps the callee it was compiled with: after core.py
changes (an edit, a `git pull`) it was loaded stale, and the batched env or a level played the old
rules while Game played the new ones. So each package that keeps compiled kernels calls
`drop_stale` when imported: if the digest of the kernel sources it depends on differs from the one
its cache folder was built from, that folder's cache files are deleted and numba compiles them
again (once, about a minute for them all). The cache folder is the one numba itself picks for
the package's files (its own cache locators, in numba's order): NUMBA_CACHE_DIR's when that is
set, else `__pycache__` beside the files, else, for a read-only install, a user-wide folder;
with none writable, `ensure_cache` gives numba a temporary one for the run.
Not covered: a process already running when a source changed compiles a kernel it had not
loaded yet from the old code in memory, and saves it under the new stamp; restart long runs
after an update (or clear the cache folder).
"""
from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

STAMP = "kernels.sha256"


def _python_files(folder: Path) -> list[Path]:
    """`folder`'s .py files, leaving out what no import reads: hidden names (an editor's lock file,
    Emacs' `.#core.py`, is a link to nowhere, and its reading stopped `import scopa_env`) and
    anything that is not a regular file."""
    return sorted(p for p in Path(folder).glob("*.py") if not p.name.startswith(".") and p.is_file())


def kernel_sources(*folders: Path) -> list[Path]:
    """The .py files of `folders` that define compiled kernels. Read as bytes (a stray file that
    is not UTF-8 stopped every import with a UnicodeDecodeError); one that cannot be read is left
    out (numba cannot compile from it either)."""
    out = []
    for p in (p for f in folders for p in _python_files(f)):
        try:
            text = p.read_bytes()
        except OSError:
            continue
        # a decorator line, not the word in a text (this file's own docstring counted it a source)
        if re.search(rb"^\s*@njit\b", text, re.M):
            out.append(p)
    return sorted(out)


def _probe():
    """A stand-in function for numba's cache locators (they place caches by source file)."""


_UNASKED = object()


def _numba_cache_path(folder: Path):
    """The first of numba's cache locators that takes `folder`'s files (NUMBA_CACHE_DIR, the
    in-tree __pycache__ if writable, a user-wide folder): its path, None when none takes them, or
    _UNASKED when the locators cannot be asked (they are internal, renamed across versions)."""
    try:
        from numba.core import caching
        impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl")
        probe = str(_python_files(folder)[0])
        for cls in impl._locator_classes:
            loc = cls.from_function(_probe, probe)
            if loc is not None:
                return Path(loc.get_cache_path())
    except (ImportError, AttributeError, TypeError, ValueError, OSError, IndexError):
        return _UNASKED
    return None


def cache_folder(folder: Path) -> Path:
    """Where numba keeps the cached kernels of `folder`'s files (_numba_cache_path); if its
    locators cannot be asked, or none takes them, the in-tree folder, numba's usual choice."""
    found = _numba_cache_path(Path(folder))
    return found if isinstance(found, Path) else Path(folder) / "__pycache__"


def ensure_cache(folder: Path) -> str | None:
    """Give numba a folder for `folder`'s compiled kernels when it has none: a read-only checkout
    with no writable user-wide cache (a container, a service account without a home) stopped every
    import with numba's "cannot cache function ...: no locator available" traceback. Then numba's
    CACHE_DIR becomes a new private temporary folder, removed at exit (the kernels compile again
    at each start), and one note on stderr says so and how to keep them (NUMBA_CACHE_DIR). It is
    set in the environment too: numba re-reads its config from the environment at a compile when
    a NUMBA_ variable changed, which reset the attribute alone (review); worker processes share it.
    Being numba's one CACHE_DIR, it then holds the kernels of every package this process imports.
    Returns that folder, or None when nothing was needed (or numba cannot be asked); ScopaError
    when no temporary folder can be made either."""
    if _numba_cache_path(Path(folder)) is not None:
        return None
    import atexit
    import shutil
    import sys
    import tempfile
    from numba.core import config
    try:
        tmp = tempfile.mkdtemp(prefix="scopa-kernels-")
    except OSError as e:
        if config.DISABLE_JIT:      # plain Python kernels: nothing to cache, nothing in the way
            return None
        # numba's first cached kernel would stop the import with its "no locator available"
        # traceback after the note this printed (a review: a container with every folder
        # read-only); stopped here, saying why and what to do
        from .errors import ScopaError
        raise ScopaError(f"no writable folder for the compiled kernels of {folder}, nor a "
                         f"temporary one ({e.strerror or e}): set NUMBA_CACHE_DIR to a writable "
                         f"folder") from None
    atexit.register(shutil.rmtree, tmp, True)
    os.environ["NUMBA_CACHE_DIR"] = config.CACHE_DIR = tmp
    print(f"note: no writable folder for the compiled kernels of {folder} (read-only, and no "
          f"user cache); compiling this run's kernels into {tmp}, removed at exit: set "
          f"NUMBA_CACHE_DIR to a writable folder to keep them", file=sys.stderr)
    return tmp


def drop_stale(folder: Path, sources: list[Path], stamp_name: str = STAMP) -> bool:
    """Delete the numba cache files of `folder`'s kernels (in `cache_folder(folder)`) unless they
    were built from `sources` as they are now (the digest kept in `stamp_name` there); returns
    whether it deleted them. Never raises: a cache it cannot read or write is left to numba.
    Another version's package (benchmarks' --baseline) is checked under a stamp of its own: its
    own check, which may count other files, rewrote the shared one, and each then deleted the
    other's cache at every run (the diff review)."""
    cache = cache_folder(folder)
    digest = hashlib.sha256()
    try:
        for p in sources:
            # fsencode: a file name that is not UTF-8 (surrogate escapes) raised UnicodeEncodeError
            digest.update(os.fsencode(p.name) + b"\0" + p.read_bytes() + b"\0")
    except OSError:
        return False
    stamp = cache / stamp_name
    try:
        if stamp.read_bytes() == digest.hexdigest().encode():   # any other bytes: stale (never decoded)
            return False
    except OSError:
        pass
    try:
        for f in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            f.unlink(missing_ok=True)
        cache.mkdir(exist_ok=True)
        tmp = cache / f".{stamp_name}.{os.getpid()}.tmp"
        tmp.write_text(digest.hexdigest(), encoding="ascii")
        os.replace(tmp, stamp)
    except OSError:
        return False
    return True
