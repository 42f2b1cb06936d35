"""Arithmetic the vector unit has no one instruction for: floor division (``//``) and power (``**``).

floor_divide(a, b) is NumPy's floor_divide, the quotient rounded towards minus infinity:

* float16 / float32 (bfloat16 in float32): floor(a / b) (Div, then Floor).
* int16: a / b in float32 (exact operands: |a| < 2**24, so the float quotient is on the right side of every
  integer) converted with CAST_FLOOR.
* int32: float32 holds int32 exactly only below 2**24, so the float quotient q0 = floor(f(a) / f(b)) is off by
  up to 3 * 2**-24 * |a / b| (at most 384); the remainder r = a - q0 * b is exact in int32 and small, and a
  second float step q1 = floor(f(r) / f(b)) brings q0 + q1 within one of the quotient; the last remainder,
  compared with b on the integer compare path, fixes that one.
* a zero divisor gives 0, as NumPy's integer floor_divide does (NumPy warns); float tiles give floor(+-inf)
  or NaN, as IEEE division does.

pow(a, b) is Ascend C's Power (asc.adv.power): float16, float32, int32 (bfloat16 computed in float32)."""

from __future__ import annotations

from typing import Any

import asc
from asc.errors import CodegenError
from asc.language.adv import tmp_sizes
from asc.language.basic.utils import builtin
from asc.language.core.ir_value import Scalar
from asc.language.core.ir_value import cast as scalar_cast

from . import elementwise, ops
from .split import lift
from .tile import Tile, TileLocation

_FLOOR_DIVIDE = (asc.float16, asc.float32, asc.bfloat16, asc.int16, asc.int32)
_POW = (asc.float16, asc.float32, asc.int32)
F32 = asc.float32


def _operands(a: Any, b: Any, what: str, dtypes: tuple) -> tuple[Tile, Any, Any]:
    """The two operands promoted and broadcast as asc2's arithmetic does (a scalar stays a scalar), and the
    tile that gives the result's shape and dtype."""
    from .shape import broadcast_pair

    if not isinstance(a, Tile) and not isinstance(b, Tile):
        raise CodegenError(f"{what}: at least one operand must be a tile")
    a, b = elementwise.promote(a, b, what)
    if isinstance(a, Tile) and isinstance(b, Tile) and a.shape != b.shape:
        a, b = broadcast_pair(what, a, b)
    t = a if isinstance(a, Tile) else b
    if t.location != TileLocation.UB:
        raise CodegenError(f"{what}: operands are Unified Buffer tiles, got {t!r}")
    if t.dtype not in dtypes:
        raise CodegenError(f"{what}: {', '.join(d.name for d in dtypes)} tiles only, got {t.dtype.name}")
    return t, a, b


def _cast(t: Tile, dtype: asc.DataType, mode: Any) -> Tile:
    out = Tile(t.shape, dtype)
    asc.cast(out.buf, t.buf, mode, t.length)
    return out


def _floor_quotient(a: Tile, b: Tile, dtype: asc.DataType) -> Tile:
    """floor(f(a) / f(b)) converted to `dtype` (a, b float32 tiles)."""
    q = Tile(a.shape, F32)
    asc.div(q.buf, a.buf, b.buf, q.length)
    return _cast(q, dtype, asc.RoundMode.CAST_FLOOR)


def _int32_floor_divide(a: Tile, b: Tile) -> Tile:
    fb = _cast(b, F32, asc.RoundMode.CAST_RINT)
    q = _floor_quotient(_cast(a, F32, asc.RoundMode.CAST_RINT), fb, asc.int32)
    r = ops.sub(a, ops.mul(q, b))  # exact: the true remainder of q is small
    q1 = _floor_quotient(_cast(r, F32, asc.RoundMode.CAST_RINT), fb, asc.int32)
    q, r = ops.add(q, q1), ops.sub(r, ops.mul(q1, b))
    # q is now within one of the quotient: the remainder, seen as for a positive divisor, lies in [0, |b|)
    negative = ops.less(b, 0)
    t, size = ops.where(negative, ops.sub(0, r), r), ops.where(negative, ops.sub(0, b), b)
    q = ops.sub(q, ops.where(ops.less(t, 0), 1, 0))
    return ops.add(q, ops.where(ops.greater_equal(t, size), 1, 0))


@builtin
@lift()
def floor_divide(a: Any, b: Any) -> Tile:
    """a // b: the quotient rounded towards minus infinity (module docstring), a tile with a tile or a
    scalar on either side."""
    what = "asc2.floor_divide"
    t, a, b = _operands(a, b, what, _FLOOR_DIVIDE)
    if t.dtype == asc.bfloat16:
        return elementwise.in_float32(floor_divide, asc.bfloat16, a, b)
    a, b = (ops.as_tile(v, t.shape, t.dtype, what) for v in (a, b))
    if t.dtype.is_float():
        return ops.floor(ops.div(a, b))
    if t.dtype == asc.int16:
        q = _floor_quotient(elementwise.widen(a), elementwise.widen(b), asc.int16)
    else:
        q = _int32_floor_divide(a, b)
    return ops.where(ops.equal(b, 0), 0, q)


@builtin
@lift()
def pow(a: Any, b: Any) -> Tile:  # noqa: A001 - asc2's name
    """a ** b element-wise (asc.adv.power: Ascend C's Power), a tile with a tile or a scalar on either side;
    float16, float32 and int32 (bfloat16 computed in float32)."""
    what = "asc2.pow"
    t, a, b = _operands(a, b, what, (*_POW, asc.bfloat16))
    if t.dtype == asc.bfloat16:
        return elementwise.in_float32(pow, asc.bfloat16, a, b)
    a, b = (v if isinstance(v, Tile) else _scalar_of(v, t.dtype, what) for v in (a, b))
    out = Tile(t.shape, t.dtype)
    least, _ = tmp_sizes.min_max_bytes("Power", out.length, t.dtype.sizeof(), t.dtype == asc.int32)
    tmp = asc.LocalTensorAuto(asc.uint8, least)
    asc.adv.power(out.buf, a.buf if isinstance(a, Tile) else a, b.buf if isinstance(b, Tile) else b, out.length, tmp)
    return out


def _scalar_of(value: Any, dtype: asc.DataType, what: str) -> Any:
    if isinstance(value, asc.GlobalAddress):
        value = elementwise.address_value(value)
    if isinstance(value, Scalar):
        return scalar_cast(value, dtype)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value) if dtype == asc.int32 else float(value)
    raise CodegenError(f"{what}: expected a tile or a scalar, got {type(value).__name__}")


__all__ = ["floor_divide", "pow"]
