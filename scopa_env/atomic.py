"""Output files written whole or not at all: a temporary file next to the target, renamed over it
when complete (the pattern of agents/checkpoint.py's save_atomic, for text and without torch).

    out = AtomicFile("results.json")   # creates the temporary file now: a real writability test
    out.write(text)                    # any failure: out.discard() leaves the target as it was
    out.commit()                       # fsync, then os.replace onto the target

or as a context manager (commit on success, discard on any exception, Ctrl-C included). An error
while writing is a ScopaError naming the target ("cannot write PATH: No space left on device").
A target that exists and is not a regular file (/dev/null, /dev/stdout, a named pipe) is written
directly: there is no user file to keep there, and renaming over it would replace the device.

A write that an interrupt would break in a way that is not a clean KeyboardInterrupt (torch.save's
zip writer, stopped mid-file, fails with its own RuntimeError as it closes) runs under
`deferred_interrupts()`: a Ctrl-C, SIGTERM or SIGHUP then acts as soon as the write is done (the
checkpoints' save_atomic, train.py's export). It lives here, below the scripts' scopa_env/cli.py,
so that the library's writers need nothing of the command line.
"""
from __future__ import annotations

import contextlib
import os
import signal
import stat
import tempfile
import threading
from pathlib import Path

from .errors import ScopaError


def sync_folder(folder: str | os.PathLike) -> None:
    """fsync a folder, making a rename in it durable; best effort (some file systems refuse)."""
    try:
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


def _problem(e: OSError) -> str:
    return e.strerror or str(e)


def refuse_checkpoint(path, what: str) -> None:
    """A ScopaError when `path` is a regular file that starts as a zip (torch.save's format, a
    checkpoint): the writers of text (game records, evaluation JSON) would replace it. Another
    run's latest.pt was replaced by text, exit 0, and could not be resumed (review). An unreadable
    file passes: the write is tried, and its error says why."""
    try:
        if not os.path.isfile(path):
            return
        with open(path, "rb") as f:
            if f.read(4) != b"PK\x03\x04":
                return
    except OSError:
        return
    raise ScopaError(f"{what} {path} is a zip file (a checkpoint?): it would be replaced; write to "
                     f"another file")


class AtomicFile:
    """A text file being written to a temporary name next to `path`; see the module text."""

    def __init__(self, path: str | os.PathLike):
        self.path = str(path)
        if not self.path:
            raise ScopaError("an empty file name")
        self.tmp: str | None = None
        try:
            # the path as given decides: realpath would turn /dev/stdout on a pipe into 'pipe:[N]'
            try:
                mode = os.stat(self.path).st_mode
            except FileNotFoundError:
                mode = None                          # a new file (or a dangling link's target)
            if mode is not None and stat.S_ISDIR(mode):
                raise ScopaError(f"cannot write {self.path}: is a folder")
            if mode is not None and not stat.S_ISREG(mode):
                self.file = open(self.path, "w", encoding="utf-8")
                self.target, self.mode = None, None
                return
            target = Path(os.path.realpath(self.path))    # a link: replace the file it points to
            fd, self.tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
            self.file = os.fdopen(fd, "w", encoding="utf-8")
        except OSError as e:
            raise ScopaError(f"cannot write {self.path}: {_problem(e)}") from None
        self.target = target
        if mode is not None:
            self.mode = stat.S_IMODE(mode)          # keep an existing file's permissions
        else:
            umask = os.umask(0)
            os.umask(umask)
            self.mode = 0o666 & ~umask              # mkstemp makes it private; an output is not

    def write(self, text: str) -> None:
        try:
            self.file.write(text)
        except OSError as e:
            raise ScopaError(f"cannot write {self.path}: {_problem(e)}") from None

    def commit(self) -> None:
        """Flush, fsync and rename onto the target; on failure the target is left as it was."""
        self.finish()
        self.replace()

    def finish(self) -> None:
        """Flush, fsync and close the temporary file (commit's first half: several outputs can
        all be finished before any of them replaces its target)."""
        try:
            self.file.flush()
            if self.tmp is not None:
                os.fsync(self.file.fileno())
            self.file.close()
            if self.tmp is not None:
                os.chmod(self.tmp, self.mode)
        except OSError as e:
            self.discard()
            raise ScopaError(f"cannot write {self.path}: {_problem(e)}") from None

    def replace(self) -> None:
        """Rename the finished temporary file onto the target (commit's second half)."""
        if self.tmp is None:
            return
        try:
            os.replace(self.tmp, self.target)
        except OSError as e:
            self.discard()
            raise ScopaError(f"cannot write {self.path}: {_problem(e)}") from None
        self.tmp = None
        sync_folder(self.target.parent)

    def discard(self) -> None:
        """Close and remove the temporary file (the target is untouched); safe to call twice."""
        try:
            self.file.close()
        except OSError:
            pass
        if self.tmp is not None:
            try:
                os.unlink(self.tmp)
            except FileNotFoundError:
                pass
            self.tmp = None

    def __enter__(self) -> AtomicFile:
        return self

    def __exit__(self, kind, value, tb) -> None:
        if kind is None:
            try:
                self.commit()
            except BaseException:
                # a Ctrl-C, SIGTERM or SIGHUP during the commit (the fsync of a large file takes a
                # while) left the temporary file, which nothing removes later (a review: 6 of 6
                # timed signals on `simulate --out`); commit's own errors have discarded it
                self.discard()
                raise
        else:
            self.discard()


# The signals the scripts stop on (run_main: Ctrl-C, SIGTERM, and SIGHUP: a closed terminal or
# ssh session), held off by deferred_interrupts; SIGHUP where the platform has it (not Windows)
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM) + ((signal.SIGHUP,) if hasattr(signal, "SIGHUP") else ())


@contextlib.contextmanager
def deferred_interrupts():
    """Hold Ctrl-C, SIGTERM and SIGHUP (STOP_SIGNALS) off for the block and deliver the first one
    when it ends (to the handlers there were before: KeyboardInterrupt, run_main's Terminated),
    also when the block failed: the interrupt then takes its error's place. Only the main thread
    runs Python's signal handlers (and may change them): elsewhere this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []
    held = STOP_SIGNALS
    # None: a handler not set from Python; the default then
    old = [signal.SIG_DFL if h is None else h for h in map(signal.getsignal, held)]

    def defer(signum, frame):
        pending.append(signum)
    # The OS holds the signals off in this thread while the handlers change; another thread
    # (torch's, numba's) may still take one, and Python then runs the handler of the moment in
    # this thread between two bytecodes: the swaps are written so that no handler can be left
    # on the wrong side (_set_all)
    with _blocked(held):
        try:
            _set_all(held, [defer] * len(held))
        except BaseException:       # an old handler ran (and raised) during the swaps
            _set_all(held, old)
            raise
    try:
        yield
    finally:
        with _blocked(held):
            _set_all(held, old)
        if pending:
            signal.raise_signal(pending[0])


def _set_all(signals, handlers) -> None:
    """Each signal's handler in turn, all of them also when a signal lands between two swaps and
    the handler of the moment raises (then raised once all are set): a restored KeyboardInterrupt
    once left SIGTERM deferred, and every later SIGTERM swallowed. signal.signal runs a pending
    handler before it swaps (CPython checks for signals first), so a swap that raised is tried
    again; a failure of its own (not a signal's) is raised after _SWAP_TRIES tries."""
    raised = None
    for signum, handler in zip(signals, handlers, strict=True):
        for _ in range(_SWAP_TRIES):
            try:
                signal.signal(signum, handler)
                break
            except BaseException as e:      # noqa: BLE001 - a handler's KeyboardInterrupt included
                raised = e if raised is None else raised
    if raised is not None:
        raise raised


_SWAP_TRIES = 3


@contextlib.contextmanager
def _blocked(signals):
    """The signals held by the OS for the block (delivered when it ends), where it can; the
    thread's mask is then as it was: a caller that had blocked them (to take them with sigwait)
    found them unblocked after every checkpoint save (review)."""
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None:
        yield
        return
    before = mask(signal.SIG_BLOCK, signals)
    try:
        yield
    finally:
        mask(signal.SIG_SETMASK, before)
