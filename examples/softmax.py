"""Row softmax with the basic API (reduce_max, adds, exp, reduce_sum, muls), and with the adv API's
asc.adv.softmax.

    python examples/softmax.py -r Model -v Ascend910B1

Each block takes ROWS_PER_BLOCK rows of a (rows, COLS) float32 matrix. For a
row: copy it in, find its max (reduce_max), subtract it (adds with the
negated max, read back by the scalar unit), exponentiate (exp), sum
(reduce_sum) and scale by 1 / sum (muls), then copy it out. auto_sync orders
the scalar reads of the reductions' results; the copies are ordered by hand.

softmax_adv_kernel does the block's rows in one asc.adv.softmax call (Ascend C's SoftMax): the shape from
set_shape_info, the temporary buffer the size asc.lib.host.get_softmax_min_tmp_size gives; it also returns
each row's max and sum, each over a 32-byte block (8 float32s per row).
"""

import numpy as np

import asc
import asc.lib.runtime as rt
from asc.lib.host import get_softmax_min_tmp_size

from common import parse_args

COLS = 256
ROWS_PER_BLOCK = 4
CORES = 8


@asc.jit
def softmax_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress):
    base = asc.get_block_idx() * ROWS_PER_BLOCK * COLS
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + base, ROWS_PER_BLOCK * COLS)
    z_gm.set_global_buffer(z + base, ROWS_PER_BLOCK * COLS)
    row = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, COLS)
    tmp = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, COLS * 4, COLS)
    result = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, COLS * 8, 8)
    for r in range(ROWS_PER_BLOCK):
        asc.data_copy(row, x_gm[r * COLS :], COLS)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        asc.reduce_max(result, row, tmp, COLS)
        row_max = result.get_value(0)
        asc.adds(row, row, -row_max, COLS)
        asc.exp(row, row, COLS)
        asc.reduce_sum(result, row, tmp, COLS)
        total = result.get_value(0)
        asc.muls(row, row, 1.0 / total, COLS)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(z_gm[r * COLS :], row, COLS)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)


TMP_BYTES = get_softmax_min_tmp_size([ROWS_PER_BLOCK, COLS], 4)


@asc.jit
def softmax_adv_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, stats: asc.GlobalAddress):
    n = ROWS_PER_BLOCK * COLS
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    s_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + asc.get_block_idx() * n, n)
    z_gm.set_global_buffer(z + asc.get_block_idx() * n, n)
    s_gm.set_global_buffer(stats + asc.get_block_idx() * ROWS_PER_BLOCK * 16, ROWS_PER_BLOCK * 16)
    pipe = asc.TPipe()
    in_q = asc.TQue(asc.TPosition.VECIN, 1)
    out_q = asc.TQue(asc.TPosition.VECOUT, 1)
    stat_buf = asc.TBuf(asc.TPosition.VECCALC)
    tmp_buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(in_q, 1, n * 4)
    pipe.init_buffer(out_q, 1, n * 4)
    pipe.init_buffer(stat_buf, ROWS_PER_BLOCK * 16 * 4)
    pipe.init_buffer(tmp_buf, TMP_BYTES)
    src = in_q.alloc_tensor(asc.float32)
    asc.data_copy(src, x_gm, n)
    in_q.enque(src)
    src = in_q.deque(asc.float32)
    dst = out_q.alloc_tensor(asc.float32)
    stat = stat_buf.get(asc.float32)
    src.set_shape_info(asc.ShapeInfo(asc.array(asc.int32, (ROWS_PER_BLOCK, COLS))))
    # sum then max, each ROWS_PER_BLOCK x 8
    asc.adv.softmax(dst, stat, stat[ROWS_PER_BLOCK * 8 :], src, asc.adv.SoftmaxTiling(), tmp_buf.get(asc.uint8))
    out_q.enque(dst)
    in_q.free_tensor(src)
    dst = out_q.deque(asc.float32)
    asc.data_copy(z_gm, dst, n)
    out_q.free_tensor(dst)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(s_gm, stat, ROWS_PER_BLOCK * 16)


def main() -> None:
    args = parse_args(__doc__)
    rng = np.random.default_rng()
    x = rng.normal(0, 3, (CORES * ROWS_PER_BLOCK, COLS)).astype(np.float32)
    z = np.zeros_like(x)
    softmax_kernel[CORES, rt.current_stream()](x, z)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    if not np.allclose(z, want, rtol=1e-5, atol=1e-7):
        raise SystemExit(f"[FAIL] softmax: max error {np.abs(z - want).max()}")
    z2 = np.zeros_like(x)
    stats = np.zeros((CORES, 2, ROWS_PER_BLOCK, 8), np.float32)
    softmax_adv_kernel[CORES, rt.current_stream()](x, z2, stats)
    if not np.allclose(z2, want, rtol=1e-5, atol=1e-7):
        raise SystemExit(f"[FAIL] asc.adv.softmax: max error {np.abs(z2 - want).max()}")
    row_max = x.max(axis=1).reshape(CORES, ROWS_PER_BLOCK, 1)
    if not np.all(stats[:, 1] == row_max):  # each row's max over its 8-element block
        raise SystemExit("[FAIL] asc.adv.softmax: the max output")
    print(f"[PASS] softmax on {args.r}/{rt.current_platform()}: {x.shape[0]} rows of {COLS}, max error "
          f"{np.abs(z - want).max():.2e} (basic API), {np.abs(z2 - want).max():.2e} (asc.adv.softmax)")  # fmt: skip


if __name__ == "__main__":
    main()
