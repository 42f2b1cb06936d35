"""asc.adv: the high-level API: Matmul and its tiling, and the library functions built over the basic API
(library.py says how)."""

from .elementary import axpy, ceil, digamma, erf, erfc, exp, floor, frac, lgamma, log, power, round, sign, trunc, xor
from .math import sinh
from .matmul import Matmul, MatmulConfig, MatmulType, register_matmul
from .tiling import TCubeTiling

__all__ = [
    "Matmul",
    "MatmulConfig",
    "MatmulType",
    "TCubeTiling",
    "axpy",
    "ceil",
    "digamma",
    "erf",
    "erfc",
    "exp",
    "floor",
    "frac",
    "lgamma",
    "log",
    "power",
    "register_matmul",
    "round",
    "sign",
    "sinh",
    "trunc",
    "xor",
]
