"""Layer normalisation over rows with the basic API.

    python examples/layernorm.py -r Model -v Ascend910B1

For each row: mean = reduce_sum / C; x -= mean (adds); var = reduce_sum of
(x * x) / C; x *= 1 / sqrt(var + eps) (rsqrt on a one-block tensor, read back
by the scalar unit); then y = x * gamma + beta (mul, add).

pyasc's adv API has no layer norm; its normalisation is RMS norm, which rmsnorm_adv_kernel runs through
asc.adv.rmsnorm (Ascend C's RmsNorm): y = x / sqrt(mean(x^2) + eps) * gamma over the block's rows, the tiling
from asc.lib.host.get_rms_norm_tiling_info.
"""

import numpy as np

import asc
import asc.lib.runtime as rt
from asc.lib.host import get_rms_norm_max_min_tmp_size, get_rms_norm_tiling_info

from common import parse_args

COLS = 512
ROWS_PER_BLOCK = 2
CORES = 8
EPS = 1e-5


@asc.jit
def layernorm_kernel(x: asc.GlobalAddress, gamma: asc.GlobalAddress, beta: asc.GlobalAddress, z: asc.GlobalAddress):
    base = asc.get_block_idx() * ROWS_PER_BLOCK * COLS
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    g_gm = asc.GlobalTensor()
    b_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + base, ROWS_PER_BLOCK * COLS)
    z_gm.set_global_buffer(z + base, ROWS_PER_BLOCK * COLS)
    g_gm.set_global_buffer(gamma, COLS)
    b_gm.set_global_buffer(beta, COLS)
    row = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, COLS)
    sq = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, COLS * 4, COLS)
    g = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, COLS * 8, COLS)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, COLS * 12, COLS)
    one = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, COLS * 16, 8)
    asc.data_copy(g, g_gm, COLS)
    asc.data_copy(b, b_gm, COLS)
    for r in range(ROWS_PER_BLOCK):
        asc.data_copy(row, x_gm[r * COLS :], COLS)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        asc.reduce_sum(one, row, sq, COLS)
        mean = one.get_value(0) / COLS
        asc.adds(row, row, -mean, COLS)
        asc.mul(sq, row, row, COLS)
        asc.reduce_sum(one, sq, sq, COLS)
        variance = one.get_value(0) / COLS
        asc.duplicate(one, variance + EPS, 8)
        asc.rsqrt(one, one, 8)
        asc.muls(row, row, one.get_value(0), COLS)
        asc.mul(row, row, g, COLS)
        asc.add(row, row, b, COLS)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(z_gm[r * COLS :], row, COLS)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)


RMS_TMP_BYTES = get_rms_norm_max_min_tmp_size([1, ROWS_PER_BLOCK, COLS], 4)[1]


@asc.jit
def rmsnorm_adv_kernel(x: asc.GlobalAddress, gamma: asc.GlobalAddress, z: asc.GlobalAddress,
                       tiling: asc.adv.RmsNormTiling):  # fmt: skip
    n = ROWS_PER_BLOCK * COLS
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    g_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + asc.get_block_idx() * n, n)
    z_gm.set_global_buffer(z + asc.get_block_idx() * n, n)
    g_gm.set_global_buffer(gamma, COLS)
    pipe = asc.TPipe()
    x_buf = asc.TBuf(asc.TPosition.VECIN)
    g_buf = asc.TBuf(asc.TPosition.VECIN)
    z_buf = asc.TBuf(asc.TPosition.VECOUT)
    tmp_buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(x_buf, n * 4)
    pipe.init_buffer(g_buf, COLS * 4)
    pipe.init_buffer(z_buf, n * 4)
    pipe.init_buffer(tmp_buf, RMS_TMP_BYTES)
    xl = x_buf.get(asc.float32)
    gl = g_buf.get(asc.float32)
    zl = z_buf.get(asc.float32)
    asc.data_copy(xl, x_gm, n)
    asc.data_copy(gl, g_gm, COLS)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.adv.rmsnorm(zl, xl, gl, EPS, tiling, tmp_buf.get(asc.uint8))
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, zl, n)


def main() -> None:
    args = parse_args(__doc__)
    rng = np.random.default_rng()
    x = rng.normal(1, 2, (CORES * ROWS_PER_BLOCK, COLS)).astype(np.float32)
    gamma = rng.uniform(0.5, 1.5, COLS).astype(np.float32)
    beta = rng.uniform(-1, 1, COLS).astype(np.float32)
    z = np.zeros_like(x)
    layernorm_kernel[CORES, rt.current_stream()](x, gamma, beta, z)
    mean = x.mean(axis=1, keepdims=True)
    want = (x - mean) / np.sqrt(((x - mean) ** 2).mean(axis=1, keepdims=True) + EPS) * gamma + beta
    err = np.abs(z - want).max()
    if not np.allclose(z, want, rtol=1e-4, atol=1e-5):
        raise SystemExit(f"[FAIL] layernorm: max error {err}")
    tiling = asc.adv.RmsNormTiling()
    shape = [1, ROWS_PER_BLOCK, COLS]
    get_rms_norm_tiling_info(shape, shape, RMS_TMP_BYTES, 4, tiling)
    z2 = np.zeros_like(x)
    rmsnorm_adv_kernel[CORES, rt.current_stream()](x, gamma, z2, tiling)
    want2 = x / np.sqrt((x.astype(np.float64) ** 2).mean(axis=1, keepdims=True) + EPS) * gamma
    err2 = np.abs(z2 - want2).max()
    if not np.allclose(z2, want2, rtol=1e-5, atol=1e-6):
        raise SystemExit(f"[FAIL] asc.adv.rmsnorm: max error {err2}")
    print(
        f"[PASS] layernorm on {args.r}/{rt.current_platform()}: {x.shape[0]} rows of {COLS}, max error {err:.2e}; "
        f"asc.adv.rmsnorm max error {err2:.2e}"
    )


if __name__ == "__main__":
    main()
