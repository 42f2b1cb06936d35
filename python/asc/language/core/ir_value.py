"""Run-time values inside a kernel: objects that stand for an IR value."""

from __future__ import annotations

from typing import Any, Union

from ...codegen.context import current_builder
from ...errors import CodegenError
from . import dtype as dt


class IRObject:
    """Anything backed by one IR value (scalars, GM addresses, tensors)."""

    # `_mutable` is set on values created by `var` (a re-bindable local).
    __slots__ = ("handle", "_mutable")

    def _with_handle(self, handle: int) -> IRObject:
        """The same kind of object for another IR value (used by `var`/`assign`)."""
        raise NotImplementedError


class Scalar(IRObject):
    """A run-time scalar: an int/float value only known when the kernel runs."""

    __slots__ = ("dtype",)

    def __init__(self, handle: int, dtype: dt.DataType):
        self.handle, self.dtype = handle, dtype

    def _with_handle(self, handle: int) -> Scalar:
        return Scalar(handle, self.dtype)

    def __repr__(self) -> str:
        return f"Scalar(%{self.handle}: {self.dtype.name})"

    def __bool__(self) -> bool:
        raise CodegenError(
            "a run-time value was used where Python needs a compile-time constant; "
            "use an `if` statement (which becomes a run-time branch) or asc.ConstExpr parameters"
        )

    def __index__(self) -> int:
        raise CodegenError("a run-time value cannot be used as a Python index or size; pass it to asc functions")

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, o):
        return NotImplemented if _defers(o) else binary("add", self, o)

    def __radd__(self, o):
        return NotImplemented if _defers(o) else binary("add", o, self)

    def __sub__(self, o):
        return NotImplemented if _defers(o) else binary("sub", self, o)

    def __rsub__(self, o):
        return NotImplemented if _defers(o) else binary("sub", o, self)

    def __mul__(self, o):
        return NotImplemented if _defers(o) else binary("mul", self, o)

    def __rmul__(self, o):
        return NotImplemented if _defers(o) else binary("mul", o, self)

    def __floordiv__(self, o):
        return NotImplemented if _defers(o) else binary("floordiv", self, o)

    def __rfloordiv__(self, o):
        return NotImplemented if _defers(o) else binary("floordiv", o, self)

    def __mod__(self, o):
        return NotImplemented if _defers(o) else binary("mod", self, o)

    def __rmod__(self, o):
        return NotImplemented if _defers(o) else binary("mod", o, self)

    def __truediv__(self, o):
        return NotImplemented if _defers(o) else binary("truediv", self, o)

    def __rtruediv__(self, o):
        return NotImplemented if _defers(o) else binary("truediv", o, self)

    def __and__(self, o):
        return NotImplemented if _defers(o) else binary("and", self, o)

    def __rand__(self, o):
        return NotImplemented if _defers(o) else binary("and", o, self)

    def __or__(self, o):
        return NotImplemented if _defers(o) else binary("or", self, o)

    def __ror__(self, o):
        return NotImplemented if _defers(o) else binary("or", o, self)

    def __xor__(self, o):
        return NotImplemented if _defers(o) else binary("xor", self, o)

    def __rxor__(self, o):
        return NotImplemented if _defers(o) else binary("xor", o, self)

    def __lshift__(self, o):
        return NotImplemented if _defers(o) else binary("shl", self, o)

    def __rlshift__(self, o):
        return NotImplemented if _defers(o) else binary("shl", o, self)

    def __rshift__(self, o):
        return NotImplemented if _defers(o) else binary("shr", self, o)

    def __rrshift__(self, o):
        return NotImplemented if _defers(o) else binary("shr", o, self)

    def __lt__(self, o):
        return NotImplemented if _defers(o) else binary("cmp.lt", self, o)

    def __le__(self, o):
        return NotImplemented if _defers(o) else binary("cmp.le", self, o)

    def __gt__(self, o):
        return NotImplemented if _defers(o) else binary("cmp.gt", self, o)

    def __ge__(self, o):
        return NotImplemented if _defers(o) else binary("cmp.ge", self, o)

    def __eq__(self, o):
        return NotImplemented if _defers(o) else binary("cmp.eq", self, o)  # type: ignore[override]

    def __ne__(self, o):
        return NotImplemented if _defers(o) else binary("cmp.ne", self, o)  # type: ignore[override]

    def ceildiv(self, o: Any) -> Scalar:
        """(self + o - 1) // o: how many blocks of o cover self."""
        return (self + o - 1) // o

    def __neg__(self) -> Scalar:
        return Scalar(current_builder().op("arith.neg", [self.handle]), self.dtype)

    def __pos__(self) -> Scalar:
        return self

    def __invert__(self) -> Scalar:
        if not self.dtype.is_int():
            raise CodegenError(f"~ needs an integer, got {self.dtype.name}")
        return binary("xor", self, -1)


Number = Union[int, float, bool]
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


def is_runtime(value: Any) -> bool:
    return isinstance(value, IRObject)


def const(value: Number, dtype: dt.DataType) -> Scalar:
    if dtype.is_float():
        attr: Number = float(value)
    else:
        if isinstance(value, float) and not value.is_integer():
            raise CodegenError(f"{value} is not an integer and cannot be a {dtype.name}")
        attr = int(value)
    return Scalar(current_builder().op("const", [], {"dtype": dtype.code, "value": attr}), dtype)


def literal_dtype(value: Number, other: dt.DataType | None = None) -> dt.DataType:
    """The dtype a Python literal takes next to a value of dtype `other`."""
    if isinstance(value, bool):
        return dt.bool_ if other is None else other
    if isinstance(value, int):
        if other is not None and other.is_float():
            return other
        if other is not None and other != dt.bool_:
            return other if _fits(value, other) else dt.int64
        return dt.int32 if _INT32_MIN <= value <= _INT32_MAX else dt.int64
    if isinstance(value, float):
        return other if other is not None and other.is_float() else dt.float32
    raise CodegenError(f"expected a number or run-time scalar, got {type(value).__name__}")


def _fits(value: int, dtype: dt.DataType) -> bool:
    bits = dtype.bitwidth
    if dtype.is_signed():
        return -(2 ** (bits - 1)) <= value < 2 ** (bits - 1)
    return 0 <= value < 2**bits


def to_scalar(value: Any, dtype: dt.DataType | None = None) -> Scalar:
    """A Scalar for `value`; Python numbers become constants of `dtype` (or their own)."""
    if isinstance(value, Scalar):
        return value if dtype is None else cast(value, dtype)
    if isinstance(value, (bool, int, float)):
        return const(value, dtype or literal_dtype(value))
    raise CodegenError(f"expected a number or run-time scalar, got {type(value).__name__}")


def cast(value: Scalar, dtype: dt.DataType) -> Scalar:
    if value.dtype == dtype:
        return value
    return Scalar(current_builder().op("arith.cast", [value.handle], {"dtype": dtype.code}), dtype)


def to_bool(value: Any) -> Scalar:
    s = to_scalar(value)
    return s if s.dtype == dt.bool_ else binary("cmp.ne", s, 0)


def to_int(value: Any, what: str) -> Scalar:
    """An integer Scalar for an index/length/count argument."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    s = to_scalar(value)
    if not s.dtype.is_int():
        raise CodegenError(f"{what} must be an integer, got {s.dtype.name}")
    return s


_INT_ONLY = {"and", "or", "xor", "shl", "shr"}


def _defers(other: Any) -> bool:
    """Whether `other` implements the operator itself (an asc2 tile with a scalar on the left)."""
    return getattr(other, "__asc_defer_binary__", False)


def binary(op: str, a: Any, b: Any) -> Scalar:
    """Scalar arithmetic/comparison with numpy-like promotion of the operand dtypes."""
    da = a.dtype if isinstance(a, Scalar) else None
    db = b.dtype if isinstance(b, Scalar) else None
    if da is None and db is None:
        raise CodegenError(f"internal: {op} on two constants")
    da = da or literal_dtype(a, db)
    db = db or literal_dtype(b, da)
    common = dt.promote(da, db)
    if common == dt.bool_ and not op.startswith("cmp."):
        common = dt.int32
    if op == "truediv" and not common.is_float():
        common = dt.float32
    if op in _INT_ONLY and not common.is_int():
        raise CodegenError(f"bitwise/shift operators need integers, got {common.name}")
    sa, sb = to_scalar(a, common), to_scalar(b, common)
    name = op if op.startswith("cmp.") else f"arith.{op}"
    result_dtype = dt.bool_ if op.startswith("cmp.") else common
    return Scalar(current_builder().op(name, [sa.handle, sb.handle]), result_dtype)


def logical_not(value: Any) -> Scalar:
    return Scalar(current_builder().op("arith.not", [to_scalar(value).handle]), dt.bool_)


def minmax(op: str, values: list[Any]) -> Any:
    result = values[0]
    for v in values[1:]:
        if not is_runtime(result) and not is_runtime(v):
            result = min(result, v) if op == "min" else max(result, v)
        else:
            result = binary(op, result, v)
    return result
