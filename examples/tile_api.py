"""Vector add and row softmax with the asc2 tile API, against the hand-written basic-API kernels.

    python examples/tile_api.py -r Model -v Ascend910B1

Each asc2 kernel is a handful of lines: load tiles from GM views, compute
with operators and functions, store. The compiler places the tiles in the
Unified Buffer and inserts every set_flag/wait_flag. Both results are
checked against numpy, and the Model's estimated time is printed next to
that of the hand-written kernel doing the same work (examples/add_framework.py
with double-buffered queues, examples/softmax.py).
"""

import numpy as np

import asc
import asc.lib.runtime as rt
import asc2

import add_framework
import softmax
from common import parse_args


@asc2.jit
def vadd(x_ptr: asc.GlobalAddress, y_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress, size: int,
         tile: asc.ConstExpr[int], per_block: asc.ConstExpr[int]):  # fmt: skip
    x_gm, y_gm, out_gm = asc2.tensor(x_ptr, [size]), asc2.tensor(y_ptr, [size]), asc2.tensor(out_ptr, [size])
    base = asc2.block_idx() * tile * per_block
    for i in range(per_block):
        offset = base + i * tile
        asc2.store(asc2.load(x_gm, [tile], offsets=[offset]) + asc2.load(y_gm, [tile], offsets=[offset]), out_gm,
                   offsets=[offset])  # fmt: skip


@asc2.jit
def row_softmax(x_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress, rows: int, cols: asc.ConstExpr[int],
                per_block: asc.ConstExpr[int]):  # fmt: skip
    x_gm, out_gm = asc2.tensor(x_ptr, [rows, cols]), asc2.tensor(out_ptr, [rows, cols])
    for r in range(per_block):
        i = asc2.block_idx() * per_block + r
        row = asc2.load(x_gm, [1, cols], offsets=[i, 0])
        numerator = asc2.exp(row - asc2.reduce_max(row))
        asc2.store(numerator / asc2.reduce_sum(numerator), out_gm, offsets=[i, 0])


def cycles(launch) -> int:
    launch()
    return rt.last_launch_stats().cycles


def main() -> None:
    args = parse_args(__doc__)
    rng = np.random.default_rng(7)
    stream = rt.current_stream()

    x = rng.random(add_framework.USE_CORE_NUM * 16 * 1024, dtype=np.float32)
    y = rng.random(x.size, dtype=np.float32)
    z = np.zeros_like(x)
    per_block = add_framework.TILE_NUM * add_framework.BUFFER_NUM
    tile = x.size // add_framework.USE_CORE_NUM // per_block
    tile_add = cycles(lambda: vadd[add_framework.USE_CORE_NUM, stream](x, y, z, x.size, tile, per_block))
    if not np.array_equal(z, x + y):
        raise SystemExit("[FAIL] asc2 vector add")
    hand_add = cycles(lambda: add_framework.vadd(x, y))

    rows = softmax.CORES * softmax.ROWS_PER_BLOCK
    a = rng.normal(0, 3, (rows, softmax.COLS)).astype(np.float32)
    b = np.zeros_like(a)
    tile_sm = cycles(lambda: row_softmax[softmax.CORES, stream](a, b, rows, softmax.COLS, softmax.ROWS_PER_BLOCK))
    e = np.exp(a - a.max(axis=1, keepdims=True))
    if not np.allclose(b, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7):
        raise SystemExit("[FAIL] asc2 row softmax")
    hand_sm = cycles(lambda: softmax.softmax_kernel[softmax.CORES, stream](a, np.zeros_like(a)))

    print(f"vector add, {x.size} float32: asc2 {tile_add} cycles, hand-written {hand_add} "
          f"({tile_add / hand_add:.2f}x)")  # fmt: skip
    print(f"row softmax, {rows} x {softmax.COLS}: asc2 {tile_sm} cycles, hand-written {hand_sm} "
          f"({tile_sm / hand_sm:.2f}x)")  # fmt: skip
    # the target: within 20% of the hand-written kernels' estimated time
    for name, mine, theirs in (("vector add", tile_add, hand_add), ("row softmax", tile_sm, hand_sm)):
        if mine > 1.2 * theirs:
            raise SystemExit(f"[FAIL] asc2 {name} takes {mine / theirs:.2f}x the hand-written kernel's time")
    print(f"[PASS] asc2 vector add and row softmax on {args.r}/{rt.current_platform()}")


if __name__ == "__main__":
    main()
