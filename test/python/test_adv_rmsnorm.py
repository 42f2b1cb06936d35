"""asc.adv.rmsnorm against numpy: [B, S, H] shapes (H not a whole 64-element repeat, the mean over fewer columns
than the aligned row), float32 and float16, the caller's temporary buffer and the framework's, the tiling from
asc.lib.host's get_rms_norm_tiling_info or (default-constructed) src's set_shape_info, the bounds docs/adv.md
states, the errors, and the emitted Ascend C."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.errors import CodegenError, KernelError
from asc.lib.host import get_rms_norm_max_min_tmp_size, get_rms_norm_tiling_info

from kernels import ascendc_source

CAP = 4096
BOUND = {np.float32: 4e-6, np.float16: 2e-3}  # on |result - exact| / max(1, |exact|)


@asc.jit
def rmsnorm_harness(x: asc.GlobalAddress, g: asc.GlobalAddress, y: asc.GlobalAddress, tiling: asc.adv.RmsNormTiling,
                    eps: float, tmp_bytes: asc.ConstExpr[int]):  # fmt: skip
    pipe = asc.TPipe()
    xb, gb, yb = asc.TBuf(asc.TPosition.VECIN), asc.TBuf(asc.TPosition.VECIN), asc.TBuf(asc.TPosition.VECOUT)
    pipe.init_buffer(xb, CAP * 4)
    pipe.init_buffer(gb, 1024 * 4)
    pipe.init_buffer(yb, CAP * 4)
    xl, gl, yl = xb.get(x.dtype), gb.get(g.dtype), yb.get(y.dtype)
    x_gm, g_gm, y_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    g_gm.set_global_buffer(g)
    y_gm.set_global_buffer(y)
    asc.data_copy(xl, x_gm, CAP)
    asc.data_copy(gl, g_gm, 1024)
    asc.data_copy(yl, y_gm, CAP)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if tmp_bytes:
        tb = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(tb, tmp_bytes)
        asc.adv.rmsnorm(yl, xl, gl, eps, tiling, tb.get(asc.uint8))
    else:
        asc.adv.rmsnorm(yl, xl, gl, eps, tiling)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(y_gm, yl, CAP)


def _reference(x: np.ndarray, gamma: np.ndarray, eps: float, ori_h: int) -> np.ndarray:
    x64 = x.astype(np.float64)
    ms = (x64[..., :ori_h] ** 2).mean(axis=-1, keepdims=True)
    return x64 / np.sqrt(ms + eps) * gamma.astype(np.float64)


# (dtype, [B, S, H], original H, tmp bytes): H 200 (3 repeats and a tail) with the mean over 196, H 16, H 1024;
# the framework's buffer (0) on one dtype
CASES = [
    (np.float32, [2, 3, 200], 196, 2048),
    (np.float32, [1, 2, 1024], 1024, 0),
    (np.float16, [3, 5, 16], 16, 1024),
    (np.float16, [1, 4, 208], 200, 4096),
]


@pytest.mark.parametrize("dtype, shape, ori_h, tmp_bytes", CASES)
def test_rmsnorm_matches_numpy(dtype, shape, ori_h, tmp_bytes):
    rng = np.random.default_rng(shape[-1])
    x = rng.uniform(-3, 3, shape).astype(dtype)
    gamma = rng.uniform(0.5, 2, 1024).astype(dtype)
    tiling = asc.adv.RmsNormTiling()
    assert get_rms_norm_tiling_info(shape, shape[:-1] + [ori_h], tmp_bytes or 16384, x.dtype.itemsize, tiling)
    flat = np.zeros(CAP, dtype)
    flat[: x.size] = x.ravel()
    y = np.full(CAP, 7, dtype)
    rmsnorm_harness[1, rt.current_stream()](flat, gamma, y, tiling, 1e-5, tmp_bytes)
    want = _reference(x, gamma[: shape[-1]], 1e-5, ori_h)
    got = y[: x.size].reshape(shape).astype(np.float64)
    assert np.max(np.abs(got - want) / np.maximum(1.0, np.abs(want))) <= BOUND[dtype]
    assert np.all(y[x.size :] == 7)


@asc.jit
def rmsnorm_shape_info_harness(x: asc.GlobalAddress, g: asc.GlobalAddress, y: asc.GlobalAddress,
                               rows: asc.ConstExpr[int], h: asc.ConstExpr[int]):  # fmt: skip
    """pyasc's unit-test form: a default-constructed tiling; here the shape comes from set_shape_info."""
    x_gm, g_gm, y_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    g_gm.set_global_buffer(g)
    y_gm.set_global_buffer(y)
    src = asc.LocalTensorAuto(x.dtype, rows * h)
    gam = asc.LocalTensorAuto(x.dtype, h)
    dst = asc.LocalTensorAuto(x.dtype, rows * h)
    asc.data_copy(src, x_gm, rows * h)
    asc.data_copy(gam, g_gm, h)
    src.set_shape_info(asc.ShapeInfo(asc.array(asc.int32, (1, rows, h))))
    asc.adv.rmsnorm(dst, src, gam, 1e-6, asc.adv.RmsNormTiling())
    asc.data_copy(y_gm, dst, rows * h)


def test_rmsnorm_takes_the_shape_from_set_shape_info_with_a_default_tiling():
    rng = np.random.default_rng(5)
    x = rng.uniform(-2, 2, (4, 64)).astype(np.float32)
    gamma = rng.uniform(0.5, 2, 64).astype(np.float32)
    y = np.zeros_like(x)
    rmsnorm_shape_info_harness[1, rt.current_stream()](x, gamma, y, 4, 64)
    want = _reference(x, gamma, 1e-6, 64)
    assert np.max(np.abs(y - want) / np.maximum(1.0, np.abs(want))) <= BOUND[np.float32]


def test_a_temporary_buffer_too_small_is_an_error_at_the_call():
    tiling = asc.adv.RmsNormTiling()
    get_rms_norm_tiling_info([1, 2, 1024], [1, 2, 1024], 16384, 4, tiling)
    x = np.zeros(CAP, np.float32)
    with pytest.raises(KernelError, match=r"adv.rmsnorm: the temporary buffer is too small") as e:
        rmsnorm_harness[1, rt.current_stream()](x, x[:1024].copy(), x.copy(), tiling, 1e-5, 2048)
    assert "test_adv_rmsnorm.py" in str(e.value)


def test_host_sizes_and_tiling():
    assert get_rms_norm_max_min_tmp_size([2, 3, 200], 4) == (200 * 4 + 288, 200 * 4 + 288)
    assert get_rms_norm_max_min_tmp_size([2, 3, 208], 2)[1] == 208 * 12 + 288
    t = asc.adv.RmsNormTiling()
    assert not get_rms_norm_tiling_info([2, 3, 200], [2, 3, 196], 100, 4, t)  # less than one row's need
    assert get_rms_norm_tiling_info([2, 3, 200], [2, 3, 196], 4096, 4, t)
    assert (t.b_length, t.s_length, t.h_length, t.original_h_length) == (2, 3, 200, 196)
    assert t.reciprocal_of_h_length == pytest.approx(1 / 196)
    assert t.loop_round * t.main_bs_length + t.tail_bs_length == 6


def test_wrong_dtypes_are_compile_errors():
    @asc.jit
    def bad(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 256)
        g = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 1024, 64)
        asc.adv.rmsnorm(a, a, g, 1e-5, asc.adv.RmsNormTiling())

    with pytest.raises(CodegenError, match="dst, src and gamma must be float16 or float32 alike"):
        bad.compile(np.zeros(4, np.float32))


def test_the_board_gets_the_library_call_with_its_tiling_struct():
    x = np.zeros(CAP, np.float16)
    compiled = rmsnorm_harness.compile(x, x, x, asc.adv.RmsNormTiling(), 1e-5, 1024)
    board = ascendc_source(compiled)
    assert "AscendC::RmsNorm<half, false>(" in board
    assert "RmsNormTiling t{}; t.bLength = " in board and "t.reciprocalOfHLength = " in board
    assert "AscendC::Sqrt(" not in board  # the expansion is left out
    assert "AscendC::Sqrt(" in ascendc_source(compiled, expanded=True)
