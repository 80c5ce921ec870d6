"""Self-play training (train.py): config, algorithms, checkpoints."""
from pathlib import Path

import scopa_env
from scopa_env.kernel_cache import drop_stale, kernel_sources

# the kernels here call the engine's: rebuilt when either changed (scopa_env/kernel_cache.py)
drop_stale(Path(__file__).parent, kernel_sources(Path(__file__).parent, Path(scopa_env.__file__).parent))
