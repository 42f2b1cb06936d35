"""asc.adv's other element-wise math functions: Exp (with its Taylor expansion level), Log, Power, Erf, Erfc,
Digamma, Lgamma, the rounding functions (Ceil, Floor, Frac, Round, Trunc), Sign, Xor and Axpy, each built from the
basic vector instructions over the temporary buffer with math.py's chunking (float16 widened to float32 in the
temporary buffer and rounded once at the end).

Where a function needs a polynomial or a series, the method is stated at it and in docs/adv.md, with the error
bound test/python/test_adv_elementary.py holds. Ascend C's pages: "Exp", "Log", "Power", "Erf", "Erfc",
"Digamma", "Lgamma", "Ceil", "Floor", "Frac", "Round", "Sign", "Trunc", "Xor", "Axpy" under
https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/83RC1/API/ascendcopapi/ (Math APIs)."""

from __future__ import annotations

import math
from typing import Any, Callable, Optional, Sequence

import asc

from ...errors import CodegenError
from ..basic.utils import builtin, require_local
from ..core import dtype as dt
from ..core.enums import CMPMODE, RoundMode, SelMode
from ..core.ir_value import Scalar, cast, to_scalar
from ..core.tensor import LocalTensor
from .library import call_operands, count_of, inline, library_call, temp_buffer_of
from .math import _float_work, _in_chunks, _in_chunks2, _unary
from .tmp_sizes import BINARY_EXTRA, BINARY_HALF_EXTRA, INTERMEDIATES, POWER_INT32_INTERMEDIATES

# ---- helpers over float32 chunks (every work tensor holds whole 64-element repeats) ----------------------------


def _copy(out: Any, x: Any, n: Any) -> None:
    """out = x (x * 1 keeps -0.0 and NaN as they are)."""
    asc.muls(out, x, 1.0, n)


def _poly(out: Any, t: Any, coeffs: Sequence[float], n: Any) -> None:
    """out = coeffs[0] + t * (coeffs[1] + t * (...)) by Horner's rule; out must not be t."""
    asc.muls(out, t, coeffs[-1], n)
    asc.adds(out, out, coeffs[-2], n)
    for c in reversed(coeffs[:-2]):
        asc.mul(out, out, t, n)
        asc.adds(out, out, c, n)


def _where(out: Any, scratch: Sequence[Any], cond: Any, cmp: CMPMODE, value: float, a: Any, b: Any, n: Any) -> None:
    """out = a where (cond <cmp> value) else b (a tensor or a number). The compare runs over whole 256-byte repeats
    (Ascend C's rule), so cond is copied into scratch[1] (a work tensor) after zeroing its last repeat: the tail
    repeat's lanes past n are defined; the bits go to scratch[0], the select runs over n."""
    whole = (n + 63) // 64 * 64
    padded = scratch[1]
    asc.duplicate(padded[whole - 64 :], 0.0, 64)
    _copy(padded, cond, n)
    mask = scratch[0].reinterpret_cast(dt.uint8)
    asc.compare_scalar(mask, padded, value, cmp, whole)
    mode = SelMode.VSEL_TENSOR_TENSOR_MODE if isinstance(b, LocalTensor) else SelMode.VSEL_TENSOR_SCALAR_MODE
    asc.select(out, mask, a, b, mode, n)


_HUGE = 2.0**100


def _sign(out: Any, x: Any, n: Any) -> None:
    """out = -1, 0 or 1: x scaled by 2^200 (every nonzero float32 reaches magnitude >= 1, or infinity) and
    clamped to [-1, 1]; 0 stays 0."""
    asc.muls(out, x, _HUGE, n)
    asc.muls(out, out, _HUGE, n)
    asc.maxs(out, out, -1.0, n)
    asc.mins(out, out, 1.0, n)


# sin(u) = u * S(u^2), cos(u) = C(u^2) by their Taylor series, |u| <= pi/2: truncation below 1e-9.
_SIN = [(-1.0) ** k / math.factorial(2 * k + 1) for k in range(8)]
_COS = [(-1.0) ** k / math.factorial(2 * k) for k in range(9)]


def _sin_cos_pi(s: Any, c: Any, x: Any, u2: Any, n: Any) -> None:
    """s = sin(pi r), c = cos(pi r) for r = x - rint(x) in [-1/2, 1/2] (so |sin(pi x)| = |s|, cot(pi x) = c/s)."""
    asc.cast(c, x, RoundMode.CAST_RINT, n)
    asc.sub(c, x, c, n)
    asc.muls(s, c, math.pi, n)  # u = pi r
    asc.mul(u2, s, s, n)
    _poly(c, u2, _SIN, n)
    asc.mul(s, s, c, n)
    _poly(c, u2, _COS, n)


# ---- Exp ---------------------------------------------------------------------------------------------------------


def _exp_taylor(level: int) -> Callable[..., None]:
    def compute(out: Any, x: Any, work: list, n: Any) -> None:
        """e^x = e^floor(x) * e^d, d = x - floor(x) in [0, 1), e^d by its Taylor polynomial of degree `level`
        (Horner: 1 + d (1 + d/2 (1 + ... (1 + d/level)))), as Ascend C's Exp documents."""
        i, d, p = work[0], work[1], work[2]
        asc.cast(i, x, RoundMode.CAST_FLOOR, n)
        asc.sub(d, x, i, n)
        asc.exp(i, i, n)
        asc.muls(p, d, 1.0 / level, n)
        asc.adds(p, p, 1.0, n)
        for k in range(level - 1, 0, -1):
            asc.mul(p, p, d, n)
            asc.muls(p, p, 1.0 / k, n)
            asc.adds(p, p, 1.0, n)
        asc.mul(out, p, i, n)

    return compute


@builtin
def exp(dst: Any, src: Any, count: Any, taylor_expand_level: Any, temp_buffer: Optional[Any] = None,
        is_reuse_source: bool = False) -> None:  # fmt: skip
    """Ascend C ``Exp<T, taylorExpandLevel, isReuseSource>``: dst = e^src. Level 0 is the basic Exp
    instruction; a level n > 0 computes e^floor(x) * (the degree-n Taylor polynomial of e^(x - floor(x)))."""
    if isinstance(taylor_expand_level, bool) or not isinstance(taylor_expand_level, int):
        raise CodegenError(
            f"adv.exp: taylor_expand_level must be a Python int (Ascend C's template argument), "
            f"got {type(taylor_expand_level).__name__}"
        )
    if not 0 <= taylor_expand_level <= 255:
        raise CodegenError(f"adv.exp: taylor_expand_level must be in [0, 255] (uint8_t), got {taylor_expand_level}")
    level = taylor_expand_level
    if level == 0:
        d, s = require_local(dst, "adv.exp", "dst"), require_local(src, "adv.exp", "src")
        _float_pair("adv.exp", d, s)
        tmp = temp_buffer_of(temp_buffer, "adv.exp") if temp_buffer is not None else None
        n = count_of(count, s, "adv.exp")
        operands, args = call_operands([d, s], tmp, n)
        reuse = "true" if is_reuse_source else "false"
        library_call(f"AscendC::Exp<{{T:0}}, 0, {reuse}>({args})", operands, lambda: asc.exp(d, s, n))
        return
    _unary("Exp", dst, src, count, temp_buffer, is_reuse_source, INTERMEDIATES["Exp"], _exp_taylor(level),
           template=f", {level}", always_count=True)  # fmt: skip


def _float_pair(name: str, d: LocalTensor, s: LocalTensor) -> None:
    if d.dtype != s.dtype or d.dtype not in (dt.float16, dt.float32):
        raise CodegenError(
            f"{name}: dst and src must both be float16 or float32, got {d.dtype.name} and {s.dtype.name}"
        )


# ---- Log ---------------------------------------------------------------------------------------------------------


@builtin
def log(dst: Any, src: Any, count: Optional[Any] = None, temp_buffer: Optional[Any] = None,
        is_reuse_source: bool = False) -> None:  # fmt: skip
    """Ascend C ``Log``: dst = ln(src), the basic Ln instruction in src's dtype. Ascend C's Log takes no temporary
    buffer (pyasc accepts one): a temp_buffer given is checked and not used."""
    d, s = require_local(dst, "adv.log", "dst"), require_local(src, "adv.log", "src")
    _float_pair("adv.log", d, s)
    if temp_buffer is not None:
        temp_buffer_of(temp_buffer, "adv.log")
    n = count_of(count, s, "adv.log")
    reuse = "true" if is_reuse_source else "false"
    operands, args = call_operands([d, s], None, n if count is not None else None)
    library_call(f"AscendC::Log<{{T:0}}, {reuse}>({args})", operands, lambda: asc.ln(d, s, n))


# ---- rounding and sign -------------------------------------------------------------------------------------------


def _rounding(mode: RoundMode) -> Callable[..., None]:
    def compute(out: Any, x: Any, work: list, n: Any) -> None:
        asc.cast(out, x, mode, n)  # float32 -> float32 with the round mode: exact at every magnitude

    return compute


def _frac(out: Any, x: Any, work: list, n: Any) -> None:
    """frac x = x - trunc(x) (exact in float32), with x's sign."""
    asc.cast(work[0], x, RoundMode.CAST_TRUNC, n)
    asc.sub(out, x, work[0], n)


def _sign_fn(out: Any, x: Any, work: list, n: Any) -> None:
    _sign(out, x, n)


def _unary_fn(api: str, compute: Callable[..., None], doc: str) -> Any:
    def fn(dst: Any, src: Any, count: Optional[Any] = None, temp_buffer: Optional[Any] = None,
           is_reuse_source: bool = False) -> None:  # fmt: skip
        _unary(api, dst, src, count, temp_buffer, is_reuse_source, INTERMEDIATES[api], compute)

    fn.__name__ = fn.__qualname__ = api.lower()
    fn.__doc__ = f"Ascend C ``{api}``: {doc}"
    return builtin(fn)


ceil = _unary_fn("Ceil", _rounding(RoundMode.CAST_CEIL), "dst = the least integer >= src (Cast CAST_CEIL).")
floor = _unary_fn("Floor", _rounding(RoundMode.CAST_FLOOR), "dst = the greatest integer <= src (CAST_FLOOR).")
trunc = _unary_fn("Trunc", _rounding(RoundMode.CAST_TRUNC), "dst = src rounded toward zero (CAST_TRUNC).")
round = _unary_fn(  # noqa: A001 - pyasc's name
    "Round", _rounding(RoundMode.CAST_RINT), "dst = src rounded to the nearest integer, ties to even (CAST_RINT)."
)
frac = _unary_fn("Frac", _frac, "dst = src - trunc(src), the fractional part with src's sign.")
sign = _unary_fn("Sign", _sign_fn, "dst = -1, 0 or 1 as src is negative, zero or positive.")


# ---- Erf, Erfc ---------------------------------------------------------------------------------------------------

# erfc(z) = t exp(-z^2 + P(t)), t = 1 / (1 + z/2), z >= 0: the Chebyshev fit of Numerical Recipes (Press et al.,
# section 6.2, "erfcc"), fractional error below 1.2e-7 for every z >= 0.
_ERFC = [-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807, -1.13520398, 1.48851587,
         -0.82215223, 0.17087277]  # fmt: skip
# erf(x) = x * E(x^2) by its Maclaurin series for |x| < 1/2: 2/sqrt(pi) sum (-1)^k x^(2k+1) / (k! (2k+1)).
_ERF = [2.0 / math.sqrt(math.pi) * (-1.0) ** k / (math.factorial(k) * (2 * k + 1)) for k in range(7)]
_ERFC_ZERO = 10.5  # erfc(10.5) < 1e-49: zero in float32 (and the split below stays exact)


def _erfc_abs(out: Any, z: Any, w: list, n: Any) -> None:
    """out = erfc(z) for z = |x| (w: three scratch tensors). z^2 is split as hi^2 + lo (z + hi), hi = z to 8
    fractional bits, so exp(-z^2) keeps float32's relative precision in the tail."""
    t, hi, lo = w
    asc.mins(z, z, _ERFC_ZERO, n)
    asc.muls(t, z, 0.5, n)
    asc.adds(t, t, 1.0, n)
    asc.reciprocal(t, t, n)
    _poly(out, t, _ERFC, n)
    asc.muls(hi, z, 256.0, n)
    asc.cast(hi, hi, RoundMode.CAST_TRUNC, n)
    asc.muls(hi, hi, 1.0 / 256.0, n)
    asc.sub(lo, z, hi, n)
    # -lo (z + hi) + P(t)
    asc.add(t, z, hi, n)
    asc.mul(lo, lo, t, n)
    asc.sub(out, out, lo, n)
    asc.exp(out, out, n)
    # exp(-hi^2), exact argument
    asc.mul(hi, hi, hi, n)
    asc.muls(hi, hi, -1.0, n)
    asc.exp(hi, hi, n)
    asc.mul(out, out, hi, n)
    # t again: 1 / (1 + z/2)
    asc.muls(t, z, 0.5, n)
    asc.adds(t, t, 1.0, n)
    asc.reciprocal(t, t, n)
    asc.mul(out, out, t, n)


def _erfc(out: Any, x: Any, work: list, n: Any) -> None:
    """erfc x = (1 - sign x) + sign x * erfc|x|: exactly erfc|x| for x > 0, 2 - erfc|x| below 0."""
    z, e, s = work[0], work[1], work[2]
    asc.abs(z, x, n)
    _erfc_abs(e, z, work[3:6], n)
    _sign(s, x, n)
    asc.mul(e, e, s, n)
    asc.muls(s, s, -1.0, n)
    asc.adds(s, s, 1.0, n)
    asc.add(out, s, e, n)


def _erf(out: Any, x: Any, work: list, n: Any) -> None:
    """erf x = sign x * (1 - erfc|x|) for |x| >= 1/2; its Maclaurin series below (full relative precision
    near 0)."""
    z, e, s, p = work[0], work[1], work[2], work[6]
    asc.abs(z, x, n)
    _erfc_abs(e, z, work[3:6], n)
    asc.abs(z, x, n)  # _erfc_abs clamped z
    _sign(s, x, n)
    asc.muls(e, e, -1.0, n)
    asc.adds(e, e, 1.0, n)
    asc.mul(e, e, s, n)
    asc.mul(s, x, x, n)
    _poly(p, s, _ERF, n)
    asc.mul(p, p, x, n)
    _where(out, work[7:9], z, CMPMODE.LT, 0.5, p, e, n)


erf = _unary_fn("Erf", _erf, "the error function: a Maclaurin series below |x| = 1/2, 1 - erfc|x| above.")
erfc = _unary_fn("Erfc", _erfc, "the complementary error function (Numerical Recipes' Chebyshev fit).")


# ---- Digamma, Lgamma ---------------------------------------------------------------------------------------------

_DIGAMMA_SHIFT = 6
# psi(w) ~ ln w - 1/(2w) - sum B_2k / (2k w^2k), w >= 6: truncation below 2e-10.
_PSI = [-1.0 / 12, 1.0 / 120, -1.0 / 252, 1.0 / 240]
_LGAMMA_SHIFT = 8
# ln Gamma(w) ~ (w - 1/2) ln w - w + ln(2 pi)/2 + (1/w) sum B_2k / (2k (2k-1) w^(2k-2)), w >= 8: below 1e-11.
_STIRLING = [1.0 / 12, -1.0 / 360, 1.0 / 1260, -1.0 / 1680]


def _reflected(x: Any, y: Any, mask: Any, n: Any) -> None:
    """y = 1 - x where x < 0, else x (the reflection formulas' argument, always > 0 off the poles)."""
    asc.muls(y, x, -1.0, n)
    asc.adds(y, y, 1.0, n)
    _where(y, mask, x, CMPMODE.LT, 0.0, y, x, n)


def _digamma(out: Any, x: Any, work: list, n: Any) -> None:
    """psi(y) = psi(y + 6) - sum_{k<6} 1/(y + k) with psi(y + 6) by its asymptotic series, y > 0; below 0 the
    reflection psi(x) = psi(1 - x) - pi cot(pi x)."""
    xc, y, psi, a, b, c = work[0], work[1], work[2], work[3], work[4], work[5]
    mask = work[6:8]
    _copy(xc, x, n)
    _reflected(xc, y, mask, n)
    asc.adds(a, y, float(_DIGAMMA_SHIFT), n)  # w
    asc.reciprocal(b, a, n)  # 1/w
    asc.mul(c, b, b, n)  # v = 1/w^2
    _poly(psi, c, _PSI, n)
    asc.mul(psi, psi, c, n)
    asc.muls(b, b, -0.5, n)
    asc.add(psi, psi, b, n)
    asc.ln(a, a, n)
    asc.add(psi, psi, a, n)
    for k in range(_DIGAMMA_SHIFT):
        asc.adds(a, y, float(k), n)
        asc.reciprocal(a, a, n)
        asc.sub(psi, psi, a, n)
    # psi(1 - x) - pi cos(pi r) / sin(pi r)
    _sin_cos_pi(a, b, xc, c, n)
    asc.div(b, b, a, n)
    asc.muls(b, b, -math.pi, n)
    asc.add(b, b, psi, n)
    _where(out, mask, xc, CMPMODE.LT, 0.0, b, psi, n)


def _lgamma(out: Any, x: Any, work: list, n: Any) -> None:
    """ln|Gamma(y)| = ln Gamma(y + 8) - ln(y (y+1) ... (y+7)) below 8 (Stirling's series at w >= 8), y > 0;
    below 0 the reflection ln|Gamma(x)| = ln(pi / |sin(pi x)|) - ln Gamma(1 - x)."""
    xc, y, lg, a, b, c, p = work[0], work[1], work[2], work[3], work[4], work[5], work[6]
    mask = work[7:9]
    _copy(xc, x, n)
    _reflected(xc, y, mask, n)
    # w = y + 8 and the product where y < 8, else y and 1
    asc.adds(a, y, float(_LGAMMA_SHIFT), n)
    _where(a, mask, y, CMPMODE.LT, float(_LGAMMA_SHIFT), a, y, n)
    _copy(p, y, n)
    for k in range(1, _LGAMMA_SHIFT):
        asc.adds(b, y, float(k), n)
        asc.mul(p, p, b, n)
    _where(p, mask, y, CMPMODE.LT, float(_LGAMMA_SHIFT), p, 1.0, n)
    # Stirling at w = a
    asc.reciprocal(b, a, n)
    asc.mul(c, b, b, n)
    _poly(lg, c, _STIRLING, n)
    asc.mul(lg, lg, b, n)
    asc.ln(b, a, n)
    asc.adds(c, a, -0.5, n)
    asc.mul(b, b, c, n)
    asc.sub(b, b, a, n)
    asc.add(lg, lg, b, n)
    asc.adds(lg, lg, 0.5 * math.log(2.0 * math.pi), n)
    asc.ln(p, p, n)
    asc.sub(lg, lg, p, n)
    # ln(pi) - ln|sin(pi r)| - lgamma(1 - x)
    _sin_cos_pi(a, b, xc, c, n)
    asc.abs(a, a, n)
    asc.ln(a, a, n)
    asc.muls(a, a, -1.0, n)
    asc.adds(a, a, math.log(math.pi), n)
    asc.sub(a, a, lg, n)
    _where(out, mask, xc, CMPMODE.LT, 0.0, a, lg, n)


digamma = _unary_fn("Digamma", _digamma, "psi(x), the logarithmic derivative of Gamma.")
lgamma = _unary_fn("Lgamma", _lgamma, "ln|Gamma(x)|.")


# ---- Power -------------------------------------------------------------------------------------------------------


def _power(out: Any, x: Any, y: Any, work: list, n: Any) -> None:
    """x^y = e^(y ln a), a = |x| when y is an integer (the sign then (-1)^y), else x (ln of a negative: NaN);
    y = 0 gives 1."""
    a, b, c = work[0], work[1], work[2]
    mask = work[3:5]
    asc.cast(b, y, RoundMode.CAST_FLOOR, n)
    asc.sub(b, y, b, n)  # y - floor(y): 0 for an integer y
    asc.abs(a, x, n)
    _where(a, mask, b, CMPMODE.EQ, 0.0, a, x, n)
    asc.ln(a, a, n)
    asc.mul(a, a, y, n)
    asc.exp(a, a, n)
    # (-1)^y for a negative x: 1 - 4 (y/2 - floor(y/2))
    asc.muls(b, y, 0.5, n)
    asc.cast(c, b, RoundMode.CAST_FLOOR, n)
    asc.sub(b, b, c, n)
    asc.muls(b, b, -4.0, n)
    asc.adds(b, b, 1.0, n)
    asc.mul(b, b, a, n)
    _where(a, mask, x, CMPMODE.LT, 0.0, b, a, n)
    _where(out, mask, y, CMPMODE.NE, 0.0, a, 1.0, n)


def _power_int(out: Any, x: Any, y: Any, work: list, n: Any) -> None:
    """int32 x^y by binary exponentiation over the 31 bits of |y| (products wrap modulo 2^32, as int32 Mul
    does); a negative y gives trunc(1 / x^|y|): 1 or -1 for x = 1 or -1, else 0 (0 for x = 0 too)."""
    e, base, r, h, t = (w.reinterpret_cast(dt.int32) for w in work[:5])
    f, g = work[5], work[6]
    asc.muls(h, y, -1, n)
    asc.max(e, y, h, n)  # |y|
    asc.adds(base, x, 0, n)
    asc.duplicate(r, 1, n)
    for _ in range(31):
        asc.shift_right(h, e, 1, n)
        asc.shift_left(t, h, 1, n)
        asc.sub(t, e, t, n)  # the low bit of e
        asc.adds(e, base, -1, n)
        asc.mul(t, t, e, n)
        asc.adds(t, t, 1, n)  # base where the bit is 1, else 1
        asc.mul(r, r, t, n)
        asc.mul(base, base, base, n)
        asc.adds(e, h, 0, n)
    # trunc(1 / r) for a negative y: 1/r clamped to [-1, 1] and zeroed where r = 0
    asc.cast(f, r, RoundMode.CAST_RINT, n)
    asc.reciprocal(g, f, n)
    asc.maxs(g, g, -1.0, n)
    asc.mins(g, g, 1.0, n)
    asc.abs(f, f, n)
    asc.mins(f, f, 1.0, n)
    asc.mul(g, g, f, n)
    asc.cast(t, g, RoundMode.CAST_TRUNC, n)
    # out = r + [y < 0] (t - r)
    asc.muls(h, y, -1, n)
    asc.maxs(h, h, 0, n)
    asc.mins(h, h, 1, n)
    asc.sub(t, t, r, n)
    asc.mul(t, t, h, n)
    asc.add(out, r, t, n)


def _source(value: Any, dtype: dt.DataType) -> Any:
    """A tensor source as it is; a scalar (Python number or Scalar) as a Scalar of the operation's dtype."""
    if isinstance(value, LocalTensor):
        return value
    if isinstance(value, Scalar):
        return cast(value, dtype)
    if dtype == dt.int32 and isinstance(value, int) and not isinstance(value, bool):
        return to_scalar(value, dtype)
    if dtype != dt.int32 and isinstance(value, (int, float)) and not isinstance(value, bool):
        return to_scalar(float(value), dtype)
    raise CodegenError(
        f"adv.power: a source must be a LocalTensor or a number of dst's dtype ({dtype.name}), got {value!r}"
    )


@builtin
def power(dst: Any, src0: Any, src1: Any, count: Optional[Any] = None, temp_buffer: Optional[Any] = None,
          is_reuse_source: bool = False) -> None:  # fmt: skip
    """Ascend C ``Power``: dst = src0 ^ src1 element-wise; src0 or src1 may be a scalar (Ascend C's
    tensor-scalar and scalar-tensor forms). float16, float32 and int32."""
    d = require_local(dst, "adv.power", "dst")
    if d.dtype not in (dt.float16, dt.float32, dt.int32):
        raise CodegenError(f"adv.power: dst must be float16, float32 or int32, got {d.dtype.name}")
    a, b = _source(src0, d.dtype), _source(src1, d.dtype)
    tensors = [t for t in (a, b) if isinstance(t, LocalTensor)]
    if not tensors:
        raise CodegenError("adv.power: src0 and src1 cannot both be scalars")
    for t, name in ((a, "src0"), (b, "src1")):
        if isinstance(t, LocalTensor) and t.dtype != d.dtype:
            raise CodegenError(f"adv.power: {name} must be {d.dtype.name} as dst is, got {t.dtype.name}")
    integer = d.dtype == dt.int32
    compute = _power_int if integer else _power
    buffers = POWER_INT32_INTERMEDIATES if integer else INTERMEDIATES["Power"]
    _binary("Power", d, a, b, count, temp_buffer, is_reuse_source, buffers, compute, tensors[0])


def _binary(api: str, d: LocalTensor, a: Any, b: Any, count: Any, temp_buffer: Any, is_reuse_source: Any,
            buffers: int, compute: Callable[..., None], like: LocalTensor) -> None:  # fmt: skip
    """compute(out, x, y, work, n) on float32 chunks: x and y the sources widened (float16) or copied (float32,
    int32: then int32 views) into the temporary buffer, a scalar source duplicated there; `like` the tensor source
    the count follows."""
    name = f"adv.{api.lower()}"
    tmp_given = temp_buffer is not None
    tmp = temp_buffer_of(temp_buffer, name)
    n = count_of(count, like, name)
    operands, args = call_operands([d, a, b], tmp if tmp_given else None, n if count is not None else None)
    reuse = "true" if is_reuse_source else "false"
    call = f"AscendC::{api}<{{T:0}}, {reuse}>({args})"
    half, integer = d.dtype == dt.float16, d.dtype == dt.int32
    extra = BINARY_HALF_EXTRA if half else BINARY_EXTRA

    def load(w: Any, src: Any, m: Any) -> None:
        if integer:
            w = w.reinterpret_cast(dt.int32)
            if isinstance(src, LocalTensor):
                asc.adds(w, src, 0, m)
            else:
                asc.duplicate(w, src, m)
        elif not isinstance(src, LocalTensor):
            asc.duplicate(w, cast(src, dt.float32), m)
        elif half:
            asc.cast(w, src, RoundMode.CAST_NONE, m)
        else:
            _copy(w, src, m)

    @builtin
    def body(dst_c: Any, a_c: Any, b_c: Any, t: Any, chunk: Any, m: Any) -> None:
        work = [_float_work(t, chunk, i) for i in range(buffers + extra)]
        x, y = work[buffers], work[buffers + 1]
        load(x, a_c if isinstance(a, LocalTensor) else a, m)
        load(y, b_c if isinstance(b, LocalTensor) else b, m)
        if integer:
            x, y = x.reinterpret_cast(dt.int32), y.reinterpret_cast(dt.int32)
        if half:
            out = work[buffers + 2]
            compute(out, x, y, work, m)
            asc.cast(dst_c, out, RoundMode.CAST_RINT, m)
        else:
            compute(dst_c, x, y, work, m)

    src0 = a if isinstance(a, LocalTensor) else like
    src1 = b if isinstance(b, LocalTensor) else like
    library_call(call, operands, lambda: inline(_in_chunks2, body, d, src0, src1, tmp, n, buffers + extra, name))


# ---- Xor ---------------------------------------------------------------------------------------------------------


@builtin
def xor(dst: Any, src0: Any, src1: Any, count: Optional[Any] = None, temp_buffer: Optional[Any] = None,
        is_reuse_source: bool = False) -> None:  # fmt: skip
    """Ascend C ``Xor``: dst = src0 ^ src1 bitwise, int16 or uint16, as (src0 | src1) & ~(src0 & src1)."""
    d = require_local(dst, "adv.xor", "dst")
    a, b = require_local(src0, "adv.xor", "src0"), require_local(src1, "adv.xor", "src1")
    if d.dtype not in (dt.int16, dt.uint16) or a.dtype != d.dtype or b.dtype != d.dtype:
        raise CodegenError(
            f"adv.xor: dst, src0 and src1 must all be int16 or all uint16, got {d.dtype.name}, {a.dtype.name} "
            f"and {b.dtype.name}"
        )
    tmp_given = temp_buffer is not None
    tmp = temp_buffer_of(temp_buffer, "adv.xor")
    n = count_of(count, a, "adv.xor")
    operands, args = call_operands([d, a, b], tmp if tmp_given else None, n if count is not None else None)
    reuse = "true" if is_reuse_source else "false"

    @builtin
    def body(dst_c: Any, a_c: Any, b_c: Any, t: Any, chunk: Any, m: Any) -> None:
        w = t.reinterpret_cast(d.dtype)
        asc.bitwise_and(w, a_c, b_c, m)
        asc.bitwise_not(w, w, m)
        asc.bitwise_or(dst_c, a_c, b_c, m)
        asc.bitwise_and(dst_c, dst_c, w, m)

    # one 16-bit intermediate per element; the chunks are sized as for one float32 one (whole 256-byte repeats)
    library_call(f"AscendC::Xor<{{T:0}}, {reuse}>({args})", operands,
                 lambda: inline(_in_chunks2, body, d, a, b, tmp, n, 1, "adv.xor"))  # fmt: skip


# ---- Axpy --------------------------------------------------------------------------------------------------------

_AXPY_PAIRS = {(dt.float16, dt.float16), (dt.float32, dt.float32), (dt.float32, dt.float16)}


@builtin
def axpy(dst: Any, src: Any, scalar: Any, count: Optional[Any] = None, temp_buffer: Optional[Any] = None,
         is_reuse_source: bool = False) -> None:  # fmt: skip
    """Ascend C ``Axpy<T, U>``: dst = src * scalar + dst, the scalar of src's dtype, computed in float32 (Muls
    then Add) and rounded once: (half, half), (float, float) and the mixed (dst float, src half)."""
    d, s = require_local(dst, "adv.axpy", "dst"), require_local(src, "adv.axpy", "src")
    if (d.dtype, s.dtype) not in _AXPY_PAIRS:
        raise CodegenError(
            f"adv.axpy: (dst, src) must be (float16, float16), (float32, float32) or (float32, float16), got "
            f"({d.dtype.name}, {s.dtype.name})"
        )
    if isinstance(scalar, bool) or not isinstance(scalar, (int, float, Scalar)):
        raise CodegenError(f"adv.axpy: scalar must be a number, got {type(scalar).__name__}")
    k = cast(scalar, s.dtype) if isinstance(scalar, Scalar) else to_scalar(float(scalar), s.dtype)
    tmp = temp_buffer_of(temp_buffer, "adv.axpy")
    n = count_of(count, s, "adv.axpy")
    # Ascend C's Axpy always takes calCount
    operands, args = call_operands([d, s, k], tmp if temp_buffer is not None else None, n)
    reuse = "true" if is_reuse_source else "false"
    k32 = cast(k, dt.float32)
    half_src, half_dst = s.dtype == dt.float16, d.dtype == dt.float16

    @builtin
    def body(dst_c: Any, src_c: Any, t: Any, chunk: Any, m: Any) -> None:
        p = _float_work(t, chunk, 0)
        if half_src:
            asc.cast(p, src_c, RoundMode.CAST_NONE, m)
            asc.muls(p, p, k32, m)
        else:
            asc.muls(p, src_c, k32, m)
        if half_dst:
            acc = _float_work(t, chunk, 1)
            asc.cast(acc, dst_c, RoundMode.CAST_NONE, m)
            asc.add(acc, acc, p, m)
            asc.cast(dst_c, acc, RoundMode.CAST_RINT, m)
        else:
            asc.add(dst_c, dst_c, p, m)

    buffers = 2 if half_dst else 1
    library_call(f"AscendC::Axpy<{{T:0}}, {{T:1}}, {reuse}>({args})", operands,
                 lambda: inline(_in_chunks, body, d, s, tmp, n, buffers, "adv.axpy"))  # fmt: skip
