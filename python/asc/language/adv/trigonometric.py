"""asc.adv's trigonometric and hyperbolic functions (Ascend C's Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Tanh,
Asinh, Acosh, Atanh), each an expansion in basic vector instructions over the temporary buffer through math.py's
`_unary` (pyasc's arguments, float16 widened to float32, chunks sized from the buffer).

The methods (docs/adv.md states each one's measured error bound):

* sin, cos, tan: Cody-Waite range reduction, r = x - k*pi (k*pi/2 for tan) with pi split into four float32 parts
  of which the first three have 8 significant bits, so k*part is exact for |k| < 2^16 (|x| below about 2e5), as
  Ascend C's Sin does (k = round(x/pi), pi in four parts); then a polynomial on the reduced interval and the sign
  or cotangent the quadrant asks for.
* asin, acos, atan: the odd polynomial on a small interval after the classical reductions (asin |x| > 1/2 through
  sqrt((1-|x|)/2); atan |x| > 1 through 1/|x|, then the half-angle formula).
* sinh, cosh, tanh, asinh, acosh, atanh: their exp / ln formulas; where those lose the relative accuracy (near
  0, and acosh near 1) an odd polynomial for sinh, tanh, asinh and atanh, sqrt(2(x-1)) Q(x-1) for acosh.

The polynomial coefficients are near-minimax fits made for this file (Lawson-weighted least squares on Chebyshev
nodes, the relative error of the function weighted). Branches are blended arithmetically with a 0/1 tensor e as
e*a + (1-e)*b: a product with exactly 0 or 1 is exact, so the blend is the chosen branch bit for bit."""

from __future__ import annotations

from typing import Any, Optional, Sequence

import asc

from ..basic.utils import builtin
from ..core.enums import RoundMode
from .math import _unary
from .tmp_sizes import INTERMEDIATES

_INV_PI = 0.31830987334251404  # float32(1/pi)
_HALF_PI = 1.5707963705062866  # float32(pi/2)
# pi = the sum of these with an error below 1e-16; the first three have 8 significant bits
_PI_PARTS = (3.140625, 0.00096893310546875, -1.2814998626708984e-06, 1.984187258941006e-09)
_TINY = 1.1754943508222875e-38  # the smallest normal float32
_HUGE = 1.7014118346046923e38  # 2^127: x * 2^127 clamped to [-1, 1] is sign(x) (0 at 0, +-1 at +-inf)

# sin r = r + r z P(z), z = r^2, |r| <= pi/2 (relative error 2e-11 before rounding)
_SIN = (-0.1666666716337204, 0.008333330973982811, -0.00019840894674416631, 2.7526639314601198e-06,
        -2.3909597857141307e-08)  # fmt: skip
# tan r = r + r z P(z), |r| <= pi/4 (2e-8)
_TAN = (0.3333314061164856, 0.13339200615882874, 0.05338125303387642, 0.024528266862034798, 0.0029744403436779976,
        0.009465598501265049)  # fmt: skip
# asin a = a + a z P(z), z = a^2 <= 1/4 (5e-9)
_ASIN = (0.16666753590106964, 0.07495241612195969, 0.04547709971666336, 0.024147601798176765, 0.042218565940856934)
# atan u = u + u z P(z), |u| <= tan(pi/8) (7e-10)
_ATAN = (-0.33333316445350647, 0.19998489320278168, -0.14243848621845245, 0.10596001148223877,
         -0.060834530740976334)  # fmt: skip


# Near 0, where the exp / ln formulas lose the relative accuracy (sinh, tanh, asinh, atanh of |x| < c): x + x z P(z)
# on |x| <= c, for (c, P): sinh (1, 6e-11; all P's coefficients positive), tanh (0.55, 3e-11), asinh and atanh
# (1/2, 5e-11 and 1.4e-9)
_SINH_0 = (1.0, (0.1666666716337204, 0.008333350531756878, 0.0001983606634894386, 2.8174395083624404e-06))
_TANH_0 = (0.55, (-0.3333333134651184, 0.13333295285701752, -0.053959790617227554, 0.021783767268061638,
                  -0.008416794240474701, 0.002398999407887459))  # fmt: skip
_ASINH_0 = (0.5, (-0.1666666567325592, 0.0749989002943039, -0.044613443315029144, 0.03001450002193451,
                  -0.019985634833574295, 0.009175388142466545))  # fmt: skip
# acosh(1 + d) = sqrt(2d) Q(d), 0 <= d <= 1/2 (1.1e-9)
_ACOSH_1 = (1.0, -0.08333318680524826, 0.018746228888630867, -0.005546187050640583, 0.0017567550530657172,
            -0.00041086654528044164)  # fmt: skip
_ATANH_0 = (0.5, (0.33333298563957214, 0.20002587139606476, 0.14221486449241638, 0.11833959817886353,
                  0.05098551884293556, 0.1771964728832245))  # fmt: skip


def _odd_poly(out: Any, r: Any, z: Any, coeffs: Sequence[float], n: Any) -> None:
    """out = r + r z P(z) by Horner's rule (out may not be r or z)."""
    asc.muls(out, z, coeffs[-1], n)
    asc.adds(out, out, coeffs[-2], n)
    for c in reversed(coeffs[:-2]):
        asc.mul(out, out, z, n)
        asc.adds(out, out, c, n)
    asc.mul(out, out, z, n)
    asc.mul(out, out, r, n)
    asc.add(out, out, r, n)


def _reduce(r: Any, x: Any, k: Any, t: Any, parts: Sequence[float], half: bool, n: Any) -> None:
    """r = x - (k + 1/2 if half else k) * (the sum of parts), one part at a time (t a scratch tensor)."""
    for i, p in enumerate(parts):
        asc.muls(t, k, p, n)
        asc.sub(r, x if i == 0 else r, t, n)
        if half:
            asc.adds(r, r, -p / 2, n)


def _parity(e: Any, k: Any, t: Any, n: Any) -> None:
    """e = k mod 2 (0 or 1) for an integral k; e may be k."""
    asc.muls(t, k, 0.5, n)
    asc.cast(t, t, RoundMode.CAST_FLOOR, n)
    asc.muls(t, t, -2.0, n)
    asc.add(e, k, t, n)


def _sign(s: Any, x: Any, n: Any) -> None:
    """s = sign(x): -1, 1, or 0 at 0 (below 2^-127 in magnitude, x * 2^127)."""
    asc.muls(s, x, _HUGE, n)
    asc.mins(s, s, 1.0, n)
    asc.maxs(s, s, -1.0, n)


def _sin_or_cos(out: Any, x: Any, work: list, n: Any, cos: bool) -> None:
    """sin x = (-1)^k sin(x - k pi), k = round(x / pi); cos x = (-1)^(m+1) sin(x - (m + 1/2) pi), m = floor(x / pi)."""
    k, r, t = work[0], work[1], work[2]
    asc.muls(k, x, _INV_PI, n)
    asc.cast(k, k, RoundMode.CAST_FLOOR if cos else RoundMode.CAST_ROUND, n)
    _reduce(r, x, k, t, _PI_PARTS, cos, n)
    asc.mul(t, r, r, n)
    _odd_poly(out, r, t, _SIN, n)
    # the sign 1 - 2e (sin) or 2e - 1 (cos), e = k mod 2
    _parity(k, k, t, n)
    asc.muls(k, k, 2.0 if cos else -2.0, n)
    asc.adds(k, k, -1.0 if cos else 1.0, n)
    asc.mul(out, out, k, n)


def _sin(out: Any, x: Any, work: list, n: Any) -> None:
    _sin_or_cos(out, x, work, n, cos=False)


def _cos(out: Any, x: Any, work: list, n: Any) -> None:
    _sin_or_cos(out, x, work, n, cos=True)


def _tan(out: Any, x: Any, work: list, n: Any) -> None:
    """tan x = t or -1/t, t = tan(x - k pi/2), k = round(2x / pi), as k is even or odd."""
    k, r, t = work[0], work[1], work[2]
    asc.muls(k, x, 2 * _INV_PI, n)
    asc.cast(k, k, RoundMode.CAST_ROUND, n)
    _reduce(r, x, k, t, [p / 2 for p in _PI_PARTS], False, n)
    asc.mul(t, r, r, n)
    _odd_poly(out, r, t, _TAN, n)
    e = k
    _parity(e, k, t, n)
    # (t (1-e) - e) / ((1-e) + t e): exactly t / 1 or -1 / t
    asc.mul(r, out, e, n)
    asc.muls(t, e, -1.0, n)
    asc.adds(t, t, 1.0, n)
    asc.mul(out, out, t, n)
    asc.add(r, r, t, n)
    asc.sub(out, out, e, n)
    asc.div(out, out, r, n)


def _asin_parts(x: Any, work: list, n: Any) -> Any:
    """q = asin s (the polynomial) into work[0], e (1 where |x| >= 1/2, else 0) in work[1]; work[0..4] used.
    asin |x| is q where e is 0, pi/2 - 2q where it is 1."""
    a, e, ne, z, s = work[0], work[1], work[2], work[3], work[4]
    asc.abs(a, x, n)
    # e = 1 where |x| >= 1/2 (about: either branch is sound near 1/2), there asin a = pi/2 - 2 asin sqrt((1-a)/2)
    asc.adds(e, a, 0.5, n)
    asc.cast(e, e, RoundMode.CAST_FLOOR, n)
    asc.muls(ne, e, -1.0, n)
    asc.adds(ne, ne, 1.0, n)
    # z = e (1-a)/2 + (1-e) a^2, s = e sqrt(z) + (1-e) a
    asc.mul(z, a, a, n)
    asc.mul(z, z, ne, n)
    asc.muls(s, a, -0.5, n)
    asc.adds(s, s, 0.5, n)
    asc.mul(s, s, e, n)
    asc.add(z, z, s, n)
    asc.sqrt(s, z, n)
    asc.mul(s, s, e, n)
    asc.mul(a, a, ne, n)
    asc.add(s, s, a, n)
    q = a
    _odd_poly(q, s, z, _ASIN, n)
    return q


def _asin_abs(x: Any, work: list, n: Any) -> Any:
    """asin |x| into work[0] (work[0..4] used; x is still read by the caller)."""
    q, e, ne = _asin_parts(x, work, n), work[1], work[2]
    # e (pi/2 - 2q) + (1-e) q = q (1 - 3e) + e pi/2
    asc.muls(ne, e, -3.0, n)
    asc.adds(ne, ne, 1.0, n)
    asc.mul(q, q, ne, n)
    asc.muls(e, e, _HALF_PI, n)
    asc.add(q, q, e, n)
    return q


def _asin(out: Any, x: Any, work: list, n: Any) -> None:
    q = _asin_abs(x, work, n)
    _sign(work[1], x, n)
    asc.mul(out, q, work[1], n)


def _acos(out: Any, x: Any, work: list, n: Any) -> None:
    """acos x = pi/2 - sign(x) q for |x| < 1/2, else 2q (x > 0) or pi - 2q: acos keeps its relative accuracy
    near 1. As one expression: sign(x) q (3e - 1) + pi/2 (1 - e sign(x)), each product exact."""
    q, e, t, sg, c = _asin_parts(x, work, n), work[1], work[2], work[3], work[4]
    _sign(sg, x, n)
    asc.muls(t, e, 3.0, n)
    asc.adds(t, t, -1.0, n)
    asc.mul(q, q, t, n)
    asc.mul(q, q, sg, n)
    asc.mul(c, e, sg, n)
    asc.muls(c, c, -_HALF_PI, n)
    asc.adds(c, c, _HALF_PI, n)
    asc.add(out, q, c, n)


def _atan(out: Any, x: Any, work: list, n: Any) -> None:
    """atan a = pi/2 - atan(1/a) for a = |x| >= 1; atan t = 2 atan(t / (1 + sqrt(1 + t^2))) for t <= 1."""
    a, e, t, u = work[0], work[1], work[2], work[3]
    asc.abs(a, x, n)
    asc.cast(e, a, RoundMode.CAST_FLOOR, n)
    asc.mins(e, e, 1.0, n)
    asc.maxs(t, a, _TINY, n)
    asc.reciprocal(t, t, n)
    asc.min(t, t, a, n)
    asc.mul(u, t, t, n)
    asc.adds(u, u, 1.0, n)
    asc.sqrt(u, u, n)
    asc.adds(u, u, 1.0, n)
    asc.div(u, t, u, n)
    asc.mul(t, u, u, n)
    q = a
    _odd_poly(q, u, t, _ATAN, n)
    # e (pi/2 - 2q) + (1-e) 2q = q (2 - 4e) + e pi/2
    asc.muls(t, e, -4.0, n)
    asc.adds(t, t, 2.0, n)
    asc.mul(q, q, t, n)
    asc.muls(e, e, _HALF_PI, n)
    asc.add(q, q, e, n)
    _sign(e, x, n)
    asc.mul(out, q, e, n)


def _near_zero(x: Any, work: list, n: Any, small: tuple) -> Any:
    """The polynomial on x clamped to [-c, c] into work[2] (work[0..2] used): the caller then computes its formula
    in work[0..1] and blends with _blend_near_zero."""
    c, coeffs = small
    xs, z, p = work[0], work[1], work[2]
    asc.mins(xs, x, c, n)
    asc.maxs(xs, xs, -c, n)
    asc.mul(z, xs, xs, n)
    _odd_poly(p, xs, z, coeffs, n)
    return p


def _blend(out: Any, far: Any, p: Any, e: Any, x: Any, n: Any, c: float) -> None:
    """out = far where |x| >= c, else p: e = min(floor(|x| / c), 1) is exactly 0 or 1, so out = far·e + p·(1 − e)
    is exactly one branch. e may be out (it is written last)."""
    asc.abs(e, x, n)
    if c != 1.0:
        asc.muls(e, e, 1.0 / c, n)
    asc.cast(e, e, RoundMode.CAST_FLOOR, n)
    asc.mins(e, e, 1.0, n)
    asc.mul(far, far, e, n)
    asc.muls(e, e, -1.0, n)
    asc.adds(e, e, 1.0, n)
    asc.mul(p, p, e, n)
    asc.add(out, far, p, n)


def _blend_near_zero(out: Any, far: Any, x: Any, work: list, n: Any, small: tuple) -> None:
    """out = far where |x| >= c, else the polynomial in work[2] (work[1] used)."""
    _blend(out, far, work[2], work[1], x, n, small[0])


def _sinh(out: Any, x: Any, work: list, n: Any) -> None:
    """sinh x = (e^x - e^-x) / 2; the polynomial for |x| < 1. In two intermediates, as before the polynomial: it
    is evaluated on x itself (its coefficients are all positive, so no inf - inf) and clamped to [-2, 2], and the
    blend's e goes in out, written first where x is read for the last time."""
    far, p = work[0], work[1]
    asc.exp(far, x, n)
    asc.muls(p, x, -1.0, n)
    asc.exp(p, p, n)
    asc.sub(far, far, p, n)
    asc.muls(far, far, 0.5, n)
    coeffs = _SINH_0[1]
    asc.mul(p, x, x, n)
    asc.muls(p, p, coeffs[-1], n)
    for c in reversed(coeffs[:-1]):
        asc.adds(p, p, c, n)
        asc.mul(p, p, x, n)
        asc.mul(p, p, x, n)
    asc.mul(p, p, x, n)
    asc.add(p, p, x, n)
    asc.mins(p, p, 2.0, n)
    asc.maxs(p, p, -2.0, n)
    _blend(out, far, p, out, x, n, 1.0)  # the formula where |x| >= 1; e in out


def _cosh(out: Any, x: Any, work: list, n: Any) -> None:
    """cosh x = (e^x + e^-x) / 2."""
    asc.exp(work[0], x, n)
    asc.muls(work[1], x, -1.0, n)
    asc.exp(work[1], work[1], n)
    asc.add(work[0], work[0], work[1], n)
    asc.muls(out, work[0], 0.5, n)


def _tanh(out: Any, x: Any, work: list, n: Any) -> None:
    """tanh x = 1 - 2 / (e^2x + 1): 1 where e^2x overflows, -1 where it is 0; the polynomial for |x| < 0.55."""
    _near_zero(x, work, n, _TANH_0)
    asc.muls(work[0], x, 2.0, n)
    asc.exp(work[0], work[0], n)
    asc.adds(work[0], work[0], 1.0, n)
    asc.reciprocal(work[0], work[0], n)
    asc.muls(work[0], work[0], -2.0, n)
    asc.adds(work[0], work[0], 1.0, n)
    _blend_near_zero(out, work[0], x, work, n, _TANH_0)


def _asinh(out: Any, x: Any, work: list, n: Any) -> None:
    """asinh x = sign(x) ln(|x| + sqrt(x^2 + 1)); the polynomial for |x| < 1/2."""
    _near_zero(x, work, n, _ASINH_0)
    a, y = work[0], work[1]
    asc.abs(a, x, n)
    asc.mul(y, a, a, n)
    asc.adds(y, y, 1.0, n)
    asc.sqrt(y, y, n)
    asc.add(y, y, a, n)
    asc.ln(y, y, n)
    _sign(a, x, n)
    asc.mul(a, y, a, n)
    _blend_near_zero(out, a, x, work, n, _ASINH_0)


def _acosh(out: Any, x: Any, work: list, n: Any) -> None:
    """acosh x = ln(x + sqrt((x - 1)(x + 1))) ((x-1)(x+1) keeps the digits x^2 - 1 loses near 1); for x < 3/2,
    where the ln of a sum near 1 loses the relative accuracy, sqrt(2d) Q(d), d = x - 1 (exact) clamped to 1/2."""
    d, near, t = work[0], work[1], work[2]
    asc.adds(d, x, -1.0, n)
    asc.mins(d, d, 0.5, n)
    asc.muls(t, d, _ACOSH_1[-1], n)  # Q by Horner's rule
    for i in range(len(_ACOSH_1) - 2, -1, -1):
        asc.adds(t, t, _ACOSH_1[i], n)
        if i:
            asc.mul(t, t, d, n)
    asc.muls(near, d, 2.0, n)
    asc.sqrt(near, near, n)
    asc.mul(near, near, t, n)
    asc.adds(d, x, -1.0, n)
    asc.adds(t, x, 1.0, n)
    asc.mul(d, d, t, n)
    asc.sqrt(d, d, n)
    asc.add(d, d, x, n)
    asc.ln(d, d, n)
    # e = min(floor(2 (x - 1)), 1): the formula where x >= 3/2
    e = t
    asc.adds(e, x, -1.0, n)
    asc.muls(e, e, 2.0, n)
    asc.cast(e, e, RoundMode.CAST_FLOOR, n)
    asc.mins(e, e, 1.0, n)
    asc.mul(d, d, e, n)
    asc.muls(e, e, -1.0, n)
    asc.adds(e, e, 1.0, n)
    asc.mul(near, near, e, n)
    asc.add(out, d, near, n)


def _atanh(out: Any, x: Any, work: list, n: Any) -> None:
    """atanh x = ln((1 + x) / (1 - x)) / 2; the polynomial for |x| < 1/2."""
    _near_zero(x, work, n, _ATANH_0)
    asc.adds(work[0], x, 1.0, n)
    asc.muls(work[1], x, -1.0, n)
    asc.adds(work[1], work[1], 1.0, n)
    asc.div(work[0], work[0], work[1], n)
    asc.ln(work[0], work[0], n)
    asc.muls(work[0], work[0], 0.5, n)
    _blend_near_zero(out, work[0], x, work, n, _ATANH_0)


# Each public function: pyasc's signature (python/asc/language/adv/math.py there); Ascend C's T is half or float on
# Atlas A2 and the inference AI Core, one page per function from Sin
# (https://hiascend.com/document/detail/zh/canncommercial/800/apiref/ascendcopapi/atlasascendc_api_07_0500.html)
# to Atanh (.../atlasascendc_api_07_0556.html). dst may be src: no expansion writes out before its last read of x.


@builtin
def sin(dst: Any, src: Any, count: Optional[Any] = None, temp_buffer: Optional[Any] = None,
        is_reuse_source: bool = False) -> None:  # fmt: skip
    """Ascend C ``Sin``: dst = sin(src) element-wise."""
    _unary("Sin", dst, src, count, temp_buffer, is_reuse_source, INTERMEDIATES["Sin"], _sin)


@builtin
def cos(dst: Any, src: Any, count: Optional[Any] = None, temp_buffer: Optional[Any] = None,
        is_reuse_source: bool = False) -> None:  # fmt: skip
    """Ascend C ``Cos``: dst = cos(src) element-wise."""
    _unary("Cos", dst, src, count, temp_buffer, is_reuse_source, INTERMEDIATES["Cos"], _cos)


@builtin
def tan(dst: Any, src: Any, count: Optional[Any] = None, temp_buffer: Optional[Any] = None,
        is_reuse_source: bool = False) -> None:  # fmt: skip
    """Ascend C ``Tan``: dst = tan(src) element-wise."""
    _unary("Tan", dst, src, count, temp_buffer, is_reuse_source, INTERMEDIATES["Tan"], _tan)


@builtin
def asin(dst: Any, src: Any, count: Optional[Any] = None, temp_buffer: Optional[Any] = None,
         is_reuse_source: bool = False) -> None:  # fmt: skip
    """Ascend C ``Asin``: dst = asin(src) element-wise, src in [-1, 1]."""
    _unary("Asin", dst, src, count, temp_buffer, is_reuse_source, INTERMEDIATES["Asin"], _asin)


@builtin
def acos(dst: Any, src: Any, count: Optional[Any] = None, temp_buffer: Optional[Any] = None,
         is_reuse_source: bool = False) -> None:  # fmt: skip
    """Ascend C ``Acos``: dst = acos(src) element-wise, src in [-1, 1]."""
    _unary("Acos", dst, src, count, temp_buffer, is_reuse_source, INTERMEDIATES["Acos"], _acos)


@builtin
def atan(dst: Any, src: Any, count: Optional[Any] = None, temp_buffer: Optional[Any] = None,
         is_reuse_source: bool = False) -> None:  # fmt: skip
    """Ascend C ``Atan``: dst = atan(src) element-wise."""
    _unary("Atan", dst, src, count, temp_buffer, is_reuse_source, INTERMEDIATES["Atan"], _atan)


@builtin
def sinh(dst: Any, src: Any, count: Optional[Any] = None, temp_buffer: Optional[Any] = None,
         is_reuse_source: bool = False) -> None:  # fmt: skip
    """Ascend C ``Sinh``: dst = sinh(src) element-wise."""
    _unary("Sinh", dst, src, count, temp_buffer, is_reuse_source, INTERMEDIATES["Sinh"], _sinh)


@builtin
def cosh(dst: Any, src: Any, count: Optional[Any] = None, temp_buffer: Optional[Any] = None,
         is_reuse_source: bool = False) -> None:  # fmt: skip
    """Ascend C ``Cosh``: dst = cosh(src) element-wise, as (e^x + e^-x) / 2."""
    _unary("Cosh", dst, src, count, temp_buffer, is_reuse_source, INTERMEDIATES["Cosh"], _cosh)


@builtin
def tanh(dst: Any, src: Any, count: Optional[Any] = None, temp_buffer: Optional[Any] = None,
         is_reuse_source: bool = False) -> None:  # fmt: skip
    """Ascend C ``Tanh``: dst = tanh(src) element-wise."""
    _unary("Tanh", dst, src, count, temp_buffer, is_reuse_source, INTERMEDIATES["Tanh"], _tanh)


@builtin
def asinh(dst: Any, src: Any, count: Optional[Any] = None, temp_buffer: Optional[Any] = None,
          is_reuse_source: bool = False) -> None:  # fmt: skip
    """Ascend C ``Asinh``: dst = asinh(src) element-wise."""
    _unary("Asinh", dst, src, count, temp_buffer, is_reuse_source, INTERMEDIATES["Asinh"], _asinh)


@builtin
def acosh(dst: Any, src: Any, count: Optional[Any] = None, temp_buffer: Optional[Any] = None,
          is_reuse_source: bool = False) -> None:  # fmt: skip
    """Ascend C ``Acosh``: dst = acosh(src) element-wise, src >= 1."""
    _unary("Acosh", dst, src, count, temp_buffer, is_reuse_source, INTERMEDIATES["Acosh"], _acosh)


@builtin
def atanh(dst: Any, src: Any, count: Optional[Any] = None, temp_buffer: Optional[Any] = None,
          is_reuse_source: bool = False) -> None:  # fmt: skip
    """Ascend C ``Atanh``: dst = atanh(src) element-wise, src in (-1, 1)."""
    _unary("Atanh", dst, src, count, temp_buffer, is_reuse_source, INTERMEDIATES["Atanh"], _atanh)
