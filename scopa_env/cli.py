"""What the command-line scripts share (train.py, evaluate.py, play.py, `python -m
scopa_env.simulate`, benchmarks/): a parser whose errors are one line, and a quiet end when the
reader of their output goes away.

Bad input on the command line is one line `PROG: error: WHAT` and exit code 2 (argparse's own
error prints its whole usage block first: up to 17 lines for train.py's config flags).
"""
from __future__ import annotations

import argparse
import os
import sys


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (no usage block) and exit code 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message}\n")


def run_main(main) -> int:
    """main()'s exit code; when stdout's reader has gone (`--list-rules | head -1`), 0 without a
    BrokenPipeError traceback: stdout is pointed at /dev/null so Python's last flush is quiet too."""
    try:
        return main()
    except BrokenPipeError:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except OSError:
            pass
        return 0
