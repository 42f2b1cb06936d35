"""asc.adv: the high-level API: Matmul and its tiling, and the library functions built over the basic API
(library.py says how)."""

from .activation import softmax, softmax_flash_v2, swiglu
from .elementary import axpy, ceil, digamma, erf, erfc, exp, floor, frac, lgamma, log, power, round, sign, trunc, xor
from .math import sinh
from .matmul import Matmul, MatmulConfig, MatmulType, register_matmul
from .normalization import rmsnorm
from .quantization import quant
from .sort import concat, extract
from .tiling import RmsNormTiling, SoftmaxTiling, TCubeTiling
from .types import QuantConfig, SoftmaxConfig, SoftmaxMode, SoftMaxShapeInfo

__all__ = [
    "Matmul",
    "MatmulConfig",
    "MatmulType",
    "QuantConfig",
    "RmsNormTiling",
    "SoftMaxShapeInfo",
    "SoftmaxConfig",
    "SoftmaxMode",
    "SoftmaxTiling",
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
    "rmsnorm",
    "round",
    "sign",
    "sinh",
    "softmax",
    "softmax_flash_v2",
    "swiglu",
    "trunc",
    "xor",
]
