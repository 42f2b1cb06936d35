"""asc.lib.runtime: devices and streams (the Model simulator or an NPU)."""

from .state import (
    Stream,
    create_stream,
    current_platform,
    current_stream,
    destroy_stream,
    get_soc_version,
    is_available,
    is_model,
    set_device,
    set_soc_version,
    synchronize,
    use_model,
    use_npu,
)

__all__ = [
    "Stream",
    "create_stream",
    "current_platform",
    "current_stream",
    "destroy_stream",
    "get_soc_version",
    "is_available",
    "is_model",
    "set_device",
    "set_soc_version",
    "synchronize",
    "use_model",
    "use_npu",
]
