"""A full disk for the tests of files written whole or not at all (scopa_env/atomic.py)."""
import os
import tempfile


def full_disk_mkstemp(monkeypatch):
    """The temporary files of scopa_env/atomic.py land on /dev/full: every write fails ENOSPC.
    `monkeypatch.undo()` gives the disk back."""
    real = tempfile.mkstemp

    def mkstemp(**kw):
        fd, name = real(**kw)
        full = os.open("/dev/full", os.O_WRONLY)
        os.dup2(full, fd)
        os.close(full)
        return fd, name
    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
