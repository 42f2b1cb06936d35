"""The runtime API's types, as pyasc names them: handles (ctypes.c_void_p) and CANN runtime enums."""

from __future__ import annotations

import ctypes
import enum
from dataclasses import dataclass

# Handles are addresses, as in pyasc: `Memory.value` is the device address (on the Model, of host memory this
# package owns), `Stream` is asc.lib.runtime.Stream (state.py).
Memory = ctypes.c_void_p
Kernel = ctypes.c_void_p
Function = ctypes.c_void_p


class CoreType(enum.Enum):
    """The cores a compiled kernel runs on (mix kernels: AiCore)."""

    AiCore = "AiCore"
    VectorCore = "VectorCore"
    CubeCore = "CubeCore"
    AiCpu = "AiCpu"


class DeviceModuleType(enum.Enum):
    """rtGetDeviceInfo's module types."""

    RT_MODULE_TYPE_SYSTEM = 0
    RT_MODULE_TYPE_AICPU = 1
    RT_MODULE_TYPE_CCPU = 2
    RT_MODULE_TYPE_DCPU = 3
    RT_MODULE_TYPE_AICORE = 4
    RT_MODULE_TYPE_TSCPU = 5
    RT_MODULE_TYPE_PCIE = 6
    RT_MODULE_TYPE_VECTOR_CORE = 7
    RT_MODULE_TYPE_HOST_AICPU = 8


class DeviceInfoType(enum.Enum):
    """rtGetDeviceInfo's info types."""

    INFO_TYPE_ENV = 0
    INFO_TYPE_VERSION = 1
    INFO_TYPE_MASTERID = 2
    INFO_TYPE_CORE_NUM = 3
    INFO_TYPE_OS_SCHED = 4
    INFO_TYPE_IN_USED = 5
    INFO_TYPE_ERROR_MAP = 6
    INFO_TYPE_OCCUPY = 7
    INFO_TYPE_ID = 8
    INFO_TYPE_IP = 9
    INFO_TYPE_ENDIAN = 10
    INFO_TYPE_CUBE_NUM = 0x775A5A5A


class MemoryType(enum.Enum):
    """rtMalloc's memory types (accepted; the Model has one GM)."""

    RT_MEMORY_DEFAULT = 0
    RT_MEMORY_HBM = 2
    RT_MEMORY_DDR = 4
    RT_MEMORY_SPM = 8
    RT_MEMORY_P2P_HBM = 0x10
    RT_MEMORY_P2P_DDR = 0x11
    RT_MEMORY_DDR_NC = 0x20
    RT_MEMORY_TS_4G = 0x40
    RT_MEMORY_TS = 0x80
    RT_MEMORY_RESERVED = 0x100
    RT_MEMORY_L1 = 0x10000
    RT_MEMORY_L2 = 0x20000


class MallocPolicy(enum.Enum):
    """rtMalloc's page policies (accepted; the Model has no pages)."""

    RT_MEMORY_POLICY_NONE = 0x0
    RT_MEMORY_POLICY_HUGE_PAGE_FIRST = 0x400
    RT_MEMORY_POLICY_HUGE_PAGE_ONLY = 0x800
    RT_MEMORY_POLICY_DEFAULT_PAGE_ONLY = 0x1000
    RT_MEMORY_POLICY_HUGE_PAGE_FIRST_P2P = 0x2000
    RT_MEMORY_POLICY_HUGE_PAGE_ONLY_P2P = 0x4000
    RT_MEMORY_POLICY_DEFAULT_PAGE_ONLY_P2P = 0x8000


class MemcpyKind(enum.Enum):
    """Which side of a copy is device memory."""

    RT_MEMCPY_HOST_TO_HOST = 0
    RT_MEMCPY_HOST_TO_DEVICE = 1
    RT_MEMCPY_DEVICE_TO_HOST = 2
    RT_MEMCPY_DEVICE_TO_DEVICE = 3
    RT_MEMCPY_MANAGED = 4
    RT_MEMCPY_ADDR_DEVICE_TO_DEVICE = 5
    RT_MEMCPY_HOST_TO_DEVICE_EX = 6
    RT_MEMCPY_DEVICE_TO_HOST_EX = 7
    RT_MEMCPY_RESERVED = 8


class MsprofTaskType(enum.Enum):
    MSPROF_TASK_TYPE_AI_CORE = 0
    MSPROF_TASK_TYPE_AI_CPU = 1
    MSPROF_TASK_TYPE_AIV = 2
    MSPROF_TASK_TYPE_MIX_AIC = 4
    MSPROF_TASK_TYPE_MIX_AIV = 5
    MSPROF_TASK_TYPE_INVALID = 11


class MagicElf(enum.Enum):
    """The device-binary magic number of each core type (rtDevBinary_t.magic)."""

    RT_DEV_BINARY_MAGIC_ELF = 0x43554245
    RT_DEV_BINARY_MAGIC_ELF_AIVEC = 0x41415246
    RT_DEV_BINARY_MAGIC_ELF_AICUBE = 0x41494343
    RT_DEV_BINARY_MAGIC_ELF_AICPU = 0x41415243


@dataclass(frozen=True)
class MemorySizes:
    """A core's memory sizes in bytes."""

    l0a_size: int
    l0b_size: int
    l0c_size: int
    l1_size: int
    ub_size: int
    l2_size: int
    l2_page_num: int
    block_size: int
    bank_size: int
    bank_num: int
    burst_in_one_block: int
    bank_group_num: int


class ProfilingCommandHandle:
    """rtProfCommandHandle's command types (set_pro_switch)."""

    class Type(enum.Enum):
        INIT = 0
        START = 1
        STOP = 2
        FINALIZE = 3
        MODEL_SUBSCRIBE = 4
        MODEL_UNSUBSCRIBE = 5
