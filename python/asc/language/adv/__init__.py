"""asc.adv: the high-level API: Matmul and its tiling, and the library functions built over the basic API
(library.py says how)."""

from .elementary import axpy, ceil, digamma, erf, erfc, exp, floor, frac, lgamma, log, power, round, sign, trunc, xor
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
    "axpy",
    "ceil",
    "concat",
    "digamma",
    "erf",
    "erfc",
    "exp",
    "extract",
    "floor",
    "frac",
    "lgamma",
    "log",
    "power",
    "quant",
    "register_matmul",
    "round",
    "sign",
    "sinh",
    "trunc",
    "xor",
]
