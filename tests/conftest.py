import sys
from pathlib import Path

# tests import their helpers (reference_rules) and the project from the checkout
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))
