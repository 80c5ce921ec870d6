"""Ctrl-C while a CLI loads its modules (numba's caches take about half a second) is the CLI's
one line, not a traceback. The Ctrl-C is made deterministic: an import hook raises
KeyboardInterrupt when the CLI first imports the project's packages."""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

INTERRUPT_ON_IMPORT = """
import runpy, sys

class CtrlC:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("agents", "scopa_env"):
            raise KeyboardInterrupt
        return None

for name in [m for m in sys.modules if m.split(".")[0] in ("agents", "scopa_env")]:
    del sys.modules[name]
sys.meta_path.insert(0, CtrlC())
sys.argv = [sys.argv[1]] + sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


@pytest.mark.parametrize("cli, args, code, stdout, stderr", [
    ("evaluate.py", ["--agent", "easy", "--opponent", "random", "--matches", "2"], 130, "",
     "evaluate.py: interrupted; nothing written\n"),
    ("train.py", ["--total-steps", "100"], 130, "",
     "train.py: interrupted before the run started: nothing written\n"),
    ("play.py", ["--opponent", "easy"], 0, "\nCiao!\n", ""),
])
def test_ctrl_c_while_the_modules_load_is_one_line(cli, args, code, stdout, stderr, tmp_path):
    p = subprocess.run([sys.executable, "-c", INTERRUPT_ON_IMPORT, str(ROOT / cli), *args],
                       capture_output=True, text=True, cwd=tmp_path, timeout=60,
                       stdin=subprocess.DEVNULL)
    assert (p.returncode, p.stdout, p.stderr) == (code, stdout, stderr), p.stderr
    assert list(tmp_path.iterdir()) == []
