"""asc.adv: the high-level API (Matmul and its tiling)."""

from .matmul import Matmul, MatmulConfig, MatmulType, register_matmul
from .tiling import TCubeTiling

__all__ = ["Matmul", "MatmulConfig", "MatmulType", "TCubeTiling", "register_matmul"]
