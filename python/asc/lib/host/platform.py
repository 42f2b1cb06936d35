"""The host's view of the SoC for tiling: core counts and on-chip memory sizes (PlatformAscendC)."""

from __future__ import annotations

from typing import Optional, Union

from ..._ffi import ffi, lib
from ..runtime.platforms import CompilationArch, Platform, platform_to_arch, to_platform
from ..runtime.state import current_platform


class PlatformAscendC:
    """Core counts and buffer sizes of one SoC, from its row of libasc's platform table."""

    def __init__(self, soc_version: str):
        info = ffi.new("asc_platform_info_t*")
        encoded = to_platform(soc_version).value.encode()
        if lib.asc_platform_query(encoded, len(encoded), info) != lib.ASC_OK:
            raise ValueError(f"unknown SoC '{soc_version}'")
        self.soc_version = soc_version
        self.aic_cores, self.aiv_cores = int(info.aic_cores), int(info.aiv_cores)
        self.ub_bytes, self.l1_bytes = int(info.ub_bytes), int(info.l1_bytes)
        self.l0a_bytes, self.l0b_bytes, self.l0c_bytes = int(info.l0a_bytes), int(info.l0b_bytes), int(info.l0c_bytes)
        # The bias table (not in asc_platform_info_t): 1 KiB on dav-c220, 4 KiB on dav-c310 (asc-devkit
        # include/utils/base/sys_constants.h ASC_BT_SIZE; libasc's Platform::bt_bytes).
        self.arch = platform_to_arch(soc_version)
        self.bt_bytes = 4096 if self.arch == CompilationArch.C310 else 1024

    def get_core_num(self) -> int:
        """The cores a vector kernel runs on: on these SoCs (cube and vector cores separate), the AIV cores."""
        return self.aiv_cores

    def get_core_num_aic(self) -> int:
        return self.aic_cores

    def get_core_num_aiv(self) -> int:
        return self.aiv_cores

    def get_soc_version(self) -> str:
        return self.soc_version

    def __repr__(self) -> str:
        return f"PlatformAscendC({self.soc_version}: {self.aic_cores} AIC, {self.aiv_cores} AIV)"


class PlatformAscendCManager:
    """One PlatformAscendC per SoC, as CANN's manager hands out one instance."""

    _instances: dict[str, PlatformAscendC] = {}

    @staticmethod
    def get_instance(soc_version: Optional[Union[Platform, str]] = None) -> PlatformAscendC:
        """The platform of `soc_version` (a Platform or its value); of the current SoC when omitted."""
        name = to_platform(current_platform() if soc_version is None else soc_version).value
        instance = PlatformAscendCManager._instances.get(name)
        if instance is None:
            instance = PlatformAscendCManager._instances[name] = PlatformAscendC(name)
        return instance
