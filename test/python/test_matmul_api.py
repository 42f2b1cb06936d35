"""The rest of asc.adv.Matmul's API (pyasc's, Ascend C's semantics) in mix
kernels, against numpy: scalar operands, set_single_shape, the
(de)quantisation of set_quant_scalar / set_quant_vector, HF32, get_tensor_c()
returning the block's place in the workspace, async_get_tensor_c,
get_offset_c, iterate_all into the Unified Buffer, a bias from the Unified
Buffer, iterate_n_batch with get_batch_tensor_c, the configurations (which
must not change the result, only the emitted template argument; a configured
iterate order changes the block order) and the errors."""

import numpy as np
import pytest
from test_cube_extras import densify, hf32, sparse_b, zn_bytes
from test_fixpipe_quant import quant_word
from test_fixpipe_quant import reference as quant_reference

import asc
import asc.lib.host as host
import asc.lib.runtime as rt
from asc._ffi import ffi, last_error, lib

from kernels import ascendc_source
from test_matmul_adv import WORKSPACE, operands, reference, tiling_for

Q = asc.QuantModes


def _types(a_dtype, c_dtype):
    """A, B and C in GM, ND."""
    return (asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a_dtype),
            asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a_dtype),
            asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c_dtype))  # fmt: skip


# ---- scalar operands and set_single_shape ----------------------------------------------------------------------
@asc.jit
def scalar_operand(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, t: asc.adv.TCubeTiling,
                   ws: asc.GlobalAddress, value: float, WHICH: asc.ConstExpr[int]):  # fmt: skip
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    mm = asc.adv.Matmul(*_types(a.dtype, c.dtype))
    asc.adv.register_matmul(asc.TPipe(), ws, mm, t)
    if asc.get_block_idx() == 0:
        mm.set_tensor_a(a_gm)
        mm.set_tensor_b(b_gm)
        if WHICH == 0:
            mm.set_tensor_a(value)  # every element of A is `value`
        else:
            mm.set_tensor_b(value)
        mm.iterate_all(c_gm)
        mm.end()


@pytest.mark.parametrize("dtype", [np.float16, np.float32], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("which", [0, 1], ids=["a", "b"])
def test_scalar_operand_is_a_constant_matrix(dtype, which, rng):
    m, n, k = 40, 48, 72
    a, b = operands(rng, dtype, m, n, k)
    value = 1.5
    t = tiling_for(m, n, k, 1, dtype)
    c = np.zeros((m, n), np.float32)
    scalar_operand[1, rt.current_stream()](a, b, c, t, np.zeros(WORKSPACE, np.uint8), value, which)
    if which == 0:
        want = reference(np.full((m, k), value, dtype), b)
    else:
        want = reference(a, np.full((k, n), value, dtype))
    np.testing.assert_allclose(c, want, rtol=1e-6, atol=1e-3)


@asc.jit
def single_shape(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, t: asc.adv.TCubeTiling,
                 ws: asc.GlobalAddress, m: int, n: int, k: int):  # fmt: skip
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    mm = asc.adv.Matmul(*_types(a.dtype, c.dtype))
    asc.adv.register_matmul(asc.TPipe(), ws, mm, t)
    if asc.get_block_idx() == 0:
        mm.set_tensor_a(a_gm)
        mm.set_tensor_b(b_gm)
        mm.set_single_shape(m, n, k)
        mm.iterate_all(c_gm)
        mm.end()


def test_set_single_shape_computes_that_corner(rng):
    big_m, big_n, big_k = 64, 80, 96
    a, b = operands(rng, np.float16, big_m, big_n, big_k)
    t = tiling_for(big_m, big_n, big_k, 1, np.float16)
    c = np.full((big_m, big_n), -7, np.float32)
    m, n, k = 33, 50, 40
    single_shape[1, rt.current_stream()](a, b, c, t, np.zeros(WORKSPACE, np.uint8), m, n, k)
    np.testing.assert_allclose(c[:m, :n], reference(a[:m, :k], b[:k, :n]), rtol=1e-6, atol=1e-3)
    assert (c[m:, :] == -7).all() and (c[:, n:] == -7).all()


# ---- quantisation and HF32 ----------------------------------------------------------------------------------------
@asc.jit
def quantised(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, t: asc.adv.TCubeTiling,
              ws: asc.GlobalAddress, words: asc.GlobalAddress, WORD: asc.ConstExpr[int],
              VECTOR: asc.ConstExpr[bool]):  # fmt: skip
    a_gm, b_gm, c_gm, q_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    q_gm.set_global_buffer(words)
    mm = asc.adv.Matmul(*_types(a.dtype, c.dtype))
    asc.adv.register_matmul(asc.TPipe(), ws, mm, t)
    if asc.get_block_idx() == 0:
        if VECTOR:
            mm.set_quant_vector(q_gm)
        else:
            mm.set_quant_scalar(WORD)
        mm.set_tensor_a(a_gm)
        mm.set_tensor_b(b_gm)
        mm.iterate_all(c_gm)
        mm.end()


QUANT_CASES = [(np.int8, np.float16, Q.DEQF16), (np.int8, np.int8, Q.REQ8), (np.float16, np.int8, Q.QF322B8_PRE)]
VECTOR_OF = {Q.DEQF16: Q.VDEQF16, Q.REQ8: Q.VREQ8, Q.QF322B8_PRE: Q.VQF322B8_PRE}


@pytest.mark.parametrize("case", QUANT_CASES, ids=lambda c: c[2].name)
@pytest.mark.parametrize("vector", [False, True], ids=["scalar", "vector"])
def test_quantised_output(case, vector, rng):
    in_dtype, out_dtype, mode = case
    m, n, k = 40, 64, 48  # N a multiple of 4: the quant words are copied in 32-byte blocks
    if in_dtype == np.int8:
        a = rng.integers(-128, 128, (m, k)).astype(np.int8)
        b = rng.integers(-128, 128, (k, n)).astype(np.int8)
        product = a.astype(np.int32) @ b.astype(np.int32)
    else:
        a = rng.uniform(-4, 4, (m, k)).astype(np.float16)
        b = rng.uniform(-4, 4, (k, n)).astype(np.float16)
        product = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    scale = 2.0**-10 if in_dtype == np.int8 else 0.5
    if vector:
        words = np.asarray([quant_word(scale * (1 + j % 3)) for j in range(n)], np.uint64)
    else:
        words = np.asarray([quant_word(scale)] * n, np.uint64)
    t = tiling_for(m, n, k, 1, in_dtype, fix=(16, 32, -1))
    c = np.zeros((m, n), out_dtype)
    quantised[1, rt.current_stream()](a, b, c, t, np.zeros(WORKSPACE, np.uint8), words, int(words[0]), vector)
    want = quant_reference(product, VECTOR_OF[mode] if vector else mode, words, False, out_dtype)
    np.testing.assert_array_equal(c, want)


@asc.jit
def hf32_matmul(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, t: asc.adv.TCubeTiling,
                ws: asc.GlobalAddress, TRANS: asc.ConstExpr[int]):  # fmt: skip
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    mm = asc.adv.Matmul(*_types(a.dtype, c.dtype))
    asc.adv.register_matmul(asc.TPipe(), ws, mm, t)
    if asc.get_block_idx() == 0:
        mm.set_hf32(True, TRANS)
        mm.set_tensor_a(a_gm)
        mm.set_tensor_b(b_gm)
        mm.iterate_all(c_gm)
        mm.set_hf32(False)
        mm.end()


cube_hf32_matmul = asc.jit(matmul_cube_only=True)(hf32_matmul.fn)


def test_hf32_in_a_mix_kernel_is_not_emitted():
    kernel = hf32_matmul.compile(np.zeros(1, np.float32), np.zeros(1, np.float32), np.zeros(1, np.float32),
                                 asc.adv.TCubeTiling(), np.zeros(1, np.uint8), 0)  # fmt: skip
    size = ffi.new("size_t*")
    assert lib.asc_kernel_source(kernel.handle, ffi.NULL, 0, size) == lib.ASC_ERR_UNSUPPORTED
    message, file, line, _ = last_error()
    assert "SetHF32 exists in cube-only kernels only" in message and file.endswith("test_matmul_api.py")


@pytest.mark.parametrize("trans", [0, 1])
def test_set_hf32_rounds_the_float32_operands(trans, rng):
    """In a cube-only kernel, where Ascend C has SetHF32 (a mix kernel computes it the same on the Model; the
    emitter refuses it there)."""
    m, n, k = 33, 40, 24
    a = rng.uniform(-2, 2, (m, k)).astype(np.float32)
    b = rng.uniform(-2, 2, (k, n)).astype(np.float32)
    t = tiling_for(m, n, k, 1, np.float32)
    c = np.zeros((m, n), np.float32)
    cube_hf32_matmul[1, rt.current_stream()](a, b, c, t, np.zeros(WORKSPACE, np.uint8), trans)
    want = hf32(a, trans).astype(np.float64) @ hf32(b, trans).astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5)
    plain = a.astype(np.float64) @ b.astype(np.float64)
    assert np.abs(c - plain).max() > 1e-4  # HF32 made a difference


# ---- reading blocks: get_tensor_c(), async_get_tensor_c, get_offset_c, the Unified Buffer ------------------------
@asc.jit
def blocks_out(a: asc.GlobalAddress, b: asc.GlobalAddress, seq: asc.GlobalAddress, offsets: asc.GlobalAddress,
               t: asc.adv.TCubeTiling, ws: asc.GlobalAddress, HOW: asc.ConstExpr[int]):  # fmt: skip
    """Each block, dense, one after another into `seq`: HOW 0 through get_tensor_c()'s GlobalTensor, 1 through
    async_get_tensor_c into the UB; each block's get_offset_c into `offsets` (5 int32 each)."""
    a_gm, b_gm, seq_gm, off_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    seq_gm.set_global_buffer(seq)
    off_gm.set_global_buffer(offsets)
    pipe = asc.TPipe()
    buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(buf, 4 * t.base_m * t.base_n)
    ub = buf.get(asc.float32)
    mm = asc.adv.Matmul(*_types(a.dtype, seq.dtype))
    asc.adv.register_matmul(pipe, ws, mm, t)
    if asc.get_block_idx() == 0:
        mm.set_tensor_a(a_gm)
        mm.set_tensor_b(b_gm)
        with mm.iterate() as count:
            where = mm.get_offset_c()
            size = where.height * where.width
            if HOW == 0:
                block = mm.get_tensor_c(sync=False)
                asc.data_copy(ub, block, size)
            else:
                mm.async_get_tensor_c(ub)
                mm.wait_get_tensor_c()
            asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
            asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
            asc.data_copy(seq_gm[count * t.base_m * t.base_n :], ub, size)
            asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
            asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)
            off_gm.set_value(count * 5, where.offset)
            off_gm.set_value(count * 5 + 1, where.row)
            off_gm.set_value(count * 5 + 2, where.col)
            off_gm.set_value(count * 5 + 3, where.height)
            off_gm.set_value(count * 5 + 4, where.width)
        mm.end()


@pytest.mark.parametrize("how", [0, 1], ids=["get_tensor_c()", "async_get_tensor_c"])
def test_blocks_and_their_offsets(how, rng):
    m, n, k = 40, 64, 32
    a, b = operands(rng, np.float16, m, n, k)
    t = tiling_for(m, n, k, 1, np.float16, fix=(16, 32, -1))
    seq = np.full(6 * 512, -1, np.float32)
    offsets = np.full(6 * 5, -9, np.int32)
    blocks_out[1, rt.current_stream()](a, b, seq, offsets, t, np.zeros(WORKSPACE, np.uint8), how)
    full = reference(a, b)
    for count, (mi, ni) in enumerate((mi, ni) for ni in range(2) for mi in range(3)):  # M first
        rows, cols = min(16, m - 16 * mi), 32
        got = seq[count * 512 : count * 512 + rows * cols].reshape(rows, cols)
        np.testing.assert_allclose(got, full[16 * mi : 16 * mi + rows, 32 * ni : 32 * ni + cols], err_msg=str(count))
        assert list(offsets[count * 5 : count * 5 + 5]) == [16 * mi * n + 32 * ni, 16 * mi, 32 * ni, rows, cols]


@asc.jit
def all_into_ub(a: asc.GlobalAddress, b: asc.GlobalAddress, bias: asc.GlobalAddress, c: asc.GlobalAddress,
                t: asc.adv.TCubeTiling, ws: asc.GlobalAddress, n: int, size: int):  # fmt: skip
    """The whole result into the UB (iterate_all(LocalTensor)) with a bias read from the UB, then to GM."""
    a_gm, b_gm, bias_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    bias_gm.set_global_buffer(bias)
    c_gm.set_global_buffer(c)
    pipe = asc.TPipe()
    buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(buf, 4 * size + 1024)
    ub = buf.get(asc.float32)
    bias_ub = buf.get(bias.dtype)[size * 4 // bias.dtype.sizeof() :]
    mm = asc.adv.Matmul(*_types(a.dtype, c.dtype), bias=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND,
                                                                             bias.dtype))  # fmt: skip
    asc.adv.register_matmul(pipe, ws, mm, t)
    if asc.get_block_idx() == 0:
        asc.data_copy(bias_ub, bias_gm, n)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        mm.set_tensor_a(a_gm)
        mm.set_tensor_b(b_gm)
        mm.set_bias(bias_ub)
        mm.iterate_all(ub)
        asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
        asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
        asc.data_copy(c_gm, ub, size)
        mm.end()


@pytest.mark.parametrize("bias_dtype", [np.float32, np.float16], ids=lambda d: np.dtype(d).name)
def test_iterate_all_into_the_ub_with_a_ub_bias(bias_dtype, rng):
    """A float16 bias is widened to the float32 bias table on its way from L1."""
    m, n, k = 32, 48, 40
    a, b = operands(rng, np.float16, m, n, k)
    bias = (rng.integers(-20, 20, n) + 0.25).astype(bias_dtype)
    t = tiling_for(m, n, k, 1, np.float16, bias=True, fix=(16, 16, -1))
    c = np.zeros((m, n), np.float32)
    all_into_ub[1, rt.current_stream()](a, b, bias, c, t, np.zeros(WORKSPACE, np.uint8), n, m * n)
    np.testing.assert_allclose(c, reference(a, b, bias), rtol=1e-6, atol=1e-3)


# ---- iterate_n_batch and get_batch_tensor_c -----------------------------------------------------------------------
@asc.jit
def n_batch(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, t: asc.adv.TCubeTiling,
            ws: asc.GlobalAddress, results: asc.GlobalAddress, LOOPS: asc.ConstExpr[int], BATCH_A: asc.ConstExpr[int],
            BATCH_B: asc.ConstExpr[int], size: int):  # fmt: skip
    """LOOPS iterate_batch calls into the workspace `results`; each group read back with get_batch_tensor_c
    (the GlobalTensor form) and copied through the UB into C, one group after another."""
    a_gm, b_gm, c_gm, r_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    r_gm.set_global_buffer(results)
    pipe = asc.TPipe()
    buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(buf, 4 * size)
    ub = buf.get(asc.float32)
    nd, normal = asc.CubeFormat.ND, asc.LayoutMode.NORMAL
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, nd, a.dtype, False, normal),
                        b=asc.adv.MatmulType(asc.TPosition.GM, nd, b.dtype, False, normal),
                        c=asc.adv.MatmulType(asc.TPosition.GM, nd, c.dtype, False, normal),
                        matmul_config=asc.adv.get_normal_config(batch_loop=True))  # fmt: skip
    asc.adv.register_matmul(pipe, ws, mm, t)
    if asc.get_block_idx() == 0:
        mm.set_workspace(r_gm)
        mm.set_tensor_a(a_gm)
        mm.set_tensor_b(b_gm)
        mm.iterate_n_batch(LOOPS, BATCH_A, BATCH_B, False, sync=False)
        for i in range(LOOPS):
            group = mm.get_batch_tensor_c(BATCH_A, BATCH_B, sync=False)
            asc.data_copy(ub, group, size)
            asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
            asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
            asc.data_copy(c_gm[i * size :], ub, size)
            asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
            asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)
        mm.end()


@pytest.mark.parametrize("batches", [(2, 2), (1, 2), (2, 1)], ids=["2x2", "1x2", "2x1"])
def test_iterate_n_batch_groups(batches, rng):
    m, n, k = 32, 32, 48
    loops, batch_a, batch_b = 2, *batches
    batch_c = max(batch_a, batch_b)
    a = rng.integers(-4, 5, (loops * batch_a, m, k)).astype(np.float16)
    b = rng.integers(-4, 5, (loops * batch_b, k, n)).astype(np.float16)
    t = tiling_for(m, n, k, 1, np.float16, fix=(16, 16, -1))
    c = np.zeros((loops * batch_c, m, n), np.float32)
    results = np.zeros(loops * batch_c * m * n, np.float32)
    n_batch[1, rt.current_stream()](a, b, c, t, np.zeros(WORKSPACE, np.uint8), results, loops, batch_a, batch_b,
                                    batch_c * m * n)  # fmt: skip
    for loop in range(loops):
        for i in range(batch_c):
            ia = loop * batch_a + i // (batch_c // batch_a)
            ib = loop * batch_b + i // (batch_c // batch_b)
            np.testing.assert_allclose(c[loop * batch_c + i], reference(a[ia], b[ib]), err_msg=f"{loop}, {i}")
    np.testing.assert_array_equal(results, c.ravel())  # the groups were left in set_workspace's buffer


# ---- configurations -----------------------------------------------------------------------------------------------
@asc.jit
def configured(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, seq: asc.GlobalAddress,
               t: asc.adv.TCubeTiling, ws: asc.GlobalAddress, CFG: asc.ConstExpr[int]):  # fmt: skip
    a_gm, b_gm, c_gm, seq_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    seq_gm.set_global_buffer(seq)
    a_type, b_type, c_type = _types(a.dtype, c.dtype)
    if CFG == 0:
        cfg = asc.adv.get_normal_config()
    elif CFG == 1:
        cfg = asc.adv.get_mdl_config()
    elif CFG == 2:
        cfg = asc.adv.get_basic_config(16, 32, 32)
    elif CFG == 3:
        cfg = asc.adv.get_special_basic_config(16, 32, 32, 40, 64, 32, 1, 1)
    elif CFG == 4:
        cfg = asc.adv.get_special_mdl_config()
    elif CFG == 5:
        cfg = asc.adv.get_ib_share_norm_config()
    elif CFG == 6:
        cfg = asc.adv.get_mm_config(asc.MatmulConfigMode.CONFIG_MDL, asc.adv.MatmulShapeParams(40, 64, 32, 16, 32, 32))
    elif CFG == 7:
        cfg = asc.adv.get_matmul_api_tiling(asc.adv.get_basic_config(16, 32, 32), 524288, a_type, b_type, c_type)
    else:  # the tiling's order (M first) overridden: N first
        cfg = asc.adv.MatmulConfig(iterate_order=asc.IterateOrder.ORDER_N)
    mm = asc.adv.Matmul(a_type, b_type, c_type, matmul_config=cfg)
    asc.adv.register_matmul(asc.TPipe(), ws, mm, t)
    if asc.get_block_idx() == 0:
        mm.set_tensor_a(a_gm)
        mm.set_tensor_b(b_gm)
        with mm.iterate() as count:
            mm.get_tensor_c(c_gm)
            mm.get_tensor_c(seq_gm[count * t.base_m * t.base_n :], en_sequential_write=True)
        mm.end()


CONFIGS = ["normal", "mdl", "basic", "special_basic", "special_mdl", "ib_share", "mm_config", "static_tiling",
           "order_n"]  # fmt: skip


@pytest.mark.parametrize("cfg", range(len(CONFIGS)), ids=CONFIGS)
def test_configurations_compute_the_same_product(cfg, rng):
    m, n, k = 40, 64, 32
    a, b = operands(rng, np.float16, m, n, k)
    t = tiling_for(m, n, k, 1, np.float16, fix=(16, 32, -1))
    c = np.zeros((m, n), np.float32)
    seq = np.full(6 * 512, -1, np.float32)
    configured[1, rt.current_stream()](a, b, c, seq, t, np.zeros(WORKSPACE, np.uint8), cfg)
    full = reference(a, b)
    np.testing.assert_allclose(c, full, rtol=1e-6, atol=1e-3)
    order_n = CONFIGS[cfg] == "order_n"
    blocks = [(mi, ni) for mi in range(3) for ni in range(2)] if order_n else [(mi, ni) for ni in range(2)
                                                                               for mi in range(3)]  # fmt: skip
    for count, (mi, ni) in enumerate(blocks):
        rows = min(16, m - 16 * mi)
        got = seq[count * 512 : count * 512 + rows * 32].reshape(rows, 32)
        np.testing.assert_allclose(got, full[16 * mi : 16 * mi + rows, 32 * ni : 32 * ni + 32])


def test_the_configuration_is_the_matmul_objects_template_argument():
    kernel = configured.compile(np.zeros(1, np.float16), np.zeros(1, np.float16), np.zeros(1, np.float32),
                                np.zeros(1, np.float32), asc.adv.TCubeTiling(), np.zeros(1, np.uint8), 1)  # fmt: skip
    text = ascendc_source(kernel)
    assert "c.doMultiDataLoad = static_cast<decltype(c.doMultiDataLoad)>(1);" in text
    assert "c.doNorm = static_cast<decltype(c.doNorm)>(0);" in text
    assert "float, false>, asc_mm0_cfg> asc_mm0;" in text
    static = configured.compile(np.zeros(1, np.float16), np.zeros(1, np.float16), np.zeros(1, np.float32),
                                np.zeros(1, np.float32), asc.adv.TCubeTiling(), np.zeros(1, np.uint8), 7)  # fmt: skip
    text = ascendc_source(static)
    assert (
        "GetMatmulApiTiling<" in text and "(asc_mm0_cfg, 524288);" in text and "asc_mm0_static_tiling> asc_mm0;" in text
    )


def test_config_getters_fill_ascend_cs_members():
    # outside a kernel the getters are plain functions of compile-time values
    mdl = asc.adv.get_mdl_config(do_mte2_preload=1)
    assert (mdl.do_multi_data_load, mdl.do_norm, mdl.do_mte2_preload, mdl.en_unit_flag) == (1, 0, 1, 0)
    basic = asc.adv.get_basic_config(128, 256, 64)
    assert (basic.do_basic_block, basic.basic_m, basic.basic_n, basic.basic_k) == (1, 128, 256, 64)
    sb = asc.adv.get_special_basic_config(128, 256, 64, 512, 512, 256, 2, 2)
    assert (sb.do_special_basic_block, sb.single_core_m, sb.step_n) == (1, 512, 2)
    assert asc.adv.get_ib_share_norm_config().do_ib_share_norm == 1
    assert asc.adv.get_special_mdl_config().do_special_mdl == 1
    mm = asc.adv.get_mm_config(asc.MatmulConfigMode.CONFIG_IBSHARE, asc.adv.MatmulBatchParams(True, 2, False),
                               asc.adv.MatmulFuncParams(iterate_order=1))  # fmt: skip
    assert (mm.do_ib_share_norm, mm.do_norm, mm.is_n_batch, mm.batch_mode, mm.iterate_order) == (1, 0, 1, 2, 1)
    assert asc.adv.get_mm_config() == asc.adv.get_mm_config(asc.MatmulConfigMode.CONFIG_NORM)
    with pytest.raises(asc.CodegenError, match="batch_mode must be one of"):
        asc.adv.get_mm_config(asc.adv.MatmulBatchParams(True, 7))
    with pytest.raises(asc.CodegenError, match="has no member 'do_magic'"):
        asc.adv.MatmulConfig(do_magic=True)


# ---- errors -------------------------------------------------------------------------------------------------------
@asc.jit
def tensor_c_too_early(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, t: asc.adv.TCubeTiling,
                       ws: asc.GlobalAddress, WHEN: asc.ConstExpr[int]):  # fmt: skip
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    mm = asc.adv.Matmul(*_types(a.dtype, c.dtype))
    asc.adv.register_matmul(asc.TPipe(), ws, mm, t)
    if asc.get_block_idx() == 0:
        mm.set_tensor_a(a_gm)
        mm.set_tensor_b(b_gm)
        if WHEN == 0:
            mm.get_tensor_c(c_gm)  # no iterate yet
        else:
            with mm.iterate():
                mm.get_tensor_c(c_gm)
            mm.get_tensor_c(c_gm)  # after the loop: no block
        mm.end()


@pytest.mark.parametrize("when", [0, 1], ids=["before", "after"])
def test_get_tensor_c_outside_iterate_fails_at_the_users_line(when, rng):
    a, b = operands(rng, np.float16, 16, 16, 16)
    t = tiling_for(16, 16, 16, 1, np.float16)
    with pytest.raises(asc.KernelError, match=r"get_tensor_c is called outside `with mm.iterate\(\)`") as info:
        tensor_c_too_early[1, rt.current_stream()](a, b, np.zeros((16, 16), np.float32), t,
                                                   np.zeros(WORKSPACE, np.uint8), when)  # fmt: skip
    assert info.value.file.endswith("test_matmul_api.py")
    assert ("no iterate yet" if when == 0 else "after the loop: no block") in str(info.value)


@pytest.mark.parametrize(
    "call,a_dtype,q_dtype,message",
    [
        ("get_batch_tensor_c", np.float16, np.uint64, "only in the asynchronous form"),
        ("get_tensor_c", np.float16, np.uint64, "needs sync=False"),
        ("scalar", np.int8, np.uint64, "with a scalar needs a float16 or float32 operand"),
        ("quant_vector", np.int8, np.float32, "the quant vector must be uint64"),
        ("iterate_all_wait", np.float16, np.uint64, "wait_iterate_all=True needs sync=False"),
    ],
)
def test_bad_calls_are_codegen_errors(call, a_dtype, q_dtype, message):
    @asc.jit
    def bad(a: asc.GlobalAddress, c: asc.GlobalAddress, q: asc.GlobalAddress, ws: asc.GlobalAddress,
            t: asc.adv.TCubeTiling, CALL: asc.ConstExpr[str]):  # fmt: skip
        c_gm, q_gm = asc.GlobalTensor(), asc.GlobalTensor()
        c_gm.set_global_buffer(c)
        q_gm.set_global_buffer(q)
        mm = asc.adv.Matmul(*_types(a.dtype, c.dtype))
        asc.adv.register_matmul(asc.TPipe(), ws, mm, t)
        mm.set_tensor_a(c_gm)
        mm.set_tensor_b(c_gm)
        if CALL == "get_batch_tensor_c":
            mm.get_batch_tensor_c(2, 2)
        elif CALL == "get_tensor_c":
            mm.get_tensor_c()
        elif CALL == "scalar":
            mm.set_tensor_a(3)
        elif CALL == "quant_vector":
            mm.set_quant_vector(q_gm)
        else:
            mm.iterate_all(c_gm, wait_iterate_all=True)

    c_dtype = np.int32 if a_dtype == np.int8 else np.float32
    with pytest.raises(asc.CodegenError, match=message):
        bad.compile(np.zeros(1, a_dtype), np.zeros(1, c_dtype), np.zeros(1, q_dtype), np.zeros(1, np.uint8),
                    asc.adv.TCubeTiling(), call)  # fmt: skip


# ---- the same calls in cube-only kernels (the cube core runs the Matmul; the expansion is the emitted code) ------
cube_scalar_operand = asc.jit(matmul_cube_only=True)(scalar_operand.fn)
cube_quantised = asc.jit(matmul_cube_only=True)(quantised.fn)


def test_cube_only_kernels_compute_the_same(rng):
    m, n, k = 40, 64, 48
    a, b = operands(rng, np.float16, m, n, k)
    t = tiling_for(m, n, k, 1, np.float16)
    c = np.zeros((m, n), np.float32)
    cube_scalar_operand[1, rt.current_stream()](a, b, c, t, np.zeros(WORKSPACE, np.uint8), 0.5, 1)
    np.testing.assert_allclose(c, reference(a, np.full((k, n), 0.5, np.float16)), rtol=1e-6, atol=1e-3)

    a8 = rng.integers(-128, 128, (m, k)).astype(np.int8)
    b8 = rng.integers(-128, 128, (k, n)).astype(np.int8)
    words = np.asarray([quant_word(2.0**-10)] * n, np.uint64)
    c16 = np.zeros((m, n), np.float16)
    t8 = tiling_for(m, n, k, 1, np.int8)
    cube_quantised[1, rt.current_stream()](a8, b8, c16, t8, np.zeros(WORKSPACE, np.uint8), words, int(words[0]), False)
    product = a8.astype(np.int32) @ b8.astype(np.int32)
    np.testing.assert_array_equal(c16, quant_reference(product, Q.DEQF16, words, False, np.float16))

    a32 = rng.uniform(-2, 2, (m, k)).astype(np.float32)
    b32 = rng.uniform(-2, 2, (k, n)).astype(np.float32)
    t32 = tiling_for(m, n, k, 1, np.float32)
    cube_hf32_matmul[1, rt.current_stream()](a32, b32, c, t32, np.zeros(WORKSPACE, np.uint8), 0)
    want = hf32(a32, False).astype(np.float64) @ hf32(b32, False).astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5)


# ---- the calls that only pass data on, and the asynchronous iterate_all -------------------------------------------
@asc.jit
def async_all(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, t: asc.adv.TCubeTiling,
              ws: asc.GlobalAddress, info: asc.GlobalAddress):  # fmt: skip
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    mm = asc.adv.Matmul(*_types(a.dtype, c.dtype))
    asc.adv.register_matmul(asc.TPipe(), ws, mm, t)
    if asc.get_block_idx() == 0:
        mm.set_self_define_data(info)
        mm.set_user_def_info(info)
        mm.set_workspace(ws, 1024)
        mm.set_tensor_a(a_gm)
        mm.set_tensor_b(b_gm)
        mm.iterate_all(c_gm, sync=False, wait_iterate_all=True)
        mm.wait_iterate_all()
        mm.end()


def test_async_iterate_all_and_callback_data(rng):
    m, n, k = 40, 48, 32
    a, b = operands(rng, np.float16, m, n, k)
    t = tiling_for(m, n, k, 1, np.float16)
    c = np.zeros((m, n), np.float32)
    info = np.arange(8, dtype=np.uint64)
    async_all[1, rt.current_stream()](a, b, c, t, np.zeros(WORKSPACE, np.uint8), info)
    np.testing.assert_allclose(c, reference(a, b), rtol=1e-6, atol=1e-3)
    assert (info == np.arange(8)).all()  # passed on, not written
    text = ascendc_source(async_all.compile(a, b, c, t, np.zeros(1, np.uint8), info))
    calls = [
        ".SetSelfDefineData((uint64_t)(",
        ".SetUserDefInfo((uint64_t)(",
        ".SetWorkspace(",
        ".template IterateAll<false>(",
        "static_cast<uint8_t>(0), false, true);",
        ".WaitIterateAll();",
    ]
    for call in calls:
        assert call in text, call


# ---- the 4:2 sparse B (SparseMatmulType + set_sparse_index; cube-only) ------------------------------------------
@asc.jit(matmul_cube_only=True)
def sparse_matmul(a: asc.GlobalAddress, b: asc.GlobalAddress, idx: asc.GlobalAddress, c: asc.GlobalAddress,
                  t: asc.adv.TCubeTiling, ws: asc.GlobalAddress, HOW: asc.ConstExpr[int]):  # fmt: skip
    a_gm, b_gm, i_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    i_gm.set_global_buffer(idx)
    c_gm.set_global_buffer(c)
    mm = asc.adv.Matmul(asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.int8),
                        asc.adv.SparseMatmulType(asc.TPosition.GM, asc.TPosition.GM, asc.CubeFormat.ND, asc.int8, True),
                        asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.int32),
                        matmul_config=asc.adv.get_mdl_config())  # fmt: skip
    asc.adv.register_matmul(asc.TPipe(), ws, mm, t)
    mm.set_tensor_a(a_gm)
    mm.set_tensor_b(b_gm)
    mm.set_sparse_index(i_gm)
    if HOW == 0:
        mm.iterate_all(c_gm)
    else:
        with mm.iterate():
            mm.get_tensor_c(c_gm)
    mm.end()


def sparse_tiling(m, n, k, base=None):
    """A one-core tiling of the Sparse Matmul (SetSparse), baseK a multiple of 64 as the index fractals need."""
    api = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    api.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_INT8, False)
    api.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_INT8, True)
    api.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_INT32)
    api.set_bias_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_INT32)
    api.set_dim(1)
    api.set_shape(m, n, k)
    api.set_org_shape(m, n, k)
    api.set_sparse(True)
    if base is not None:
        api.set_fix_split(*base)
    t = asc.adv.TCubeTiling()
    assert api.get_tiling(t) == 0
    return t


SPARSE_CASES = [(32, 32, 64, None), (40, 48, 128, None), (47, 30, 40, None), (64, 80, 256, (32, 48, 64)),
                (33, 20, 200, (16, 16, 64))]  # fmt: skip


@pytest.mark.parametrize("how", [0, 1], ids=["iterate_all", "iterate"])
@pytest.mark.parametrize("m,n,k,base", SPARSE_CASES, ids=[f"{c[0]}x{c[1]}x{c[2]}-{c[3]}" for c in SPARSE_CASES])
def test_sparse_b_is_the_product_with_the_sparse_matrix(m, n, k, base, how, rng):
    """C = A x B for the original sparse B (K x N, at most two non-zeros in every four K), given to the Matmul
    as its densification (Bᵀ: N x K/2, ND) and the NZ index matrix; numpy multiplies by the sparse B."""
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    b_sparse = sparse_b(rng, n, k)  # N x K (Bᵀ)
    dense, index = densify(b_sparse)  # N x K/2 values and 2-bit indices
    _, i_zn = zn_bytes(dense, index)
    t = sparse_tiling(m, n, k, base)
    if base is not None:
        assert (t.base_m, t.base_n, t.base_k) == base
    assert t.base_k % 64 == 0 or t.base_k >= k
    c = np.full((m, n), 7, np.int32)
    sparse_matmul[1, rt.current_stream()](a, np.ascontiguousarray(dense), i_zn, c, t, np.zeros(WORKSPACE, np.uint8),
                                          how)  # fmt: skip
    want = a.astype(np.int64) @ b_sparse.astype(np.int64).T
    np.testing.assert_array_equal(c, want.astype(np.int32))


def test_sparse_matmul_is_spelled_as_ascend_cs():
    m, n, k = 32, 32, 64
    t = sparse_tiling(m, n, k)
    z = np.zeros(1, np.int8)
    text = ascendc_source(sparse_matmul.compile(z, z, np.zeros(1, np.uint8), np.zeros(1, np.int32), t,
                                                np.zeros(1, np.uint8), 0))  # fmt: skip
    assert ("AscendC::SparseMatmulType<AscendC::TPosition::GM, AscendC::TPosition::GM, CubeFormat::ND, int8_t, "
            "true>") in text  # fmt: skip
    assert "int32_t, false>, /* an MDL MatmulConfig */>" in text
    assert "AscendC::LoadDataWithSparse(" in text and "AscendC::MmadWithSparse(" in text


@pytest.mark.parametrize(
    "types,message",
    [
        ((asc.float16, asc.float32, True, True), "multiplies int8 A and B into int32 C"),
        ((asc.int8, asc.int32, False, True), "must be stored transposed"),
        ((asc.int8, asc.int32, True, False), "needs the MDL template"),
    ],
)
def test_sparse_type_errors(types, message):
    a_dtype, c_dtype, trans, mdl = types

    @asc.jit(matmul_cube_only=True)
    def bad(a: asc.GlobalAddress):
        asc.adv.Matmul(asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a_dtype),
                       asc.adv.SparseMatmulType(asc.TPosition.GM, asc.TPosition.GM, asc.CubeFormat.ND, a_dtype, trans),
                       asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c_dtype),
                       matmul_config=asc.adv.get_mdl_config() if mdl else None)  # fmt: skip

    with pytest.raises(asc.CodegenError, match=message):
        bad.compile(np.zeros(1, np.int8))


@asc.jit(matmul_cube_only=True)
def sparse_no_index(a: asc.GlobalAddress, c: asc.GlobalAddress, t: asc.adv.TCubeTiling, ws: asc.GlobalAddress,
                    BIAS: asc.ConstExpr[int]):  # fmt: skip
    a_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    c_gm.set_global_buffer(c)
    mm = asc.adv.Matmul(asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.int8),
                        asc.adv.SparseMatmulType(asc.TPosition.GM, asc.TPosition.GM, asc.CubeFormat.ND, asc.int8, True),
                        asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.int32),
                        matmul_config=asc.adv.get_mdl_config())  # fmt: skip
    asc.adv.register_matmul(asc.TPipe(), ws, mm, t)
    mm.set_tensor_a(a_gm)
    mm.set_tensor_b(a_gm)
    if BIAS == 1:
        mm.set_bias(c_gm)
    if BIAS == 2:
        i_gm = asc.GlobalTensor()
        i_gm.set_global_buffer(a.reinterpret(asc.uint8))
        mm.set_sparse_index(i_gm)
        mm.iterate_batch(c_gm, 2, 2, False)
    mm.iterate_all(c_gm)


@pytest.mark.parametrize("bias,message", [(0, "set_sparse_index"), (1, "set_bias with a SparseMatmulType"),
                                          (2, "iterate_batch: a SparseMatmulType B has no batch")])  # fmt: skip
def test_sparse_needs_its_index(bias, message):
    with pytest.raises(asc.CodegenError, match=message):
        sparse_no_index.compile(np.zeros(1, np.int8), np.zeros(1, np.int32), sparse_tiling(32, 32, 64),
                                np.zeros(1, np.uint8), bias)  # fmt: skip


# ---- get_matmul_api_tiling's derived fields, by hand from Ascend C's GetMatmulApiTiling rules -------------------
def _static(cfg, dtype=asc.float16, c_dtype=asc.float32, l1=524288):
    a, b, c = (asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, d) for d in (dtype, dtype, c_dtype))
    return asc.adv.get_matmul_api_tiling(cfg, l1, a, b, c)


FIELDS = ("step_m", "step_n", "step_k_a", "step_k_b", "depth_a1", "depth_b1", "iterate_order", "db_l0a", "db_l0b",
          "db_l0c", "trans_length", "share_mode", "share_l1_size", "share_l0c_size", "share_ub_size",
          "is_bias")  # fmt: skip


def test_static_tiling_both_operands_whole_in_l1():
    """128 x 128 x 128 float16, base 64 x 64 x 64 (MDL; bias and quant vector enabled, the defaults): reduce 16
    K per 32 bytes, k = 8 blocks, kL0 = 4; A and B whole in L1 (2 x 64 rows x 2 x 64 K x 2 bytes = 32 KiB each,
    plus the bias 2 x 64 x 2 x 4 and the quant words 2 x 64 x 8 bytes) fit: stepM = stepN = 2, stepKa = stepKb
    = 8 / 4 = 2, depth = 2 x 2 x 1 = 4; K whole for both and the loads equal (128 + 128 x 1 each): order M
    (0); 64 x 64 x 2 bytes = 8 KiB <= 32 KiB: dbL0A = dbL0B = 2; transLength max(64 x 64 x 4, 1024) = 16384;
    shareL1Size 4 x 64 x 64 x 2 x 2 + 64 x 4 + 1024 = 66816; shareL0CSize 64 x 64 x 4."""
    cfg = asc.adv.get_mm_config(asc.MatmulConfigMode.CONFIG_MDL, asc.adv.MatmulShapeParams(128, 128, 128, 64, 64, 64))
    t = _static(cfg)
    assert (t.m, t.n, t.k_a, t.k_b, t.base_m, t.base_n, t.base_k) == (128, 128, 128, 128, 64, 64, 64)
    assert tuple(getattr(t, f) for f in FIELDS) == (2, 2, 2, 2, 4, 4, 0, 2, 2, 1, 16384, 0, 66816, 16384, 0, 1)


def test_static_tiling_small_shape_keeps_a_whole():
    """16 x 16 x 64 float16, base 16 x 16 x 32: CalcAL1FullLoadTiling (single-core shape <= 16 x 16): depthA1
    = stepKa = 16 x 64 / 16 / 32 = 2; stepKb from the rest of L1 (524288 - 128 for the bias table) exceeds B,
    so 64 x 16 / 16 / 32 / 2 = 1, depthB1 = 2; transLength max(16 x 16 x 4, 128) = 1024; shareL1Size
    2 x 16 x 32 x 2 x 2 + 16 x 4 + 16 x 8 = 4288."""
    cfg = asc.adv.get_mm_config(asc.MatmulConfigMode.CONFIG_MDL, asc.adv.MatmulShapeParams(16, 16, 64, 16, 16, 32))
    t = _static(cfg)
    assert tuple(getattr(t, f) for f in FIELDS) == (1, 1, 2, 1, 2, 2, 0, 2, 2, 1, 1024, 0, 4288, 1024, 0, 1)


def test_static_tiling_base_only():
    """No single-core shape: only the base sizes, dbL0A / dbL0B and isBias (the rest -1)."""
    t = _static(asc.adv.get_basic_config(16, 32, 32))
    assert (t.base_m, t.base_n, t.base_k, t.db_l0a, t.db_l0b, t.is_bias) == (16, 32, 32, 2, 2, 1)
    assert (t.m, t.single_core_k, t.step_m, t.depth_a1, t.db_l0c, t.trans_length) == (-1,) * 6


def _typed(cfg, a_trans, b_trans, l1):
    a = asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16, a_trans)
    b = asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16, b_trans)
    c = asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float32)
    return asc.adv.get_matmul_api_tiling(cfg, l1, a, b, c)


def _cube_cfg(m, n, k, bm, bn, bk):
    return asc.adv.get_mm_config(asc.MatmulConfigMode.CONFIG_MDL, asc.adv.MatmulShapeParams(m, n, k, bm, bn, bk))


def test_static_tiling_neither_whole_a_k_first():
    """256 x 256 x 1024 float16, base 64 x 64 x 64, in 64 KiB of L1 (bias and quant vector on): k = 1024 / 16
    = 64 blocks, kL0 = 4, mL0 = nL0 = 4, maxMAL1 = maxNBL1 = 16 / 4 = 4, maxKBL1 = max((32 / 4 + 3) / 4,
    32 / (4 + 4)) = 4. Both whole: A alone is 4 x 64 x 16 x 64 x 2 = 512 KiB: no; A whole, B whole: no.
    Neither (GetL1StatusNeitherFullLoad): kAL1 = kL0, both double-buffered: 2 x 64 x 64 x 2 = 16 KiB each, +
    bias 64 x 2 x 2 x 4 = 1024, + quant 64 x 8 = 512: 34304 fits; B's whole K would not (and M, K span several
    base blocks), so both stay double-buffered. Neither transposed: A's K first, B with one base K block (16
    KiB) left out: (65536 - 16384 - 1024 - 512) / (1 x 64 x 2 x 32) = 11 -> 11 / 4 = 2 (a factor of 16): kAL1
    = 8; then B: (65536 - 8 x 64 x 32 x 2 - 1536) / (64 x 2 x 64 x 4 x 2) = 0 -> at least 1: kBL1 = 4. 8 is a
    multiple of 4; neither K whole: stepM = stepN = 1. stepKa = 8 / 4 = 2, stepKb = 1, depthA1 = 2 x 1 x 2 =
    4, depthB1 = 1 x 1 x 2 = 2; neither K whole: order M (0); transLength max(64 x 64 x 4, 1024) = 16384;
    shareL1Size 4 x 64 x 64 x 2 + 2 x 64 x 64 x 2 + 64 x 4 + 512 = 49920."""
    t = _typed(_cube_cfg(256, 256, 1024, 64, 64, 64), False, False, 65536)
    assert tuple(getattr(t, f) for f in FIELDS) == (1, 1, 2, 1, 4, 2, 0, 2, 2, 1, 16384, 0, 49920, 16384, 0, 1)


def test_static_tiling_neither_whole_transposed_a_is_the_nz_rule():
    """The same with A transposed, B not (GetKL1NeitherFullLoadForNZ): the buffering as above; with B's whole
    K (2 x 64 x 16 x 64 x 2 = 256 KiB) L1 overflows, so one K step for both: (65536 - 1024 - 512) / (64 x 32 x
    2 + 64 x 32 x 2) = 7, down to a multiple of kL0: 4, 4 / 4 = 1 step (float16: no -1 correction): kAL1 = kBL1
    = 4. stepKa = stepKb = 1, stepM = stepN = 1, depthA1 = depthB1 = 2; order M; shareL1Size 2 x 8192 + 2 x
    8192 + 256 + 512 = 33536."""
    t = _typed(_cube_cfg(256, 256, 1024, 64, 64, 64), True, False, 65536)
    assert tuple(getattr(t, f) for f in FIELDS) == (1, 1, 1, 1, 2, 2, 0, 2, 2, 1, 16384, 0, 33536, 16384, 0, 1)


def test_static_tiling_neither_whole_both_transposed_b_k_first():
    """The same with both transposed: B's K first, A with one base K block (16 KiB) left out: (65536 - 16384 -
    1536) / (64 x 2 x 32) = 11 -> 2 base K blocks, kBL1 = 8; then A: (65536 - 8 x 64 x 32 x 2 - 1536) / (64 x 2
    x 64 x 4 x 2) = 0 -> 1: kAL1 = 4. stepKa = 1, stepKb = 2, depthA1 = 2, depthB1 = 4; order M; shareL1Size 2
    x 8192 + 4 x 8192 + 256 + 512 = 49920."""
    t = _typed(_cube_cfg(256, 256, 1024, 64, 64, 64), True, True, 65536)
    assert tuple(getattr(t, f) for f in FIELDS) == (1, 1, 1, 2, 2, 4, 0, 2, 2, 1, 16384, 0, 49920, 16384, 0, 1)


def test_static_tiling_neither_whole_with_a_whole_k_is_n_first():
    """2048 x 512 x 128 float16, base 128 x 64 x 64, in 96 KiB of L1: k = 8, kL0 = 4, mL0 = 8, nL0 = 4,
    maxNBL1 = 8. B whole (8 x 64 rows x 2 x 64 K x 2 = 128 KiB) and A whole do not fit. Neither: blocks 2 x 128
    x 64 x 2 + 2 x 64 x 64 x 2 + bias 1024 + quant 512 = 50688 fit, and with B's whole K (32768) still 82432:
    no second doubling. A's K first: (98304 - 16384 - 1536) / (128 x 2 x 32) = 9, at most k = 8, 2 base K
    blocks: kAL1 = 8, A's K whole; B: (98304 - 8 x 128 x 32 x 2 - 1536) / (64 x 2 x 64 x 4 x 2) = 0 -> 1, kBL1
    = 4, so nBL1 = 1. stepKa = 2, stepKb = 1, depthA1 = 4, depthB1 = 2; only A's K whole: order N (1);
    transLength 128 x 64 x 4 = 32768; shareL1Size 4 x 128 x 64 x 2 + 2 x 64 x 64 x 2 + 64 x 4 + 512 = 82688."""
    t = _static(_cube_cfg(2048, 512, 128, 128, 64, 64), l1=98304)
    assert tuple(getattr(t, f) for f in FIELDS) == (1, 1, 2, 1, 4, 2, 1, 2, 2, 1, 32768, 0, 82688, 32768, 0, 1)


def test_static_tiling_neither_whole_4096_cube():
    """4096-cube float16, base 128 x 256 x 64, all 512 KiB of L1: k = 256, kL0 = 4, maxKBL1 = max((2 + 3) / 4,
    32 / (4 + 8)) = 2. No operand fits whole (A alone 32 x 128 x 64 x 64 x 2). Neither: double-buffered
    blocks 32768 + 65536 + bias 256 x 2 x 2 x 4 + quant 256 x 8 fit; A's K first: (524288 - 65536 - 4096 -
    2048) / (128 x 2 x 32) = 55 -> 13, the nearest factor of 64: 8, kAL1 = 32; B: (524288 - 32 x 128 x 32 x 2
    - 6144) / (256 x 2 x 64 x 4 x 2) = 0 -> 1, kBL1 = 4. stepKa = 8, stepKb = 1, depthA1 = 16, depthB1 = 2,
    order M; dbL0B: 256 x 64 x 2 = 32 KiB is not more than half of L0B: 2; transLength 128 x 256 x 4;
    shareL1Size 16 x 128 x 64 x 2 + 2 x 256 x 64 x 2 + 256 x 4 + 2048 = 330752."""
    t = _static(_cube_cfg(4096, 4096, 4096, 128, 256, 64))
    assert (t.m, t.db_l0a, t.db_l0b, t.db_l0c, t.share_l0c_size) == (4096, 2, 2, 1, 128 * 256 * 4)
    assert tuple(getattr(t, f) for f in FIELDS) == (1, 1, 8, 1, 16, 2, 0, 2, 2, 1, 131072, 0, 330752, 131072, 0, 1)


def test_static_tiling_neither_whole_with_a_in_l1_is_left_open():
    """A already in L1 (A1) and 8 KiB of L1: "A whole" needs one B block 64 x 64 x 2 + bias 64 x 2 x 4 + quant
    64 x 8 = 9216 bytes: no; "B whole" and "neither" are not tried with A in L1 (Ascend C's status is all zeros
    there, no usable tiling), so the L1 factors stay -1."""
    a = asc.adv.MatmulType(asc.TPosition.A1, asc.CubeFormat.ND, asc.float16)
    b = asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16)
    c = asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float32)
    t = asc.adv.get_matmul_api_tiling(_cube_cfg(256, 256, 1024, 64, 64, 64), 8192, a, b, c)
    assert (t.step_m, t.step_k_b, t.depth_b1, t.iterate_order, t.share_l1_size) == (-1,) * 5


def _order_cfg(m=32):
    """MDL with the order left to the tiling (UNDEF; get_mm_config's default is ORDER_M, which would win)."""
    return asc.adv.get_mm_config(asc.MatmulConfigMode.CONFIG_MDL, asc.adv.MatmulShapeParams(m, 64, 512, 32, 32, 64),
                                 asc.adv.MatmulFuncParams(iterate_order=asc.IterateOrder.UNDEF))  # fmt: skip


def test_static_tiling_a_whole_b_in_k_steps():
    """32 x 64 x 512 float16, base 32 x 32 x 64, in 64 KiB of L1: k = 32 blocks, kL0 = 4. Both whole needs
    32 KiB + 64 KiB: no. A whole (1 x 32 rows x 8 x 64 K x 2 = 32 KiB) leaves 32 KiB for B, double-buffered:
    (32768 - 512 bias - 256 quant) / (2 x 32 x 64 x 2) = 3 base K steps, max(min(3, 5)) -> the nearest factor
    of 8: 2, kBL1 = 8. stepKa = 8, stepKb = 2, depthA1 = 8, depthB1 = 2 x 2 = 4; A's K whole, B's not: order
    N (1); transLength 32 x 32 x 4; shareL1Size 8 x 32 x 64 x 2 + 4 x 32 x 64 x 2 + 32 x 4 + 32 x 8."""
    t = _static(_order_cfg(), l1=65536)
    assert tuple(getattr(t, f) for f in FIELDS) == (1, 1, 8, 2, 8, 4, 1, 2, 2, 1, 4096, 0, 49536, 4096, 0, 1)


def _constant_tiling(case):
    """The configuration and L1 size of the constant tilings the launches below use."""
    if case == "order":
        return _order_cfg(64), 131072
    if case == "base":
        return asc.adv.get_basic_config(16, 32, 32), 524288
    return _neither_cfg(), 32768


@asc.jit
def constant_tiled(a: asc.GlobalAddress, b: asc.GlobalAddress, seq: asc.GlobalAddress, t: asc.adv.TCubeTiling,
                   ws: asc.GlobalAddress, CASE: asc.ConstExpr[str], STRIDE: asc.ConstExpr[int]):  # fmt: skip
    """A Matmul given get_matmul_api_tiling's constant tiling (_constant_tiling(CASE)) and the run-time tiling
    t; iterate()'s blocks written in order, STRIDE elements apart."""
    a_gm, b_gm, seq_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    seq_gm.set_global_buffer(seq)
    a_type, b_type, c_type = _types(a.dtype, seq.dtype)
    mm_cfg, l1 = _constant_tiling(CASE)
    cfg = asc.adv.get_matmul_api_tiling(mm_cfg, l1, a_type, b_type, c_type)
    mm = asc.adv.Matmul(a_type, b_type, c_type, matmul_config=cfg)
    asc.adv.register_matmul(asc.TPipe(), ws, mm, t)
    if asc.get_block_idx() == 0:
        mm.set_tensor_a(a_gm)
        mm.set_tensor_b(b_gm)
        with mm.iterate() as count:
            mm.get_tensor_c(seq_gm[count * STRIDE :], en_sequential_write=True)
        mm.end()


def test_static_tiling_order_is_the_block_order(rng):
    """The constant tiling's iterateOrder (1, N first) orders the blocks, over the run-time tiling's (0), when
    the configuration leaves the order open."""
    m, n, k = 64, 64, 512
    a, b = operands(rng, np.float16, m, n, k)
    t = tiling_for(m, n, k, 1, np.float16, fix=(32, 32, -1))
    assert t.iterate_order == 0 and _static(_order_cfg(64), l1=131072).iterate_order == 1
    seq = np.full(4 * 1024, -1, np.float32)
    constant_tiled[1, rt.current_stream()](a, b, seq, t, np.zeros(WORKSPACE, np.uint8), "order", 1024)
    full = reference(a, b)
    for count, (mi, ni) in enumerate([(0, 0), (0, 1), (1, 0), (1, 1)]):  # N first
        got = seq[count * 1024 : (count + 1) * 1024].reshape(32, 32)
        np.testing.assert_allclose(got, full[32 * mi : 32 * mi + 32, 32 * ni : 32 * ni + 32], rtol=1e-6, atol=1e-3)


def test_the_constant_tilings_base_sizes_are_the_blocks(rng):
    """get_basic_config(16, 32, 32)'s constant baseM / baseN (16, 32) make the blocks, over the run-time
    tiling's 32 x 32: 3 x 2 blocks of 40 x 64, M first."""
    m, n, k = 40, 64, 32
    a, b = operands(rng, np.float16, m, n, k)
    t = tiling_for(m, n, k, 1, np.float16, fix=(32, 32, -1))
    assert (t.base_m, t.base_n) == (32, 32)
    seq = np.full(7 * 512, -1, np.float32)
    constant_tiled[1, rt.current_stream()](a, b, seq, t, np.zeros(WORKSPACE, np.uint8), "base", 512)
    full = reference(a, b)
    for count, (mi, ni) in enumerate([(mi, ni) for ni in range(2) for mi in range(3)]):
        rows = min(16, m - 16 * mi)
        got = seq[count * 512 : count * 512 + rows * 32].reshape(rows, 32)
        np.testing.assert_allclose(got, full[16 * mi : 16 * mi + rows, 32 * ni : 32 * ni + 32], rtol=1e-6, atol=1e-3)
    assert np.all(seq[6 * 512 :] == -1)  # six blocks, no seventh


def _neither_cfg():
    """MDL, 128 x 128 x 512 with base 32 x 32 x 64, the order left to the tiling."""
    return asc.adv.get_mm_config(asc.MatmulConfigMode.CONFIG_MDL,
                                 asc.adv.MatmulShapeParams(128, 128, 512, 32, 32, 64),
                                 asc.adv.MatmulFuncParams(iterate_order=asc.IterateOrder.UNDEF))  # fmt: skip


def test_a_neither_whole_constant_tiling_computes_the_product(rng):
    """128 x 128 x 512 float16, base 32 x 32 x 64, in 32 KiB of L1: k = 32, kL0 = 4, mL0 = nL0 = 2; A alone
    whole is 4 x 32 x 8 x 64 x 2 = 128 KiB: neither whole. Double-buffered single blocks 8192 + 8192 + bias
    32 x 2 x 2 x 4 + quant 32 x 8 fit; A's K first: (32768 - 8192 - 768) / (32 x 2 x 32) = 11 -> 2 base K
    blocks (a factor of 8), kAL1 = 8; B: (32768 - 8 x 32 x 32 x 2 - 768) / (32 x 2 x 64 x 4 x 2) = 0 -> 1, kBL1
    = 4. stepKa = 2, stepKb = 1, depthA1 = 4, depthB1 = 2, order M (neither K whole); shareL1Size 4 x 32 x 64 x
    2 + 2 x 32 x 64 x 2 + 32 x 4 + 256 = 24960. A Matmul given that constant tiling walks its 32 x 32 base
    blocks M first over the run-time tiling's 64 x 64 and computes A x B."""
    m, n, k = 128, 128, 512
    a_type, b_type, c_type = _types(asc.float16, asc.float32)
    st = asc.adv.get_matmul_api_tiling(_neither_cfg(), 32768, a_type, b_type, c_type)
    assert tuple(getattr(st, f) for f in FIELDS) == (1, 1, 2, 1, 4, 2, 0, 2, 2, 1, 4096, 0, 24960, 4096, 0, 1)
    a, b = operands(rng, np.float16, m, n, k)
    t = tiling_for(m, n, k, 1, np.float16, fix=(64, 64, -1))
    assert (t.base_m, t.base_n) == (64, 64)
    seq = np.full(17 * 1024, -1, np.float32)
    constant_tiled[1, rt.current_stream()](a, b, seq, t, np.zeros(WORKSPACE, np.uint8), "neither", 1024)
    full = reference(a, b)
    for count, (mi, ni) in enumerate([(mi, ni) for ni in range(4) for mi in range(4)]):  # M first
        got = seq[count * 1024 : (count + 1) * 1024].reshape(32, 32)
        np.testing.assert_allclose(got, full[32 * mi : 32 * mi + 32, 32 * ni : 32 * ni + 32], rtol=1e-5, atol=1e-2)
    assert np.all(seq[16 * 1024 :] == -1)
