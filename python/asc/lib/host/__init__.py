"""asc.lib.host: host-side helpers — the SoC's platform facts and Matmul tiling."""

from ..runtime.state import current_platform
from .matmul_tiling import (
    BatchMatmulTiling,
    CubeFormat,
    DataType,
    MatmulApiTiling,
    MatrixTraverse,
    MultiCoreMatmulTiling,
    TPosition,
)
from .platform import PlatformAscendC, PlatformAscendCManager


def get_ascendc_platform() -> PlatformAscendC:
    """The platform of the current stream's SoC (asc.runtime.config.set_platform)."""
    return PlatformAscendCManager.get_instance(current_platform())


__all__ = [
    "BatchMatmulTiling",
    "CubeFormat",
    "DataType",
    "MatmulApiTiling",
    "MatrixTraverse",
    "MultiCoreMatmulTiling",
    "PlatformAscendC",
    "PlatformAscendCManager",
    "TPosition",
    "get_ascendc_platform",
]
