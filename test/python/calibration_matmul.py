"""Huawei's Matmul best-practice sample rebuilt on asc.adv.Matmul (cannmirror/asc-devkit commit 0156b0f4d8b3,
examples/01_simd_cpp_api/05_best_practices/01_matrix_compute/matmul_high_performance/README.md, Ascend 910B1):
C (float16) = A (M x K, float16) x B (stored transposed, N x K), 24 cube cores in a 4 x 6 grid of 2048 x 1536
blocks, base blocks 128 x 256 x 64, the L1 filled as its case 5 fills it (depthA1 16 / stepKa 8, depthB1 8 /
stepKb 4: what asc.lib.host's tiling picks for these base blocks). Its case 5 measures 4156.76 us for
8192^3 (case 8, with L2-sized halves of A, constant tiling and unit flags: 4012.44 us).

    ASC_TIMEOUT_S=0 python3 test/python/calibration_matmul.py   # the whole 8192^3 case (minutes on the Model)

test_calibration.py runs a cheaper row (the same per-core tile loop, one block per core) in CI."""

from __future__ import annotations

import sys
import time

import numpy as np

import asc
import asc.lib.host as host
import asc.lib.runtime as rt

CORES = 24
BASE = (128, 256, 64)
BOARD_CASE5_US = 4156.76  # README, case 5: MDL with depthA1 16, stepKa 8 (no L2 split)
BOARD_CASE8_US = 4012.44  # README, case 8
# Cases 1 and 3: the Norm template with the sample's SetL1 (depthA1 = depthB1 = 1, stepKa = stepKb = 1: one 16 KB
# A and one 32 KB B base block per K step, L1 not double-buffered). Case 1: 8192^3 on one core, 2048 blocks of
# 128 x 256; case 3: 24 cores in 4 x 6 blocks of 2048 x 1536, 96 base blocks on each full core.
BOARD_CASE1_US = 249467.08
BOARD_CASE3_US = 12283.84


@asc.jit(matmul_cube_only=True)
def sample_matmul(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
                  workspace: asc.GlobalAddress):  # fmt: skip
    n_blocks = tiling.n.ceildiv(tiling.single_core_n)
    mi = asc.get_block_idx() // n_blocks
    ni = asc.get_block_idx() % n_blocks
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a + mi * tiling.single_core_m * tiling.k_a)
    b_gm.set_global_buffer(b + ni * tiling.single_core_n * tiling.k_b)  # B^T: N rows of K
    c_gm.set_global_buffer(c + mi * tiling.single_core_m * tiling.n + ni * tiling.single_core_n)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b.dtype, True),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c.dtype))  # fmt: skip
    asc.adv.register_matmul(asc.TPipe(), workspace, mm, tiling)
    mm.set_tensor_a(a_gm)
    mm.set_tensor_b(b_gm, True)
    mm.set_tail(min(tiling.single_core_m, tiling.m - mi * tiling.single_core_m),
                min(tiling.single_core_n, tiling.n - ni * tiling.single_core_n))  # fmt: skip
    mm.iterate_all(c_gm)
    mm.end()


def sample_tiling(m: int, n: int, k: int, single_m: int, single_n: int, cores: int = CORES) -> asc.adv.TCubeTiling:
    """The sample's tiling calls (SetDim, SetSingleShape, SetFixSplit) through asc.lib.host."""
    api = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    api.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    api.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, True)
    api.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16)
    api.set_dim(cores)
    api.set_shape(m, n, k)
    api.set_org_shape(m, n, k)
    api.set_single_shape(single_m, single_n, k)
    api.set_fix_split(*BASE)
    tiling = asc.adv.TCubeTiling()
    assert api.get_tiling(tiling) == 0, "no tiling fits"
    return tiling


def set_l1(tiling: asc.adv.TCubeTiling) -> None:
    """The sample's SetL1 (cases 1-3): one base block of A and one of B in L1."""
    tiling.depth_a1 = tiling.depth_b1 = 1
    tiling.step_m = tiling.step_n = tiling.step_k_a = tiling.step_k_b = 1


def run(m: int, n: int, k: int, single_m: int, single_n: int, check_rows: int = 64, cores: int = CORES,
        l1_one_block: bool = False) -> float:  # fmt: skip
    """Launches the sample on `cores` cores (case 5's L1 factors, or with `l1_one_block` cases 1-3's SetL1) and
    returns the Model's estimate in us; checks C's first rows against numpy."""
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b_t = rng.uniform(-1, 1, (n, k)).astype(np.float16)
    c = np.zeros((m, n), np.float16)
    tiling = sample_tiling(m, n, k, single_m, single_n, cores)
    assert (tiling.step_k_a, tiling.depth_a1, tiling.step_k_b, tiling.depth_b1) == (8, 16, 4, 8)
    if l1_one_block:
        set_l1(tiling)
    sample_matmul[cores, rt.current_stream()](a, b_t, c, tiling, np.zeros(16 << 20, np.uint8))
    rows = slice(0, min(m, check_rows))
    want = a[rows].astype(np.float32) @ b_t.astype(np.float32).T
    np.testing.assert_allclose(c[rows].astype(np.float32), want, rtol=2e-2, atol=0.1)
    return rt.last_launch_stats().duration_us


if __name__ == "__main__":
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 8192
    started = time.time()
    us = run(size, size, size, size // 4, 1536 * size // 8192)
    tflops = 2 * size**3 / us / 1e6
    print(f"{size}^3 float16 on {CORES} cores: Model {us:.1f} us ({tflops:.0f} TFLOPS), board case 5 "
          f"{BOARD_CASE5_US} us ({us / BOARD_CASE5_US - 1:+.0%}), case 8 {BOARD_CASE8_US} us "
          f"({us / BOARD_CASE8_US - 1:+.0%}); simulated in {time.time() - started:.0f} s")  # fmt: skip
