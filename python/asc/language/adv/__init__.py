"""asc.adv: the high-level API: Matmul and its tiling, and the library functions built over the basic API
(library.py says how)."""

from .activation import softmax, softmax_flash_v2, swiglu
from .elementary import axpy, ceil, digamma, erf, erfc, exp, floor, frac, lgamma, log, power, round, sign, trunc, xor
from .matmul import Matmul, MatmulConfig, MatmulType, register_matmul
from .normalization import rmsnorm
from .quantization import quant
from .sort import concat, extract
from .tiling import RmsNormTiling, SoftmaxTiling, TCubeTiling
from .trigonometric import acos, acosh, asin, asinh, atan, atanh, cos, cosh, sin, sinh, tan, tanh
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
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "axpy",
    "ceil",
    "concat",
    "cos",
    "cosh",
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
    "sin",
    "sinh",
    "softmax",
    "softmax_flash_v2",
    "swiglu",
    "tan",
    "tanh",
    "trunc",
    "xor",
]
