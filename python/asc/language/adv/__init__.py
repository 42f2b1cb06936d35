"""asc.adv: the high-level API: Matmul and its tiling, and the library functions built over the basic API
(library.py says how)."""

from .math import sinh
from .matmul import Matmul, MatmulConfig, MatmulType, register_matmul
from .quantization import quant
from .sort import concat, extract
from .tiling import TCubeTiling
from .types import QuantConfig

__all__ = [
    "Matmul",
    "MatmulConfig",
    "MatmulType",
    "QuantConfig",
    "TCubeTiling",
    "concat",
    "extract",
    "quant",
    "register_matmul",
    "sinh",
]
