"""asc.adv.Matmul's streamed path (matmul_kernels._compute_streamed: K in stepKa / stepKb chunks, two L1 buffers
per operand, two L0 halves) against numpy — K tails inside the last chunk, more chunks of B than of A, B stored
transposed or not, float16 / float32 / int8 — and its timeline: the copies overlap the cube, as on a board.
asc.lib.host's tiling gives it Huawei's L1 factors (test_host_tiling.py checks them)."""

import numpy as np
import pytest

import asc
import asc.lib.host as host
import asc.lib.runtime as rt

WORKSPACE = 16 * 1024 * 1024
HOST = {np.float16: host.DataType.DT_FLOAT16, np.float32: host.DataType.DT_FLOAT, np.int8: host.DataType.DT_INT8}


def tiling_for(m, n, k, cores, dtype, b_trans):
    api = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    api.set_a_type(host.TPosition.GM, host.CubeFormat.ND, HOST[dtype], False)
    api.set_b_type(host.TPosition.GM, host.CubeFormat.ND, HOST[dtype], b_trans)
    out = host.DataType.DT_INT32 if dtype == np.int8 else host.DataType.DT_FLOAT
    api.set_c_type(host.TPosition.GM, host.CubeFormat.ND, out)
    api.set_dim(cores)
    api.set_shape(m, n, k)
    api.set_org_shape(m, n, k)
    tiling = asc.adv.TCubeTiling()
    assert api.get_tiling(tiling) == 0
    return tiling


@asc.jit(matmul_cube_only=True)
def streamed(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, t: asc.adv.TCubeTiling,
             ws: asc.GlobalAddress, B_TRANS: asc.ConstExpr[bool]):  # fmt: skip
    m_blocks = t.m.ceildiv(t.single_core_m)
    mi = asc.get_block_idx() % m_blocks
    ni = asc.get_block_idx() // m_blocks
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a + mi * t.single_core_m * t.k_a)
    if B_TRANS:  # N rows of K
        b_gm.set_global_buffer(b + ni * t.single_core_n * t.k_b)
    else:
        b_gm.set_global_buffer(b + ni * t.single_core_n)
    c_gm.set_global_buffer(c + mi * t.single_core_m * t.n + ni * t.single_core_n)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b.dtype, B_TRANS),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c.dtype))  # fmt: skip
    asc.adv.register_matmul(asc.TPipe(), ws, mm, t)
    mm.set_tensor_a(a_gm)
    mm.set_tensor_b(b_gm, B_TRANS)
    mm.set_tail(min(t.single_core_m, t.m - mi * t.single_core_m), min(t.single_core_n, t.n - ni * t.single_core_n))
    mm.iterate_all(c_gm)
    mm.end()


def run(dtype, m, n, k, cores, b_trans, seed=0):
    rng = np.random.default_rng(seed)
    low, high = (-128, 128) if dtype == np.int8 else (-4, 5)
    a = rng.integers(low, high, (m, k)).astype(dtype)
    b = rng.integers(low, high, (k, n)).astype(dtype)
    c = np.zeros((m, n), np.int32 if dtype == np.int8 else np.float32)
    t = tiling_for(m, n, k, cores, dtype, b_trans)
    streamed[t.used_core_num, rt.current_stream()](a, np.ascontiguousarray(b.T) if b_trans else b, c, t,
                                                   np.zeros(WORKSPACE, np.uint8), b_trans)  # fmt: skip
    want = a.astype(np.int64) @ b.astype(np.int64)  # small integers: every product exact in the accumulator
    return t, c, want


# (dtype, m, n, k, cores, B transposed): K = 1000 with 128 x 256 x 64 float16 blocks is A in 2 chunks of 8 steps
# (the second 7 and a 40-deep tail step) and B in 4 chunks of 4, so both buffers of each are reused
CASES = [
    (np.float16, 128, 256, 1000, 1, False),
    (np.float16, 128, 256, 1000, 1, True),
    (np.float16, 300, 520, 700, 4, False),
    (np.float32, 200, 160, 600, 2, True),
    (np.int8, 144, 272, 1100, 2, True),
]


@pytest.mark.parametrize("dtype,m,n,k,cores,b_trans", CASES)
def test_streamed_matmul_matches_numpy(dtype, m, n, k, cores, b_trans):
    t, c, want = run(dtype, m, n, k, cores, b_trans)
    assert t.step_k_a > 1 and t.depth_a1 == 2 * t.step_k_a  # the chunks really are several steps deep
    np.testing.assert_array_equal(c, want.astype(c.dtype))


def test_the_chunks_take_turns_in_their_buffers():
    t, c, want = run(np.float16, 128, 256, 1000, 1, False, seed=3)
    assert (t.base_k, t.step_k_a, t.step_k_b) == (64, 8, 4)  # 16 K steps: A in 2 chunks, B in 4
    np.testing.assert_array_equal(c, want.astype(c.dtype))


def test_copies_overlap_the_cube():
    """One core, 128 x 256 x 4096 float16: 64 base steps whose MTE2 (48 KB a step), MTE1 and cube work would
    take their sum one after another; streamed, the block takes little more than its busiest pipe."""
    run(np.float16, 128, 256, 4096, 1, True)
    stats = rt.last_launch_stats()
    busy = {p: stats.busy_cycles[p] for p in ("MTE2", "MTE1", "M")}
    assert all(busy.values())
    # 64 steps x 16 x 8 x 4 fractals = 32768 cycles of the cube alone
    assert busy["M"] >= 64 * 8 * 16 * 4
    assert stats.cycles < 0.7 * sum(busy.values()), (stats.cycles, busy)
    assert stats.cycles < 1.3 * max(busy.values()) + 6000, (stats.cycles, busy)  # + the launch
