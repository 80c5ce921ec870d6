"""Self-play training (train.py): config, algorithms, the run loop. The network and the checkpoint
format are the agents' (agents/network.py, agents/checkpoint.py): a learned agent loads them
without this package."""
import importlib.util
from pathlib import Path

import scopa_env
from scopa_env.kernel_cache import drop_stale, ensure_cache, kernel_sources

# the kernels here call the engine's and the levels' (bots.py: agents/_scoring.py): rebuilt when
# any of them changed (scopa_env/kernel_cache.py)
KERNEL_FOLDERS = (Path(__file__).parent, Path(scopa_env.__file__).parent,
                  Path(importlib.util.find_spec("agents").origin).parent)
ensure_cache(Path(__file__).parent)
drop_stale(Path(__file__).parent, kernel_sources(*KERNEL_FOLDERS))
