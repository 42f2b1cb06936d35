"""CANN's profiler library (libmsprofiler.so, the aclprof* API), loaded when a profiling run starts on the NPU:
never at import, so asc.lib.profiling imports, and profiles Model launches, on machines without CANN."""

from __future__ import annotations

import ctypes
from enum import Enum
from typing import Any, Iterable, Optional

from ...errors import BackendUnavailableError


class AicoreMetrics(Enum):
    """The AI Core metric groups of aclprofCreateConfig."""

    ARITHMETIC_UTILIZATION = 0
    PIPE_UTILIZATION = 1
    MEMORY_BANDWIDTH = 2
    L0B_AND_WIDTH = 3
    RESOURCE_CONFLICT_RATIO = 4
    MEMORY_UB = 5
    L2_CACHE = 6
    PIPE_EXECUTE_UTILIZATION = 7
    MEMORY_ACCESS = 8
    NONE = 0xFF


class ProfileType(Enum):
    """The data categories of aclprofCreateConfig (bits of its dataTypeConfig)."""

    ACL_API = 0x0001
    TASK_TIME = 0x0002
    AICORE_METRICS = 0x0004
    AICPU = 0x0008
    L2CACHE = 0x0010
    HCCL_TRACE = 0x0020
    TRAINING_TRACE = 0x0040
    MSPROFTX = 0x0080
    RUNTIME_API = 0x0100
    TASK_TIME_L0 = 0x0800
    TASK_MEMORY = 0x1000
    OP_ATTR = 0x4000


class MsprofInterface:
    """ctypes over libmsprofiler.so's aclprofInit / CreateConfig / Start / Stop / DestroyConfig / Finalize."""

    def __init__(self) -> None:
        try:
            self.lib = ctypes.CDLL("libmsprofiler.so")
        except OSError as e:
            raise BackendUnavailableError(
                "profiling on Backend.NPU needs CANN's libmsprofiler.so, which cannot be loaded "
                f"({e}); source CANN's set_env.sh, or profile on the Model (config.Backend.Model)"
            ) from None

    def call(self, fn_name: str, *args: Any, ret_type: Any = None) -> Optional[Any]:
        fn = getattr(self.lib, fn_name)
        if ret_type is not None:
            fn.restype = ret_type
        result = fn(*args)
        if ret_type is None and result != 0:
            raise RuntimeError(f"{fn_name} returned {result}")
        return result

    def init(self, result_path: str) -> None:
        encoded = result_path.encode("utf-8")
        self.call("aclprofInit", encoded, ctypes.c_size_t(len(encoded)))

    def create_config(self, device_ids: Iterable[int], metric: AicoreMetrics,
                      types: Optional[Iterable[ProfileType]] = None) -> ctypes.c_void_p:  # fmt: skip
        mask = 0
        for t in types or ():
            mask |= t.value
        ids = tuple(device_ids)
        device_list = (ctypes.c_uint32 * len(ids))(*ids)
        config = self.call("aclprofCreateConfig", device_list, ctypes.c_uint32(len(ids)), ctypes.c_int(metric.value),
                           None, ctypes.c_uint64(mask), ret_type=ctypes.c_void_p)  # fmt: skip
        if config is None:
            raise RuntimeError("aclprofCreateConfig returned NULL")
        return ctypes.c_void_p(config)

    def start(self, config: ctypes.c_void_p) -> None:
        self.call("aclprofStart", config)

    def stop(self, config: ctypes.c_void_p) -> None:
        self.call("aclprofStop", config)

    def destroy_config(self, config: ctypes.c_void_p) -> None:
        self.call("aclprofDestroyConfig", config)

    def finalize(self) -> None:
        self.call("aclprofFinalize")
