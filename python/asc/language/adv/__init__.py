"""asc.adv: the high-level API (Matmul, its configurations and tiling)."""

from .matmul import Matmul, MatmulType, MatrixOffset, get_matmul_api_tiling, register_matmul
from .tiling import MatmulApiStaticTiling, TCubeTiling
from .types import (
    MatmulBatchParams,
    MatmulConfig,
    MatmulFuncParams,
    MatmulQuantParams,
    MatmulShapeParams,
    QuantConfig,
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
    "TCubeTiling",
    "get_basic_config",
    "get_ib_share_norm_config",
    "get_matmul_api_tiling",
    "get_mdl_config",
    "get_mm_config",
    "get_normal_config",
    "get_special_basic_config",
    "get_special_mdl_config",
    "register_matmul",
]
