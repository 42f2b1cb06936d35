"""asc.lib.profiling.Profiler: pyasc's profiler API. On the Model each launch inside a run is a task timed by
the timing model (model_session.py); on the NPU the run drives CANN's profiler (libmsprofiler.so) and its msprof
tool exports the summaries. Both end as msprof op-summary CSVs under the result path, parsed the same way."""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Iterable, Iterator, Optional

from .. import runtime as rt
from .model_session import ModelSession
from .msprof import AicoreMetrics, MsprofInterface, ProfileType
from .result import ProfilingResult, ProfilingTask

# the op summary's columns per exporter: msprof's op_summary_*.csv, or its task_time_*.csv
_SUMMARIES = (
    ("op_summary_", ("Task ID", "Op Name", "Task Type", "Task Duration(us)")),
    ("task_time_", ("task_id", "kernel_name", "kernel_type", "task_time(us)")),
)


class Profiler:
    """``profiler = Profiler(result_path=None)``; ``with profiler.profile(): kernel[n](...)``; then
    ``profiler.last_result.tasks`` (ProfilingTask: id, name, type, duration in us) and
    ``task_time_median(tasks)``. Without a result path a temporary directory is used (and removed by
    ``profile(cleanup=True)`` once the result is read)."""

    def __init__(self, result_path: Optional[str] = None) -> None:
        self.result_path = result_path
        self.auto_remove = result_path is None
        self.results: dict[str, ProfilingResult] = {}
        self.started = False
        self._model: Optional[ModelSession] = None
        self._msprof: Optional[MsprofInterface] = None
        self._config = None

    @property
    def last_result(self) -> ProfilingResult:
        """The result stored last."""
        if not self.results:
            raise RuntimeError("no profiling result was stored: profile() a block of launches first")
        return self.results[next(reversed(self.results))]

    def start(self, device_id: Optional[int] = None, metrics: AicoreMetrics = AicoreMetrics.PIPE_UTILIZATION,
              profile_types: Optional[Iterable[ProfileType]] = None) -> None:  # fmt: skip
        """Starts a run on the current backend (`device_id`: the NPU to profile, the current one when None)."""
        if self.started:
            raise RuntimeError("the profiler is already running: stop() it first")
        if self.result_path is None:
            self.result_path = tempfile.mkdtemp(prefix="asc_profiler_")
        else:
            self.result_path = str(Path(self.result_path).resolve())
            os.makedirs(self.result_path, exist_ok=True)
        if rt.is_model():
            self._model = ModelSession().__enter__()
        else:
            types = list(profile_types or (ProfileType.TASK_TIME, ProfileType.AICORE_METRICS, ProfileType.L2CACHE))
            self._msprof = MsprofInterface()
            self._msprof.init(self.result_path)
            device = rt.current_device_id() if device_id is None else device_id
            self._config = self._msprof.create_config([device], metrics, types)
            self._msprof.start(self._config)
        self.started = True

    def stop(self) -> None:
        """Ends the run (a no-op when none runs)."""
        if not self.started:
            return
        self.started = False
        if self._model is not None:
            self._model.__exit__()
            return
        assert self._msprof is not None
        self._msprof.stop(self._config)
        self._msprof.destroy_config(self._config)
        self._config = None
        self._msprof.finalize()

    def export(self) -> None:
        """Writes the run's summaries under the result path: the Model's op summary, or msprof's export."""
        if self._model is not None:
            self._model.export(self._require_path())
            self._model = None
            return
        home = os.environ.get("ASCEND_HOME_PATH", "")
        tool = Path(home) / "tools/profiler/profiler_tool/analysis/msprof/msprof.py"
        if not home or not tool.is_file():
            raise RuntimeError(f"CANN's msprof tool is not at {tool} (set ASCEND_HOME_PATH, source set_env.sh)")
        for what in ("summary", "timeline"):
            cmd = [sys.executable, str(tool), "export", what, "-dir", self._require_path()]
            subprocess.run(cmd, capture_output=True, check=True)

    def cleanup(self) -> None:
        """Removes a temporary result directory (one the profiler chose)."""
        if self.auto_remove and self.result_path and os.path.isdir(self.result_path):
            shutil.rmtree(self.result_path)
            self.result_path = None

    def store_result(self, run_id: str) -> ProfilingResult:
        """Reads run `run_id`'s summary (the first op_summary_ or task_time_ CSV under it) as a result."""
        run_dir = Path(self._require_path()) / run_id
        if not run_dir.is_dir():
            raise RuntimeError(f"{run_dir} is not a directory")
        tasks: list[ProfilingTask] = []
        csvs = sorted(run_dir.glob("**/*.csv"))
        if not csvs:
            raise RuntimeError(f"there are no CSV reports in {run_dir}")
        for path in csvs:
            columns = next((cols for prefix, cols in _SUMMARIES if path.name.startswith(prefix)), None)
            if columns is None:
                continue
            with path.open(newline="") as f:
                for row in csv.DictReader(f):
                    tasks.append(ProfilingTask(int(row[columns[0]]), row[columns[1]], row[columns[2]],
                                               float(row[columns[3]])))  # fmt: skip
            break
        result = ProfilingResult(tuple(tasks), run_id, stored_at=datetime.now())
        self.results[run_id] = result
        return result

    def store_last_result(self) -> ProfilingResult:
        """store_result of the newest run under the result path."""
        path = self._require_path()
        runs = sorted(d for d in os.listdir(path) if os.path.isdir(os.path.join(path, d)))
        if not runs:
            raise RuntimeError(f"there are no profiling results in {path}")
        return self.store_result(runs[-1])

    @contextmanager
    def profile(self, device_id: Optional[int] = None, cleanup: bool = True,
                metrics: AicoreMetrics = AicoreMetrics.PIPE_UTILIZATION,
                profile_types: Optional[Iterable[ProfileType]] = None) -> Iterator[Profiler]:  # fmt: skip
        """Profiles the launches of the block: start, the block, stop, export, store_last_result (and cleanup of
        a temporary directory when `cleanup`)."""
        try:
            self.start(device_id, metrics=metrics, profile_types=profile_types)
            try:
                yield self
            finally:
                self.stop()
            self.export()
            self.store_last_result()
        finally:
            if cleanup:
                self.cleanup()

    def _require_path(self) -> str:
        if not self.result_path:
            raise RuntimeError("the profiler has no result path: start() a run first")
        return self.result_path
