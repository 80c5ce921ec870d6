"""The run's TensorBoard writer (`runs/<run>`), with a failed write as one error."""
from __future__ import annotations

import contextlib
import threading
from pathlib import Path

from agents import checkpoint
from scopa_env.errors import ScopaError


class TensorBoardLog:
    """The run's SummaryWriter; a write that fails (a full disk: the writer's thread met it, the
    next call raises it) is one ScopaError naming the folder. It was two tracebacks, the
    thread's and the main one's (review); the thread's is quiet (quiet_log_thread), since the
    main thread reports it."""

    def __init__(self, folder: Path, **kw):
        from torch.utils.tensorboard import SummaryWriter
        self.folder = folder
        with self._checked():
            self.writer = SummaryWriter(str(folder), **kw)

    @contextlib.contextmanager
    def _checked(self):
        try:
            yield
        except OSError as e:
            raise ScopaError(f"cannot write the TensorBoard log in {str(self.folder)!r} "
                             f"({e.strerror or checkpoint.first_line(e)}); the checkpoints "
                             f"written so far are as they were") from None

    def add_scalar(self, tag: str, value, step: int) -> None:
        with self._checked():
            self.writer.add_scalar(tag, value, step)

    def add_text(self, tag: str, text: str, step: int) -> None:
        with self._checked():
            self.writer.add_text(tag, text, step)

    def close(self) -> None:
        with self._checked():
            self.writer.flush()         # close() alone drops the thread's error without a word
            self.writer.close()

    def close_quietly(self) -> None:
        """Close on the way out of a run that failed: its own error is the one to report, and a
        write the thread failed since is dropped (the file is the writer's; its thread ends)."""
        try:
            self.writer.close()
        except Exception:       # noqa: BLE001 - the thread's error, of any type, re-raised here
            pass


@contextlib.contextmanager
def quiet_log_thread():
    """TensorBoard's writer thread prints its own traceback of a failed write before the main
    thread raises it (TensorBoardLog makes that one line): quiet while training."""
    previous = threading.excepthook

    def hook(args):
        if not (isinstance(args.exc_value, OSError) and type(args.thread).__name__ == "_AsyncWriterThread"):
            previous(args)
    threading.excepthook = hook
    try:
        yield
    finally:
        threading.excepthook = previous
