"""A platform's physical limits, the bounds the Model's clock keeps to (docs/profiling.md): HBM for all cores
together, each core's MTE engines, vector units and cube. Examples print a launch's estimate beside the bound for
the same work, so that a user sees how far a kernel is from what the chip allows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..._ffi import ffi, lib
from . import state

_KEYS = ("hbm_bytes_per_second", "mte_bytes_per_cycle", "vector_bytes_per_cycle", "cube_f16_macs_per_cycle")


@dataclass(frozen=True)
class PlatformFigures:
    platform: str
    clock_ghz: float
    aiv_cores: int
    aic_cores: int
    hbm_bytes_per_second: float  # all cores together
    mte_bytes_per_cycle: float  # one engine of a vector core (a cube core's GM copies are faster)
    vector_bytes_per_cycle: float  # one vector core
    cube_f16_macs_per_cycle: float  # one cube core

    def hbm_bound_us(self, gm_bytes: float) -> float:
        """The least time HBM needs to move `gm_bytes` (reads and writes together)."""
        return gm_bytes / self.hbm_bytes_per_second * 1e6

    def cube_bound_us(self, macs: float, cores: Optional[int] = None) -> float:
        """The least time `cores` cube cores (all by default) need for `macs` float16 multiply-adds."""
        per_cycle = self.cube_f16_macs_per_cycle * (cores or self.aic_cores)
        return macs / per_cycle / (self.clock_ghz * 1e3)


def platform_figures(platform: Optional[str] = None) -> PlatformFigures:
    """The figures of `platform` (the current one by default)."""
    name = (platform or state.current_platform()).encode()
    info = ffi.new("asc_platform_info_t*")
    state._check(lib.asc_platform_query(name, len(name), info))
    out = ffi.new("double*")
    values = {}
    for key in _KEYS:
        state._check(lib.asc_platform_figure(name, len(name), key.encode(), len(key), out))
        values[key] = out[0]
    return PlatformFigures(name.decode(), info.clock_ghz, info.aiv_cores, info.aic_cores, **values)
