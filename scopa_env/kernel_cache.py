"""Compiled-kernel caches that follow the code they were compiled from.

numba's on-disk cache (`@njit(cache=True)`, files `__pycache__/*.nbi` and `*.nbc`) checks only the
source file of each cached function. A kernel that calls a kernel of another file (batched.py,
the agents and training call into core.py) keeps the callee it was compiled with: after core.py
changes (an edit, a `git pull`) it was loaded stale, and the batched env or a level played the old
rules while Game played the new ones. So each package that keeps compiled kernels calls
`drop_stale` when imported: if the digest of the kernel sources it depends on differs from the one
its cache folder was built from, that folder's cache files are deleted and numba compiles them
again (once, some seconds to half a minute). The cache folder is the one numba itself picks for
the package's files (its own cache locators, in numba's order): NUMBA_CACHE_DIR's when that is
set, else `__pycache__` beside the files, else, for a read-only install, a user-wide folder.
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


def kernel_sources(*folders: Path) -> list[Path]:
    """The .py files of `folders` that define compiled kernels."""
    # a decorator line, not the word in a text (this file's own docstring counted it a source)
    return sorted(p for f in folders for p in Path(f).glob("*.py")
                  if re.search(r"^\s*@njit\b", p.read_text(encoding="utf-8"), re.M))


def _probe():
    """A stand-in function for numba's cache locators (they place caches by source file)."""


def cache_folder(folder: Path) -> Path:
    """Where numba keeps the cached kernels of `folder`'s files: the first of its cache locators
    that takes them (NUMBA_CACHE_DIR, the in-tree __pycache__ if writable, a user-wide folder).
    numba's locators are internal (renamed across versions): if they cannot be asked, the in-tree
    folder, numba's usual choice."""
    folder = Path(folder)
    try:
        from numba.core import caching
        impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl")
        probe = str(min(folder.glob("*.py")))
        for cls in impl._locator_classes:
            loc = cls.from_function(_probe, probe)
            if loc is not None:
                return Path(loc.get_cache_path())
    except (ImportError, AttributeError, TypeError, ValueError, OSError):
        pass
    return folder / "__pycache__"


def drop_stale(folder: Path, sources: list[Path]) -> bool:
    """Delete the numba cache files of `folder`'s kernels (in `cache_folder(folder)`) unless they
    were built from `sources` as they are now; returns whether it deleted them. Never raises: a
    cache it cannot read or write is left to numba."""
    cache = cache_folder(folder)
    digest = hashlib.sha256()
    try:
        for p in sources:
            digest.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    except OSError:
        return False
    stamp = cache / STAMP
    try:
        if stamp.read_text(encoding="ascii") == digest.hexdigest():
            return False
    except OSError:
        pass
    try:
        for f in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            f.unlink(missing_ok=True)
        cache.mkdir(exist_ok=True)
        tmp = cache / f".{STAMP}.{os.getpid()}.tmp"
        tmp.write_text(digest.hexdigest(), encoding="ascii")
        os.replace(tmp, stamp)
    except OSError:
        return False
    return True
