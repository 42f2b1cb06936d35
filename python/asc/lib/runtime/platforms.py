"""The SoCs kernels can target (pyasc's config.Platform) and the libasc platform each one runs as."""

from __future__ import annotations

from enum import Enum
from typing import Union

from ..._ffi import ffi, lib


class Platform(Enum):
    """A SoC, by its CANN soc_version name. asc.runtime.config.Platform is this enum."""

    Ascend910B1 = "Ascend910B1"
    Ascend910B2 = "Ascend910B2"
    Ascend910B2C = "Ascend910B2C"
    Ascend910B3 = "Ascend910B3"
    Ascend910B4 = "Ascend910B4"
    Ascend910B4_1 = "Ascend910B4-1"
    Ascend910_9362 = "Ascend910_9362"
    Ascend910_9372 = "Ascend910_9372"
    Ascend910_9381 = "Ascend910_9381"
    Ascend910_9382 = "Ascend910_9382"
    Ascend910_9391 = "Ascend910_9391"
    Ascend910_9392 = "Ascend910_9392"


# SoCs libasc's platform table (src/target/platform.cpp) has no row for yet, and the row each runs as: the one
# with the same core facts (AIC/AIV core counts; every 910B/910_93 SoC has the same UB, L1 and L0 sizes). Only
# the clock (the Model's time estimates) differs. A SoC that gets its own row in C++ is used as it is: see
# libasc_platform. The facts and their sources are in docs/runtime-api.md ("Platforms").
BORROWED_ROWS: dict[str, str] = {
    "Ascend910B2C": "Ascend910B2",  # 24 AIC / 48 AIV
    "Ascend910B4-1": "Ascend910B4",  # 20 AIC / 40 AIV
    "Ascend910_9362": "Ascend910B3",  # 20 AIC / 40 AIV
    "Ascend910_9372": "Ascend910B3",  # 20 AIC / 40 AIV
    "Ascend910_9381": "Ascend910B2",  # 24 AIC / 48 AIV
    "Ascend910_9382": "Ascend910B2",  # 24 AIC / 48 AIV
    "Ascend910_9391": "Ascend910B2",  # 24 AIC / 48 AIV
    "Ascend910_9392": "Ascend910B2",  # 24 AIC / 48 AIV
}


def libasc_platforms() -> list[str]:
    """The names in libasc's platform table (asc_platform_count / asc_platform_name)."""
    return [ffi.string(lib.asc_platform_name(i)).decode() for i in range(lib.asc_platform_count())]


def to_platform(value: Union[Platform, str]) -> Platform:
    """`value` as a Platform member: a member, its value ("Ascend910B4-1") or its name ("Ascend910B4_1")."""
    if isinstance(value, Platform):
        return value
    try:
        return Platform(value)
    except ValueError:
        pass
    if isinstance(value, str) and value in Platform.__members__:
        return Platform[value]
    raise ValueError(f"unknown platform {value!r}; supported: {[p.value for p in Platform]}")


def libasc_platform(value: Union[Platform, str]) -> str:
    """The libasc platform a SoC runs as: its own row when the table has one, else the row it borrows."""
    name = to_platform(value).value
    return name if name in libasc_platforms() else BORROWED_ROWS.get(name, name)
