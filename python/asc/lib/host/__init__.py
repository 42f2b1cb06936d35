"""asc.lib.host: host-side helpers — the SoC's platform facts, Matmul tiling, the adv functions' tilings and
temporary-buffer sizes (get_<fn>_max_min_tmp_size for each element-wise math function), and ListTensorDesc
buffers."""

from ..runtime.state import current_platform
from . import math_tmp_size
from .adv_tiling import (
    get_rms_norm_max_min_tmp_size,
    get_rms_norm_tiling_info,
    get_softmax_flash_v2_max_tmp_size,
    get_softmax_flash_v2_min_tmp_size,
    get_softmax_max_tmp_size,
    get_softmax_min_tmp_size,
    get_swiglu_max_min_tmp_size,
    softmax_flash_v2_tiling_func,
    softmax_tiling_func,
)
from .list_tensor import list_tensor_desc
from .math_tmp_size import *  # noqa: F403 - get_<fn>_max_min_tmp_size, one per function
from .matmul_tiling import BatchMatmulTiling, CubeFormat, MatmulApiTiling, MultiCoreMatmulTiling
from .platform import PlatformAscendC, PlatformAscendCManager
from .tiling_types import (
    DataType,
    DequantType,
    MatmulConfigParams,
    MatrixMadType,
    MatrixTraverse,
    ScheduleType,
    TPosition,
)


def get_ascendc_platform() -> PlatformAscendC:
    """The platform of the current SoC (asc.runtime.config.set_platform)."""
    return PlatformAscendCManager.get_instance(current_platform())


__all__ = [
    "list_tensor_desc",
    "BatchMatmulTiling",
    "CubeFormat",
    "DataType",
    "DequantType",
    "MatmulApiTiling",
    "MatmulConfigParams",
    "MatrixMadType",
    "MatrixTraverse",
    "MultiCoreMatmulTiling",
    "PlatformAscendC",
    "PlatformAscendCManager",
    "ScheduleType",
    "TPosition",
    "get_ascendc_platform",
    "get_rms_norm_max_min_tmp_size",
    "get_rms_norm_tiling_info",
    "get_softmax_flash_v2_max_tmp_size",
    "get_softmax_flash_v2_min_tmp_size",
    "get_softmax_max_tmp_size",
    "get_softmax_min_tmp_size",
    "get_swiglu_max_min_tmp_size",
    "softmax_flash_v2_tiling_func",
    "softmax_tiling_func",
]
__all__ += math_tmp_size.__all__
