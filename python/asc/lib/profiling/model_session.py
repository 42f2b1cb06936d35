"""Profiling on the Model: each kernel launch while a Profiler runs is a task whose duration is the timing
model's estimate and whose pipe metrics are the launch's per-pipe busy times; export() writes them as msprof's
op summary (PROF_<n>/mindstudio_profiler_output/op_summary_<time>.csv, its columns), so results are read the
same way for the Model and the NPU."""

from __future__ import annotations

import csv
from datetime import datetime
from pathlib import Path

from ..runtime import profile as launch_profile

# msprof's Task Type of each KernelType (0 AIV_ONLY, 1 AIC_ONLY, the others mix kernels, started on the AIC)
_TASK_TYPES = {0: "AI_VECTOR_CORE", 1: "AI_CORE"}
# the pipe columns of AicoreMetrics.PIPE_UTILIZATION: (msprof's name, asc's pipe), vector then cube cores
_AIV_PIPES = (("vec", "V"), ("scalar", "S"), ("mte2", "MTE2"), ("mte3", "MTE3"))
_AIC_PIPES = (("mac", "M"), ("scalar", "S"), ("mte1", "MTE1"), ("mte2", "MTE2"), ("fixpipe", "FIX"))


class ModelSession:
    """The launches of one profiling run on the Model."""

    def __init__(self) -> None:
        self.rows: list[dict[str, object]] = []
        self.started = datetime.now()

    def __enter__(self) -> ModelSession:
        launch_profile.sessions.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        if self in launch_profile.sessions:
            launch_profile.sessions.remove(self)

    def record(self, name: str, kernel_type: int, stats: launch_profile.LaunchStats) -> None:
        us_per_cycle = stats.duration_us / stats.cycles if stats.cycles else 0.0
        blocks = max(1, stats.blocks)
        row: dict[str, object] = {
            "Task ID": len(self.rows),
            "Op Name": name,
            "Task Type": _TASK_TYPES.get(kernel_type, "MIX_AIC"),
            "Task Duration(us)": f"{stats.duration_us:.3f}",
            "Block Dim": stats.blocks,
        }
        prefix, pipes = ("aic", _AIC_PIPES) if kernel_type == 1 else ("aiv", _AIV_PIPES)
        row[f"{prefix}_time(us)"] = f"{stats.duration_us:.3f}"
        row[f"{prefix}_total_cycles"] = stats.cycles
        for column, pipe in pipes:
            busy = stats.busy_cycles[pipe] / blocks  # per core, as msprof reports a core's pipe
            row[f"{prefix}_{column}_time(us)"] = f"{busy * us_per_cycle:.3f}"
            row[f"{prefix}_{column}_ratio"] = f"{busy / stats.cycles if stats.cycles else 0.0:.3f}"
        self.rows.append(row)

    def export(self, directory: str) -> Path:
        """Writes the op summary of the run under `directory` (a PROF_ run directory of its own)."""
        stamp = self.started.strftime("%Y%m%d%H%M%S%f")
        runs = len([p for p in Path(directory).glob("PROF_*")])
        out = Path(directory) / f"PROF_{runs:06d}_{stamp}_MODEL" / "mindstudio_profiler_output"
        out.mkdir(parents=True, exist_ok=True)
        columns: list[str] = []
        for row in self.rows:
            columns += [c for c in row if c not in columns]
        path = out / f"op_summary_{stamp}.csv"
        with path.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=columns or ["Task ID", "Op Name", "Task Type", "Task Duration(us)"])
            writer.writeheader()
            writer.writerows(self.rows)
        return path
