"""Choosing the backend (Model simulator or NPU) and the platform (SoC)."""

from __future__ import annotations

from enum import Enum
from typing import Optional, Union

from ..lib import runtime as rt
from ..lib.runtime.platforms import CompilationArch, Platform, platform_to_arch, to_platform

__all__ = ["Backend", "CompilationArch", "KernelType", "Platform", "platform_to_arch", "set_platform"]


class Backend(Enum):
    Model = "Model"
    NPU = "NPU"


class KernelType(Enum):
    AIV_ONLY = 0
    AIC_ONLY = 1
    MIX_AIV_HARD_SYNC = 2
    MIX_AIC_HARD_SYNC = 3
    MIX_AIV_1_0 = 4
    MIX_AIC_1_0 = 5
    MIX_AIC_1_1 = 6
    MIX_AIC_1_2 = 7


def _unavailable(backend: Backend, soc_version: Platform) -> str:
    if backend == Backend.Model:
        # pyasc's Model is CANN's simulator library; asc's is part of libasc.so. The hint names both.
        return (
            f"Runtime library is not available: the Model backend could not create a {soc_version.value} device. "
            "asc's Model is part of libasc.so (check that asc/_lib/libasc.so loads); pyasc's CANN simulator "
            f"would need LD_LIBRARY_PATH=$ASCEND_HOME_PATH/tools/simulator/{soc_version.value}/lib:$LD_LIBRARY_PATH"
        )
    return f"Runtime library is not available: the NPU backend could not create a {soc_version.value} device"


def set_platform(
    backend: Union[Backend, str],
    soc_version: Optional[Union[Platform, str]] = None,
    device_id: Optional[int] = None,
    check: bool = True,
) -> None:
    """Selects where kernels run: the backend and the SoC (Ascend910B1 by default).

    `device_id` selects the NPU device (the Model has one device and ignores it). With check=True a backend
    that cannot run here raises now rather than at the first launch: the NPU without CANN raises
    asc.errors.BackendUnavailableError (what creating the device raised), and a backend that is_available()
    reports unavailable raises RuntimeError. check=False only records the choice.
    """
    try:
        backend = Backend(backend)
    except ValueError:
        raise ValueError(f"unknown backend {backend!r}; supported: {[b.value for b in Backend]}") from None
    soc_version = Platform.Ascend910B1 if soc_version is None else to_platform(soc_version)
    if backend == Backend.Model:
        rt.use_model()
    else:
        rt.use_npu()
    rt.set_soc_version(soc_version)
    if device_id is not None and backend == Backend.NPU:
        rt.set_device(device_id)
    if not check:
        return
    if backend == Backend.NPU:
        rt.current_stream()  # creates the device: raises BackendUnavailableError naming what is missing
    if not rt.is_available():
        raise RuntimeError(_unavailable(backend, soc_version))
