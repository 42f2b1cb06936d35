"""asc.lib.host: host-side helpers — the SoC's platform facts, Matmul tiling, and ListTensorDesc buffers."""

from ..runtime.state import current_platform
from .list_tensor import list_tensor_desc
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
]
