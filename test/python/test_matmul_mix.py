"""asc.adv.Matmul in mix kernels, where each vector core runs its own Matmul
(on the NPU, the group's cube core serves it through Ascend C's Matmul
object): iterate_all with and without a bias for every dtype, A and B stored
transposed, and iterate / get_tensor_c into GM in both iteration orders, with
atomic accumulation, org shapes and tails. Checked against numpy; under the
emitter's round trip (ASC_ROUNDTRIP) these kernels are the ones whose Matmul
calls are emitted as the Matmul object's and run by the CPU stand-in."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt

from test_matmul_adv import WORKSPACE, cube_matmul, operands, reference, tiling_for

# the cube-only kernel's code as a mix kernel: its calls now run on the vector cores
mix_iterate_all = asc.jit(cube_matmul.fn)

CASES = [(np.float16, 47, 100, 40, 4), (np.float32, 48, 80, 72, 2), (np.int8, 30, 40, 50, 3)]


@pytest.mark.parametrize("dtype,m,n,k,cores", CASES, ids=[np.dtype(c[0]).name for c in CASES])
@pytest.mark.parametrize("with_bias", [False, True])
def test_iterate_all_on_the_vector_cores(dtype, m, n, k, cores, with_bias, rng):
    a, b = operands(rng, dtype, m, n, k)
    out = np.int32 if dtype == np.int8 else np.float32
    bias = rng.integers(-50, 50, n).astype(out)
    t = tiling_for(m, n, k, cores, dtype, bias=with_bias)
    c = np.zeros((m, n), out)
    groups = (t.used_core_num + 1) // 2  # MIX_AIC_1_2: two vector cores a group
    mix_iterate_all[groups, rt.current_stream()](a, b, c, bias, t, np.zeros(WORKSPACE, np.uint8))
    np.testing.assert_allclose(c, reference(a, b, bias if with_bias else None), rtol=1e-6, atol=1e-3)


@asc.jit
def both_transposed(at: asc.GlobalAddress, bt: asc.GlobalAddress, c: asc.GlobalAddress, t: asc.adv.TCubeTiling,
                    ws: asc.GlobalAddress):  # fmt: skip
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(at)
    b_gm.set_global_buffer(bt)
    c_gm.set_global_buffer(c)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, at.dtype, True),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bt.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c.dtype))  # fmt: skip
    asc.adv.register_matmul(asc.TPipe(), ws, mm, t)
    if asc.get_block_idx() == 0:  # the group's second vector core has no share
        mm.set_tensor_a(a_gm, True)
        mm.set_tensor_b(b_gm, True)
        mm.iterate_all(c_gm)
        mm.end()


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int8], ids=lambda d: np.dtype(d).name)
def test_a_and_b_stored_transposed(dtype, rng):
    m, n, k = 40, 48, 72
    a, b = operands(rng, dtype, m, n, k)
    t = tiling_for(m, n, k, 1, dtype)
    c = np.zeros((m, n), np.int32 if dtype == np.int8 else np.float32)
    both_transposed[1, rt.current_stream()](np.ascontiguousarray(a.T), np.ascontiguousarray(b.T), c, t,
                                            np.zeros(WORKSPACE, np.uint8))  # fmt: skip
    np.testing.assert_allclose(c, reference(a, b), rtol=1e-6, atol=1e-3)


@asc.jit
def blocks_added_into_c(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, t: asc.adv.TCubeTiling,
                        ws: asc.GlobalAddress, m: int, n: int, k: int, sequential_to: asc.GlobalAddress):  # fmt: skip
    """The m x n corner of A x B (A's first k columns), block by block, added to what C holds; each block
    also written densely, one after another, into `sequential_to`."""
    a_gm, b_gm, c_gm, seq_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    seq_gm.set_global_buffer(sequential_to)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c.dtype))  # fmt: skip
    asc.adv.register_matmul(asc.TPipe(), ws, mm, t)
    if asc.get_block_idx() == 0:
        mm.set_org_shape(96, 80, 64)
        mm.set_tensor_a(a_gm)
        mm.set_tensor_b(b_gm)
        mm.set_tail(m, n, k)
        with mm.iterate() as count:
            mm.get_tensor_c(c_gm, en_atomic=1)
            mm.get_tensor_c(seq_gm[count * t.base_m * t.base_n :], en_sequential_write=True)
        mm.end()


@pytest.mark.parametrize("order", [0, 1])
def test_iterate_into_gm_with_atomic_add_in_both_orders(order, rng):
    a, b = operands(rng, np.float16, 96, 80, 64)
    m, n, k = 40, 48, 40
    t = tiling_for(m, n, k, 1, np.float16, fix=(16, 32, -1))
    t.iterate_order = order
    c = rng.integers(-9, 10, (96, 80)).astype(np.float32)
    seq = np.full(4096, -1, np.float32)
    want = c.astype(np.float64)
    want[:m, :n] += reference(a[:m, :k], b[:k, :n])
    blocks_added_into_c[1, rt.current_stream()](a, b, c, t, np.zeros(WORKSPACE, np.uint8), m, n, k, seq)
    np.testing.assert_allclose(c, want, rtol=1e-6, atol=1e-3)
    # the blocks in the order the tiling asks for: M first (order 0) or N first, 16 x 32 each (the last row of
    # blocks 8 rows tall, the last column 16 wide)
    blocks = [(mi, ni) for ni in range(2) for mi in range(3)] if order == 0 else [(mi, ni) for mi in range(3)
                                                                                 for ni in range(2)]  # fmt: skip
    for count, (mi, ni) in enumerate(blocks):
        rows, cols = min(16, m - 16 * mi), min(32, n - 32 * ni)
        block = reference(a[16 * mi : 16 * mi + rows, :k], b[:k, 32 * ni : 32 * ni + cols])
        got = seq[count * 512 : count * 512 + rows * cols].reshape(rows, cols)
        np.testing.assert_allclose(got, block, rtol=1e-6, atol=1e-3, err_msg=f"block {count}")
