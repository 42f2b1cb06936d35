"""asc.adv's other element-wise math functions against numpy and scipy.special: exp (its Taylor expansion
levels), log, power (tensor-tensor, tensor-scalar, scalar-tensor), erf, erfc, digamma, lgamma, the rounding
functions, sign, xor and axpy, on every dtype Ascend C documents for each, with the caller's temporary buffer
(small enough to force several chunks and a tail) and the framework's; inputs cover each function's domain (ties at
.5, large magnitudes, the poles' neighbourhoods, the tails), and each function keeps the error bound docs/adv.md
states. A kernel per (function, dtype, buffer): the CPU proof compiles each once."""

import math

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.errors import CodegenError, KernelError

from kernels import ADV_N, ascendc_source, run_adv_unary

try:
    from scipy import special
except ImportError:  # the references then come from Python's math module, element by element
    special = None

COUNT = 1000  # with the small buffers below: several chunks and a tail


def _vectorized(scipy_name, math_fn):
    if special is not None:
        return getattr(special, scipy_name)
    return np.vectorize(math_fn, otypes=[np.float64])


def _digamma_series(x):
    """psi(x) without scipy: recurrence to x >= 10, the asymptotic series, the reflection below 0."""
    if x < 0:
        return _digamma_series(1 - x) - math.pi / math.tan(math.pi * x)
    acc = 0.0
    while x < 10:
        acc -= 1 / x
        x += 1
    v = 1 / (x * x)
    return acc + math.log(x) - 0.5 / x - v * (1 / 12 - v * (1 / 120 - v * (1 / 252 - v / 240)))


ERF = _vectorized("erf", math.erf)
ERFC = _vectorized("erfc", math.erfc)
DIGAMMA = _vectorized("digamma", _digamma_series)
LGAMMA = _vectorized("gammaln", math.lgamma)


def _ties_and_magnitudes(dtype):
    """Half-integers (the ties), negatives, values around and past the last fractional bit, and zeros."""
    big = 2.0**23 if dtype == np.float32 else 2.0**10
    top = 1e30 if dtype == np.float32 else 6e4
    k = np.arange(-60, 60)
    return np.concatenate([k + 0.5, k + 0.25, -k - 0.75, big + np.array([-1.5, -0.5, 0.5, 1, 3]),
                           -big - np.array([0.5, 1.5, 2.5]), np.geomspace(big, top, 20), -np.geomspace(big, top, 20),
                           [0.0, -0.0, 0.49, -0.49, 0.51, -0.51]])  # fmt: skip


def _off_poles(rng, lo, hi, size, gap):
    """Negative non-integers at least `gap` from a pole, and some just `gap` from one."""
    x = rng.uniform(lo, hi, size)
    r = x - np.round(x)
    x = np.where(np.abs(r) < gap, np.round(x) + np.copysign(gap, r + 1e-12), x)
    near = -np.arange(1, 10) + np.array([[gap], [-gap]])
    return np.concatenate([x, near.ravel()])


def _inputs(fn, dtype, rng):
    half = dtype == np.float16
    u = rng.uniform
    if fn in ("ceil", "floor", "trunc", "round", "frac"):
        x = np.concatenate([_ties_and_magnitudes(dtype), u(-100, 100, 300)])
    elif fn == "sign":
        x = np.concatenate([[0.0, -0.0, 1e-30 if not half else 1e-4, -1e-4, 1e30 if not half else 6e4, -3.0],
                            u(-5, 5, 200)])  # fmt: skip
    elif fn in ("erf", "erfc"):
        ties = np.linspace(0.45, 0.55, 21)  # around the switch between erf's two methods
        x = np.concatenate([u(-5, 5, 400), u(-1e-3, 1e-3, 50), ties, -ties, np.linspace(3, 9 if not half else 4, 80),
                            -np.linspace(3, 12, 20)])  # fmt: skip
    elif fn == "digamma":
        x = np.concatenate([u(0.01, 20, 300), _off_poles(rng, -10, 0, 200, 0.02 if not half else 0.05),
                            [1e-3, 1.4616321, 2.0, 1.0], np.geomspace(20, 1e6 if not half else 6e4, 30)])  # fmt: skip
    elif fn == "lgamma":
        x = np.concatenate([u(0.01, 20, 300), _off_poles(rng, -10, 0, 200, 0.02 if not half else 0.05),
                            [1e-3, 1.0, 2.0, 0.5, 2.5, 0.0, -1.0, -3.0],  # lgamma(1) = lgamma(2) = 0, poles +inf
                            np.geomspace(20, 1e6 if not half else 4e3, 30)])  # fmt: skip
    elif fn == "exp":
        x = np.concatenate([u(-80, 80, 400) if not half else u(-10, 11, 400), [0.0, -0.0, 1.0, -1.0, 0.5, -0.5]])
    elif fn == "log":
        x = np.geomspace(1e-30, 1e30, 400) if not half else np.geomspace(1e-4, 6e4, 400)
    x = x.astype(dtype)
    return np.resize(x, ADV_N) if x.size < ADV_N else x[:ADV_N]


# name -> (reference, bound float32, bound float16, floor): the bound is on |result - exact| / max(floor, |exact|)
# (floor 1: absolute below 1, relative above), the exact value computed in float64 from the rounded input.
UNARY = {
    "ceil": (np.ceil, 0, 0, 1),
    "floor": (np.floor, 0, 0, 1),
    "trunc": (np.trunc, 0, 0, 1),
    "round": (np.rint, 0, 0, 1),
    "frac": (lambda x: x - np.trunc(x), 0, 0, 1),
    "sign": (np.sign, 0, 0, 1),
    "erf": (ERF, 2e-7, 5e-4, 1),
    "erfc": (ERFC, 5e-7, 5e-4, 1e-30),  # relative in float32's tail down to erfc(9) ~ 4e-37
    "digamma": (DIGAMMA, 1e-6, 5e-4, 1),
    "lgamma": (LGAMMA, 5e-6, 5e-4, 1),
    "log": (np.log, 1e-7, 5e-4, 1e-30),  # the basic Ln
    "exp": (np.exp, 3e-7, 5e-4, 1e-30),  # level 10
}
# the small caller's buffer per function (several chunks for COUNT elements)
TMP = {"erf": 4096, "erfc": 4096, "digamma": 4096, "lgamma": 4096, "exp": 2048, "log": 256}


def _check(fn, y, x, count, bound, floor, dtype):
    ref = UNARY[fn][0]
    exact = ref(x[:count].astype(np.float64))
    if dtype == np.float16:
        floor = max(floor, 6.1e-5)  # float16's least normal: below it a relative bound means nothing
    with np.errstate(invalid="ignore"):
        error = np.abs(y[:count].astype(np.float64) - exact) / np.maximum(floor, np.abs(exact))
        error = np.where(np.isinf(exact) & (y[:count] == exact), 0.0, error)
    assert not np.isnan(error).any(), f"NaN at x = {x[:count][np.isnan(error)][:5]}"
    assert error.max() <= bound, f"{fn} {dtype.__name__}: error {error.max():.3g} at x = {x[np.argmax(error)]!r}"
    assert np.all(y[count:] == 7)  # nothing past count is written


def _exp_level(level):
    def fn(dst, src, count=None, temp_buffer=None):
        asc.adv.exp(dst, src, count, level, temp_buffer)

    fn.__name__ = f"exp_{level}"
    return asc.language.basic.utils.builtin(fn)


EXP10, EXP0 = _exp_level(10), _exp_level(0)


def _function(fn):
    return EXP10 if fn == "exp" else getattr(asc.adv, fn)


@pytest.mark.parametrize("fn", sorted(UNARY))
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_unary_matches_its_reference_within_its_bound(fn, dtype):
    _, bound32, bound16, floor = UNARY[fn]
    x = _inputs(fn, dtype, np.random.default_rng(1))
    y = run_adv_unary(_function(fn), x, COUNT, TMP.get(fn, 1024))
    _check(fn, y, x, COUNT, bound32 if dtype == np.float32 else bound16, floor, dtype)
    if dtype == np.float32 and fn not in ("ceil", "floor", "trunc"):  # one dtype on the framework's buffer
        y = run_adv_unary(_function(fn), x, ADV_N, 0)
        _check(fn, y, x, ADV_N, bound32, floor, dtype)


def _taylor_remainder(level):
    """The largest relative error of e^d's degree-`level` Taylor polynomial over d in [0, 1): at d -> 1."""
    return 1 - sum(1 / math.factorial(k) for k in range(level + 1)) / math.e


@pytest.mark.parametrize("level", [0, 3, 10])
def test_exp_levels_keep_the_taylor_remainder_bound(level):
    """Level 0 is the Exp instruction; level n leaves e^d's Taylor remainder (1 - T_n(1)/e relative, 1.9e-2
    at level 3, below float32's round-off from level 10) plus float32's round-off."""
    bound = _taylor_remainder(level) + 3e-7
    x = np.random.default_rng(2).uniform(-20, 20, ADV_N).astype(np.float32)
    y = run_adv_unary(EXP0 if level == 0 else EXP10 if level == 10 else _exp_level(level), x, COUNT, 2048)
    exact = np.exp(x[:COUNT].astype(np.float64))
    error = np.abs(y[:COUNT] - exact) / exact
    assert error.max() <= bound
    if level == 3:
        assert error.max() > 0.5 * _taylor_remainder(3)  # the level is honoured: three terms are visibly worse


# ---- two sources: power, xor, axpy --------------------------------------------------------------------------------

TENSORS, TENSOR_SCALAR, SCALAR_TENSOR = 0, 1, 2


@asc.jit
def adv_binary(x0: asc.GlobalAddress, x1: asc.GlobalAddress, y: asc.GlobalAddress, count: int, fn: asc.ConstExpr,
               tmp_bytes: asc.ConstExpr[int], form: asc.ConstExpr[int], scalar: asc.ConstExpr):  # fmt: skip
    """y[:count] = fn(x0, x1) (form 0), fn(x0, scalar) (1) or fn(scalar, x1) (2) with a TBuf temporary buffer of
    tmp_bytes (the framework's when 0); y's other elements stay as they came in."""
    g0 = asc.GlobalTensor()
    g0.set_global_buffer(x0)
    g1 = asc.GlobalTensor()
    g1.set_global_buffer(x1)
    gy = asc.GlobalTensor()
    gy.set_global_buffer(y)
    pipe = asc.TPipe()
    b0 = asc.TBuf(asc.TPosition.VECIN)
    b1 = asc.TBuf(asc.TPosition.VECIN)
    by = asc.TBuf(asc.TPosition.VECOUT)
    pipe.init_buffer(b0, ADV_N * 4)
    pipe.init_buffer(b1, ADV_N * 4)
    pipe.init_buffer(by, ADV_N * 4)
    a0 = b0.get(x0.dtype)
    a1 = b1.get(x1.dtype)
    out = by.get(y.dtype)
    asc.data_copy(a0, g0, ADV_N)
    asc.data_copy(a1, g1, ADV_N)
    asc.data_copy(out, gy, ADV_N)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if tmp_bytes:
        tb = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(tb, tmp_bytes)
        if form == 0:
            fn(out, a0, a1, count, tb.get(asc.uint8))
        elif form == 1:
            fn(out, a0, scalar, count, tb.get(asc.uint8))
        else:
            fn(out, scalar, a1, count, tb.get(asc.uint8))
    else:
        if form == 0:
            fn(out, a0, a1, count=count)
        elif form == 1:
            fn(out, a0, scalar, count=count)
        else:
            fn(out, scalar, a1, count=count)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(gy, out, ADV_N)


def run_binary(fn, x0, x1, y, count, tmp_bytes, form=TENSORS, scalar=0.0):
    y = y.copy()
    adv_binary[1, rt.current_stream()](x0, x1, y, count, fn, tmp_bytes, form, scalar)
    return y


def _power_inputs(dtype, rng):
    """Positive bases with real exponents, negative bases with integer ones, zero exponents and bases."""
    hi = 4.0 if dtype == np.float32 else 3.0
    x = np.concatenate([rng.uniform(0.1, 10, 2000), rng.uniform(-10, -0.1, 1000), [0.0] * 10,
                        rng.uniform(0.5, 2, 1086)])  # fmt: skip
    y = np.concatenate([rng.uniform(-hi, hi, 2000), rng.integers(-3, 4, 1000), rng.integers(1, 3, 10),
                        np.zeros(1086)])  # fmt: skip
    return x.astype(dtype), y.astype(dtype)


def _power_error(got, x, y):
    exact = np.power(x.astype(np.float64), y.astype(np.float64))
    return np.abs(got.astype(np.float64) - exact) / np.maximum(1.0, np.abs(exact))


# the bound on |result - exact| / max(1, |exact|): e^(y ln x) carries ln's and exp's round-off times |y ln x| <= 10
POWER_BOUND = {np.float32: 2e-6, np.float16: 5e-4}


@pytest.mark.parametrize("dtype, tmp_bytes", [(np.float32, 4096), (np.float16, 4096), (np.float32, 0)])
def test_power_of_two_tensors(dtype, tmp_bytes):
    x, y = _power_inputs(dtype, np.random.default_rng(3))
    count = COUNT * 4 if tmp_bytes == 0 else COUNT * 3 + 7
    got = run_binary(asc.adv.power, x, y, np.full(ADV_N, 7, dtype), count, tmp_bytes)
    assert _power_error(got[:count], x[:count], y[:count]).max() <= POWER_BOUND[dtype]
    assert np.all(got[count:] == 7)


def test_power_with_a_scalar_exponent_or_base():
    rng = np.random.default_rng(4)
    x = rng.uniform(0.1, 10, ADV_N).astype(np.float32)
    e = rng.uniform(-3, 3, ADV_N).astype(np.float32)
    got = run_binary(asc.adv.power, x, e, np.full(ADV_N, 7, np.float32), COUNT, 2048, TENSOR_SCALAR, -2.5)
    assert _power_error(got[:COUNT], x[:COUNT], np.float32(-2.5)).max() <= POWER_BOUND[np.float32]
    got = run_binary(asc.adv.power, x, e, np.full(ADV_N, 7, np.float32), COUNT, 2048, SCALAR_TENSOR, 2.0)
    assert _power_error(got[:COUNT], np.float32(2.0), e[:COUNT]).max() <= POWER_BOUND[np.float32]
    assert np.all(got[COUNT:] == 7)


def _int_power(x, y):
    """int32 x^y modulo 2^32; trunc(1 / x^|y|) for y < 0 (0 when x^|y| is 0), as Ascend C's int32 Power."""
    out = np.empty(x.size, np.int64)
    for i, (b, e) in enumerate(zip(x.tolist(), y.tolist())):
        r = pow(b, abs(e), 1 << 32)
        r = r - (1 << 32) if r >= 1 << 31 else r
        out[i] = r if e >= 0 else (0 if r == 0 else int(1 / r))
    return out.astype(np.int32)


@pytest.mark.parametrize("form", [TENSORS, TENSOR_SCALAR])
def test_int32_power_wraps_and_truncates(form):
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.integers(-12, 13, 2000), rng.integers(-(2**31), 2**31, 1000), [0, 0, 1, -1, -1, 2, 3]])
    y = np.concatenate([rng.integers(-3, 11, 2000), rng.integers(0, 2**31, 1000), [0, -2, -5, -3, -4, -1, 40]])
    x, y = np.resize(x, ADV_N).astype(np.int32), np.resize(y, ADV_N).astype(np.int32)
    got = run_binary(asc.adv.power, x, y, np.full(ADV_N, 7, np.int32), 3007, 8192, form, 5)
    want = _int_power(x[:3007], y[:3007] if form == TENSORS else np.full(3007, 5, np.int32))
    np.testing.assert_array_equal(got[:3007], want)
    assert np.all(got[3007:] == 7)


def test_power_special_cases():
    """x^0 = 1 (0^0 too), 0^y (y > 0) = 0, (-2)^3 = -8, (-2)^2 = 4, a negative base's non-integer power is NaN."""
    x = np.resize(np.array([0.0, 5.0, 0.0, -2.0, -2.0, -2.0, 1.0, 3.0], np.float32), ADV_N)
    y = np.resize(np.array([0.0, 0.0, 2.0, 3.0, 2.0, 0.5, 7.5, -1.0], np.float32), ADV_N)
    got = run_binary(asc.adv.power, x, y, np.full(ADV_N, 7, np.float32), COUNT, 4096)
    want = [1.0, 1.0, 0.0, -8.0, 4.0, np.nan, 1.0, 1 / 3]
    np.testing.assert_allclose(got[:8], want, rtol=1e-6)


@pytest.mark.parametrize("dtype, tmp_bytes", [(np.int16, 512), (np.uint16, 512), (np.int16, 0)])
def test_xor_is_bitwise(dtype, tmp_bytes):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(5)
    a = rng.integers(info.min, info.max, ADV_N, endpoint=True).astype(dtype)
    b = rng.integers(info.min, info.max, ADV_N, endpoint=True).astype(dtype)
    count = ADV_N - 3 if tmp_bytes == 0 else COUNT
    got = run_binary(asc.adv.xor, a, b, np.full(ADV_N, 7, dtype), count, tmp_bytes)
    np.testing.assert_array_equal(got[:count], a[:count] ^ b[:count])
    assert np.all(got[count:] == 7)


AXPY_CASES = [(np.float32, np.float32, 1024), (np.float16, np.float16, 1024), (np.float32, np.float16, 1024),
              (np.float16, np.float16, 0)]  # fmt: skip


@pytest.mark.parametrize("dst, src, tmp_bytes", AXPY_CASES)
def test_axpy_adds_the_scaled_source_to_dst(dst, src, tmp_bytes):
    rng = np.random.default_rng(6)
    x = rng.uniform(-100, 100, ADV_N).astype(src)
    acc = rng.uniform(-100, 100, ADV_N).astype(dst)
    scalar = 0.3  # not a float16 value: the scalar is src's dtype, so float16 sources use 0.2998...
    got = run_binary(asc.adv.axpy, x, x, acc, COUNT, tmp_bytes, TENSOR_SCALAR, scalar)
    product = x[:COUNT].astype(np.float64) * np.float64(src(scalar))
    exact = product + acc[:COUNT].astype(np.float64)
    # the product and the sum each rounded in float32 (one ulp of the operands' magnitude at most), float16's
    # dst rounded once more (half an ulp)
    error = np.abs(got[:COUNT] - exact) / np.maximum(1.0, np.abs(product) + np.abs(acc[:COUNT]))
    assert error.max() <= (1.2e-7 if dst == np.float32 else 4.9e-4)
    np.testing.assert_array_equal(got[COUNT:], acc[COUNT:])


# ---- errors and the emitted source ---------------------------------------------------------------------------------


@pytest.mark.parametrize("call, message", [
    (lambda: run_binary(asc.adv.xor, *[np.zeros(ADV_N, np.float16)] * 3, 100, 512), r"adv.xor: dst, src0 and src1 "
     r"must all be int16 or all uint16, got float16"),
    (lambda: run_binary(asc.adv.axpy, *[np.zeros(ADV_N, np.float16)] * 2, np.zeros(ADV_N, np.int32), 100, 512,
                        TENSOR_SCALAR, 1.0), r"adv.axpy: \(dst, src\) must be"),
    (lambda: run_binary(asc.adv.power, *[np.zeros(ADV_N, np.int16)] * 3, 100, 512), r"adv.power: dst must be "
     r"float16, float32 or int32, got int16"),
    (lambda: run_binary(asc.adv.power, *[np.zeros(ADV_N, np.int32)] * 3, 100, 512, TENSOR_SCALAR, 2.5),
     r"adv.power: a source must be a LocalTensor or a number of dst's dtype \(int32\), got 2.5"),
    (lambda: run_adv_unary(_exp_level(256), np.zeros(ADV_N, np.float32), 100, 1024), r"taylor_expand_level must "
     r"be in \[0, 255\]"),
    (lambda: run_adv_unary(asc.adv.erf, np.zeros(ADV_N, np.int16), 100, 1024), r"adv.erf: dst and src must both be "
     r"float16 or float32"),
])  # fmt: skip
def test_bad_calls_are_errors_naming_the_problem(call, message):
    with pytest.raises(CodegenError, match=message):
        call()


def test_a_temporary_buffer_too_small_is_an_error_at_the_call():
    # erf keeps 9 float32 intermediates (11 for float16) of one 64-element repeat
    with pytest.raises(KernelError, match=r"adv.erf: the temporary buffer holds fewer than 2304 bytes") as e:
        run_adv_unary(asc.adv.erf, np.zeros(ADV_N, np.float32), 256, 256)
    assert "kernels.py" in str(e.value)  # the harness's call, not the library


def test_the_board_gets_the_library_calls():
    from kernels import adv_unary

    compiled = adv_unary.compile(np.zeros(ADV_N, np.float16), np.zeros(ADV_N, np.float16), 100, EXP10, 2048)
    assert "AscendC::Exp<half, 10, false>(" in ascendc_source(compiled)
    cpu = ascendc_source(compiled, expanded=True)
    assert "AscendC::Cast(" in cpu and "// AscendC::Exp<half, 10, false>(" in cpu
    z = np.zeros(ADV_N, np.float32)
    compiled = adv_binary.compile(z, z, z, 100, asc.adv.power, 4096, TENSOR_SCALAR, 2.0)
    assert "AscendC::Power<float, false>(" in ascendc_source(compiled)
    compiled = adv_unary.compile(z, z, 100, asc.adv.log, 256)
    board = ascendc_source(compiled)
    assert "AscendC::Log<float, false>(" in board and "AscendC::Ln(" not in board  # Log takes no buffer


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_power_runs_in_the_hosts_minimum_temporary_buffer_and_not_below(dtype):
    import asc.lib.host as host

    _, low = host.get_power_max_min_tmp_size([ADV_N], 4, type_is_int=dtype == np.int32)
    if dtype == np.int32:
        x, y = np.full(ADV_N, 3, np.int32), np.full(ADV_N, 5, np.int32)
    else:
        x, y = _power_inputs(dtype, np.random.default_rng(4))
    got = run_binary(asc.adv.power, x, y, np.full(ADV_N, 7, dtype), 300, low)
    if dtype == np.int32:
        assert np.all(got[:300] == 243)
    else:
        assert _power_error(got[:300], x[:300], y[:300]).max() <= POWER_BOUND[dtype]
    with pytest.raises(KernelError, match=rf"adv.power: the temporary buffer holds fewer than {low} bytes"):
        run_binary(asc.adv.power, x, y, np.full(ADV_N, 7, dtype), 300, low - 32)
