"""What Python users see, as ratios against baselines measured in the same run.

    python3 bench/bench.py            # the figures in bench/README.md (about a minute)
    python3 bench/bench.py --quick    # fewer repeats (a smoke test)

Each row is a median over interleaved rounds (asc, then its baseline, then
again), so the shared machine's drift hits both alike:

* launch: a cached launch of a no-op kernel, 8 blocks, 4 arguments (3 numpy
  arrays and an int), synchronous, against ``numpy.add(a, b, out=c)`` on
  8-element arrays and against one bare cffi call into libasc.so;
* Add: the 01_add kernel shape (16 cores, double-buffered, manual sync) on
  16M float32 with the sanitizer on and off, against ``numpy.add(x, y,
  out=z)`` on the same arrays; TILE_NUM is 64 so that a block's six tiles
  fit the 192 KiB Unified Buffer (pyasc's TILE_NUM = 8 is sized for 16K
  elements, not 16M);
* compile: the first compile of examples/add_framework.py's kernel in a fresh
  process, with an empty disk cache and from the disk cache, against
  Python's own ``compile()`` of that file's source;
* import: ``import asc`` in a fresh process, against ``import numpy``;
* operators: the tutorials' ``@pyasc.operator`` conv2d (1x3x224x224 by 64x3x7x7, stride 2, padding 3) and
  max_pool2d (1x64x224x224, 2 x 2, stride 2), warm calls on the Model with the sanitizer on, against numpy
  (conv: ``einsum`` over a strided window view; pooling: a reshape's ``max``); ``--quick`` at a quarter of
  the height and width. For conv2d also the Model's estimate of the call (its launches' durations) against
  the bound max(MACs / the float32 cube peak, GM bytes / HBM bandwidth), and that bound plus one launch.
  Without ``--quick``, also ``asc.adv.Matmul`` 4096^3 float16 on 24 cube cores with the sanitizer off, one
  call, against numpy's float32 matmul of the same shape.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import numpy as np

import asc
import asc.lib.runtime as rt
from asc._ffi import lib
from asc.lib.profiling import Profiler

ROOT = Path(__file__).resolve().parents[1]
BUFFER_NUM = 2
TILE_NUM = 64


@asc.jit
def noop(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    pass


@asc.jit
def vadd(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int):
    offset = asc.get_block_idx() * block_length
    x_gm, y_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, block_length)
    y_gm.set_global_buffer(y + offset, block_length)
    z_gm.set_global_buffer(z + offset, block_length)
    tile_length = block_length // TILE_NUM // BUFFER_NUM
    buffer_size = tile_length * BUFFER_NUM * x.dtype.sizeof()
    x_local = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, tile_length * BUFFER_NUM)
    y_local = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, buffer_size, tile_length * BUFFER_NUM)
    z_local = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 2 * buffer_size, tile_length * BUFFER_NUM)
    for i in range(TILE_NUM * BUFFER_NUM):
        buf_id = i % BUFFER_NUM
        asc.data_copy(x_local[buf_id * tile_length :], x_gm[i * tile_length :], tile_length)
        asc.data_copy(y_local[buf_id * tile_length :], y_gm[i * tile_length :], tile_length)
        asc.set_flag(asc.HardEvent.MTE2_V, buf_id)
        asc.wait_flag(asc.HardEvent.MTE2_V, buf_id)
        asc.add(z_local[buf_id * tile_length :], x_local[buf_id * tile_length :], y_local[buf_id * tile_length :],
                tile_length)  # fmt: skip
        asc.set_flag(asc.HardEvent.V_MTE3, buf_id)
        asc.wait_flag(asc.HardEvent.V_MTE3, buf_id)
        asc.data_copy(z_gm[i * tile_length :], z_local[buf_id * tile_length :], tile_length)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, buf_id)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, buf_id)


@dataclass
class Row:
    what: str
    asc: float  # seconds
    baseline: float
    baseline_name: str
    target: str = ""
    met: Optional[bool] = None

    def ratio(self) -> float:
        return self.asc / self.baseline


def paired(a: Callable[[], object], b: Callable[[], object], number: int, rounds: int) -> tuple[float, float]:
    """Medians of per-call times of `a` and `b`, measured in alternating rounds."""
    ta, tb = [], []
    for _ in range(rounds):
        ta.append(min(timeit.repeat(a, number=number, repeat=3)) / number)
        tb.append(min(timeit.repeat(b, number=number, repeat=3)) / number)
    return statistics.median(ta), statistics.median(tb)


def bench_launch(rounds: int) -> list[Row]:
    stream = rt.current_stream()
    a, b, c = (np.ones(8, np.float32) for _ in range(3))
    launch = noop[8, stream]
    launch(a, b, c, 8)
    t_asc, t_np = paired(lambda: launch(a, b, c, 8), lambda: np.add(a, b, out=c), 5000, rounds)
    t_asc1, t_bare = paired(lambda: noop[1, stream](a, b, c, 8), lib.asc_abi_version, 5000, rounds)
    t_queue = statistics.median(enqueue_times(rounds, a, b, c))
    return [
        Row(
            "launch, no-op, 8 blocks, 4 args",
            t_asc,
            t_np,
            "numpy.add, 8 elements",
            "<= 5 us and <= 4x",
            t_asc <= 5e-6 and t_asc <= 4 * t_np,
        ),  # fmt: skip
        Row("launch, no-op, 1 block, 4 args", t_asc1, t_bare, "bare cffi call"),
        Row("launch, no-op, 8 blocks, asynchronous stream (enqueue)", t_queue, t_np, "numpy.add, 8 elements"),
    ]


def enqueue_times(rounds: int, a: np.ndarray, b: np.ndarray, c: np.ndarray, batch: int = 64) -> list[float]:
    """Per-launch time of queueing `batch` launches on an asynchronous stream (the stream's thread runs
    them meanwhile; the synchronize after each batch is not timed)."""
    stream = rt.create_stream(asynchronous=True)
    launch = noop[8, stream]
    launch(a, b, c, 8)
    stream.synchronize()
    out = []
    for _ in range(rounds * 20):
        start = time.perf_counter()
        for _ in range(batch):
            launch(a, b, c, 8)
        out.append((time.perf_counter() - start) / batch)
        stream.synchronize()
    stream.destroy()
    return out


def bench_add(rounds: int, n: int = 1 << 24, cores: int = 16) -> list[Row]:
    stream = rt.current_stream()
    rng = np.random.default_rng(0)
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    z = np.empty_like(x)
    launch = vadd[cores, stream]
    launch(x, y, z, n // cores)
    if not np.array_equal(z, x + y):
        raise SystemExit("bench: the Add kernel computed a wrong result")
    rows = []
    for sanitize in (True, False):
        stream.set_sanitize(sanitize)
        t_asc, t_np = paired(lambda: launch(x, y, z, n // cores), lambda: np.add(x, y, out=z), 2, rounds)
        label = f"Add {n >> 20}M float32, {cores} cores, sanitizer {'on' if sanitize else 'off'}"
        target = "<= 1.25x (aim: numpy as fast)" if sanitize else ""
        rows.append(
            Row(label, t_asc, t_np, "numpy.add, same arrays", target, t_asc <= 1.25 * t_np if sanitize else None)
        )
    stream.set_sanitize(True)
    return rows


_COMPILE_PROBE = """
import json, sys, time
sys.argv = [sys.argv[0]]
sys.path.insert(0, {examples!r})
import numpy as np
import asc
import add_framework
from asc.runtime import disk_cache
from asc.runtime.jit import JITFunction

spent = []
original = JITFunction._compile
def timed(self, *args):
    start = time.perf_counter()
    kernel = original(self, *args)
    spent.append(time.perf_counter() - start)
    return kernel
JITFunction._compile = timed
x = np.random.default_rng(0).random(8 * 2048, dtype=np.float32)
if not np.array_equal(add_framework.vadd(x, x), x + x):
    raise SystemExit("add_framework computed a wrong result")
source = open(add_framework.__file__).read()
start = time.perf_counter()
compile(source, add_framework.__file__, "exec")
python_compile = time.perf_counter() - start
print(json.dumps({{"compile": spent[0], "python": python_compile, "hits": disk_cache.stats["hits"]}}))
"""


def _python(code: str, env: dict) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    if out.returncode != 0:
        raise SystemExit(f"bench: a probe process failed:\n{out.stderr}")
    return out.stdout.strip().splitlines()[-1]


def _env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # as users run: with .pyc files
    env.update(extra)
    return env


def bench_compile(rounds: int) -> list[Row]:
    probe = _COMPILE_PROBE.format(examples=str(ROOT / "examples"))
    cold, warm, python = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        _python(probe, _env(PYASC_CACHE_DIR=""))  # writes the .pyc files
        for i in range(rounds):
            cache = os.path.join(tmp, f"cache{i}")
            first = json.loads(_python(probe, _env(PYASC_CACHE_DIR=cache)))
            second = json.loads(_python(probe, _env(PYASC_CACHE_DIR=cache)))
            if first["hits"] != 0 or second["hits"] != 1:
                raise SystemExit(f"bench: the disk cache did not behave: {first}, {second}")
            cold.append(first["compile"])
            warm.append(second["compile"])
            python += [first["python"], second["python"]]
    base = statistics.median(python)
    return [
        Row(
            "compile add_framework, fresh process",
            statistics.median(cold),
            base,
            "Python compile() of the file",
            "<= 20 ms",
            statistics.median(cold) <= 0.020,
        ),  # fmt: skip
        Row(
            "compile add_framework, from disk cache",
            statistics.median(warm),
            base,
            "Python compile() of the file",
            "<= 2 ms",
            statistics.median(warm) <= 0.002,
        ),  # fmt: skip
    ]


def bench_import(rounds: int) -> list[Row]:
    probe = "import time; t = time.perf_counter(); import {0}; print(time.perf_counter() - t)"
    env = _env()
    _python(probe.format("asc"), env)
    t_asc, t_np = [], []
    for _ in range(rounds):
        t_asc.append(float(_python(probe.format("asc"), env)))
        t_np.append(float(_python(probe.format("numpy"), env)))
    med = statistics.median(t_asc)
    return [Row("import asc, fresh process", med, statistics.median(t_np), "import numpy", "<= 150 ms", med <= 0.150)]


def _operators():
    sys.path.insert(0, str(ROOT / "examples"))
    from operators import conv2d, max_pool2d

    return conv2d, max_pool2d


def bench_operators(rounds: int, quick: bool) -> list[Row]:
    conv2d, max_pool2d = _operators()
    side = 56 if quick else 224
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 3, side, side)).astype(np.float32)
    w = rng.standard_normal((64, 3, 7, 7)).astype(np.float32)
    out = conv2d(x, w, stride=2, padding=3)
    windows = np.lib.stride_tricks.sliding_window_view(np.pad(x, ((0, 0), (0, 0), (3, 3), (3, 3))), (7, 7),
                                                       axis=(2, 3))[:, :, ::2, ::2]  # fmt: skip

    def einsum():
        return np.einsum("ncijab,fcab->nfij", windows, w, optimize=True)

    if not np.allclose(out, einsum(), rtol=1e-3, atol=1e-3):
        raise SystemExit("bench: conv2d computed a wrong result")
    t_conv, t_einsum = paired(lambda: conv2d(x, w, out, stride=2, padding=3), einsum, 1, rounds)
    model, launches = model_estimate(lambda: conv2d(x, w, out, stride=2, padding=3))
    import pyasc.conv

    pyasc.conv.FUSED = True  # the one-launch form, for its estimate
    try:
        fused, _ = model_estimate(lambda: conv2d(x, w, out, stride=2, padding=3))
    finally:
        pyasc.conv.FUSED = False
    macs = 64 * 3 * 7 * 7 * out.shape[2] * out.shape[3]
    moved = (x.size + w.size + out.size) * 4
    bound = max(macs / CUBE_MACS_PER_S_FLOAT32, moved / HBM_BYTES_PER_S)
    p = rng.standard_normal((1, 64, side, side)).astype(np.float32)
    pooled = np.zeros((1, 64, side // 2, side // 2), np.float32)
    max_pool2d(p, pooled, kernel_size=2, stride=2)

    def numpy_pool():
        return p.reshape(1, 64, side // 2, 2, side // 2, 2).max(axis=(3, 5))

    if not np.array_equal(pooled, numpy_pool()):
        raise SystemExit("bench: max_pool2d computed a wrong result")
    t_pool, t_np = paired(lambda: max_pool2d(p, pooled, kernel_size=2, stride=2), numpy_pool, 1, rounds)
    return [
        Row(f"conv2d 1x3x{side}x{side} by 64x3x7x7, warm, sanitizer on", t_conv, t_einsum, "numpy einsum",
            "<= 20x", t_conv <= 20 * t_einsum),
        Row(f"conv2d, the Model's estimate ({launches} launches, img2col on the cube)", model,
            bound, f"max({macs / 1e6:.1f} M MACs / float32 cube peak, {moved / 1e6:.2f} MB / HBM)", "<= 2x",
            model <= 2 * bound),
        Row("conv2d, the Model's estimate against the bound plus one launch", model, bound + LAUNCH_S,
            f"the bound + {LAUNCH_S * 1e6:.0f} us (any one-launch kernel)"),
        Row("conv2d, the Model's estimate of the one-launch form (pyasc.conv.FUSED)", fused, bound + LAUNCH_S,
            f"the bound + {LAUNCH_S * 1e6:.0f} us"),
        Row(f"max_pool2d 1x64x{side}x{side}, 2x2, warm, sanitizer on", t_pool, t_np, "numpy reshape max", "<= 5x",
            t_pool <= 5 * t_np),
    ]  # fmt: skip


# The Model's Ascend910B1 (src/target/platform.cpp): 24 cube cores at 1.85 GHz; a float32 mmad takes two cycles
# a 16 x 16 x 8 fractal (src/ir/ops_cube.cpp mmad_work; float16 one cycle a 16 x 16 x 16 one); HBM 1.6 TB/s;
# a launch about 3 us (cost(): c.launch)
CUBE_MACS_PER_S_FLOAT32 = 24 * 1.85e9 * 16 * 16 * 8 / 2
HBM_BYTES_PER_S = 1.6e12
LAUNCH_S = 3e-6


def model_estimate(call: Callable[[], object]) -> tuple[float, int]:
    """The Model's time of one call (its launches' durations summed, seconds) and its launch count."""
    profiler = Profiler()
    with profiler.profile():
        call()
    tasks = profiler.last_result.tasks
    return sum(t.duration for t in tasks) * 1e-6, len(tasks)


def bench_matmul() -> list[Row]:
    sys.path.insert(0, str(ROOT / "examples"))
    import matmul as example

    n = 4096
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (n, n)).astype(np.float16)
    b = rng.uniform(-1, 1, (n, n)).astype(np.float16)
    c = np.zeros((n, n), np.float32)
    tiling = example.tiling_for(n, n, n, example.CORES)
    workspace = np.zeros(16 * 1024 * 1024, np.uint8)
    stream = rt.current_stream()
    stream.set_sanitize(False)
    start = time.perf_counter()
    example.matmul_kernel[tiling.used_core_num, stream](a, b, c, tiling, workspace)
    t_asc = time.perf_counter() - start
    stream.set_sanitize(True)
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    t_np = min(timeit.repeat(lambda: a32 @ b32, number=1, repeat=3))
    if not np.allclose(c, a32 @ b32, rtol=1e-2, atol=1e-1):
        raise SystemExit("bench: the Matmul computed a wrong result")
    return [Row("adv.Matmul 4096^3 float16, 24 cube cores, sanitizer off", t_asc, t_np, "numpy float32 matmul",
                "<= 5x", t_asc <= 5 * t_np)]  # fmt: skip


def _time(seconds: float) -> str:
    return f"{seconds * 1e6:.2f} us" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"


def report(rows: list[Row]) -> None:
    print("| what | asc | baseline (same run) | asc / baseline | target | met |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        met = "" if r.met is None else ("yes" if r.met else "**no**")
        print(f"| {r.what} | {_time(r.asc)} | {r.baseline_name}: {_time(r.baseline)} | {r.ratio():.2f} | {r.target} "
              f"| {met} |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer rounds and a 1M-element Add")
    args = parser.parse_args()
    rounds = 3 if args.quick else 9
    print(f"asc {asc.__version__}, numpy {np.__version__}, Python {sys.version.split()[0]}, {os.cpu_count()} cores")
    rows = bench_launch(rounds)
    rows += bench_add(rounds, n=1 << 20 if args.quick else 1 << 24)
    rows += bench_compile(3 if args.quick else 7)
    rows += bench_import(3 if args.quick else 9)
    rows += bench_operators(3 if args.quick else 5, args.quick)
    if not args.quick:
        rows += bench_matmul()
    report(rows)


if __name__ == "__main__":
    main()
