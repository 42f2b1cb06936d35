"""asc.adv: the high-level API: Matmul, its configurations and tiling, and the library functions built over the
basic API (library.py says how)."""

from .activation import softmax, softmax_flash_v2, swiglu
from .elementary import axpy, ceil, digamma, erf, erfc, exp, floor, frac, lgamma, log, power, round, sign, trunc, xor
from .math import sinh
from .matmul import Matmul, MatmulType, MatrixOffset, get_matmul_api_tiling, register_matmul
from .normalization import rmsnorm
from .quantization import quant
from .sort import concat, extract
from .tiling import MatmulApiStaticTiling, RmsNormTiling, SoftmaxTiling, TCubeTiling
from .types import (
    MatmulBatchParams,
    MatmulConfig,
    MatmulFuncParams,
    MatmulQuantParams,
    MatmulShapeParams,
    QuantConfig,
    SoftmaxConfig,
    SoftmaxMode,
    SoftMaxShapeInfo,
    get_basic_config,
    get_ib_share_norm_config,
    get_mdl_config,
    get_mm_config,
    get_normal_config,
    get_special_basic_config,
    get_special_mdl_config,
)

__all__ = [
    "Matmul",
    "MatmulApiStaticTiling",
    "MatmulBatchParams",
    "MatmulConfig",
    "MatmulFuncParams",
    "MatmulQuantParams",
    "MatmulShapeParams",
    "MatmulType",
    "MatrixOffset",
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
    "get_basic_config",
    "get_ib_share_norm_config",
    "get_matmul_api_tiling",
    "get_mdl_config",
    "get_mm_config",
    "get_normal_config",
    "get_special_basic_config",
    "get_special_mdl_config",
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
