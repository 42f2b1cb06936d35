"""asc.lib.runtime: devices and streams (the Model simulator or an NPU)."""

from .profile import LaunchStats, LineCost, last_launch_lines, last_launch_stats
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
    "LaunchStats",
    "LineCost",
    "last_launch_lines",
    "last_launch_stats",
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
