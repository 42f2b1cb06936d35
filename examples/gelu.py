"""GELU with the basic API (tanh form) and with the adv API (erf form):
gelu(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), tanh(u) = 1 - 2 / (exp(2u) + 1);
gelu(x) = 0.5 x (1 + erf(x / sqrt(2))) with asc.adv.erf.

    python examples/gelu.py -r Model -v Ascend910B1
"""

import math

import numpy as np

import asc
import asc.lib.runtime as rt

from common import parse_args

TILE = 2048
TILES_PER_BLOCK = 4
CORES = 8
K = math.sqrt(2.0 / math.pi)
ERF_TMP = 9 * 4 * 1024  # asc.adv.erf's temporary buffer: 9 float32 intermediates of 1024 elements, two chunks a tile


@asc.jit
def gelu_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress):
    base = asc.get_block_idx() * TILES_PER_BLOCK * TILE
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + base, TILES_PER_BLOCK * TILE)
    z_gm.set_global_buffer(z + base, TILES_PER_BLOCK * TILE)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, TILE)
    u = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, TILE * 4, TILE)
    out = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, TILE * 8, TILE)
    for t in range(TILES_PER_BLOCK):
        asc.data_copy(a, x_gm[t * TILE :], TILE)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        asc.mul(u, a, a, TILE)  # x^2
        asc.mul(u, u, a, TILE)  # x^3
        asc.muls(u, u, 0.044715, TILE)
        asc.add(u, u, a, TILE)  # x + 0.044715 x^3
        asc.muls(u, u, 2.0 * K, TILE)  # 2u
        asc.exp(u, u, TILE)
        asc.adds(u, u, 1.0, TILE)
        asc.reciprocal(u, u, TILE)  # 1 / (exp(2u) + 1)
        asc.muls(u, u, -2.0, TILE)
        asc.adds(u, u, 2.0, TILE)  # 1 + tanh(u) = 2 - 2 / (exp(2u) + 1)
        asc.mul(out, u, a, TILE)
        asc.muls(out, out, 0.5, TILE)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(z_gm[t * TILE :], out, TILE)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)


@asc.jit
def gelu_erf_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress):
    base = asc.get_block_idx() * TILES_PER_BLOCK * TILE
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + base, TILES_PER_BLOCK * TILE)
    z_gm.set_global_buffer(z + base, TILES_PER_BLOCK * TILE)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, TILE)
    u = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, TILE * 4, TILE)
    out = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, TILE * 8, TILE)
    tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, TILE * 12, ERF_TMP)
    for t in range(TILES_PER_BLOCK):
        asc.data_copy(a, x_gm[t * TILE :], TILE)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        asc.muls(u, a, 1.0 / math.sqrt(2.0), TILE)
        asc.adv.erf(out, u, TILE, temp_buffer=tmp)  # erf(x / sqrt 2), in chunks of the temporary buffer
        asc.adds(out, out, 1.0, TILE)
        asc.mul(out, out, a, TILE)
        asc.muls(out, out, 0.5, TILE)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(z_gm[t * TILE :], out, TILE)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)


def main() -> None:
    args = parse_args(__doc__)
    x = np.random.default_rng().normal(0, 2, CORES * TILES_PER_BLOCK * TILE).astype(np.float32)
    z = np.zeros_like(x)
    gelu_kernel[CORES, rt.current_stream()](x, z)
    xd = x.astype(np.float64)
    want = 0.5 * xd * (1 + np.tanh(K * (xd + 0.044715 * xd**3)))
    err = np.abs(z - want).max()
    if not np.allclose(z, want, rtol=1e-5, atol=1e-6):
        raise SystemExit(f"[FAIL] gelu: max error {err}")
    z_erf = np.zeros_like(x)
    gelu_erf_kernel[CORES, rt.current_stream()](x, z_erf)
    want_erf = 0.5 * xd * (1 + np.vectorize(math.erf)(xd / math.sqrt(2.0)))
    err_erf = np.abs(z_erf - want_erf).max()
    if not np.allclose(z_erf, want_erf, rtol=1e-5, atol=1e-6):  # erf keeps 2e-7 (docs/adv.md)
        raise SystemExit(f"[FAIL] gelu (adv erf): max error {err_erf}")
    print(
        f"[PASS] gelu on {args.r}/{rt.current_platform()}: {x.size} float32, max error {err:.2e} (tanh form, "
        f"basic API), {err_erf:.2e} (erf form, asc.adv.erf)"
    )


if __name__ == "__main__":
    main()
