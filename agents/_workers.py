"""The worker processes of `arena.run_pairs` (workers >= 2): spawned, each with a pipe of its own.

Not multiprocessing.Pool: its workers share a task queue and a result queue, each guarded by a
lock held by whichever process is writing. Pool.terminate() (its `with` on an error or Ctrl-C)
kills the workers where they stand; one killed while writing a result left the result queue's
lock held, and terminate() then waited for that lock forever (CPython issue 96995, open). Here
the script of tests/test_evaluate.py's failing-worker test (five evaluate calls, three of them
raising from workers) hung so once in 300 runs beside other work, and a test run on a fresh
clone failed on it. With one pipe per worker nothing is shared: a worker killed mid-write leaves
a pipe nobody reads again.

The protocol on each pipe: the parent sends the job (the pickled agents, once), then chunks of
work, one at a time, then None; the worker answers each chunk with (True, result) or (False,
error, its traceback text). A worker's start failing (an agent class it cannot import, a lineup
that does not build) is kept and raised by its first chunk, so the caller gets it as workers=1
does.
"""
from __future__ import annotations

import ctypes
import multiprocessing as mp
import os
import pickle
import signal
import sys
import threading
import traceback
from multiprocessing.connection import wait

from scopa_env.errors import ScopaError


class WorkerTraceback(Exception):
    """The traceback, as text, of an error raised in a worker process (the error's __cause__)."""


def hold_sigint():
    """While starting the worker processes: SIGINT ignored, which spawned workers inherit through
    exec, so Ctrl-C never raises in them. Returns what release_sigint restores; None off the
    main thread."""
    if threading.current_thread() is not threading.main_thread():
        return None
    # blocked first: on Linux a signal blocked in this thread stays pending while ignored and
    # comes once the handler is back (unless another thread took it meanwhile: the window is
    # the ~20 ms of starting the processes; a lost Ctrl-C needs pressing again)
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) \
        if hasattr(signal, "pthread_sigmask") else None
    handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
    return handler, mask


def release_sigint(held) -> None:
    if held is not None:
        handler, mask = held
        signal.signal(signal.SIGINT, handler)
        if mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def _die_with_parent() -> None:
    """On Linux the kernel kills this worker when the process that started it dies, SIGKILL
    included (kill -9, the OOM killer), which runs no cleanup: the worker noticed only at its
    next read of the pipe, after its chunk of deals, minutes with heavy agents, both cores busy
    meanwhile (a leak review). Elsewhere, or where prctl is missing, the pipe check alone."""
    if not sys.platform.startswith("linux"):
        return
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return
    PR_SET_PDEATHSIG = 1
    if prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        return
    parent = mp.parent_process()
    if parent is not None and not parent.is_alive():    # it died before the prctl
        os._exit(1)


def _serve(conn, init, task) -> None:
    """A worker's life: the job, given to `init(*job)`, then `task(chunk)` for each chunk until
    None or the parent's end of the pipe closes."""
    _die_with_parent()
    error = None
    try:
        job = conn.recv()
    except EOFError:                # the parent stopped before handing out the agents
        return
    except Exception as e:          # unpickling: the agents' classes must be importable here
        error = ScopaError(
            f"a worker process could not receive the agents ({type(e).__name__}: {e}): they reach "
            f"the workers pickled, so an agent's class must be importable (defined in a module, "
            f"not in `python -c` or an interactive session); or use workers=1")
    else:
        try:
            init(*job)
        except Exception as e:
            error = e
    while True:
        try:
            chunk = conn.recv()
        except EOFError:
            return
        if chunk is None:
            return
        try:
            if error is not None:
                raise error
            reply = (True, task(chunk))
        except Exception as e:
            reply = (False, e, "".join(traceback.format_exception(e)))
        try:
            data = pickle.dumps(reply, pickle.HIGHEST_PROTOCOL)
            if not reply[0]:
                pickle.loads(data)      # an error whose class pickles but does not rebuild
        except Exception as e:      # (its own __init__ arguments): its text, and the traceback
            if reply[0]:
                data = pickle.dumps((False, ScopaError(f"a worker process could not send back its "
                                                       f"result ({type(e).__name__}: {e})"), ""))
            else:       # a ScopaError stays one (the scripts' one-line error), its text kept
                kind = ScopaError if isinstance(reply[1], ScopaError) else RuntimeError
                data = pickle.dumps((False, kind(f"{type(reply[1]).__name__}: {reply[1]}"), reply[2]))
        try:
            conn.send_bytes(data)
        except OSError:             # the parent has gone
            return


class Workers:
    """`n` spawned processes running `init` then `task` (module-level functions: they are sent by
    name). Use: `with Workers(n, init, task) as crew: crew.hand_out(job); crew.run(chunks)`; the
    `with` starts them, and stops them at its end (terminated if it ends by an exception)."""

    def __init__(self, n: int, init, task):
        self.n, self.init, self.task = n, init, task
        self.procs: list = []
        self.conns: list = []
        self.exitcodes: list = []          # the workers' exit codes, once closed

    def __enter__(self) -> Workers:
        try:
            self.start()
        except BaseException:       # some started: stopped before the error goes on
            self.close(False)
            raise
        return self

    def __exit__(self, kind, value, tb) -> None:
        self.close(finished=kind is None)

    def start(self) -> None:
        # spawn, not fork: a forked child of a process that has run torch (a checkpoint agent)
        # can deadlock in the inherited OpenMP thread pool
        ctx = mp.get_context("spawn")
        held = hold_sigint()
        try:
            for _ in range(self.n):
                mine, theirs = ctx.Pipe()
                proc = ctx.Process(target=_serve, args=(theirs, self.init, self.task), daemon=True)
                self.conns.append(mine)
                try:
                    proc.start()
                finally:        # the child holds its own copy: ours closed even if start() fails
                    theirs.close()
                self.procs.append(proc)
        finally:
            release_sigint(held)

    def hand_out(self, job: tuple) -> None:
        """The job to every worker: after start(), so that Ctrl-C works while a worker that is
        still starting has not read it (hard's pickle, about 300 kB, waits for that)."""
        # the errors are raised outside the `except`: not chained to the OSError, one message
        failed = None
        try:
            data = pickle.dumps(job, pickle.HIGHEST_PROTOCOL)
        except Exception as e:
            failed = ScopaError(f"the agents cannot be sent to worker processes ({type(e).__name__}: "
                                f"{e}); use workers=1")
        if failed is not None:
            raise failed
        for k in range(self.n):
            if not self._send(k, data):
                raise self._death(k)

    def run(self, chunks: list):
        """task(chunk) of every chunk, yielded in the order of `chunks`, each chunk given to the
        next idle worker. An error a worker raises is raised here in its turn, once every chunk
        before it has been yielded: the first chunk's error, as one worker would raise it (no
        chunk is handed out after an error). A worker's death is a ScopaError at once."""
        given = 0
        busy: dict[int, int] = {}           # worker -> the chunk it holds
        done: dict[int, tuple] = {}         # chunk -> its reply
        for k in range(self.n):
            given = self._give(k, chunks, given, busy)
        for want in range(len(chunks)):
            while want not in done:
                # a short wait: if the kernel hands Ctrl-C to another thread of this process,
                # the main thread raises KeyboardInterrupt only once its wait ends
                ready = wait([self.conns[k] for k in busy] + [p.sentinel for p in self.procs], 0.25)
                for k in [k for k in busy if self.conns[k] in ready]:
                    try:
                        reply = self.conns[k].recv()
                    except EOFError:
                        reply = None
                    except Exception as e:
                        reply = (False, ScopaError(f"a worker process's reply could not be read "
                                                   f"({type(e).__name__}: {e})"), "")
                    if reply is None:
                        raise self._death(k)
                    done[busy.pop(k)] = reply
                    if reply[0]:
                        given = self._give(k, chunks, given, busy)
                    else:           # the chunks after it are not needed
                        given = len(chunks)
                for k, proc in enumerate(self.procs):
                    if proc.exitcode is not None:
                        raise self._death(k)
            reply = done.pop(want)
            if not reply[0]:
                error, text = reply[1], reply[2]
                if isinstance(error, ScopaError) or not text:
                    raise error
                raise error from WorkerTraceback(text)
            yield reply[1]

    def _give(self, k: int, chunks: list, given: int, busy: dict) -> int:
        if given < len(chunks):
            if not self._send(k, pickle.dumps(chunks[given])):
                raise self._death(k)
            busy[k] = given
            given += 1
        return given

    def _send(self, k: int, data: bytes) -> bool:
        """Whether `data` reached worker k's pipe (False: the worker has died)."""
        try:
            self.conns[k].send_bytes(data)
        except OSError:
            return False
        return True

    def _death(self, k: int) -> ScopaError:
        """The error for worker k, found dead (its pipe closed)."""
        proc = self.procs[k]
        proc.join(timeout=5)
        code = proc.exitcode
        if code is not None and code < 0:   # killed (an OOM kill, a kill -9): not the guard
            return ScopaError(f"a worker process was killed (signal {-code}) and its deals were "
                              f"lost; run again, or with workers=1")
        # a script calling evaluate with workers >= 2 outside `if __name__ == "__main__":` has each
        # spawned worker run the script again, and multiprocessing stops it (review: the README's
        # Greedy example with workers=2 respawned workers for ever under Pool)
        return ScopaError(f"a worker process died as it ran (exit code {'unknown' if code is None else code}). "
                          f"The workers are spawned and import the main script: a script that calls "
                          f"evaluate or run_pairs with workers >= 2 must do so under "
                          f'`if __name__ == "__main__":` (and be a file the workers can read); or use '
                          f"workers=1")

    def close(self, finished: bool) -> None:
        """Stop the workers: asked to (None) once all went well, else terminated where they stand
        (safe: they share nothing with this process but their own pipes)."""
        # strict=False: a worker whose start failed left its pipe in conns (closed below), not in procs
        for proc, conn in zip(self.procs, self.conns, strict=False):
            if finished:
                try:
                    conn.send(None)
                except OSError:
                    pass
            else:
                proc.terminate()
        for proc in self.procs:
            proc.join(timeout=5)
            if proc.exitcode is None:
                proc.kill()
                proc.join()
        self.exitcodes = [proc.exitcode for proc in self.procs]
        for proc in self.procs:
            proc.close()
        for conn in self.conns:
            conn.close()
