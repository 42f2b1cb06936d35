"""The element-wise lowerings behind asc2's comparisons, where(), math functions, shifts, dtype promotion and
fills, for every dtype PyAsc2 accepts, through the instructions that support it:

* float16 / float32: the instructions themselves (Compare, Select, the adv math library).
* bfloat16 and int16: widened to float32 (Cast with CAST_NONE is exact for both), computed there, and
  narrowed back (CAST_RINT: exact for values that came from the narrow dtype, and the one rounding NumPy and
  torch apply to a bfloat16 sum or product).
* int32 comparisons: float32 holds int32 exactly only below 2**24, so a and b are split into a high half
  (a >> 16, in [-2**15, 2**15)) and a low half (a - (hi << 16), in [0, 2**16)); with d = hi_a - hi_b and
  e = lo_a - lo_b (no overflow), sign(a - b) = sign(2 d + clamp(e, -1, 1)), a value below 2**18 that float32
  compares exactly.
* int32 where(): m in {0, 1} from the mask, then a * m + b * (1 - m) (each product is a value or zero, so
  nothing wraps).

Our Compare and Select rows take float16 and float32, the dtypes the Atlas A2 pages list
(https://www.hiascend.com/document/detail/en/canncommercial/850/API/ascendcopapi/atlasascendc_api_07_0065.html,
https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/800alpha001/apiref/ascendcopapi/atlasascendc_api_07_0067.html),
hence the routes above, which are exact and emit the same Ascend C on every generation."""

from __future__ import annotations

import math
import struct
from typing import Any, Callable, Optional

import asc
from asc.errors import CodegenError
from asc.language.adv import tmp_sizes
from asc.language.core.ir_value import Scalar, to_scalar
from asc.language.core.ir_value import cast as scalar_cast

from .tile import Tile

F32, BF16 = asc.float32, asc.bfloat16
NATIVE = (asc.float16, asc.float32)  # what Compare, Select and the math functions take directly
WIDENED = (asc.bfloat16, asc.int16)  # computed in float32
COMPARABLE = (asc.float16, asc.bfloat16, asc.float32, asc.int16, asc.int32)
_TMP_BYTES = 16 * 1024  # the adv functions' temporary buffer: chunks of this many bytes of intermediates


def _bf16_bits(value: float) -> int:
    """The bfloat16 nearest `value` (ties to even), as its 16 bits."""
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    if math.isnan(value):
        return 0x7FC0
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


def fill(buf: asc.LocalTensor, value: Any, dtype: asc.DataType, count: int) -> None:
    """Duplicate for every tile dtype: bfloat16 (which Duplicate lacks) as the 16 bits of a constant, or a
    run-time value broadcast in float32 and rounded once."""
    if dtype != BF16:
        asc.duplicate(buf, to_scalar(value, dtype), count)
    elif isinstance(value, (bool, int, float)):
        asc.duplicate(buf.reinterpret_cast(asc.uint16), to_scalar(_bf16_bits(float(value)), asc.uint16), count)
    else:
        wide = asc.LocalTensorAuto(F32, count)
        asc.duplicate(wide, scalar_cast(value, F32), count)
        asc.cast(buf, wide, asc.RoundMode.CAST_RINT, count)


def widen(t: Tile) -> Tile:
    """A float32 copy of a bfloat16 or int16 tile (exact)."""
    out = Tile(t.shape, F32)
    asc.cast(out.buf, t.buf, asc.RoundMode.CAST_NONE, t.length)
    return out


def narrow(t: Tile, dtype: asc.DataType) -> Tile:
    """A float32 tile rounded to `dtype` (nearest, ties to even)."""
    out = Tile(t.shape, dtype)
    asc.cast(out.buf, t.buf, asc.RoundMode.CAST_RINT, t.length)
    return out


def wide_scalar(value: Any, dtype: asc.DataType) -> Any:
    """A scalar operand of a `dtype` computation done in float32: first rounded to `dtype` (as the tile's
    values are), then as float32."""
    if isinstance(value, (bool, int, float)):
        if dtype == BF16:
            return struct.unpack("<f", struct.pack("<I", _bf16_bits(float(value)) << 16))[0]
        return float(int(value)) if dtype.is_int() else float(value)
    if isinstance(value, Scalar):
        return scalar_cast(value if value.dtype == dtype else scalar_cast(value, dtype), F32)
    return value


def in_float32(op: Callable[..., Tile], dtype: asc.DataType, *operands: Any) -> Tile:
    """op on the operands widened to float32 (scalars rounded to `dtype` first), its result narrowed back."""
    wide = [widen(v) if isinstance(v, Tile) else wide_scalar(v, dtype) for v in operands]
    result = op(*wide)
    return narrow(result, dtype) if isinstance(result, Tile) else result


def common_dtype(a: asc.DataType, b: asc.DataType) -> Optional[asc.DataType]:
    """PyAsc2's dtype for two tiles of dtypes a and b (its infer_common_dtype): the wider of two signed ints
    or of two floats; of equal widths the float one (the first for two floats); None where it has none."""
    if a == b:
        return a
    if a.is_float() == b.is_float() and a.bitwidth != b.bitwidth:
        return a if a.bitwidth > b.bitwidth else b
    if a.bitwidth == b.bitwidth:
        return a if a.is_float() else b
    return None


def convert(t: Tile, dtype: asc.DataType) -> Tile:
    """t as `dtype` for a promotion: through float32 where Cast has no direct pair (int16 -> int32 and
    float16 <-> bfloat16; both exact or rounded once)."""
    if t.dtype == dtype:
        return t
    if t.dtype != F32 and dtype != F32:
        return convert(convert(t, F32), dtype)
    out = Tile(t.shape, dtype)
    exact = dtype == F32 and t.dtype in (asc.float16, BF16, asc.int16)
    asc.cast(out.buf, t.buf, asc.RoundMode.CAST_NONE if exact else asc.RoundMode.CAST_RINT, t.length)
    return out


def promote(a: Any, b: Any, what: str) -> tuple[Any, Any]:
    """Two tiles of different dtypes converted to their common dtype (other operands as they are)."""
    if not isinstance(a, Tile) or not isinstance(b, Tile) or a.dtype == b.dtype:
        return a, b
    common = common_dtype(a.dtype, b.dtype)
    if common is None or not all(d in COMPARABLE for d in (a.dtype, b.dtype)):
        raise CodegenError(f"{what}: dtypes {a.dtype.name} and {b.dtype.name} have no common dtype; convert one "
                           "with .to(dtype)")  # fmt: skip
    return convert(a, common), convert(b, common)


# -- comparisons -----------------------------------------------------------------------------------


def compare(bits: asc.LocalTensor, a: Tile, b: Any, cmp: asc.CMPMODE, filled: Callable[[Any], Tile]) -> None:
    """Bit i of `bits` = a[i] <cmp> b[i] (b a tile of a's shape and dtype, or a scalar of a's dtype);
    `filled(scalar)` makes a tile of a's shape and dtype holding the scalar."""
    if a.dtype in NATIVE:
        if isinstance(b, Tile):
            asc.compare(bits, a.buf, b.buf, cmp, a.length)
        else:
            asc.compare_scalar(bits, a.buf, b, cmp, a.length)
    elif a.dtype in WIDENED:
        compare(bits, widen(a), widen(b) if isinstance(b, Tile) else wide_scalar(b, a.dtype), cmp, filled)
    elif a.dtype == asc.int32:
        key = _int32_sign_key(a, b if isinstance(b, Tile) else filled(b))
        asc.compare_scalar(bits, key.buf, to_scalar(0.0, F32), cmp, a.length)
    else:
        raise CodegenError(f"comparisons take {', '.join(d.name for d in COMPARABLE)} tiles, got {a.dtype.name}")


def _int32_sign_key(a: Tile, b: Tile) -> Tile:
    """A float32 tile with the sign of a - b at every element, exactly (see the module's note)."""
    n = a.length
    halves = []
    for t in (a, b):
        hi, lo = Tile(t.shape, asc.int32), Tile(t.shape, asc.int32)
        asc.shift_right(hi.buf, t.buf, to_scalar(16, asc.int32), n)
        asc.shift_left(lo.buf, hi.buf, to_scalar(16, asc.int32), n)
        asc.sub(lo.buf, t.buf, lo.buf, n)
        halves.append((hi, lo))
    (hi_a, lo_a), (hi_b, lo_b) = halves
    d, e = Tile(a.shape, asc.int32), Tile(a.shape, asc.int32)
    asc.sub(d.buf, hi_a.buf, hi_b.buf, n)
    asc.sub(e.buf, lo_a.buf, lo_b.buf, n)
    asc.maxs(e.buf, e.buf, to_scalar(-1, asc.int32), n)
    asc.mins(e.buf, e.buf, to_scalar(1, asc.int32), n)
    asc.add(d.buf, d.buf, d.buf, n)
    asc.add(d.buf, d.buf, e.buf, n)
    key = Tile(a.shape, F32)
    asc.cast(key.buf, d.buf, asc.RoundMode.CAST_RINT, n)  # |key| < 2**18: exact
    return key


# -- where -----------------------------------------------------------------------------------------


def select(bits: asc.LocalTensor, a: Tile, b: Any, filled: Callable[[Any], Tile]) -> Tile:
    """A tile: a[i] where bit i is set, else b[i] (b a tile like a, or a scalar of a's dtype)."""
    if a.dtype in NATIVE:
        out = Tile(a.shape, a.dtype)
        if isinstance(b, Tile):
            asc.select(out.buf, bits, a.buf, b.buf, asc.SelMode.VSEL_TENSOR_TENSOR_MODE, out.length)
        else:
            asc.select(out.buf, bits, a.buf, b, asc.SelMode.VSEL_TENSOR_SCALAR_MODE, out.length)
        return out
    if a.dtype in WIDENED:
        return in_float32(lambda x, y: select(bits, x, y, filled), a.dtype, a, b)
    if a.dtype == asc.int32:
        b = b if isinstance(b, Tile) else filled(b)
        n = a.length
        ones = Tile(a.shape, F32)
        asc.duplicate(ones.buf, to_scalar(1.0, F32), n)
        m01 = Tile(a.shape, F32)
        asc.select(m01.buf, bits, ones.buf, to_scalar(0.0, F32), asc.SelMode.VSEL_TENSOR_SCALAR_MODE, n)
        m, rest = Tile(a.shape, asc.int32), Tile(a.shape, asc.int32)
        asc.cast(m.buf, m01.buf, asc.RoundMode.CAST_RINT, n)
        asc.muls(rest.buf, m.buf, to_scalar(-1, asc.int32), n)
        asc.adds(rest.buf, rest.buf, to_scalar(1, asc.int32), n)
        out = Tile(a.shape, asc.int32)
        asc.mul(out.buf, a.buf, m.buf, n)
        asc.mul(rest.buf, b.buf, rest.buf, n)
        asc.add(out.buf, out.buf, rest.buf, n)
        return out
    raise CodegenError(f"asc2.where: values of {', '.join(d.name for d in COMPARABLE)}, got {a.dtype.name}")


# -- math functions --------------------------------------------------------------------------------

_LN2 = math.log(2.0)


def _basic(instruction: Callable) -> Callable[[Tile, Tile], None]:
    return lambda out, t: instruction(out.buf, t.buf, t.length)


def _library(function: Callable, api: str) -> Callable[[Tile, Tile], None]:
    """An adv math function (asc.adv.sin, ...) over the tile, with a temporary buffer of at most
    _TMP_BYTES (at least the one repeat of intermediates it needs)."""

    def apply(out: Tile, t: Tile) -> None:
        least, largest = tmp_sizes.min_max_bytes(api, t.length, t.dtype.sizeof())
        tmp = asc.LocalTensorAuto(asc.uint8, min(largest, max(least, _TMP_BYTES)))
        function(out.buf, t.buf, t.length, tmp)

    return apply


def _exp2(out: Tile, t: Tile) -> None:  # 2**x = e**(x ln 2)
    asc.muls(out.buf, t.buf, to_scalar(_LN2, t.dtype), t.length)
    asc.exp(out.buf, out.buf, t.length)


def _log2(out: Tile, t: Tile) -> None:  # log2 x = ln x / ln 2
    asc.ln(out.buf, t.buf, t.length)
    asc.muls(out.buf, out.buf, to_scalar(1.0 / _LN2, t.dtype), t.length)


MATH: dict[str, Callable[[Tile, Tile], None]] = {
    "exp": _basic(asc.exp),
    "log": _basic(asc.ln),
    "sqrt": _basic(asc.sqrt),
    "rsqrt": _basic(asc.rsqrt),
    "abs": _basic(asc.abs),
    "exp2": _exp2,
    "log2": _log2,
    "sin": _library(asc.adv.sin, "Sin"),
    "cos": _library(asc.adv.cos, "Cos"),
    "tan": _library(asc.adv.tan, "Tan"),
    "sinh": _library(asc.adv.sinh, "Sinh"),
    "cosh": _library(asc.adv.cosh, "Cosh"),
    "tanh": _library(asc.adv.tanh, "Tanh"),
    "erf": _library(asc.adv.erf, "Erf"),
    "floor": _library(asc.adv.floor, "Floor"),
    "ceil": _library(asc.adv.ceil, "Ceil"),
}
# Python's functions for a compile-time number (PyAsc2 takes scalars for exp, erf and sqrt)
MATH_CONSTANT: dict[str, Callable[[float], float]] = {"exp": math.exp, "erf": math.erf, "sqrt": math.sqrt}


def math_function(name: str, t: Tile) -> Tile:
    """asc2.<name>(t) on a float tile (bfloat16 through float32)."""
    if t.dtype == BF16:
        return in_float32(lambda x: math_function(name, x), BF16, t)
    if t.dtype not in NATIVE:
        raise CodegenError(f"asc2.{name}: float16, bfloat16 and float32 tiles only, got {t.dtype.name}")
    out = Tile(t.shape, t.dtype)
    MATH[name](out, t)
    return out


def scalar_function(name: str, value: Scalar) -> Scalar:
    """asc2.<name> of a run-time scalar, as PyAsc2 allows for exp, erf and sqrt: in float32, on a one-element
    tile."""
    t = Tile((1,), F32)
    fill(t.buf, scalar_cast(value, F32), F32, t.length)
    return math_function(name, t).buf.get_value(0)


# -- shifts ----------------------------------------------------------------------------------------

SHIFTABLE = (asc.int16, asc.int32)


def shift(name: str, t: Any, amount: Any) -> Tile:
    """t << amount or t >> amount (arithmetic) by one non-negative int or run-time int for every element."""
    what = f"asc2.{name}"
    if not isinstance(t, Tile):
        raise CodegenError(f"{what}: the shifted value is a tile, got {type(t).__name__}")
    if t.dtype not in SHIFTABLE:
        raise CodegenError(f"{what}: int16 and int32 tiles only, got {t.dtype.name}")
    if isinstance(amount, asc.GlobalAddress):  # a 0-d tensor argument: its one element
        amount = address_value(amount)
    if isinstance(amount, bool) or not (
        isinstance(amount, int) or isinstance(amount, Scalar) and amount.dtype.is_int()
    ):
        raise CodegenError(f"{what}: the shift is a non-negative int or run-time int, got {amount!r}")
    if isinstance(amount, int) and not 0 <= amount < t.dtype.bitwidth:
        raise CodegenError(f"{what}: a shift of {amount} for {t.dtype.bitwidth}-bit elements")
    out = Tile(t.shape, t.dtype)
    instruction = asc.shift_left if name == "left_shift" else asc.shift_right
    instruction(out.buf, t.buf, to_scalar(amount, t.dtype), out.length)
    return out


# -- scalars -----------------------------------------------------------------------------------------


def address_value(ptr: asc.GlobalAddress) -> Scalar:
    """The element at a GM address (a 0-d tensor passed where PyAsc2 takes a scalar), read once."""
    from .memory import _scalar_access

    gm = asc.GlobalTensor()
    gm.set_global_buffer(ptr, 1)
    return _scalar_access(lambda: gm.get_value(0))
