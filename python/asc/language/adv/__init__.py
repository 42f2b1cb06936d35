"""asc.adv: the high-level API (Matmul and its tiling)."""

from .tiling import TCubeTiling

__all__ = ["TCubeTiling"]
