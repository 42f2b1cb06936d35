"""Batched Matmul (iterate_batch) against numpy: the NORMAL layout with equal
and broadcast batch counts, per-batch bias, tails and several cores; the
BSNGD x BSNGD -> BNGS1S2 attention layout; the set_batch_num form; atomic
accumulation of C (en_atomic); and the host-side batch tiling fields."""

import numpy as np
import pytest

import asc
import asc.lib.host as host
import asc.lib.runtime as rt

WORKSPACE = 16 * 1024 * 1024
HOST_DTYPE = {np.float16: host.DataType.DT_FLOAT16, np.float32: host.DataType.DT_FLOAT, np.int8: host.DataType.DT_INT8}


def batch_tiling(m, n, k, batch_a, batch_b, dtype, bias=False):
    api = host.BatchMatmulTiling(host.get_ascendc_platform())
    api.set_a_type(host.TPosition.GM, host.CubeFormat.ND, HOST_DTYPE[dtype])
    api.set_b_type(host.TPosition.GM, host.CubeFormat.ND, HOST_DTYPE[dtype])
    out = host.DataType.DT_INT32 if dtype == np.int8 else host.DataType.DT_FLOAT
    api.set_c_type(host.TPosition.GM, host.CubeFormat.ND, out)
    api.set_bias_type(host.TPosition.GM, host.CubeFormat.ND, out)
    api.set_dim(1)
    api.set_shape(m, n, k)
    api.set_org_shape(m, n, k)
    api.enable_bias(bias)
    assert api.set_batch_info_for_normal(batch_a, batch_b, m, n, k) == 0
    tiling = asc.adv.TCubeTiling()
    assert api.get_tiling(tiling) == 0
    return tiling


@asc.jit(matmul_cube_only=True)
def normal_batches(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, bias: asc.GlobalAddress,
                   t: asc.adv.TCubeTiling, ws: asc.GlobalAddress, batch_a: int, batch_b: int):  # fmt: skip
    """Core i computes batch group i: batch_a A matrices and batch_b B matrices into max(...) C matrices."""
    i = asc.get_block_idx()
    batch_c = max(batch_a, batch_b)
    a_gm, b_gm, c_gm, bias_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a + i * batch_a * t.m * t.k_a)
    b_gm.set_global_buffer(b + i * batch_b * t.k_b * t.n)
    c_gm.set_global_buffer(c + i * batch_c * t.m * t.n)
    bias_gm.set_global_buffer(bias + i * batch_c * t.n)
    pipe = asc.TPipe()
    layout = asc.LayoutMode.NORMAL
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a.dtype, False, layout),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b.dtype, False, layout),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c.dtype, False, layout))  # fmt: skip
    asc.adv.register_matmul(pipe, ws, mm, t)
    mm.set_tensor_a(a_gm)
    mm.set_tensor_b(b_gm)
    if t.is_bias:
        mm.set_bias(bias_gm)
    mm.iterate_batch(c_gm, batch_a, batch_b, False)
    mm.end()


def operands(rng, dtype, shape):
    if dtype == np.int8:
        return rng.integers(-128, 128, shape).astype(dtype)
    return rng.integers(-4, 5, shape).astype(dtype)


def batched_reference(a, b, bias=None):
    """a: groups x batch_a x M x K, b: groups x batch_b x K x N -> groups x batch_c x M x N."""
    wide = np.int64 if a.dtype == np.int8 else np.float64
    batch_c = max(a.shape[1], b.shape[1])
    a = np.repeat(a.astype(wide), batch_c // a.shape[1], axis=1)
    b = np.repeat(b.astype(wide), batch_c // b.shape[1], axis=1)
    out = a @ b
    return out if bias is None else out + bias.astype(wide)[:, :, None, :]


NORMAL_CASES = [
    (np.float16, 32, 48, 64, 3, 3, 1), (np.float16, 17, 33, 40, 1, 4, 2), (np.float16, 40, 20, 24, 4, 2, 3),
    (np.float32, 24, 40, 20, 2, 2, 2), (np.int8, 32, 32, 64, 2, 4, 1), (np.int8, 20, 30, 50, 3, 1, 2),
]  # fmt: skip


NORMAL_IDS = [f"{np.dtype(c[0]).name}-{c[1]}x{c[2]}x{c[3]}-a{c[4]}b{c[5]}-{c[6]}" for c in NORMAL_CASES]


@pytest.mark.parametrize("dtype,m,n,k,batch_a,batch_b,cores", NORMAL_CASES, ids=NORMAL_IDS)
@pytest.mark.parametrize("with_bias", [False, True])
def test_normal_layout_batches_with_broadcast(dtype, m, n, k, batch_a, batch_b, cores, with_bias, rng):
    batch_c = max(batch_a, batch_b)
    a = operands(rng, dtype, (cores, batch_a, m, k))
    b = operands(rng, dtype, (cores, batch_b, k, n))
    out = np.int32 if dtype == np.int8 else np.float32
    bias = rng.integers(-50, 50, (cores, batch_c, n)).astype(out)
    c = np.full((cores, batch_c, m, n), -7, out)
    t = batch_tiling(m, n, k, batch_a, batch_b, dtype, with_bias)
    normal_batches[cores, rt.current_stream()](a, b, c, bias, t, np.zeros(WORKSPACE, np.uint8), batch_a, batch_b)
    np.testing.assert_array_equal(c, batched_reference(a, b, bias if with_bias else None))


@asc.jit(matmul_cube_only=True)
def attention_scores(q: asc.GlobalAddress, k: asc.GlobalAddress, s: asc.GlobalAddress, t: asc.adv.TCubeTiling,
                     ws: asc.GlobalAddress, batch: int):  # fmt: skip
    """Q [B, S, 1, G, D] x K [B, S2, 1, G, D]^T -> S [B, 1, G, S, S2], `batch` heads per iterate_batch."""
    q_gm, k_gm, s_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    q_gm.set_global_buffer(q)
    k_gm.set_global_buffer(k)
    s_gm.set_global_buffer(s)
    pipe = asc.TPipe()
    mm = asc.adv.Matmul(
        a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, q.dtype, False, asc.LayoutMode.BSNGD),
        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, k.dtype, True, asc.LayoutMode.BSNGD),
        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, s.dtype, False, asc.LayoutMode.BNGS1S2),
    )
    asc.adv.register_matmul(pipe, ws, mm, t)
    groups_per_b = t.a_layout_info_n * t.a_layout_info_g // batch
    for i in range(t.a_layout_info_b * groups_per_b):
        bb = i // groups_per_b
        g0 = i % groups_per_b * batch
        row_a = t.a_layout_info_n * t.a_layout_info_g * t.a_layout_info_d
        row_b = t.b_layout_info_n * t.b_layout_info_g * t.b_layout_info_d
        mm.set_tensor_a(q_gm[bb * t.a_layout_info_s * row_a + g0 * t.a_layout_info_d :])
        mm.set_tensor_b(k_gm[bb * t.b_layout_info_s * row_b + g0 * t.b_layout_info_d :])
        mm.iterate_batch(s_gm[(i * batch) * t.c_layout_info_s1 * t.c_layout_info_s2 :], batch, batch, False)
    mm.end()


@pytest.mark.parametrize("bsz,seq,seq2,heads,dim,batch", [(2, 32, 48, 4, 32, 2), (1, 20, 17, 3, 24, 3)])
def test_bsngd_inputs_into_bngs1s2_scores(bsz, seq, seq2, heads, dim, batch, rng):
    q = rng.integers(-3, 4, (bsz, seq, 1, heads, dim)).astype(np.float16)
    k = rng.integers(-3, 4, (bsz, seq2, 1, heads, dim)).astype(np.float16)
    api = host.BatchMatmulTiling(host.get_ascendc_platform())
    api.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16)
    api.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, True)
    api.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    api.set_shape(seq, seq2, dim)
    api.set_org_shape(seq, seq2, dim)
    assert api.set_a_layout(bsz, seq, 1, heads, dim) == 0
    assert api.set_b_layout(bsz, seq2, 1, heads, dim) == 0
    assert api.set_c_layout(bsz, seq, 1, heads, seq2) == 0
    assert api.set_batch_num(batch) == 0
    t = asc.adv.TCubeTiling()
    assert api.get_tiling(t) == 0
    s = np.zeros((bsz, 1, heads, seq, seq2), np.float32)
    attention_scores[1, rt.current_stream()](q, k, s, t, np.zeros(WORKSPACE, np.uint8), batch)
    want = np.einsum("bsngd,btngd->bngst", q.astype(np.float64), k.astype(np.float64))
    np.testing.assert_array_equal(s, want)


@asc.jit(matmul_cube_only=True)
def batches_twice_atomic(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, t: asc.adv.TCubeTiling,
                         ws: asc.GlobalAddress, n_batch: int):  # fmt: skip
    """set_batch_num, then the (c, en_partial_sum, en_atomic, en_sequential_write) form twice with atomic add,
    then iterate_all atomically on the first matrices: C_i = C0_i + 2 A_i B_i (+ A_0 B_0 for i = 0)."""
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    pipe = asc.TPipe()
    normal = asc.LayoutMode.NORMAL
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a.dtype, False, normal),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b.dtype, False, normal),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c.dtype, False, normal))  # fmt: skip
    asc.adv.register_matmul(pipe, ws, mm, t)
    mm.set_tensor_a(a_gm)
    mm.set_tensor_b(b_gm)
    mm.set_batch_num(n_batch, n_batch)
    mm.iterate_batch(c_gm, False, 1, False)
    mm.iterate_batch(tensor=c_gm, en_partial_sum=False, en_atomic=1, en_sequential_write=False)
    mm.iterate_all(c_gm, en_atomic=1)
    mm.end()


@pytest.mark.parametrize("dtype", [np.float16, np.int8])
def test_set_batch_num_form_and_atomic_accumulation(dtype, rng):
    m, n, k, nb = 32, 32, 32, 3
    a = operands(rng, dtype, (1, nb, m, k))
    b = operands(rng, dtype, (1, nb, k, n))
    out = np.int32 if dtype == np.int8 else np.float32
    c0 = rng.integers(-20, 20, (1, nb, m, n)).astype(out)
    c = c0.copy()
    t = batch_tiling(m, n, k, nb, nb, dtype)
    batches_twice_atomic[1, rt.current_stream()](a, b, c, t, np.zeros(WORKSPACE, np.uint8), nb)
    want = c0 + 2 * batched_reference(a, b)
    want[0, 0] += batched_reference(a, b)[0, 0]
    np.testing.assert_array_equal(c, want)


@asc.jit(matmul_cube_only=True)
def bad_batch_call(a: asc.GlobalAddress, c: asc.GlobalAddress, t: asc.adv.TCubeTiling, ws: asc.GlobalAddress,
                   CASE: asc.ConstExpr[int]):  # fmt: skip
    a_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    c_gm.set_global_buffer(c)
    pipe = asc.TPipe()
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c.dtype))  # fmt: skip
    asc.adv.register_matmul(pipe, ws, mm, t)
    mm.set_tensor_a(a_gm)
    mm.set_tensor_b(a_gm)
    if CASE == 0:
        mm.iterate_batch(c_gm, False, 0, False)
    elif CASE == 1:
        mm.iterate_batch(c_gm, 1, 1, True)
    elif CASE == 2:
        mm.iterate_batch(c_gm, 1, 1, False, en_atomic=5)
    else:
        mm.iterate_batch(c_gm, 1, 1, False, bogus=1)


@pytest.mark.parametrize(
    "case,message",
    [(0, "needs set_batch_num"), (1, "en_sequential_write must be False"), (2, "en_atomic must be 0, 1"),
     (3, "unexpected argument 'bogus'")],
)  # fmt: skip
def test_iterate_batch_argument_errors(case, message):
    t = batch_tiling(16, 16, 16, 1, 1, np.float16)
    args = (np.zeros(256, np.float16), np.zeros(256, np.float32), t, np.zeros(WORKSPACE, np.uint8))
    with pytest.raises(asc.CodegenError, match=message):
        bad_batch_call[1, rt.current_stream()](*args, case)


def test_host_batch_fields():
    api = host.BatchMatmulTiling(host.get_ascendc_platform())
    api.set_shape(32, 64, 16)
    assert api.set_batch_info_for_normal(3, 2, 32, 64, 16) == -1  # not multiples
    assert api.set_batch_info_for_normal(2, 6, 32, 64, 16) == 0
    t = asc.adv.TCubeTiling()
    assert api.get_tiling(t) == 0
    assert (t.batch_num, t.a_layout_info_b, t.a_layout_info_s, t.a_layout_info_d) == (6, 2, 32, 16)
    assert (t.b_layout_info_b, t.b_layout_info_s, t.b_layout_info_d) == (6, 64, 16)
    assert (t.c_layout_info_b, t.c_layout_info_s1, t.c_layout_info_s2) == (6, 32, 64)
    assert api.get_core_num() == (1, 1, 1, 1, 1)
    assert api.set_a_layout(0, 1, 1, 1, 1) == -1
    assert api.set_batch_num(0) == -1
