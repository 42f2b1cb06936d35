"""Atomic GM writes (set_atomic_add / max / min / none / type): every block
combines its tile into the same GM output, by data_copy (MTE3), data_copy_pad
and fixpipe (FIX); checked against numpy. Mixing atomic and plain writes of
the same bytes across blocks is still a conflict."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.runtime.config import KernelType

N = 256


@asc.jit
def accumulate(x: asc.GlobalAddress, out: asc.GlobalAddress, MODE: asc.ConstExpr[int], OFF: asc.ConstExpr[bool]):
    """Block i copies x[i*N : (i+1)*N] into out[0:N] atomically (MODE 1 add, 2 max, 3 min); OFF: then a
    second, plain copy of out's second half by block 0 after set_atomic_none (a conflict with the other blocks'
    atomic writes)."""
    x_gm, out_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    out_gm.set_global_buffer(out)
    buf = asc.LocalTensor(x_gm.dtype, asc.TPosition.VECIN, 0, N)
    asc.data_copy(buf, x_gm[asc.get_block_idx() * N :], N)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    if MODE == 1:
        asc.set_atomic_add(x_gm.dtype)
    elif MODE == 2:
        asc.set_atomic_max(x_gm.dtype)
    else:
        asc.set_atomic_min(x_gm.dtype)
    asc.data_copy(out_gm, buf, N)
    asc.set_atomic_none()
    if OFF and asc.get_block_idx() == 0:
        asc.data_copy(out_gm[N // 2 :], buf, N // 2)


DTYPES = [np.float32, np.float16, np.int32, np.int16]


def _inputs(dtype, blocks, seed):
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-1000, 1000, (blocks, N)).astype(dtype), rng.integers(-1000, 1000, N).astype(dtype)
    return rng.uniform(-4, 4, (blocks, N)).astype(dtype), rng.uniform(-4, 4, N).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("blocks", [1, 2, 7])
def test_atomic_add_sums_every_block_into_gm(dtype, blocks):
    x, out = _inputs(dtype, blocks, blocks)
    expected = out.astype(np.float64) + x.astype(np.float64).sum(axis=0)
    accumulate[blocks, rt.current_stream()](x, out, 1, False)
    if dtype == np.float16:  # each add rounds to half; the order of blocks is not fixed
        np.testing.assert_allclose(out, expected, rtol=2e-3 * blocks, atol=4e-3 * blocks)
    elif dtype == np.float32:
        np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-5)
    else:
        np.testing.assert_array_equal(out, expected.astype(np.int64).astype(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", [2, 3])
def test_atomic_max_and_min_keep_the_extreme(dtype, mode):
    x, out = _inputs(dtype, 5, mode)
    reduce = np.maximum if mode == 2 else np.minimum
    expected = reduce(out, reduce.reduce(x, axis=0))
    accumulate[5, rt.current_stream()](x, out, mode, False)
    np.testing.assert_array_equal(out, expected)


def test_int16_atomic_add_wraps():
    x = np.full((2, N), 30000, np.int16)
    out = np.zeros(N, np.int16)
    accumulate[2, rt.current_stream()](x, out, 1, False)
    np.testing.assert_array_equal(out, np.full(N, np.int16(60000 - 65536)))


def test_plain_write_after_atomic_writes_conflicts():
    x, out = _inputs(np.float32, 2, 0)
    with pytest.raises(asc.KernelError, match=r"blocks [01] and [01] both write GM bytes.*only one of them atomically"):
        accumulate[2, rt.current_stream()](x, out, 1, True)


@asc.jit
def strided_add(x: asc.GlobalAddress, out: asc.GlobalAddress, ROWS: asc.ConstExpr[int], ROW: asc.ConstExpr[int]):
    """Rows with gaps (DataCopyParams, data_copy_pad): only the rows' bytes take part; the gaps keep GM's."""
    x_gm, out_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    out_gm.set_global_buffer(out)
    buf = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, ROWS * ROW)
    asc.data_copy(buf, x_gm, ROWS * ROW)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.set_atomic_add(asc.float32)
    # rows of ROW floats, one row's width apart in GM: every other ROW-float stretch of out
    asc.data_copy(out_gm, buf, asc.DataCopyParams(ROWS, ROW // 8, 0, ROW // 8))
    # then 5 floats of each UB row, packed, after the first 2 * ROWS rows of out
    asc.data_copy_pad(out_gm[2 * ROWS * ROW :], buf, asc.DataCopyExtParams(ROWS, 5 * 4, ROW * 4 // 32 - 1, 0, 0))
    asc.set_atomic_none()


def test_atomic_add_with_gaps_touches_only_written_elements():
    rows, row = 4, 16
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, rows * row).astype(np.float32)
    out = rng.uniform(-1, 1, 4 * rows * row).astype(np.float32)
    expected = out.copy()
    for r in range(rows):
        expected[2 * r * row : 2 * r * row + row] += x[r * row : (r + 1) * row]
        expected[2 * rows * row + r * 5 : 2 * rows * row + r * 5 + 5] += x[r * row : r * row + 5]
    strided_add[1, rt.current_stream()](x, out, rows, row)
    np.testing.assert_allclose(out, expected, rtol=1e-6)


@asc.jit(kernel_type=KernelType.AIC_ONLY)
def split_k(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, M: asc.ConstExpr[int],
            N: asc.ConstExpr[int], K: asc.ConstExpr[int]):  # fmt: skip
    """Split-K GEMM: cube core i multiplies K-slice i (K columns of A, K rows of B) and adds its partial C
    into c through fixpipe with atomic add."""
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    i = asc.get_block_idx()
    kk = asc.get_block_num() * K
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, M * K)
    b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, 65536, K * N)
    a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, M * K)
    b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, K * N)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, M * N)
    asc.data_copy(a1, a_gm[i * K :], asc.Nd2NzParams(1, M, K, 0, kk, M, 1, 0))
    asc.data_copy(b1, b_gm[i * K * N :], asc.Nd2NzParams(1, K, N, 0, N, K, 1, 0))
    asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
    for r in range(M // 16):
        asc.load_data(a2[r * K * 16 :], a1[r * 256 :], asc.LoadData2DParams(0, K // 16, M // 16, 0, 0, False, 0))
    for r in range(K // 16):
        asc.load_data(b2[r * N * 16 :], b1, asc.LoadData2DParams(r, N // 16, K // 16, 0, 0, True, 0))
    asc.set_flag(asc.HardEvent.MTE1_M, 0)
    asc.wait_flag(asc.HardEvent.MTE1_M, 0)
    asc.mmad(c1, a2, b2, asc.MmadParams(M, N, K))
    asc.set_flag(asc.HardEvent.M_FIX, 0)
    asc.wait_flag(asc.HardEvent.M_FIX, 0)
    asc.set_atomic_add(asc.float32)
    asc.fixpipe(c_gm, c1, asc.FixpipeParamsV220(N, M, M, N, asc.QuantModes.NoQuant))
    asc.set_atomic_none()


@pytest.mark.parametrize("cores", [1, 3, 6])
def test_split_k_gemm_accumulates_through_fixpipe(cores):
    m, n, k = 32, 48, 32
    rng = np.random.default_rng(cores)
    a = rng.integers(-3, 4, (m, cores * k)).astype(np.float16)
    b = rng.integers(-3, 4, (cores * k, n)).astype(np.float16)
    c = rng.integers(-3, 4, (m, n)).astype(np.float32)
    expected = c + a.astype(np.float32) @ b.astype(np.float32)
    split_k[cores, rt.current_stream()](a, b, c, m, n, k)
    np.testing.assert_array_equal(c, expected)


@pytest.mark.parametrize("dtype", [asc.uint8, asc.float64 if hasattr(asc, "float64") else asc.int64])
def test_unsupported_atomic_dtype_is_a_compile_error(dtype):
    @asc.jit
    def bad(x: asc.GlobalAddress):
        asc.set_atomic_add(dtype)

    with pytest.raises(asc.CodegenError, match="set_atomic_add: dtype must be one of"):
        bad[1, rt.current_stream()](np.zeros(8, np.float32))


@asc.jit
def half_rows_as_float(x: asc.GlobalAddress, out: asc.GlobalAddress):
    x_gm, out_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    out_gm.set_global_buffer(out)
    buf = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 16)
    asc.data_copy(buf, x_gm, 16)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.set_atomic_add(asc.float32)
    asc.data_copy_pad(out_gm, buf, asc.DataCopyExtParams(1, 3 * 2, 0, 0, 0))  # three halves: 1.5 floats


def test_atomic_write_of_part_of_an_element_is_an_error_and_gm_keeps_its_bytes():
    x = np.ones(16, np.float16)
    out = np.arange(16, dtype=np.float16)
    before = out.copy()
    with pytest.raises(asc.errors.MisalignedError, match=r"atomic write in float32 must cover whole 4-byte elements"):
        half_rows_as_float[1, rt.current_stream()](x, out)
    np.testing.assert_array_equal(out, before)
