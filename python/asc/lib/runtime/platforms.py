"""The SoCs kernels can target (pyasc's config.Platform): each is a row of libasc's platform table, by name."""

from __future__ import annotations

from enum import Enum
from typing import Union

from ..._ffi import ffi, lib


class Platform(Enum):
    """A SoC, by its CANN soc_version name. asc.runtime.config.Platform is this enum. Each value names a row of
    libasc's platform table (src/target/platform.cpp; facts and sources in docs/runtime-api.md, "Platforms")."""

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
