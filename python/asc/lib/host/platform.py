"""The host's view of the SoC for tiling: core counts and on-chip memory sizes (PlatformAscendC)."""

from __future__ import annotations

from ..._ffi import ffi, lib


class PlatformAscendC:
    """Core counts and buffer sizes of one SoC, from libasc's platform table."""

    def __init__(self, soc_version: str):
        info = ffi.new("asc_platform_info_t*")
        encoded = soc_version.encode()
        if lib.asc_platform_query(encoded, len(encoded), info) != lib.ASC_OK:
            raise ValueError(f"unknown SoC '{soc_version}'")
        self.soc_version = soc_version
        self.aic_cores, self.aiv_cores = int(info.aic_cores), int(info.aiv_cores)
        self.ub_bytes, self.l1_bytes = int(info.ub_bytes), int(info.l1_bytes)
        self.l0a_bytes, self.l0b_bytes, self.l0c_bytes = int(info.l0a_bytes), int(info.l0b_bytes), int(info.l0c_bytes)
        self.bt_bytes = 1024

    def get_core_num_aic(self) -> int:
        return self.aic_cores

    def get_core_num_aiv(self) -> int:
        return self.aiv_cores

    def get_soc_version(self) -> str:
        return self.soc_version


class PlatformAscendCManager:
    @staticmethod
    def get_instance(soc_version: str = "Ascend910B1") -> PlatformAscendC:
        return PlatformAscendC(soc_version)
