"""asc.adv's trigonometric and hyperbolic functions against numpy: each function on float32 and float16 with the
caller's small temporary buffer (many chunks, a tail count) over inputs spread across its domain — the range
reduction's hard cases for sin/cos/tan (|x| up to 1e4, the float nearest each k pi/2 and its neighbours), the
domain edges (asin/acos at and near +-1, atanh near +-1, acosh at and near 1) —, all of them with the framework's
buffer in one kernel; the error bound each keeps (docs/adv.md states them); a temporary buffer too small is an
error at the user's line; the emitted Ascend C is each library call (is_reuse_source spelled) for the board."""

import re

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.errors import CodegenError, KernelError

from kernels import ADV_N, ascendc_source, run_adv_unary

COUNT = ADV_N - 5  # a tail: not whole 64-element repeats
# Bounds are on |result - exact| / max(1, |exact|), the exact value computed in float64 from the input as rounded
# to the dtype. float16 results are float32 ones rounded once: the float16 bounds are about 2^-11.
B16 = 5e-4


def _spread(rng, lo, hi, size):
    return rng.uniform(lo, hi, size)


def _signed_log(rng, lo_exp, hi_exp, size):
    return np.where(rng.uniform(size=size) < 0.5, -1.0, 1.0) * 10.0 ** rng.uniform(lo_exp, hi_exp, size)


def _near_quarter_periods(dtype, count):
    """The float nearest k pi/2 (|k pi/2| <= 1e4) and its two neighbours: where sin and cos vanish and tan's
    poles and zeros are, the reduced argument is tiny and the reduction's error shows."""
    k = np.linspace(-6366, 6366, count // 3).round()
    x = (k * np.pi / 2).astype(dtype)
    info = np.finfo(dtype)
    return np.concatenate([x, np.nextafter(x, dtype(info.max)), np.nextafter(x, dtype(info.min))])


def _periodic(rng, dtype):
    return np.concatenate([
        _near_quarter_periods(dtype, 1200),
        _spread(rng, -2 * np.pi, 2 * np.pi, 1200),
        _spread(rng, -1e4, 1e4, ADV_N - 2400),
    ])  # fmt: skip


def _unit(rng, dtype):
    one = np.float64(np.nextafter(dtype(1), dtype(0)))
    edges = [1.0, -1.0, one, -one, 0.0]
    return np.concatenate([edges, 1 - 10 ** rng.uniform(-7, -1, 1000), -1 + 10 ** rng.uniform(-7, -1, 1000),
                           _spread(rng, -1, 1, ADV_N - 2005)])  # fmt: skip


def _open_unit(rng, dtype):
    x = _unit(rng, dtype)[2:]  # atanh(+-1) is +-inf
    one = np.nextafter(dtype(1), dtype(0))
    return np.concatenate([np.clip(x.astype(dtype), -one, one).astype(np.float64), [0.5, -0.5]])


def _at_least_one(rng, dtype):
    return np.concatenate([[1.0, np.float64(np.nextafter(dtype(1), dtype(2)))], 1 + 10 ** rng.uniform(-7, 0, 1500),
                           10 ** rng.uniform(0, 4, ADV_N - 1502)])  # fmt: skip


def _real_line(rng, dtype, big):
    """0, +-inf, [-4, 4], and magnitudes 1e-4 .. 10^big of either sign."""
    return np.concatenate([[0.0, np.inf, -np.inf], _spread(rng, -4, 4, 2000), _signed_log(rng, -4, big, ADV_N - 2003)])


# name -> (numpy function, inputs(rng, dtype) of ADV_N float64 values, bound float32, bound float16)
FUNCTIONS = {
    "sin": (np.sin, _periodic, 1.5e-7, B16),
    "cos": (np.cos, _periodic, 1.5e-7, B16),
    "tan": (np.tan, _periodic, 2e-7, B16),
    "asin": (np.arcsin, _unit, 1.5e-7, B16),
    "acos": (np.arccos, _unit, 1.5e-7, B16),
    "atan": (np.arctan, lambda rng, dtype: _real_line(rng, dtype, 30), 2e-7, B16),
    "sinh": (np.sinh, lambda rng, dtype: _spread(rng, -10, 10, ADV_N), 1.5e-7, B16),
    "cosh": (np.cosh, lambda rng, dtype: _spread(rng, -10, 10, ADV_N), 1.5e-7, B16),
    "tanh": (np.tanh, lambda rng, dtype: _real_line(rng, dtype, 2), 2e-7, B16),
    "asinh": (np.arcsinh, lambda rng, dtype: _real_line(rng, dtype, 4), 1.5e-7, B16),
    "acosh": (np.arccosh, _at_least_one, 1.5e-7, B16),
    "atanh": (np.arctanh, _open_unit, 1e-7, B16),
}


# Where a function's result goes to 0 the metric above is absolute; there the functions keep a relative bound as
# well: |result - exact| / |exact| <= REL[dtype] over the inputs NEAR picks (float16: results of at least its
# smallest normal) — the odd functions near 0, acos near 1, acosh near 1.
ODD = ("asin", "asinh", "atan", "atanh", "sin", "sinh", "tan", "tanh")
NEAR = {fn: (lambda x: (x != 0) & (np.abs(x) < 1)) for fn in ODD}
NEAR["acos"] = lambda x: (x > 0.5) & (x < 1)
NEAR["acosh"] = lambda x: (x > 1) & (x < 1.5)
REL = {np.float32: 2.5e-7, np.float16: B16}


def inputs(fn: str, dtype) -> np.ndarray:
    rng = np.random.default_rng(0)
    x = FUNCTIONS[fn][1](rng, dtype)
    assert x.shape == (ADV_N,)
    if fn in ODD:
        x[-305:-5] = _signed_log(rng, -30, 0, 300)  # 1e-30 .. 1: the relative accuracy near 0
    big = np.finfo(dtype).max
    return np.where(np.isinf(x), x, np.clip(x, -big, big)).astype(dtype)


def error(fn: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    exact = FUNCTIONS[fn][0](x.astype(np.float64))
    got = y.astype(np.float64)
    with np.errstate(invalid="ignore"):  # inf - inf where both are infinite: equal
        return np.where(got == exact, 0.0, np.abs(got - exact) / np.maximum(1.0, np.abs(exact)))


def tmp_bytes(fn: str, dtype) -> int:
    """Room for two 64-element repeats of the function's float32 intermediates: the input goes in 32 chunks."""
    buffers = {"asin": 5, "acos": 5, "atan": 4, "sinh": 2, "cosh": 2}.get(fn, 3)
    return 2 * 256 * (buffers + (2 if dtype == np.float16 else 0))


@pytest.mark.parametrize("fn", sorted(FUNCTIONS))
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_matches_numpy_within_its_bound(fn, dtype):
    x = inputs(fn, dtype)
    y = run_adv_unary(getattr(asc.adv, fn), x, COUNT, tmp_bytes(fn, dtype))
    err = error(fn, x[:COUNT], y[:COUNT])
    bound = FUNCTIONS[fn][2 if dtype == np.float32 else 3]
    assert not np.isnan(err).any(), f"NaN at x = {x[:COUNT][np.isnan(err)][:4]}"
    assert err.max() <= bound, f"{err.max():.3g} at x = {x[np.argmax(err)]!r}"
    if fn in NEAR:
        xs, ys = x[:COUNT], y[:COUNT].astype(np.float64)
        exact = FUNCTIONS[fn][0](xs.astype(np.float64))
        near = NEAR[fn](xs) & (np.abs(exact) >= np.finfo(dtype).tiny)
        rel = np.abs(ys[near] - exact[near]) / np.abs(exact[near])
        assert near.sum() > 200 and rel.max() <= REL[dtype], f"{rel.max():.3g} at x = {xs[near][np.argmax(rel)]!r}"
    assert np.all(y[COUNT:] == 7)  # nothing past count is written


SLICE = 320  # each function's share of the all-functions kernel (whole 32-byte blocks of float32)


@asc.jit
def every_function_framework_buffer(x: asc.GlobalAddress, y: asc.GlobalAddress, count: int):
    """y[i*SLICE:][:count] = f_i(x[i*SLICE:]) for the twelve functions in sorted order, without a temporary buffer
    (the framework's: the Unified Buffer after the pipe's two); sin and tan in place, on y's slice."""
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    y_gm = asc.GlobalTensor()
    y_gm.set_global_buffer(y)
    pipe = asc.TPipe()
    a_buf = asc.TBuf(asc.TPosition.VECIN)
    b_buf = asc.TBuf(asc.TPosition.VECOUT)
    pipe.init_buffer(a_buf, ADV_N * 4)
    pipe.init_buffer(b_buf, ADV_N * 4)
    a = a_buf.get(asc.float32)
    b = b_buf.get(asc.float32)
    asc.data_copy(a, x_gm, ADV_N)
    asc.data_copy(b, y_gm, ADV_N)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.adv.acos(b, a, count)
    asc.adv.acosh(b[SLICE:], a[SLICE:], count=count)
    asc.adv.asin(b[2 * SLICE :], a[2 * SLICE :], count=count)
    asc.adv.asinh(b[3 * SLICE :], a[3 * SLICE :], count=count)
    asc.adv.atan(b[4 * SLICE :], a[4 * SLICE :], count=count)
    asc.adv.atanh(b[5 * SLICE :], a[5 * SLICE :], count=count)
    asc.adv.cos(b[6 * SLICE :], a[6 * SLICE :], count=count)
    asc.adv.cosh(b[7 * SLICE :], a[7 * SLICE :], count=count)
    asc.adv.sin(b[8 * SLICE :], b[8 * SLICE :], count=count)  # in place
    asc.adv.sinh(b[9 * SLICE :], a[9 * SLICE :], count=count)
    asc.adv.tan(b[10 * SLICE :], b[10 * SLICE :], count=count)  # in place
    asc.adv.tanh(b[11 * SLICE :], a[11 * SLICE :], count=count)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(y_gm, b, ADV_N)


def test_every_function_with_the_framework_buffer():
    names = sorted(FUNCTIONS)
    count = SLICE - 3
    # each function's inputs sampled across its whole generated set
    parts = [inputs(fn, np.float32)[np.linspace(0, COUNT - 1, SLICE).astype(int)] for fn in names]
    x = np.zeros(ADV_N, np.float32)
    x[: len(names) * SLICE] = np.concatenate(parts)
    y = np.full(ADV_N, 7, np.float32)
    for i in (names.index("sin"), names.index("tan")):
        y[i * SLICE :][:count] = x[i * SLICE :][:count]
    every_function_framework_buffer[1, rt.current_stream()](x, y, count)
    for i, fn in enumerate(names):
        part, got = x[i * SLICE :][:SLICE], y[i * SLICE :][:SLICE]
        assert error(fn, part[:count], got[:count]).max() <= FUNCTIONS[fn][2], fn
        assert np.all(got[count:] == 7), fn


def test_a_temporary_buffer_too_small_is_an_error_at_the_call():
    # asin's five float32 intermediates, two more for float16: 1792 bytes
    with pytest.raises(KernelError, match=r"adv.asin: the temporary buffer holds fewer than 1792 bytes") as e:
        run_adv_unary(asc.adv.asin, np.zeros(ADV_N, np.float16), 256, 1024)
    assert "kernels.py" in str(e.value)  # the harness's call of the function, not the library


@asc.jit
def spelled(x: asc.GlobalAddress, fn: asc.ConstExpr, dtype: asc.ConstExpr):
    """fn on a whole tensor with is_reuse_source=True, and on 100 elements of it with a temporary buffer."""
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    pipe = asc.TPipe()
    a_buf = asc.TBuf(asc.TPosition.VECIN)
    b_buf = asc.TBuf(asc.TPosition.VECOUT)
    t_buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(a_buf, 1024)
    pipe.init_buffer(b_buf, 1024)
    pipe.init_buffer(t_buf, 4096)
    a = a_buf.get(dtype)
    b = b_buf.get(dtype)
    asc.data_copy(a, x_gm, 256)
    fn(b, a, is_reuse_source=True)
    fn(b, a, 100, t_buf.get(asc.uint8))


@pytest.mark.parametrize("fn", sorted(FUNCTIONS))
def test_the_board_gets_each_library_call_and_the_cpu_proof_the_expansion(fn):
    api = fn.capitalize()
    compiled = spelled.compile(np.zeros(256, np.float16), getattr(asc.adv, fn), asc.float16)
    board = ascendc_source(compiled)
    assert re.search(rf"AscendC::{api}<half, true>\(\w+, \w+\);", board)  # the whole tensor, the framework's buffer
    assert re.search(rf"AscendC::{api}<half, false>\(\w+, \w+, \w+, \w+\);", board)  # count 100, the caller's
    assert "AscendC::Mul(" not in board and "AscendC::Ln(" not in board  # the expansion is left out
    cpu = ascendc_source(compiled, expanded=True)
    assert f"// AscendC::{api}<half, false>(" in cpu and "AscendC::Cast(" in cpu


def test_wrong_dtypes_are_compile_errors():
    with pytest.raises(CodegenError, match=r"adv.tan: dst and src must both be float16 or float32, got int32"):
        spelled.compile(np.zeros(256, np.int32), asc.adv.tan, asc.int32)
