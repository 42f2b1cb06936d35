"""asc.lib.profiling on the Model: a Profiler run records each launch as a task timed by the timing model (the
durations last_launch_stats reports), exports msprof's op summary with the per-pipe times, and reads it back;
task_time_median; result directories; the NPU path's clear error without CANN's profiler library."""

import csv
import os
from pathlib import Path

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.errors import BackendUnavailableError
from asc.lib.profiling import AicoreMetrics, MsprofInterface, Profiler, ProfileType, task_time_median
from asc.lib.profiling.result import ProfilingTask
from asc.runtime.config import KernelType

from kernels import vadd_manual_sync


def launch_add(n: int) -> None:
    """The Add example on 8 cores over n float32s."""
    x = np.ones(n, np.float32)
    z = np.zeros_like(x)
    vadd_manual_sync[8, rt.current_stream()](x, x, z, n // 8)
    assert np.all(z == 2)


@asc.jit(kernel_type=KernelType.AIC_ONLY)
def cube_core_scalar(out: asc.GlobalAddress):
    g = asc.GlobalTensor()
    g.set_global_buffer(out)
    g.set_value(0, 7)


def test_each_launch_is_a_task_timed_by_the_model(tmp_path):
    profiler = Profiler(str(tmp_path))
    durations = []
    with profiler.profile(cleanup=False):
        for n in (8 * 2048, 8 * 4096, 8 * 2048):
            launch_add(n)
            durations.append(rt.last_launch_stats().duration_us)
    tasks = profiler.last_result.tasks
    assert [t.name for t in tasks] == ["vadd_kernel"] * 3
    assert {t.type for t in tasks} == {"AI_VECTOR_CORE"}
    assert [t.duration for t in tasks] == pytest.approx(durations, abs=1e-3)
    assert durations[1] > durations[0]  # twice the data
    assert task_time_median(tasks) == pytest.approx(sorted(durations)[1], abs=1e-3)
    assert task_time_median(tasks, skip=1) == pytest.approx((durations[1] + durations[2]) / 2, abs=1e-3)
    assert Path(profiler.result_path).is_dir()  # given, and cleanup=False: kept


def test_the_op_summary_has_the_pipe_times(tmp_path):
    profiler = Profiler(str(tmp_path))
    with profiler.profile(cleanup=False):
        launch_add(8 * 4096)
    stats = rt.last_launch_stats()
    (summary,) = Path(tmp_path).glob("PROF_*/mindstudio_profiler_output/op_summary_*.csv")
    (row,) = csv.DictReader(summary.open())
    us_per_cycle = stats.duration_us / stats.cycles
    for column, pipe in (("vec", "V"), ("mte2", "MTE2"), ("mte3", "MTE3"), ("scalar", "S")):
        per_core = stats.busy_cycles[pipe] / stats.blocks
        assert float(row[f"aiv_{column}_time(us)"]) == pytest.approx(per_core * us_per_cycle, abs=1e-3)
        assert float(row[f"aiv_{column}_ratio"]) == pytest.approx(per_core / stats.cycles, abs=1e-3)
    assert int(row["Block Dim"]) == 8
    assert 0 < float(row["aiv_mte2_ratio"]) <= 1


def test_a_cube_kernel_is_an_ai_core_task_and_runs_are_kept_apart():
    profiler = Profiler()
    with profiler.profile(cleanup=False):
        cube_core_scalar[1, rt.current_stream()](np.zeros(8, np.int32))
    first = profiler.last_result
    with profiler.profile(cleanup=False):
        launch_add(8 * 2048)
        launch_add(8 * 2048)
    assert [t.type for t in first.tasks] == ["AI_CORE"]
    assert len(profiler.last_result.tasks) == 2 and len(profiler.results) == 2
    path = profiler.result_path
    profiler.cleanup()  # a directory the profiler chose goes
    assert not os.path.exists(path)


def test_launches_outside_a_run_are_not_recorded(tmp_path):
    profiler = Profiler(str(tmp_path))
    launch_add(8 * 2048)
    with profiler.profile(cleanup=False):
        pass
    launch_add(8 * 2048)
    assert profiler.last_result.tasks == ()
    with pytest.raises(RuntimeError, match="no timings"):
        task_time_median(profiler.last_result.tasks)


def test_median_filters_by_name_and_task_type():
    tasks = [ProfilingTask(0, "a", "AI_CORE", 5.0), ProfilingTask(1, "b", "AI_CORE", 1.0),
             ProfilingTask(2, "a", "HCCL", 100.0), ProfilingTask(3, "a", "MIX_AIC", 7.0)]  # fmt: skip
    assert task_time_median(tasks) == 6.0  # a's AI Core tasks: 5 and 7
    assert task_time_median(tasks, name="b") == 1.0


def test_the_npu_profiler_needs_cann_and_says_so(monkeypatch):
    monkeypatch.setenv("LD_LIBRARY_PATH", "")
    with pytest.raises(BackendUnavailableError, match="libmsprofiler.so"):
        MsprofInterface()
    monkeypatch.setattr("asc.lib.profiling.profiler.rt.is_model", lambda: False)
    with pytest.raises(BackendUnavailableError, match="profile on the Model"):
        Profiler().start(metrics=AicoreMetrics.PIPE_UTILIZATION, profile_types=[ProfileType.TASK_TIME])


def test_no_result_before_a_run():
    with pytest.raises(RuntimeError, match="no profiling result"):
        _ = Profiler().last_result
