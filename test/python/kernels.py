"""The Add example's kernel, imported from examples/add.py for the tests."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

from add import BUFFER_NUM, TILE_NUM  # noqa: E402
from add import vadd_kernel as vadd_manual_sync  # noqa: E402

__all__ = ["BUFFER_NUM", "TILE_NUM", "vadd_manual_sync"]
