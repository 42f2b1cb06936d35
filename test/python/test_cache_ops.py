"""The scalar unit's cache instructions (data_cache_clean_and_invalid, data_cache_preload, icache_preload,
get_icache_preload_status), print_time_stamp, dump_acc_chk_point and the msProf markers: the cache instructions
change no data but cost the scalar unit the same time each, which the per-line table, the pipe totals, the trace
and print_time_stamp's cycles all agree on; print_time_stamp's and dump_acc_chk_point's output parsed and checked
against the kernel's inputs; their errors and the Ascend C they are emitted as."""

import json
import re

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.runtime.jit import MockTensor

from kernels import ascendc_source

L = asc.CacheLine
D = asc.DcciDst
N = 5


@asc.jit
def cache_kernel(x: asc.GlobalAddress, w: asc.GlobalAddress, out: asc.GlobalAddress, fetch: int,
                 CACHE: asc.ConstExpr[int]):  # fmt: skip
    x_gm, w_gm, out_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    w_gm.set_global_buffer(w)
    out_gm.set_global_buffer(out)
    for i in range(5):
        x_gm.set_value(i, x_gm.get_value(i) + 1)
        off = 64 * i
        if CACHE:
            asc.data_cache_clean_and_invalid(entire_type=L.SINGLE_CACHE_LINE, dcci_dst=D.CACHELINE_OUT, dst=x_gm)
            asc.data_cache_clean_and_invalid(L.ENTIRE_DATA_CACHE, x_gm)
            asc.data_cache_preload(src=w_gm, cache_offset=off)
            asc.icache_preload(fetch)
        out_gm.set_value(i, x_gm.get_value(i))
    out_gm.set_value(5, asc.number(asc.get_icache_preload_status(), asc.float32))


CACHE_CALLS = ("data_cache_clean_and_invalid(entire_type", "data_cache_clean_and_invalid(L.ENTIRE",
               "data_cache_preload(", "icache_preload(fetch)")  # fmt: skip


def source_line(fn, text: str) -> int:
    import inspect

    lines, first = inspect.getsourcelines(fn.fn if hasattr(fn, "fn") else fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def run_cache(cache: int, tmp_path):
    x = np.arange(8, dtype=np.float32)
    w = np.zeros(128, np.uint64)
    out = np.zeros(8, np.float32)
    stream = rt.current_stream()
    (tmp_path / str(cache)).mkdir()
    stream.set_profile_dir(str(tmp_path / str(cache)))
    try:
        cache_kernel[1, stream](x, w, out, 2, cache)
    finally:
        stream.set_profile_dir(None)
    return x, out, rt.last_launch_stats(), rt.last_launch_lines()


def test_cache_instructions_change_no_data_and_cost_a_fixed_time(tmp_path):
    x0, out0, plain, _ = run_cache(0, tmp_path)
    x1, out1, cached, lines = run_cache(1, tmp_path)
    want = np.arange(8, dtype=np.float32) + (np.arange(8) < 5)
    np.testing.assert_array_equal(x0, want)
    np.testing.assert_array_equal(x1, want)
    np.testing.assert_array_equal(out1, out0)
    assert out1[5] == 0  # the Model's instruction-cache preload is done when issued: idle
    by_line = {row.line: row for row in lines if row.file.endswith("test_cache_ops.py")}
    costs = set()
    for call in CACHE_CALLS:
        row = by_line[source_line(cache_kernel, call)]
        assert row.count == N, call
        costs.add(row.cycles // row.count)
        assert row.cycles % row.count == 0
    assert len(costs) == 1, costs  # one GM round trip each
    (cost,) = costs
    get_value = by_line[source_line(cache_kernel, "x_gm.set_value(i, x_gm.get_value(i) + 1)")]
    assert cost > get_value.cycles / get_value.count  # slower than a scalar access to GM
    # the scalar unit runs them in turn: its busy time and the launch grow by exactly that
    assert cached.busy_cycles["S"] - plain.busy_cycles["S"] == len(CACHE_CALLS) * N * cost
    assert cached.cycles - plain.cycles == len(CACHE_CALLS) * N * cost
    trace = json.loads((tmp_path / "1" / "cache_kernel.trace.json").read_text())["traceEvents"]
    events = [e for e in trace if e.get("ph") == "X" and e["name"].startswith(("data_cache", "icache"))]
    assert len(events) == len(CACHE_CALLS) * N
    assert {e["name"] for e in events} == {"data_cache_clean_and_invalid", "data_cache_clean_and_invalid.no_dst",
                                           "data_cache_preload", "icache_preload"}  # fmt: skip
    durations = {round(e["dur"] * 1.85 * 1000) for e in events}  # Ascend910B1: 1.85 GHz
    assert durations == {cost}


STAMP = re.compile(r"\[Block (\d+)/(\d+)\] descId is (\d+), rsv is 0, timeStamp is (\d+), pcPtr is 0, entry is 0\.")


@asc.jit
def stamp_kernel(desc_id: int, next_id: int, K: asc.ConstExpr[int]):
    asc.metrics_prof_start()
    asc.print_time_stamp(desc_id)
    for _ in asc.static_range(K):
        asc.icache_preload(pre_fetch_len=next_id)
    asc.print_time_stamp(next_id)
    asc.metrics_prof_stop()


def stamps(capsys, blocks, desc_id, k, tmp_path=None):
    stream = rt.current_stream()
    if tmp_path:
        stream.set_profile_dir(str(tmp_path))
    try:
        stamp_kernel[blocks, stream](desc_id, desc_id + 1, k)
    finally:
        stream.set_profile_dir(None)
    lines = capsys.readouterr().out.splitlines()
    parsed = [STAMP.fullmatch(line) for line in lines]
    assert all(parsed), lines
    return [tuple(int(g) for g in m.groups()) for m in parsed]


@pytest.mark.parametrize("k", [0, 1, 7])
def test_print_time_stamp_prints_its_id_and_the_cycle(k, capsys, tmp_path):
    got = stamps(capsys, 2, 65577, k, tmp_path)
    assert [(b, n, d) for b, n, d, _ in got] == [(0, 2, 65577), (0, 2, 65578), (1, 2, 65577), (1, 2, 65578)]
    lines = {row.line: row for row in rt.last_launch_lines() if row.file.endswith("test_cache_ops.py")}
    stamp = lines[source_line(stamp_kernel, "asc.print_time_stamp(desc_id)")]
    start = lines[source_line(stamp_kernel, "asc.metrics_prof_start()")]
    per_stamp, per_start = stamp.cycles // stamp.count, start.cycles // start.count
    preload = lines.get(source_line(stamp_kernel, "icache_preload(pre_fetch_len"))
    per_preload = preload.cycles // preload.count if k else 0
    for block in (0, 1):
        (_, _, _, t1), (_, _, _, t2) = got[2 * block : 2 * block + 2]
        assert t1 == per_start  # after metrics_prof_start, on the core's own timeline from 0
        assert t2 - t1 == per_stamp + k * per_preload
    if k:
        assert per_preload > per_stamp


def test_metrics_markers_appear_in_the_trace(capsys, tmp_path):
    stamps(capsys, 1, 70000, 0, tmp_path)
    trace = json.loads((tmp_path / "stamp_kernel.trace.json").read_text())["traceEvents"]
    names = [e["name"] for e in trace if e.get("ph") == "X"]
    assert names[0] == "metrics_prof_start" and names[-1] == "metrics_prof_stop"
    assert names.count("print_time_stamp") == 2


@asc.jit
def dump_kernel(x: asc.GlobalAddress, n: int, index: int, off: int, size: int, LOCAL: asc.ConstExpr[int]):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    if LOCAL:
        a = asc.LocalTensor(dtype=x_gm.dtype, pos=asc.TPosition.VECIN, addr=0, tile_size=256)
        asc.data_copy(a, x_gm, 256)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.dump_acc_chk_point(tensor=a, index=index, count_off=off, dump_size=size)
    else:
        asc.dump_acc_chk_point(x_gm, index, off, size)


def element(v, dtype) -> str:
    return f"{float(v):f}" if np.dtype(dtype).kind == "f" else str(int(v))


HEAD = re.compile(r"DumpAccChkPoint: index=(\d+), count_off=(\d+), addr=(0x[0-9a-f]+|0), data_type=(\w+), "
                  r"position=(GM|UB), dump_size=(\d+)")  # fmt: skip


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int32, np.uint8])
@pytest.mark.parametrize("local", [0, 1])
def test_dump_acc_chk_point_dumps_from_the_offset(dtype, local, rng, capsys):
    x = (rng.integers(0, 100, 256) if np.dtype(dtype).kind != "f" else rng.random(256) * 10).astype(dtype)
    off, size, index = int(rng.integers(0, 64)), int(rng.integers(1, 40)), int(rng.integers(0, 1000))
    dump_kernel[1, rt.current_stream()](x, 256, index, off, size, local)
    head, values = capsys.readouterr().out.splitlines()
    m = HEAD.fullmatch(head.removeprefix("[Block 0/1] "))
    assert m, head
    names = {np.float16: "float16", np.float32: "float32", np.int32: "int32", np.uint8: "uint8"}
    assert (int(m[1]), int(m[2]), int(m[3], 16), m[4], m[5], int(m[6])) == (
        index, off, off * x.itemsize, names[dtype], "UB" if local else "GM", size)  # fmt: skip
    assert values == "[Block 0/1] [" + ", ".join(element(v, dtype) for v in x[off : off + size]) + "]"


def test_dump_acc_chk_point_past_the_tensor_is_an_error():
    x = np.zeros(64, np.float32)
    with pytest.raises(asc.errors.KernelError, match="dump_acc_chk_point reads bytes"):
        dump_kernel[1, rt.current_stream()](x, 64, 0, 60, 8, 0)


@asc.jit
def bad_kernel(w: asc.GlobalAddress, WHAT: asc.ConstExpr[int]):
    w_gm = asc.GlobalTensor()
    w_gm.set_global_buffer(w)
    if WHAT == 0:
        asc.data_cache_preload(w_gm, 0)  # a float32 tensor: Ascend C takes GlobalTensor<uint64_t>
    elif WHAT == 1:
        asc.data_cache_clean_and_invalid(D.CACHELINE_OUT, w_gm)
    elif WHAT == 2:
        asc.data_cache_clean_and_invalid(L.SINGLE_CACHE_LINE, 3)
    else:
        asc.dump_acc_chk_point(3, 0, 0, 1)


BAD = [(0, "GlobalTensor of asc.uint64"), (1, "entire_type must be an asc.CacheLine"), (2, "unexpected argument 3"),
       (3, "LocalTensor or GlobalTensor")]  # fmt: skip


@pytest.mark.parametrize("what,message", BAD)
def test_bad_arguments_are_compile_errors(what, message):
    with pytest.raises(asc.CodegenError, match=message):
        bad_kernel[1, rt.current_stream()](np.zeros(8, np.float32), what)


def test_emitted_ascendc_spells_the_instructions():
    f32, u64 = MockTensor(asc.float32), MockTensor(asc.uint64)
    source = ascendc_source(cache_kernel.compile(f32, u64, f32, 2, 1))
    for spelling in ("AscendC::DataCacheCleanAndInvalid<float, AscendC::CacheLine::SINGLE_CACHE_LINE, "
                     "AscendC::DcciDst::CACHELINE_OUT>(", "AscendC::DataCacheCleanAndInvalid<float, "
                     "AscendC::CacheLine::ENTIRE_DATA_CACHE>(", "AscendC::DataCachePreload(", "AscendC::ICachePreLoad(",
                     "AscendC::GetICachePreloadStatus()"):  # fmt: skip
        assert spelling in source, spelling
    source = ascendc_source(stamp_kernel.compile(5, 6, 1))
    for spelling in ("AscendC::PrintTimeStamp(", "AscendC::MetricsProfStart();", "AscendC::MetricsProfStop();"):
        assert spelling in source, spelling
