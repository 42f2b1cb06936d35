"""Row softmax with the basic API: reduce_max, adds, exp, reduce_sum, muls.

    python examples/softmax.py -r Model -v Ascend910B1

Each block takes ROWS_PER_BLOCK rows of a (rows, COLS) float32 matrix. For a
row: copy it in, find its max (reduce_max), subtract it (adds with the
negated max, read back by the scalar unit), exponentiate (exp), sum
(reduce_sum) and scale by 1 / sum (muls), then copy it out. auto_sync orders
the scalar reads of the reductions' results; the copies are ordered by hand.
"""

import numpy as np

import asc
import asc.lib.runtime as rt

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
    print(f"[PASS] softmax on {args.r}/{rt.current_platform()}: {x.shape[0]} rows of {COLS}, max error "
          f"{np.abs(z - want).max():.2e}")  # fmt: skip


if __name__ == "__main__":
    main()
