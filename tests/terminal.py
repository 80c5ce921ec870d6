"""play.py on a pseudo-terminal, as a person runs it: the tests of what only a terminal shows."""
import os
import select
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def play_on_pty(args, answer: bytes, stop=None, env=None, timeout: float = 300.0):
    """(everything play.py wrote, its exit code or None when it had to be killed): play.py `args`
    on a terminal of its own, `answer` typed once at the first 'Your play' prompt; read until
    it ends, or until `stop(output)` says enough (then end of input is typed, for it to end)."""
    import pty
    pid, fd = pty.fork()
    if pid == 0:        # the child: play.py on the terminal
        os.chdir(ROOT)
        os.environ.update(env or {})
        os.execv(sys.executable, [sys.executable, "play.py", *args])
    out, sent, deadline, status = b"", False, time.monotonic() + timeout, None
    try:
        while time.monotonic() < deadline:
            if not sent and b"Your play" in out:
                os.write(fd, answer)
                sent = True
            if select.select([fd], [], [], 0.2)[0]:
                try:
                    data = os.read(fd, 65536)
                except OSError:     # the child closed the terminal: it exited
                    break
                if not data:
                    break
                out += data
            if sent and stop is not None and stop(out):
                try:
                    os.write(fd, b"\x04")
                except OSError:     # it has ended already
                    pass
                break
    finally:
        for _ in range(50):
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = st
                break
            time.sleep(0.1)
        if status is None:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)
    return out, (None if status is None else os.waitstatus_to_exitcode(status))
