"""asc.adv: the high-level API: Matmul and its tiling, and the library functions built over the basic API
(library.py says how)."""

from .math import sinh
from .matmul import Matmul, MatmulConfig, MatmulType, register_matmul
from .tiling import TCubeTiling

__all__ = ["Matmul", "MatmulConfig", "MatmulType", "TCubeTiling", "register_matmul", "sinh"]
