"""Run Python code in a process of its own session, so that a hang (forked or spawned workers
that hold the pipes included) fails the test instead of stalling the suite."""
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_in_session(args: list, timeout: float, what: str, cwd=ROOT, env=None,
                   stderr=subprocess.PIPE) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `python *args` in a session of its own; the test fails if
    it ran past `timeout` seconds (`what` hung), its whole process group killed."""
    proc = subprocess.Popen([sys.executable, *args], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=stderr, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"{what} did not finish in {timeout} s (hung)")
    return proc.returncode, out, err or ""


def run_isolated(code: str, timeout: float, what: str) -> str:
    """stdout and stderr of `python -c code` run from the checkout; the test fails if it ran past
    `timeout` seconds (`what` hung) or exited with an error."""
    code, out, _ = run_in_session(["-c", code], timeout, what, stderr=subprocess.STDOUT)
    assert code == 0, out
    return out
