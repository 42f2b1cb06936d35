"""What a profiling run found: one ProfilingTask per kernel launch, as msprof's op summary lists them, and the
median of a kernel's durations."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from datetime import datetime
from typing import Iterable, Optional

# msprof's task types of AI Core work (kernels), as the op summary spells them
AICORE_TASK_TYPES = frozenset(
    {"AI_CORE", "AIV_SQE", "AI_VECTOR_CORE", "MIX_AIC", "MIX_AIV", "KERNEL_AIVEC", "KERNEL_AICORE"}
)


@dataclass(frozen=True)
class ProfilingTask:
    """One kernel launch: its task id, kernel name, task type and duration in microseconds."""

    id: int
    name: str
    type: str
    duration: float


@dataclass(frozen=True)
class ProfilingResult:
    """The tasks of one exported profiling run."""

    tasks: tuple[ProfilingTask, ...]
    run_id: str
    stored_at: datetime


def task_time_median(tasks: Iterable[ProfilingTask], name: Optional[str] = None, skip: int = 0) -> float:
    """The median duration (us, rounded to 3 decimals) of the AI Core tasks named `name` (the first AI Core
    task's name when None), after dropping the first `skip` of them (warm-up) when more remain."""
    values = []
    for task in tasks:
        if task.type not in AICORE_TASK_TYPES:
            continue
        if name is None:
            name = task.name
        elif task.name != name:
            continue
        values.append(task.duration)
    if not values:
        raise RuntimeError(f"There are no timings for task {name!r}")
    if len(values) > skip:
        values = values[skip:]
    return round(statistics.median(values), 3)
