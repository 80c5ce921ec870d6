"""Scopa rules engine and environments.

Layers, each looking only down: `core` (compiled rules over a state array), `game` (validated
Python access), `records`, then the environment adapters.
"""
import os as _os
import sys as _sys
from pathlib import Path as _Path

# Before numba is imported: numba builds some of its own error messages when it loads, and with
# colorama installed (not a dependency; other tools bring it) it colours them through
# colorama.init(), which registers an exit hook writing ESC[0m to a terminal: a stray '\x1b[0m'
# at the end of play.py and every CLI. An empty value set by the user turns the colours back on.
_os.environ.setdefault("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "1")


def _torch_one_thread_after_fork() -> None:
    torch = _sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() > 1:
        torch.set_num_threads(1)


# A forked child runs torch (if loaded) on one thread. The OpenMP pool a parent's torch work
# started does not survive fork: the child's first multi-threaded op hangs forever (py-spy: the
# checkpoint load of a learned opponent). gymnasium's async make_vec forks its workers after
# building one env in the parent; a user's fork Pool may follow torch work of their own. Workers
# each have their own core, so one thread is what they want anyway. torch is not imported here.
if hasattr(_os, "register_at_fork"):      # Unix only: Windows has no fork (and no such hook)
    _os.register_at_fork(after_in_child=_torch_one_thread_after_fork)

from .kernel_cache import drop_stale as _drop_stale, ensure_cache as _ensure_cache
from .kernel_cache import kernel_sources as _kernel_sources

# compiled kernels cached by numba are rebuilt when any kernel source here changed (kernel_cache.py)
_ensure_cache(_Path(__file__).parent)
_drop_stale(_Path(__file__).parent, _kernel_sources(_Path(__file__).parent))

from .actions import ACTION_LAYOUT_VERSION, ActionTable, action_table, decode, encode, n_actions
from .batched import MAX_LEGAL, BatchedScopa
from .cards import card_str, cards_str, parse_card
from .errors import ScopaError
from .game import Game, Move, PlayResult
from .observation import OBS_LAYOUT_VERSION, OBS_SIZE, observe
from .presets import PRESETS, list_rules_text, rules_from_preset
from .rules import Rules
# the environment adapters; importing them registers scopa_v0 (pettingzoo) and Scopa-v0 (gymnasium)
from .aec import env, raw_env
from .gym_env import ScopaGymEnv

__all__ = [
    "ACTION_LAYOUT_VERSION", "ActionTable", "BatchedScopa", "Game", "MAX_LEGAL", "Move",
    "OBS_LAYOUT_VERSION", "OBS_SIZE", "PRESETS", "ScopaGymEnv", "env", "list_rules_text", "raw_env",
    "rules_from_preset",
    "PlayResult", "Rules", "ScopaError", "action_table", "card_str", "cards_str", "decode",
    "encode", "n_actions", "observe", "parse_card",
]
