"""Choosing the backend (Model simulator or NPU) and the platform (SoC)."""

from __future__ import annotations

from enum import Enum
from typing import Optional, Union

from ..lib.runtime import state as rt


class Backend(Enum):
    Model = "Model"
    NPU = "NPU"


class Platform(Enum):
    Ascend910B1 = "Ascend910B1"
    Ascend910B2 = "Ascend910B2"
    Ascend910B3 = "Ascend910B3"
    Ascend910B4 = "Ascend910B4"


class KernelType(Enum):
    AIV_ONLY = 0
    AIC_ONLY = 1
    MIX_AIV_HARD_SYNC = 2
    MIX_AIC_HARD_SYNC = 3
    MIX_AIV_1_0 = 4
    MIX_AIC_1_0 = 5
    MIX_AIC_1_1 = 6
    MIX_AIC_1_2 = 7


def set_platform(
    backend: Union[Backend, str],
    soc_version: Optional[Union[Platform, str]] = None,
    device_id: Optional[int] = None,
    check: bool = True,
) -> None:
    """Selects where kernels run. The Model defaults to Ascend910B1.

    With check=True a backend that cannot run here (NPU without CANN) raises
    asc.errors.BackendUnavailableError now rather than at the first launch.
    """
    try:
        backend = Backend(backend)
    except ValueError:
        raise ValueError(f"unknown backend {backend!r}; supported: {[b.value for b in Backend]}") from None
    if soc_version is None:
        soc_version = Platform.Ascend910B1
    try:
        soc_version = Platform(soc_version)
    except ValueError:
        raise ValueError(f"unknown platform {soc_version!r}; supported: {[p.value for p in Platform]}") from None
    rt.use_model() if backend == Backend.Model else rt.use_npu()
    rt.set_soc_version(soc_version.value)
    if device_id is not None:
        rt.set_device(device_id)
    if check:
        rt.current_stream()  # creates the device: raises if the backend is unavailable
