"""The scalar unit's conversion and bit counting: scalar_cast, scalar_get_sff_value, scalar_get_count_of_value,
scalar_count_leading_zero, count_bits_cnt_same_as_sign_bit (Ascend C ScalarCast, ScalarGetSFFValue,
ScalarGetCountOfValue, ScalarCountLeadingZero, CountBitsCntSameAsSignBit). Each is one row of the op table
(src/ir/ops_scalar.cpp), which states the semantics and cites the documentation."""

from __future__ import annotations

from typing import Any

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core import dtype as dt
from ..core.enums import RoundMode
from ..core.ir_value import Scalar, cast, const
from .utils import builtin

_U64 = 1 << 64


def _int_operand(value: Any, dtype: dt.DataType, fn: str) -> Scalar:
    """`value` as a scalar of `dtype` (uint64 or int64): a Python int by its low 64 bits, a run-time integer
    converted as C++ converts it."""
    if isinstance(value, Scalar):
        if not value.dtype.is_int():
            raise CodegenError(f"{fn}: value_in must be an integer, got a {value.dtype.name} scalar")
        return cast(value, dtype)
    if isinstance(value, bool) or not isinstance(value, int):
        raise CodegenError(f"{fn}: value_in must be an integer, got {type(value).__name__}")
    bits = value % _U64
    # the const attribute is an int64: the same 64 bits
    return const(bits - _U64 if bits >= 1 << 63 else bits, dtype)


def _bit_value(count_value: Any, fn: str) -> int:
    # a template argument in Ascend C: a compile-time 0 or 1
    if isinstance(count_value, bool) or not isinstance(count_value, int):
        raise CodegenError(f"{fn}: count_value must be a Python int (a compile-time constant), got {count_value!r}")
    if count_value not in (0, 1):
        raise CodegenError(f"{fn}: count_value must be 0 or 1, got {count_value}")
    return count_value


def _int64_op(name: str, operand: Scalar, attrs: dict[str, int] | None = None) -> Scalar:
    return Scalar(current_builder().op(name, [operand.handle], attrs or {}), dt.int64)


@builtin
def scalar_cast(value_in: Any, dtype: dt.DataType, round_mode: RoundMode) -> Scalar:
    """``AscendC::ScalarCast``: the float32 `value_in` converted to `dtype` by `round_mode`: to asc.half
    (float16) only with RoundMode.CAST_ODD (round to odd), to asc.int32 with CAST_RINT, CAST_FLOOR, CAST_CEIL or
    CAST_ROUND (int32 results saturate, NaN becomes 0, as the vector cast). Returns a scalar of `dtype`."""
    if not isinstance(dtype, dt.DataType):
        raise CodegenError(f"scalar_cast: dtype must be an asc dtype, got {dtype!r}")
    if dtype not in (dt.float16, dt.int32):
        raise CodegenError(f"scalar_cast: converts to asc.half (float16) or asc.int32, not {dtype.name}")
    if not isinstance(round_mode, RoundMode):
        raise CodegenError(f"scalar_cast: round_mode must be an asc.RoundMode, got {round_mode!r}")
    if isinstance(value_in, Scalar):
        if value_in.dtype == dt.bool_:
            raise CodegenError("scalar_cast: value_in must be a number, got a bool scalar")
        value = cast(value_in, dt.float32)
    elif isinstance(value_in, (int, float)) and not isinstance(value_in, bool):
        value = const(float(value_in), dt.float32)
    else:
        raise CodegenError(f"scalar_cast: value_in must be a float, got {type(value_in).__name__}")
    handle = current_builder().op("scalar_cast", [value.handle], {"dtype": dtype.code, "round_mode": int(round_mode)})
    return Scalar(handle, dtype)


@builtin
def scalar_get_sff_value(value_in: Any, count_value: int) -> Scalar:
    """``AscendC::ScalarGetSFFValue``: the index, from the least significant bit, of the first bit of the uint64
    `value_in` equal to `count_value` (0 or 1, a compile-time constant); -1 if there is none (int64)."""
    bit = _bit_value(count_value, "scalar_get_sff_value")
    return _int64_op(
        "scalar_get_sff_value", _int_operand(value_in, dt.uint64, "scalar_get_sff_value"), {"count_value": bit}
    )


@builtin
def scalar_get_count_of_value(value_in: Any, count_value: int) -> Scalar:
    """``AscendC::ScalarGetCountOfValue``: how many of the 64 bits of the uint64 `value_in` equal `count_value`
    (0 or 1, a compile-time constant) (int64)."""
    bit = _bit_value(count_value, "scalar_get_count_of_value")
    return _int64_op(
        "scalar_get_count_of_value",
        _int_operand(value_in, dt.uint64, "scalar_get_count_of_value"),
        {"count_value": bit},
    )


@builtin
def scalar_count_leading_zero(value_in: Any) -> Scalar:
    """``AscendC::ScalarCountLeadingZero``: the zero bits of the uint64 `value_in` above its highest one bit
    (64 for 0) (int64)."""
    return _int64_op("scalar_count_leading_zero", _int_operand(value_in, dt.uint64, "scalar_count_leading_zero"))


@builtin
def count_bits_cnt_same_as_sign_bit(value_in: Any) -> Scalar:
    """``AscendC::CountBitsCntSameAsSignBit``: how many consecutive bits of the int64 `value_in`, from the one
    below the sign bit down, equal the sign bit; -1 for 0 and -1, whose bits all equal it (int64)."""
    return _int64_op(
        "count_bits_cnt_same_as_sign_bit", _int_operand(value_in, dt.int64, "count_bits_cnt_same_as_sign_bit")
    )
