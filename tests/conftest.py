import importlib.util
import os
import signal
import sys
from pathlib import Path

import pytest

# tests import their helpers (reference_rules) and the project from the checkout
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))

# the suite needs the training extras (README's second command installs them): without torch
# four files stopped collection with "No module named 'torch'" and no test ran (review)
# (looked up, not imported: train.py sets torch's threads before its import)
def pytest_configure(config):
    if _profile not in PROFILES:     # read below, where the profile is loaded
        raise pytest.UsageError(f"HYPOTHESIS_PROFILE must be {' or '.join(PROFILES)}, got {_profile!r}")
    missing = [name for name in ("torch", "tensorboard") if importlib.util.find_spec(name) is None]
    if missing:
        raise pytest.UsageError(f"the tests need the training extras ({' and '.join(missing)} not "
                                f"installed): pip install torch==2.13.0 && pip install -e "
                                f'".[train,test]" (README, the second command)')

# The property tests draw the same examples on every run (derandomized: hypothesis picks them
# from each test's source, the same for one hypothesis version) and keep no example database, so
# a run of the suite is repeatable and CI never goes red by the luck of a draw (review: hypothesis
# does this by itself only where a CI variable such as CI is set, which .ci/run does not promise).
# Random exploration, which finds what the fixed draw does not, is a separate run:
# HYPOTHESIS_PROFILE=explore python -m pytest -n 2 (what the stress runs of the property tests
# use; a failure prints its reproduce blob). Both profiles start from hypothesis's own defaults,
# not from the profile active as they are made, which is its derandomized "ci" one wherever a CI
# variable is set (review: explore did not explore there).
from hypothesis import settings as _hypothesis_settings  # noqa: E402

PROFILES = ("suite", "explore")
_hypothesis_settings.register_profile("suite", parent=_hypothesis_settings.get_profile("default"),
                                      derandomize=True, database=None, print_blob=True)
_hypothesis_settings.register_profile("explore", parent=_hypothesis_settings.get_profile("default"),
                                      print_blob=True)
_profile = os.environ.get("HYPOTHESIS_PROFILE", "suite")
if _profile in PROFILES:
    _hypothesis_settings.load_profile(_profile)

# pytest started in the background of a non-interactive shell (`bash .ci/run &`) inherits SIGINT
# ignored, and so would every CLI the tests start, which then never sees the Ctrl-C the
# interrupt tests send: those failed on a timeout, not on the code. A terminal's condition here.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# TensorBoard names an event file events.out.tfevents.<whole seconds>.<host>.<pid>.<writer count
# in the process> and reads a folder's files in the order of their names. Two writers of one test
# process in the same second sorted by that count as text, '10' before '9': a test's resume, which
# comes within a second of its run (a person's comes from a new process, seconds later), then had
# its events read before the run's, and its purge looked undone or its events were dropped as out
# of order (seen in a fresh-clone .ci/run, and in a review's run of five test_train.py tests).
# Counted from 10**9 the count keeps its width, so the names sort in the order the writers were made.
try:
    from tensorboard.summary.writer import event_file_writer as _event_file_writer
except ImportError:     # installed without the training extras: no event files to order
    pass
else:
    _event_file_writer._global_uid = _event_file_writer.AtomicCounter(10**9)

# imported here, before any test: their imports set environment variables once (numba's message
# colours; pettingzoo's and gymnasium's pygame settings), which _environment_unchanged would
# otherwise lay at the first test that imports them
import scopa_env  # noqa: E402,F401


# not a test's doing: pytest's own (set for each phase of a test); set once by an import made
# inside a test: train.py's OpenMP policy (setdefault at its import), torch's inductor cache
# folder (set by torch on first use)
IMPORT_SETS = ("PYTEST_CURRENT_TEST", "OMP_WAIT_POLICY", "TORCHINDUCTOR_CACHE_DIR")


@pytest.fixture(autouse=True)
def _environment_unchanged():
    """A test that leaves an environment variable behind changes every later test's subprocesses
    (a leaked NUMBA_CACHE_DIR made them all compile their kernels afresh): it fails here."""
    before = dict(os.environ)
    yield
    after = dict(os.environ)
    for d in (before, after):
        for k in IMPORT_SETS:
            d.pop(k, None)
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert not changed, f"the test left environment variables changed: {changed}"


@pytest.fixture
def fsync_calls(monkeypatch):
    """os.fsync spied on: a list, per call, of whether the descriptor was a folder."""
    import stat
    calls = []
    real = os.fsync

    def spy(fd):
        calls.append(stat.S_ISDIR(os.fstat(fd).st_mode))
        return real(fd)
    monkeypatch.setattr(os, "fsync", spy)
    return calls


@pytest.fixture
def fifo(tmp_path):
    """A FIFO at tmp_path/NAME (call with the name). Opening one to read waits for a writer
    forever (one to write, for a reader), so a check that let it through would hang the suite:
    after 300 s SIGALRM fails the test instead (the blocked open is interrupted by the alarm's
    exception). The alarm covers the whole test, whose slowest takes about 12 s here: 300 leaves
    room for a loaded machine (review), and is still half of pytest-timeout's 600, whose timer
    this alarm replaces."""
    def boom(signum, frame):
        raise RuntimeError("a FIFO was opened: the check let it through (SIGALRM after 300 s)")
    old = signal.signal(signal.SIGALRM, boom)
    signal.alarm(300)

    def make(name: str) -> Path:
        path = tmp_path / name
        os.mkfifo(path)
        return path
    yield make
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)
