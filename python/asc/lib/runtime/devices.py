"""Device queries and lifetime: device_count, current_device, device_info, reset_device, acl_init ...

The Model is one device (id 0) with the current platform's cores. On the NPU, libasc calls aclInit and
aclrtSetDevice when it creates the device (at the first launch, or acl_init); device_count and device_info
ask ACL (asc_npu_device_count / asc_npu_device_info: aclrtGetDeviceCount, aclrtGetDeviceInfo); queries its
C ABI has no function for raise NpuRuntimeCallMissing (unsupported.py).
"""

from __future__ import annotations

from typing import Any, Optional

from ..._ffi import ffi, lib
from . import state
from .support import DeviceInfoType, DeviceModuleType, ProfilingCommandHandle
from .unsupported import npu_missing


def check_device_handle(device_id: Any) -> None:
    """Raises unless `device_id` is an int >= 0."""
    if isinstance(device_id, int) and not isinstance(device_id, bool) and device_id >= 0:
        return
    raise RuntimeError(f"device handle should be an int >= 0, but {device_id!r} ({type(device_id).__name__}) was given")


def default_device() -> int:
    return 0


def device_count() -> int:
    """How many devices the backend has: 1 on the Model; on the NPU what aclrtGetDeviceCount says."""
    if state.is_model():
        return 1
    out = ffi.new("uint32_t*")
    state._check(lib.asc_npu_device_count(out))
    return int(out[0])


def current_device() -> int:
    """The id of the device launches use (set_device; 0 unless changed)."""
    return state.current_device_id()


def is_initialized() -> bool:
    """Whether the current device has been created (by a launch, a stream, acl_init ...)."""
    return state.has_device()


def reset_device(device_id: Optional[int] = None) -> None:
    """Releases the current device and its default stream (aclrtResetDevice on the NPU); the next launch
    creates them again. `device_id` is accepted and ignored: there is one device at a time."""
    state.reset_device()


def synchronize_device() -> None:
    """Waits for the launches of the current device's default stream (streams from create_stream are
    synchronized one by one)."""
    state.synchronize()


def _platform_info() -> Any:
    info = ffi.new("asc_platform_info_t*")
    name = state.current_platform().encode()
    state._check(lib.asc_platform_query(name, len(name), info))
    return info


def _npu_info(module_type: DeviceModuleType, info_type: DeviceInfoType) -> Optional[int]:
    """The asc_npu_info_t a (module, info) pair asks for, None for one asc does not ask ACL."""
    if info_type == DeviceInfoType.INFO_TYPE_CUBE_NUM:
        return lib.ASC_NPU_INFO_CUBE_CORE_NUM
    if info_type == DeviceInfoType.INFO_TYPE_CORE_NUM:
        if module_type == DeviceModuleType.RT_MODULE_TYPE_AICORE:
            return lib.ASC_NPU_INFO_AICORE_NUM
        if module_type == DeviceModuleType.RT_MODULE_TYPE_VECTOR_CORE:
            return lib.ASC_NPU_INFO_VECTOR_CORE_NUM
    return None


def device_info(module_type: DeviceModuleType, info_type: DeviceInfoType, device_id: Optional[int] = None) -> int:
    """One fact about the device, as rtGetDeviceInfo gives it: (RT_MODULE_TYPE_AICORE, INFO_TYPE_CORE_NUM) the
    AI cores, INFO_TYPE_CUBE_NUM the cube cores, (RT_MODULE_TYPE_VECTOR_CORE, INFO_TYPE_CORE_NUM) the vector
    (AIV) cores, INFO_TYPE_ID the device id. The Model answers from its platform (AI cores = cube cores) and
    ignores `device_id` (the current device); the NPU asks ACL (aclrtGetDeviceInfo) about `device_id`, the
    current device unless given."""
    module_type, info_type = DeviceModuleType(module_type), DeviceInfoType(info_type)
    if not state.is_model():
        if device_id is not None:
            check_device_handle(device_id)
        device = state.current_device_id() if device_id is None else device_id
        if info_type == DeviceInfoType.INFO_TYPE_ID:
            return device
        what = _npu_info(module_type, info_type)
        if what is None:
            raise ValueError(
                f"device_info({module_type.name}, {info_type.name}): on Backend.NPU asc asks aclrtGetDeviceInfo for "
                "INFO_TYPE_CORE_NUM of RT_MODULE_TYPE_AICORE or RT_MODULE_TYPE_VECTOR_CORE, INFO_TYPE_CUBE_NUM "
                "and INFO_TYPE_ID"
            )
        out = ffi.new("int64_t*")
        state._check(lib.asc_npu_device_info(device, what, out))
        return int(out[0])
    info = _platform_info()
    if info_type == DeviceInfoType.INFO_TYPE_CUBE_NUM:
        return int(info.aic_cores)
    if info_type == DeviceInfoType.INFO_TYPE_ID:
        return state.current_device_id()
    if info_type == DeviceInfoType.INFO_TYPE_CORE_NUM:
        if module_type == DeviceModuleType.RT_MODULE_TYPE_AICORE:
            return int(info.aic_cores)
        if module_type == DeviceModuleType.RT_MODULE_TYPE_VECTOR_CORE:
            return int(info.aiv_cores)
    raise ValueError(
        f"device_info({module_type.name}, {info_type.name}): the Model answers INFO_TYPE_CORE_NUM of "
        "RT_MODULE_TYPE_AICORE or RT_MODULE_TYPE_VECTOR_CORE, INFO_TYPE_CUBE_NUM and INFO_TYPE_ID"
    )


def acl_init() -> None:
    """Initialises the runtime: creates the current device now (on the NPU: aclInit and aclrtSetDevice), so a
    missing CANN is reported here (asc.errors.BackendUnavailableError). Nothing to do on the Model but that."""
    state.current_stream()


def acl_finalize() -> None:
    """Releases the device (aclFinalize itself runs when the process exits)."""
    state.reset_device()


def c2c_ctrl_addr() -> int:
    """The FFTS control address mix kernels synchronise their cores through. The Model synchronises its cores
    itself and has none: 0."""
    if state.is_model():
        return 0
    npu_missing("c2c_ctrl_addr", "rtGetC2cCtrlAddr")


def current_tick() -> Optional[int]:
    """The simulator's clock in cycles (pyasc: CA-model only). The Model measures each launch instead
    (asc.lib.runtime.last_launch_stats): None, as pyasc returns on the NPU."""
    return None


def set_pro_switch(
    command_type: ProfilingCommandHandle.Type, device_id: Optional[int] = None, conf: int = 0b11111
) -> None:
    """msprof's profiling switch. The Model profiles every launch (docs/profiling.md), so on it this is
    accepted and does nothing."""
    ProfilingCommandHandle.Type(command_type)
    if not state.is_model():
        npu_missing("set_pro_switch", "rtProfSetProSwitch")


def npu_utils() -> None:
    """pyasc's compiled helper module (msprof reporting, acl_init). asc has none: None."""
    return None
