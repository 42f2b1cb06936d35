"""asc.lib.profiling: pyasc's profiling API (its newer release's asc.lib.profiling): Profiler and its profile()
block, AicoreMetrics, ProfileType, ProfilingResult, ProfilingTask, task_time_median. On the Model a launch's
task time is the timing model's estimate; on the NPU, CANN's profiler measures it."""

from .msprof import AicoreMetrics, MsprofInterface, ProfileType
from .profiler import Profiler
from .result import ProfilingResult, ProfilingTask, task_time_median

__all__ = [
    "AicoreMetrics",
    "MsprofInterface",
    "ProfileType",
    "Profiler",
    "ProfilingResult",
    "ProfilingTask",
    "task_time_median",
]
