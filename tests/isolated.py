"""Run Python code in a process of its own session, so that a hang (forked or spawned workers
that hold the pipes included) fails the test instead of stalling the suite."""
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_isolated(code: str, timeout: float, what: str) -> str:
    """stdout and stderr of `python -c code` run from the checkout; the test fails if it ran past
    `timeout` seconds (`what` hung) or exited with an error."""
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"{what} did not finish in {timeout} s (hung)")
    assert proc.returncode == 0, out
    return out
