"""The timing model and profiles: double buffering is visible, traces and the
per-line table are written and make sense."""

import json

import numpy as np
import pytest
from test_framework import vadd_queues

import asc
import asc.lib.runtime as rt
from asc.runtime.config import KernelType


def launch(depth, tile=1024, cores=1, rng=None):
    rng = rng or np.random.default_rng(0)
    block_length = 8 * tile
    x = rng.random(cores * block_length, dtype=np.float32)
    y = rng.random(cores * block_length, dtype=np.float32)
    z = np.zeros_like(x)
    vadd_queues[cores, rt.current_stream()](x, y, z, block_length, depth, tile * 4)
    np.testing.assert_array_equal(z, x + y)
    return rt.last_launch_stats()


def test_double_buffering_is_estimated_faster():
    single, double = launch(1), launch(2)
    assert double.cycles < single.cycles
    # the same work either way: the same busy cycles on the copy and vector pipes
    for pipe in ("MTE2", "V", "MTE3"):
        assert double.busy_cycles[pipe] == single.busy_cycles[pipe] > 0


def test_stats_are_consistent():
    stats = launch(2, cores=4)
    assert stats.blocks == 4
    assert stats.duration_us == stats.cycles / (1.85 * 1000)  # Ascend910B1 runs at 1.85 GHz
    assert 0 < stats.utilisation("MTE2") <= 1
    assert stats.busy_cycles["MTE2"] > stats.busy_cycles["V"]  # Add is memory-bound


def test_more_cores_take_longer_per_byte_of_bandwidth():
    # 8 cores share HBM, so each core's copies are no faster than with 1 core
    one, eight = launch(2, cores=1), launch(2, cores=8)
    assert eight.busy_cycles["MTE2"] / 8 >= one.busy_cycles["MTE2"]


def overlaps(events, pipe_a, pipe_b):
    """Whether some op of pipe_a and some op of pipe_b on core 0 run at the same time."""
    by_pipe = {}
    for e in events:
        if e.get("ph") == "X":
            by_pipe.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    names = {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "thread_name"}
    tid = {name: t for t, name in names.items()}
    a = by_pipe.get((0, tid[pipe_a]), [])
    b = by_pipe.get((0, tid[pipe_b]), [])
    return any(s1 < e2 and s2 < e1 for s1, e1 in a for s2, e2 in b)


def test_trace_shows_mte2_and_v_overlapping_with_two_buffers(tmp_path):
    stream = rt.current_stream()
    for depth in (1, 2):
        stream.set_profile_dir(str(tmp_path / f"depth{depth}"))
        (tmp_path / f"depth{depth}").mkdir()
        try:
            launch(depth)
        finally:
            stream.set_profile_dir(None)
    traces = {}
    for depth in (1, 2):
        trace = json.loads((tmp_path / f"depth{depth}" / "vadd_queues.trace.json").read_text())
        events = trace["traceEvents"]
        assert any(e.get("name") == "add" and e.get("ph") == "X" for e in events)
        traces[depth] = events
    assert overlaps(traces[2], "MTE2", "V")
    assert not overlaps(traces[1], "MTE2", "V")


def test_per_line_table(tmp_path):
    stream = rt.current_stream()
    stream.set_profile_dir(str(tmp_path))
    try:
        launch(2)
    finally:
        stream.set_profile_dir(None)
    lines = rt.last_launch_lines()
    assert lines == sorted(lines, key=lambda row: -row.cycles)
    top = lines[0]
    assert top.file.endswith("add_framework.py")  # the data copies in copy_in cost the most
    copies = [row for row in lines if row.file.endswith("add_framework.py")]
    assert sum(row.count for row in copies) > 0
    csv_text = (tmp_path / "vadd_queues.lines.csv").read_text().splitlines()
    assert csv_text[0] == "file,line,cycles,count" and len(csv_text) == len(lines) + 1


def test_asc_profile_env_writes_the_files(tmp_path):
    import os
    import subprocess
    import sys

    script = tmp_path / "k.py"
    script.write_text(
        "import numpy as np, asc, asc.lib.runtime as rt\n"
        "@asc.jit\n"
        "def scale(x: asc.GlobalAddress):\n"
        "    x_gm = asc.GlobalTensor()\n"
        "    x_gm.set_global_buffer(x, 64)\n"
        "    a = asc.LocalTensorAuto(asc.float32, 64)\n"
        "    asc.data_copy(a, x_gm, 64)\n"
        "    asc.adds(a, a, float(asc.get_block_idx()), 64)\n"
        "    asc.data_copy(x_gm, a, 64)\n"
        "x = np.ones(64, np.float32)\n"
        "scale[2, rt.current_stream()](x)\n"
    )
    out_dir = tmp_path / "profile"
    out_dir.mkdir()
    env = dict(os.environ, ASC_PROFILE=str(out_dir))
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    # two blocks write different values to the same 64 floats: the conflict is reported, and nothing is
    # profiled for a failed launch
    assert run.returncode != 0 and "GmWriteConflictError" in run.stderr
    script.write_text(script.read_text().replace("scale[2,", "scale[1,"))
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    trace = json.loads((out_dir / "scale.trace.json").read_text())
    assert {e["name"] for e in trace["traceEvents"] if e.get("ph") == "X"} >= {"data_copy.gm_to_local", "adds"}
    assert (out_dir / "scale.lines.csv").read_text().startswith("file,line,cycles,count")


def test_the_trace_lines_and_stats_share_the_hbm_clock(tmp_path):
    """On all 48 vector cores a double-buffered Add outruns HBM (48 x 2 engines x 26 bytes per cycle against
    about 865): each copy takes longer than on 2 cores, where HBM keeps up, and that longer time is in the busy
    cycles, the per-line table and the trace alike (the compute's own time is not stretched)."""
    two = launch(2, tile=4096, cores=2)
    stream = rt.current_stream()
    stream.set_profile_dir(str(tmp_path))
    try:
        full = launch(2, tile=4096, cores=48)
        lines = rt.last_launch_lines()
    finally:
        stream.set_profile_dir(None)
    assert full.busy_cycles["MTE2"] / 48 > 1.5 * two.busy_cycles["MTE2"] / 2  # HBM shared in time
    assert full.busy_cycles["V"] / 48 == two.busy_cycles["V"] / 2  # the vector unit runs at its own speed
    assert sum(row.cycles for row in lines) == sum(full.busy_cycles.values())
    events = json.loads((tmp_path / "vadd_queues.trace.json").read_text())["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "thread_name"}
    for pipe in ("MTE2", "V", "MTE3"):
        spans = sum(e["dur"] for e in events if e.get("ph") == "X" and names.get(e["tid"]) == pipe)
        # microseconds at 1.85 GHz, rounded to 0.1 ns: a 1-cycle flag's 0.54 ns is written as 0.5
        assert spans * 1850 == pytest.approx(full.busy_cycles[pipe], rel=1e-2)


READS, READ_BYTES = 8, 16384
AIC_READ_LATENCY, AIC_BYTES_PER_CYCLE = 700, 82  # src/target/platform.cpp: a cube core's GM -> L1 reads


@asc.jit(kernel_type=KernelType.AIC_ONLY)
def l1_reads(x: asc.GlobalAddress, SERIAL: asc.ConstExpr[bool]):
    """READS copies GM -> L1 of READ_BYTES each, queued back to back or (SERIAL) each waiting until MTE1 has seen
    the last one land, as a copy into a single L1 buffer does."""
    n = READ_BYTES // 2
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, READS * n)
    for i in range(READS):
        a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, i * READ_BYTES, n)
        asc.data_copy(a1, x_gm[i * n :], n)
        if SERIAL:
            asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
            asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
            asc.set_flag(asc.HardEvent.MTE1_MTE2, 0)
            asc.wait_flag(asc.HardEvent.MTE1_MTE2, 0)


def test_a_cube_cores_gm_reads_hide_their_latency_behind_the_reads_queued_before_them():
    """Matmul sample cases 1/3 against 5 (docs/profiling.md): queued reads pay the latency once, reads that wait
    for the last to land pay it each time."""
    x = np.ones(READS * READ_BYTES // 2, np.float16)
    busy = {}
    for serial in (False, True):
        l1_reads[1, rt.current_stream()](x, serial)
        busy[serial] = rt.last_launch_stats().busy_cycles["MTE2"]
    transfer = READS * -(-READ_BYTES // AIC_BYTES_PER_CYCLE)
    assert busy[False] == pytest.approx(AIC_READ_LATENCY + transfer, abs=READS)
    assert busy[True] == pytest.approx(READS * AIC_READ_LATENCY + transfer, abs=4 * READS)
