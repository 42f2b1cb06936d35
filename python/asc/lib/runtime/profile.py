"""What the Model measured in the last launch on a stream: estimated time,
per-pipe busy cycles, per-source-line cost, and synccheck warnings."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import Optional

from ..._ffi import ffi, lib, read_text

PIPES = {"S": 0, "V": 1, "M": 2, "MTE1": 3, "MTE2": 4, "MTE3": 5, "FIX": 10}


@dataclass(frozen=True)
class LaunchStats:
    cycles: int  # estimated, at the platform clock, including the launch itself
    duration_us: float
    blocks: int
    busy_cycles: dict[str, int]  # per pipe, summed over blocks
    warnings: tuple[str, ...]

    def utilisation(self, pipe: str) -> float:
        """Busy share of `pipe` over the launch, averaged over the blocks."""
        total = self.cycles * max(1, self.blocks)
        return self.busy_cycles[pipe] / total if total else 0.0


@dataclass(frozen=True)
class LineCost:
    file: str
    line: int
    cycles: int
    count: int


# The profiling runs (asc.lib.profiling's Model sessions) that record every launch while they are open.
sessions: list = []


def record_launch(name: str, handle: object, stats: object) -> None:
    """Gives a successful launch's stats (an asc_launch_stats_t*) to every open profiling run."""
    kernel_type = ffi.new("int64_t*")
    option = b"kernel_type"
    if lib.asc_kernel_option(handle, option, len(option), kernel_type) != lib.ASC_OK:
        kernel_type[0] = 0
    busy = {pipe: int(stats.busy_cycles[i]) for pipe, i in PIPES.items()}
    launch = LaunchStats(int(stats.cycles), float(stats.duration_us), int(stats.blocks), busy, ())
    for session in list(sessions):
        session.record(name, int(kernel_type[0]), launch)


def last_launch_stats(stream: Optional[object] = None) -> LaunchStats:
    from .state import current_stream

    stream = stream or current_stream()
    out = ffi.new("asc_launch_stats_t*")
    lib.asc_stream_last_stats(stream.handle, out)
    warnings = tuple(w for w in read_text(lib.asc_stream_last_warnings, stream.handle).splitlines() if w)
    busy = {name: int(out.busy_cycles[i]) for name, i in PIPES.items()}
    return LaunchStats(int(out.cycles), float(out.duration_us), int(out.blocks), busy, warnings)


def last_launch_lines(stream: Optional[object] = None) -> list[LineCost]:
    """Cycles and instruction count per source line of the last launch, most cycles first."""
    from .state import current_stream

    stream = stream or current_stream()
    rows = csv.DictReader(io.StringIO(read_text(lib.asc_stream_last_lines, stream.handle)))
    return [LineCost(r["file"], int(r["line"]), int(r["cycles"]), int(r["count"])) for r in rows]
