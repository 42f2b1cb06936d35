"""asc.adv: the high-level API: Matmul and its tiling, and the library functions built over the basic API
(library.py says how)."""

from .matmul import Matmul, MatmulConfig, MatmulType, register_matmul
from .tiling import TCubeTiling
from .trigonometric import acos, acosh, asin, asinh, atan, atanh, cos, cosh, sin, sinh, tan, tanh

__all__ = [
    "Matmul",
    "MatmulConfig",
    "MatmulType",
    "TCubeTiling",
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "cos",
    "cosh",
    "register_matmul",
    "sin",
    "sinh",
    "tan",
    "tanh",
]
