"""asc.adv.softmax, softmax_flash_v2 and swiglu against numpy: rows x cols shapes (widths that are not whole
64-element repeats, a reduction over fewer columns than the aligned row), float32 and float16 (with float16 or
float32 statistics), the caller's temporary buffer and the framework's, the sum / max / exp_max outputs in Ascend
C's layout (each row's value over a 32-byte block: 8 float32 or 16 float16 per row), the bounds docs/adv.md
states, the errors, and the emitted Ascend C (the library call with its tiling struct for the board)."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.errors import CodegenError, KernelError
from asc.lib.host import get_softmax_flash_v2_min_tmp_size, get_softmax_min_tmp_size, softmax_tiling_func

from kernels import ascendc_source

CAP = 4096  # elements of the src / dst buffers
ROWS = 64  # the most rows a case has (the per-row buffers hold ROWS blocks)
# bounds on |result - exact| (softmax, probabilities; flash's exp in [0, 1]) and on the sum / max relative error
BOUND = {np.float32: 2e-6, np.float16: 1e-3}


def _per_row(dtype) -> int:
    return 32 // np.dtype(dtype).itemsize


@asc.jit
def softmax_harness(x: asc.GlobalAddress, y: asc.GlobalAddress, s: asc.GlobalAddress, mx: asc.GlobalAddress,
                    tiling: asc.adv.SoftmaxTiling, tmp_bytes: asc.ConstExpr[int]):  # fmt: skip
    """y = softmax(x) row-wise for the shape in `tiling`; s and mx the sum and max outputs (ROWS blocks)."""
    pipe = asc.TPipe()
    xb, yb = asc.TBuf(asc.TPosition.VECIN), asc.TBuf(asc.TPosition.VECOUT)
    sb, mb = asc.TBuf(asc.TPosition.VECOUT), asc.TBuf(asc.TPosition.VECOUT)
    pipe.init_buffer(xb, CAP * 4)
    pipe.init_buffer(yb, CAP * 4)
    pipe.init_buffer(sb, ROWS * 32)
    pipe.init_buffer(mb, ROWS * 32)
    xl, yl, sl, ml = xb.get(x.dtype), yb.get(y.dtype), sb.get(s.dtype), mb.get(mx.dtype)
    x_gm, y_gm, s_gm, m_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    y_gm.set_global_buffer(y)
    s_gm.set_global_buffer(s)
    m_gm.set_global_buffer(mx)
    asc.data_copy(xl, x_gm, CAP)
    asc.data_copy(yl, y_gm, CAP)
    asc.data_copy(sl, s_gm, ROWS * 32 // s.dtype.sizeof())
    asc.data_copy(ml, m_gm, ROWS * 32 // s.dtype.sizeof())
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if tmp_bytes:
        tmp_buf = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(tmp_buf, tmp_bytes)
        asc.adv.softmax(yl, sl, ml, xl, tiling, tmp_buf.get(asc.uint8))
    else:
        asc.adv.softmax(yl, sl, ml, xl, tiling)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(y_gm, yl, CAP)
    asc.data_copy(s_gm, sl, ROWS * 32 // s.dtype.sizeof())
    asc.data_copy(m_gm, ml, ROWS * 32 // s.dtype.sizeof())


def run_softmax(x: np.ndarray, stat_dtype, tmp_bytes: int):
    """softmax of x (rows, cols) through the harness, the tiling from asc.lib.host's softmax_tiling_func."""
    rows, cols = x.shape
    flat = np.zeros(CAP, x.dtype)
    flat[: x.size] = x.ravel()
    y = np.full(CAP, 7, x.dtype)
    n = ROWS * _per_row(stat_dtype)
    s, mx = np.full(n, 7, stat_dtype), np.full(n, 7, stat_dtype)
    tiling = asc.adv.SoftmaxTiling()
    softmax_tiling_func([rows, cols], x.dtype.itemsize, tmp_bytes or 64 * 1024, tiling)
    softmax_harness[1, rt.current_stream()](flat, y, s, mx, tiling, tmp_bytes)
    return y, s, mx


def _reference(x: np.ndarray):
    x64 = x.astype(np.float64)
    mx = x64.max(axis=1, keepdims=True)
    e = np.exp(x64 - mx)
    total = e.sum(axis=1, keepdims=True)
    return e / total, total, mx


def _stat_rows(out: np.ndarray, rows: int) -> np.ndarray:
    """The per-row output as (rows, block) — every element of a row's block must hold the row's value."""
    return out[: rows * _per_row(out.dtype)].reshape(rows, _per_row(out.dtype)).astype(np.float64)


# (dtype, stat dtype, rows, cols, tmp bytes): cols 8 / 16 (one 32-byte block), 72 and 200 (not whole 64-element
# repeats), 1000; the caller's buffer at the documented minimum; the framework's (0) on one dtype
CASES = [
    (np.float32, np.float32, 5, 72, 2048),
    (np.float32, np.float32, 3, 1000, 0),
    (np.float32, np.float32, 64, 8, 320),  # exactly get_softmax_min_tmp_size
    (np.float16, np.float16, 7, 208, 2048),
    (np.float16, np.float32, 4, 16, 2048),
]


@pytest.mark.parametrize("dtype, stat, rows, cols, tmp_bytes", CASES)
def test_softmax_matches_numpy_with_sum_and_max_in_blocks(dtype, stat, rows, cols, tmp_bytes):
    x = np.random.default_rng(rows * cols).uniform(-6, 6, (rows, cols)).astype(dtype)
    y, s, mx = run_softmax(x, stat, tmp_bytes)
    want, total, row_max = _reference(x)
    assert np.abs(y[: x.size].reshape(rows, cols) - want).max() <= BOUND[dtype]
    assert np.all(y[x.size :] == 7)  # past the rows nothing is written
    st_bound = 2e-6 if stat == np.float32 else 1e-3
    assert np.all(np.abs(_stat_rows(s, rows) - total) <= st_bound * total)
    assert np.all(_stat_rows(mx, rows) == row_max.astype(stat))  # the max is exact (one rounding to stat)
    assert np.all(s[rows * _per_row(stat) :] == 7) and np.all(mx[rows * _per_row(stat) :] == 7)


@asc.jit
def softmax_shape_info_harness(x: asc.GlobalAddress, y: asc.GlobalAddress, rows: asc.ConstExpr[int],
                               cols: asc.ConstExpr[int]):  # fmt: skip
    """pyasc's kernel-test form: the shapes from set_shape_info, a default-constructed tiling, src reused as
    dst, the framework's temporary buffer."""
    x_gm, y_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    y_gm.set_global_buffer(y)
    src = asc.LocalTensorAuto(x.dtype, rows * cols)
    sm = asc.LocalTensorAuto(x.dtype, rows * 8)
    mm = asc.LocalTensorAuto(x.dtype, rows * 8)
    asc.data_copy(src, x_gm, rows * cols)
    src.set_shape_info(asc.ShapeInfo(asc.array(asc.int32, (rows, cols))))
    sm.set_shape_info(asc.ShapeInfo(asc.array(asc.int32, (rows, 8))))
    mm.set_shape_info(asc.ShapeInfo(asc.array(asc.int32, (rows, 8))))
    asc.adv.softmax(src, sm, mm, src, asc.adv.SoftmaxTiling())
    asc.data_copy(y_gm, src, rows * cols)


def test_softmax_takes_the_shape_from_set_shape_info_with_a_default_tiling():
    x = np.random.default_rng(1).uniform(-3, 3, (6, 136)).astype(np.float32)
    y = np.zeros_like(x)
    softmax_shape_info_harness[1, rt.current_stream()](x, y, 6, 136)
    assert np.abs(y - _reference(x)[0]).max() <= BOUND[np.float32]


@asc.jit
def flash_harness(x: asc.GlobalAddress, y: asc.GlobalAddress, st: asc.GlobalAddress, rows: int, cols: int,
                  ori_cols: int, update: asc.ConstExpr[bool], mode: asc.ConstExpr[int]):  # fmt: skip
    """softmax_flash_v2 on x (rows x cols, the reductions over ori_cols) with the running statistics st: its 5
    per-row tensors of ROWS blocks each (in_max, in_sum in; max, sum, exp_max out), with a caller's buffer."""
    pipe = asc.TPipe()
    xb, yb = asc.TBuf(asc.TPosition.VECCALC), asc.TBuf(asc.TPosition.VECCALC)
    sb, tb = asc.TBuf(asc.TPosition.VECCALC), asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(xb, CAP * 4)
    pipe.init_buffer(yb, CAP * 4)
    pipe.init_buffer(sb, 5 * ROWS * 32)
    pipe.init_buffer(tb, 16 * 1024)
    xl, yl, sl = xb.get(x.dtype), yb.get(y.dtype), sb.get(st.dtype)
    x_gm, y_gm, s_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    y_gm.set_global_buffer(y)
    s_gm.set_global_buffer(st)
    n = ROWS * 32 // st.dtype.sizeof()
    asc.data_copy(xl, x_gm, CAP)
    asc.data_copy(yl, y_gm, CAP)
    asc.data_copy(sl, s_gm, 5 * n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    cfg = asc.adv.SoftmaxConfig(False, 0, 0, asc.adv.SoftmaxMode(mode))
    asc.adv.softmax_flash_v2(yl, sl[3 * n :], sl[2 * n :], xl, sl[4 * n :], sl[n:], sl, asc.adv.SoftmaxTiling(),
                             asc.adv.SoftMaxShapeInfo(rows, cols, rows, ori_cols), tb.get(asc.uint8),
                             is_update=update, config=cfg)  # fmt: skip
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(y_gm, yl, CAP)
    asc.data_copy(s_gm, sl, 5 * n)


@pytest.mark.parametrize("dtype, update, brc",
                         [(np.float32, False, True), (np.float16, True, True), (np.float32, True, False),
                          (np.float16, True, False)])  # fmt: skip
def test_softmax_flash_v2_running_statistics(dtype, update, brc):
    """The per-row tensors broadcast over their blocks (SOFTMAX_NORMAL) or one value per row
    (SOFTMAX_OUTPUT_WITHOUT_BRC); cols 144 with the reductions over the first 130 (the padding still computed,
    not reduced)."""
    rows, cols, ori = 9, 144, 130
    rng = np.random.default_rng(3)
    x = rng.uniform(-4, 4, (rows, cols)).astype(dtype)
    per = _per_row(dtype) if brc else 1
    n = ROWS * _per_row(dtype)
    in_max = rng.uniform(-2, 5, rows).astype(dtype)
    in_sum = rng.uniform(1, 30, rows).astype(dtype)
    st = np.full(5 * n, 7, dtype)
    st[: rows * per] = np.repeat(in_max, per)
    st[n : n + rows * per] = np.repeat(in_sum, per)
    flat = np.zeros(CAP, dtype)
    flat[: x.size] = x.ravel()
    y = np.zeros(CAP, dtype)
    flash_harness[1, rt.current_stream()](flat, y, st, rows, cols, ori, update, 0 if brc else 1)
    x64 = x.astype(np.float64)
    row_max = x64[:, :ori].max(axis=1)
    if update:
        row_max = np.maximum(row_max, in_max)
    e = np.exp(x64 - row_max[:, None])
    total = e[:, :ori].sum(axis=1)
    if update:
        exp_max = np.exp(in_max.astype(np.float64) - row_max)
        total = exp_max * in_sum + total
    bound = BOUND[dtype]
    got = y[: x.size].reshape(rows, cols)
    assert np.abs(got - e).max() <= bound * max(1.0, e.max())  # the padding computed too
    got_max = st[2 * n : 2 * n + rows * per].reshape(rows, per)
    got_sum = st[3 * n : 3 * n + rows * per].reshape(rows, per).astype(np.float64)
    assert np.all(got_max == row_max[:, None].astype(dtype))
    assert np.all(np.abs(got_sum - total[:, None]) <= bound * total[:, None])
    if update:
        got_exp = st[4 * n : 4 * n + rows * per].reshape(rows, per)
        assert np.all(np.abs(got_exp - exp_max[:, None]) <= bound)
    assert np.all(st[2 * n + rows * per : 3 * n] == 7)  # nothing past the rows' blocks


@asc.jit
def swiglu_harness(a: asc.GlobalAddress, b: asc.GlobalAddress, y: asc.GlobalAddress, count: int,
                   beta: asc.ConstExpr[float], tmp_bytes: asc.ConstExpr[int]):  # fmt: skip
    pipe = asc.TPipe()
    ab, bb, yb = asc.TBuf(asc.TPosition.VECCALC), asc.TBuf(asc.TPosition.VECCALC), asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(ab, CAP * 4)
    pipe.init_buffer(bb, CAP * 4)
    pipe.init_buffer(yb, CAP * 4)
    al, bl, yl = ab.get(a.dtype), bb.get(b.dtype), yb.get(y.dtype)
    a_gm, b_gm, y_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    y_gm.set_global_buffer(y)
    asc.data_copy(al, a_gm, CAP)
    asc.data_copy(bl, b_gm, CAP)
    asc.data_copy(yl, y_gm, CAP)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if tmp_bytes:
        tb = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(tb, tmp_bytes)
        asc.adv.swiglu(yl, al, bl, beta, tb.get(asc.uint8), count)
    else:
        asc.adv.swiglu(yl, al, bl, scalar_value=beta, cal_count=count)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(y_gm, yl, CAP)


@pytest.mark.parametrize("dtype, count, tmp_bytes, bound",
                         [(np.float32, 1000, 1024, 2e-6), (np.float16, 700, 2048, 2e-3),
                          (np.float32, CAP, 0, 2e-6)])  # fmt: skip
def test_swiglu_matches_numpy(dtype, count, tmp_bytes, bound):
    rng = np.random.default_rng(count)
    a = rng.uniform(-4, 4, CAP).astype(dtype)
    b = rng.uniform(-8, 8, CAP).astype(dtype)
    y = np.full(CAP, 7, dtype)
    swiglu_harness[1, rt.current_stream()](a, b, y, count, 1.5, tmp_bytes)
    a64, b64 = a[:count].astype(np.float64), b[:count].astype(np.float64)
    want = a64 * b64 / (1 + np.exp(-1.5 * b64))
    assert np.max(np.abs(y[:count] - want) / np.maximum(1.0, np.abs(want))) <= bound
    assert np.all(y[count:] == 7)


def test_a_temporary_buffer_too_small_is_an_error_at_the_call():
    x = np.zeros((2, 1024), np.float16)
    with pytest.raises(KernelError, match=r"adv.softmax: the temporary buffer is too small") as e:
        run_softmax(x, np.float16, 2048)
    assert "test_adv_softmax.py" in str(e.value)


def test_an_unaligned_row_is_an_error():
    tiling = asc.adv.SoftmaxTiling(src_m=2, src_k=12)
    x = np.zeros(CAP, np.float32)
    with pytest.raises(KernelError, match=r"src_k must be 32-byte aligned \(8 float32"):
        softmax_harness[1, rt.current_stream()](x, x.copy(), x[:512].copy(), x[:512].copy(), tiling, 2048)


def test_wrong_dtypes_are_compile_errors():
    @asc.jit
    def bad(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 256)
        s = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 1024, 64)
        asc.adv.softmax(a, s, s, a, asc.adv.SoftmaxTiling())

    with pytest.raises(CodegenError, match="the sum and max tensors must be float32"):
        bad.compile(np.zeros(4, np.float32))


def test_host_sizes_match_ascend_c():
    # GetSoftMaxMinTmpSize: (block elements + k + 64) float32s for one row
    assert get_softmax_min_tmp_size([4, 1024], 2, False) == (16 + 1024 + 64) * 4
    t = asc.adv.SoftmaxTiling()
    softmax_tiling_func([32, 128], 4, 32 * 1024, t)
    assert (t.src_m, t.src_k, t.src_size, t.out_max_k, t.out_max_size) == (32, 128, 4096, 8, 256)
    assert t.split_m * (8 + 128 + 64) * 4 <= 32 * 1024 and t.range_m * t.split_m + t.tail_m == 32
    # the flash update: Ascend C's (4 blocks + 2 k) float32s; without broadcast asc's staging of 9 -> 16 rows
    assert get_softmax_flash_v2_min_tmp_size([9, 144], 4, 4, True) == (4 * 8 + 2 * 144) * 4
    assert get_softmax_flash_v2_min_tmp_size([9, 144], 4, 4, True, False, True) == 1280 + 16 * (4 + 5 * 32)


def test_the_board_gets_the_library_call_with_its_tiling_struct():
    x = np.zeros(CAP, np.float16)
    compiled = softmax_harness.compile(x, x, x, x, asc.adv.SoftmaxTiling(), 2048)
    board = ascendc_source(compiled)
    assert "AscendC::SoftMax<half, false, false, false>(" in board
    assert "SoftMaxTiling t{}; t.srcM = " in board and "t.tailReduceSize = " in board
    assert "AscendC::Exp(" not in board  # the expansion is left out
    cpu = ascendc_source(compiled, expanded=True)
    assert "AscendC::Exp(" in cpu and "AscendC::Brcb(" in cpu
