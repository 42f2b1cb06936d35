"""Matmul on the cube unit with asc.adv.Matmul and asc.lib.host tiling, checked
against numpy; prints the Model's time estimate and per-pipe busy time beside
the physical bounds: the cubes' peak for its MACs (16 x 16 x 16 float16 MACs
per cube core per cycle) and HBM's bandwidth for the bytes it must read and
write once (1.6 TB/s on Ascend910B1).

    python examples/matmul.py -r Model -v Ascend910B1
"""

import numpy as np

import asc
import asc.lib.host as host
import asc.lib.runtime as rt
from asc.lib.runtime import profile

from common import parse_args

M, N, K = 512, 1024, 512
CORES = 24  # cube cores of Ascend910B1
CLOCK = 1.85e9  # Ascend910B1's cube clock
CUBE_MACS = 16 * 16 * 16  # float16 MACs per cube core per cycle
HBM = 1.6e12  # bytes per second


@asc.jit(matmul_cube_only=True)
def matmul_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
                  workspace: asc.GlobalAddress):  # fmt: skip
    # this core's block of C: m-blocks first, then n-blocks
    m_blocks = tiling.m.ceildiv(tiling.single_core_m)
    mi = asc.get_block_idx() % m_blocks
    ni = asc.get_block_idx() // m_blocks
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a + mi * tiling.single_core_m * tiling.k_a)
    b_gm.set_global_buffer(b + ni * tiling.single_core_n)
    c_gm.set_global_buffer(c + mi * tiling.single_core_m * tiling.n + ni * tiling.single_core_n)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c.dtype))  # fmt: skip
    asc.adv.register_matmul(asc.TPipe(), workspace, mm, tiling)
    mm.set_tensor_a(a_gm)
    mm.set_tensor_b(b_gm)
    mm.set_tail(min(tiling.single_core_m, tiling.m - mi * tiling.single_core_m),
                min(tiling.single_core_n, tiling.n - ni * tiling.single_core_n))  # fmt: skip
    mm.iterate_all(c_gm)
    mm.end()


def tiling_for(m, n, k, cores):
    api = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    for set_type in (api.set_a_type, api.set_b_type):
        set_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    api.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    api.set_dim(cores)
    api.set_shape(m, n, k)
    api.set_org_shape(m, n, k)
    tiling = asc.adv.TCubeTiling()
    assert api.get_tiling(tiling) == 0, "no tiling fits"
    return tiling


def main():
    parse_args(__doc__)
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    c = np.zeros((M, N), np.float32)
    tiling = tiling_for(M, N, K, CORES)
    stream = rt.current_stream()
    matmul_kernel[tiling.used_core_num, stream](a, b, c, tiling, np.zeros(16 * 1024 * 1024, np.uint8))
    want = a.astype(np.float32) @ b.astype(np.float32)
    ok = np.allclose(c, want, rtol=1e-4, atol=1e-3)
    stats = profile.last_launch_stats(stream)
    print(f"tiling: {tiling.used_core_num} cores, single core {tiling.single_core_m} x {tiling.single_core_n} x "
          f"{tiling.single_core_k}, base {tiling.base_m} x {tiling.base_n} x {tiling.base_k}")  # fmt: skip
    print(f"Model estimate: {stats.duration_us:.1f} us ({stats.cycles} cycles) for {2 * M * N * K / 1e9:.2f} GFLOP, "
          f"{2 * M * N * K / stats.duration_us / 1e6:.1f} TFLOPS")  # fmt: skip
    cube_us = M * N * K / (tiling.used_core_num * CUBE_MACS * CLOCK) * 1e6
    hbm_us = (a.nbytes + b.nbytes + c.nbytes) / HBM * 1e6
    bound = max(cube_us, hbm_us)
    print(f"physical bounds: cube peak {cube_us:.1f} us, HBM {hbm_us:.1f} us; the estimate is "
          f"{stats.duration_us / bound:.2f} x the larger")  # fmt: skip
    busy = ", ".join(f"{pipe} {cycles}" for pipe, cycles in stats.busy_cycles.items() if cycles)
    print(f"busy cycles per pipe, summed over cores: {busy}")
    print(f"[{'PASS' if ok else 'FAIL'}] matmul {M}x{N}x{K} float16 -> float32 on {rt.current_platform()}")
    raise SystemExit(0 if ok else 1)


if __name__ == "__main__":
    main()
