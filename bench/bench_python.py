"""User-visible speed, as ratios against baselines measured in the same run.

    python3 bench/bench_python.py

* launch: a cached launch of an empty kernel from Python, against one bare
  cffi call into libasc.so (the floor for any Python -> C launch);
* Add: the examples/add.py kernel on the Model, against numpy's x + y on the
  same arrays (a memory-bound kernel, so numpy is the natural yardstick);
* sanitizer overhead: the same Add at 16M float32 with the sanitizer on,
  against the sanitizer off.
"""

from __future__ import annotations

import sys
import timeit
from pathlib import Path

import numpy as np

import asc
import asc.lib.runtime as rt
from asc._ffi import lib

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
from add import BUFFER_NUM, TILE_NUM, vadd_kernel  # noqa: E402


@asc.jit
def empty(x: asc.GlobalAddress, n: int):
    pass


def best(fn, number: int, repeat: int = 5) -> float:
    """Best mean time per call over `repeat` runs (seconds)."""
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def main() -> None:
    stream = rt.current_stream()
    x = np.zeros(1024, np.float32)
    empty[1, stream](x, 1024)
    bare = best(lib.asc_abi_version, 200_000)
    print(f"bare cffi call                     {bare * 1e9:8.0f} ns   (baseline)")
    for cores in (1, 8):
        t = best(lambda c=cores: empty[c, stream](x, 1024), 5_000)
        print(f"cached launch, empty kernel, {cores} blk {t * 1e6:8.1f} us   {t / bare:8.0f} x bare call")

    rng = np.random.default_rng(0)
    for n in (1 << 20, 1 << 24):
        compare_add(n, stream, rng)
    sanitizer_overhead(1 << 24, stream, rng)


def sanitizer_overhead(n: int, stream: rt.Stream, rng: np.random.Generator) -> None:
    cores = n // 32768
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    z = np.empty_like(a)
    times = {}
    for on in (False, True, False, True):  # interleaved, so drift hits both alike
        stream.set_sanitize(on)
        t = best(lambda: vadd_kernel[cores, stream](a, b, z, n // cores), 3, repeat=3)
        times[on] = min(times.get(on, t), t)
    stream.set_sanitize(True)
    print(
        f"Add {n >> 20:>2}M float32, sanitizer on {times[True] * 1e3:7.2f} ms, off {times[False] * 1e3:7.2f} ms"
        f"   on/off = {times[True] / times[False]:5.2f}"
    )


def compare_add(n: int, stream: rt.Stream, rng: np.random.Generator) -> None:
    # The example kernel moves 16 tiles per block, so large inputs use more
    # blocks (the hardware runs blocks beyond its core count in waves too).
    cores = n // 32768
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    z = np.empty_like(a)
    block = n // cores
    ub_bytes = 3 * (block // TILE_NUM) * 4  # x, y, z tiles, both buffers
    assert block % (TILE_NUM * BUFFER_NUM * 8) == 0 and ub_bytes <= 196608
    vadd_kernel[cores, stream](a, b, z, block)
    assert np.array_equal(z, a + b)
    number = 20 if n <= 1 << 20 else 3
    t_np = best(lambda: np.add(a, b, out=z), number)
    t_asc = best(lambda: vadd_kernel[cores, stream](a, b, z, block), number)
    print(
        f"Add {n >> 20:>2}M float32, {cores:3} blocks: numpy {t_np * 1e3:7.2f} ms, Model {t_asc * 1e3:7.2f} ms"
        f"   Model/numpy = {t_asc / t_np:5.2f}"
    )


if __name__ == "__main__":
    main()
