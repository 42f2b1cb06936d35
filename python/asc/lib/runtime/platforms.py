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
    # The Ascend 950 generation (dav-c310), PyAsc2's names: the Ascend910_95 names and the Ascend950PR SoCs.
    Ascend910_9579 = "Ascend910_9579"
    Ascend910_9589 = "Ascend910_9589"
    Ascend910_9599 = "Ascend910_9599"
    Ascend950PR_950z = "Ascend950PR_950z"
    Ascend950PR_9579 = "Ascend950PR_9579"
    Ascend950PR_957b = "Ascend950PR_957b"
    Ascend950PR_957c = "Ascend950PR_957c"
    Ascend950PR_957d = "Ascend950PR_957d"
    Ascend950PR_9589 = "Ascend950PR_9589"
    Ascend950PR_958b = "Ascend950PR_958b"
    Ascend950PR_9599 = "Ascend950PR_9599"


class CompilationArch(Enum):
    """A platform's AI Core architecture (PyAsc2's config.CompilationArch): CANN's dav-c220 (Atlas A2/A3) or
    dav-c310 (Ascend 950). libasc's platform table marks each row with it (Platform::arch)."""

    C220 = "c220"
    C310 = "c310"

    def __str__(self) -> str:
        return self.value


def platform_to_arch(platform: Union[Platform, str]) -> CompilationArch:
    """The architecture of `platform` (a Platform, its value or its name), as PyAsc2 decides it: Ascend910B* and
    Ascend910_93* are C220, Ascend910_95* and Ascend950PR_95* are C310."""
    name = to_platform(platform).value
    if name.startswith(("Ascend910B", "Ascend910_93")):
        return CompilationArch.C220
    if name.startswith(("Ascend910_95", "Ascend950PR_95")):
        return CompilationArch.C310
    raise ValueError(f"There is no compilation arch for '{name}' platform")


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
