"""asc.adv.Matmul with asc.lib.host tiling against numpy: cube-only kernels
with iterate_all over several shapes (tails included), dtypes and core
counts; a mix kernel that post-processes each block on the vector cores
(iterate / get_tensor_c); a bias chosen at run time."""

import numpy as np
import pytest

import asc
import asc.lib.host as host
import asc.lib.runtime as rt

WORKSPACE = 16 * 1024 * 1024
HOST_DTYPE = {np.float16: host.DataType.DT_FLOAT16, np.float32: host.DataType.DT_FLOAT, np.int8: host.DataType.DT_INT8}


def tiling_for(m, n, k, dim, dtype, bias=False, fix=(-1, -1, -1), c_pos=host.TPosition.GM):
    api = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    api.set_a_type(host.TPosition.GM, host.CubeFormat.ND, HOST_DTYPE[dtype], False)
    api.set_b_type(host.TPosition.GM, host.CubeFormat.ND, HOST_DTYPE[dtype], False)
    out = host.DataType.DT_INT32 if dtype == np.int8 else host.DataType.DT_FLOAT
    api.set_c_type(c_pos, host.CubeFormat.ND, out)
    api.set_bias_type(host.TPosition.GM, host.CubeFormat.ND, out)
    api.set_dim(dim)
    api.set_shape(m, n, k)
    api.set_org_shape(m, n, k)
    api.enable_bias(bias)
    api.set_fix_split(*fix)
    tiling = asc.adv.TCubeTiling()
    assert api.get_tiling(tiling) == 0
    return tiling


@asc.jit
def my_share(t: asc.adv.TCubeTiling):
    """This core's block of C: offsets into A, B, C and the bias, and its (tail) sizes."""
    idx = asc.get_block_idx()
    m_blocks = t.m.ceildiv(t.single_core_m)
    mi = idx % m_blocks
    ni = idx // m_blocks
    rows = min(t.single_core_m, t.m - mi * t.single_core_m)
    cols = min(t.single_core_n, t.n - ni * t.single_core_n)
    return (
        mi * t.single_core_m * t.k_a,
        ni * t.single_core_n,
        mi * t.single_core_m * t.n + ni * t.single_core_n,
        rows,
        cols,
    )


@asc.jit(matmul_cube_only=True)
def cube_matmul(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, bias: asc.GlobalAddress,
                t: asc.adv.TCubeTiling, ws: asc.GlobalAddress):  # fmt: skip
    off_a, off_b, off_c, rows, cols = my_share(t)
    a_gm, b_gm, c_gm, bias_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a + off_a)
    b_gm.set_global_buffer(b + off_b)
    c_gm.set_global_buffer(c + off_c)
    bias_gm.set_global_buffer(bias + off_b)
    pipe = asc.TPipe()
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c.dtype))  # fmt: skip
    asc.adv.register_matmul(pipe, ws, mm, t)
    if asc.get_block_idx() < t.used_core_num:
        mm.set_tensor_a(a_gm)
        mm.set_tensor_b(b_gm)
        if t.is_bias:  # decided at run time
            mm.set_bias(bias_gm)
        mm.set_tail(rows, cols, t.k_a)
        mm.iterate_all(c_gm)
        mm.end()


def operands(rng, dtype, m, n, k):
    if dtype == np.int8:
        return rng.integers(-128, 128, (m, k)).astype(dtype), rng.integers(-128, 128, (k, n)).astype(dtype)
    return rng.integers(-4, 5, (m, k)).astype(dtype), rng.integers(-4, 5, (k, n)).astype(dtype)


def reference(a, b, bias=None):
    wide = np.int64 if a.dtype == np.int8 else np.float64
    out = a.astype(wide) @ b.astype(wide)
    return out if bias is None else out + bias.astype(wide)


CASES = [
    (np.float16, 64, 64, 64, 1), (np.float16, 47, 100, 40, 4), (np.float16, 512, 256, 128, 24),
    (np.float32, 48, 80, 72, 2), (np.float32, 33, 17, 20, 1), (np.int8, 64, 96, 64, 4), (np.int8, 30, 40, 50, 2),
]  # fmt: skip


@pytest.mark.parametrize(
    "dtype,m,n,k,cores", CASES, ids=[f"{np.dtype(c[0]).name}-{c[1]}x{c[2]}x{c[3]}-{c[4]}" for c in CASES]
)
@pytest.mark.parametrize("with_bias", [False, True])
def test_cube_only_iterate_all(dtype, m, n, k, cores, with_bias, rng):
    a, b = operands(rng, dtype, m, n, k)
    out = np.int32 if dtype == np.int8 else np.float32
    bias = rng.integers(-50, 50, n).astype(out)
    t = tiling_for(m, n, k, cores, dtype, bias=with_bias)
    c = np.zeros((m, n), out)
    cube_matmul[t.used_core_num, rt.current_stream()](a, b, c, bias, t, np.zeros(WORKSPACE, np.uint8))
    want = reference(a, b, bias if with_bias else None)
    np.testing.assert_allclose(c, want, rtol=1e-6, atol=1e-3)


@asc.jit
def mix_matmul_leaky_relu(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, alpha: float,
                          t: asc.adv.TCubeTiling, ws: asc.GlobalAddress):  # fmt: skip
    off_a, off_b, off_c, rows, cols = my_share(t)
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a + off_a)
    b_gm.set_global_buffer(b + off_b)
    c_gm.set_global_buffer(c + off_c)
    pipe = asc.TPipe()
    out_q = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(que=out_q, num=1, len=t.base_m * t.base_n * 4)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.VECCALC, asc.CubeFormat.ND, c.dtype))  # fmt: skip
    asc.adv.register_matmul(pipe, ws, mm, t)
    mm.set_tensor_a(a_gm)
    mm.set_tensor_b(b_gm)
    m_blocks = t.single_core_m // t.base_m
    with mm.iterate() as count:
        block = out_q.alloc_tensor(asc.float32)
        mm.get_tensor_c(block, en_sequential_write=True)
        asc.leaky_relu(block, block, alpha, count=t.base_m * t.base_n)
        out_q.enque(block)
        block = out_q.deque(asc.float32)
        start = count % m_blocks * t.base_m * t.n + count // m_blocks * t.base_n
        asc.data_copy(
            c_gm[start:], block, asc.DataCopyParams(t.base_m, t.base_n * 4 // 32, 0, (t.n - t.base_n) * 4 // 32)
        )
        out_q.free_tensor(block)
    mm.end()


@pytest.mark.parametrize("m,n,k,cores", [(256, 128, 64, 2), (512, 384, 96, 4)])
def test_mix_kernel_post_processes_each_block_on_the_vector_cores(m, n, k, cores, rng):
    a, b = operands(rng, np.float16, m, n, k)
    t = tiling_for(m, n, k, cores, np.float16, fix=(64, 64, -1), c_pos=host.TPosition.VECCALC)
    assert t.single_core_m % t.base_m == 0 and t.single_core_n % t.base_n == 0
    c = np.zeros((m, n), np.float32)
    # MIX_AIC_1_2: each group has a cube core and two vector cores; the vector cores run the Matmuls
    mix_matmul_leaky_relu[t.used_core_num // 2, rt.current_stream()](a, b, c, 0.125, t, np.zeros(WORKSPACE, np.uint8))
    want = reference(a, b)
    np.testing.assert_allclose(c, np.where(want >= 0, want, want * 0.125), rtol=1e-6, atol=1e-3)


def test_matmul_needs_its_tensors():
    @asc.jit(matmul_cube_only=True)
    def no_b(a: asc.GlobalAddress, c: asc.GlobalAddress, t: asc.adv.TCubeTiling, ws: asc.GlobalAddress):
        a_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor()
        a_gm.set_global_buffer(a)
        c_gm.set_global_buffer(c)
        mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a.dtype),
                            b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a.dtype),
                            c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c.dtype))  # fmt: skip
        asc.adv.register_matmul(asc.TPipe(), ws, mm, t)
        mm.set_tensor_a(a_gm)
        mm.iterate_all(c_gm)

    t = tiling_for(16, 16, 16, 1, np.float16)
    with pytest.raises(asc.CodegenError, match="set_tensor_a and set_tensor_b first"):
        no_b[1, rt.current_stream()](np.zeros(256, np.float16), np.zeros(256, np.float32), t, np.zeros(64, np.uint8))


@asc.jit(matmul_cube_only=True)
def top_left_corner(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, t: asc.adv.TCubeTiling,
                    ws: asc.GlobalAddress, m: int, n: int, k: int):  # fmt: skip
    """The m x n corner of a product over the first k of A's columns; the GM rows are the full matrices'."""
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c.dtype))  # fmt: skip
    asc.adv.register_matmul(asc.TPipe(), ws, mm, t)
    mm.set_org_shape(96, 80, 64)  # the arrays' shapes; the tiling describes only the corner
    mm.set_tensor_a(a_gm)
    mm.set_tensor_b(b_gm)
    mm.set_tail(m, n, k)
    mm.iterate_all(c_gm)


def test_org_shape_gives_the_rows_of_the_arrays(rng):
    a, b = operands(rng, np.float16, 96, 80, 64)
    t = tiling_for(32, 48, 40, 1, np.float16)  # a tiling for the corner only: its m, n, k_a are 32, 48, 40
    c = np.full((96, 80), 5, np.float32)
    top_left_corner[1, rt.current_stream()](a, b, c, t, np.zeros(WORKSPACE, np.uint8), 32, 48, 40)
    want = np.full((96, 80), 5, np.float64)
    want[:32, :48] = reference(a[:32, :40], b[:40, :48])
    np.testing.assert_allclose(c, want, rtol=1e-6, atol=1e-3)


@asc.jit(matmul_cube_only=True)
def transposed_a(at: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, t: asc.adv.TCubeTiling,
                 ws: asc.GlobalAddress):  # fmt: skip
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(at)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, at.dtype, True),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c.dtype))  # fmt: skip
    asc.adv.register_matmul(asc.TPipe(), ws, mm, t)
    mm.set_tensor_a(a_gm, True)
    mm.set_tensor_b(b_gm)
    mm.iterate_all(c_gm)


TRANSPOSED_CASES = [(dtype, m, n, k) for dtype in (np.float16, np.float32, np.int8)
                    for m, n, k in ((32, 48, 64), (47, 30, 40), (128, 64, 200), (24, 40, 8), (17, 33, 72))]  # fmt: skip


@pytest.mark.parametrize("dtype,m,n,k", TRANSPOSED_CASES,
                         ids=[f"{np.dtype(c[0]).name}-{c[1]}x{c[2]}x{c[3]}" for c in TRANSPOSED_CASES])  # fmt: skip
def test_a_stored_transposed(dtype, m, n, k, rng):
    """A given as A^T (K x M) for every dtype; K not a multiple of 16 / 32 and odd block counts included."""
    a, b = operands(rng, dtype, m, n, k)
    t = tiling_for(m, n, k, 1, dtype)
    c = np.zeros((m, n), np.int32 if dtype == np.int8 else np.float32)
    transposed_a[1, rt.current_stream()](np.ascontiguousarray(a.T), b, c, t, np.zeros(WORKSPACE, np.uint8))
    np.testing.assert_allclose(c, reference(a, b), rtol=1e-6, atol=1e-3)
