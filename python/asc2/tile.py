"""Tile: a value in the Unified Buffer with a static shape, stored densely
row-major in a compiler-placed local tensor (asc.LocalTensorAuto). Tiles are
immutable: every operation makes a new one. A tile assigned again inside a
loop is a loop-carried variable: it gets a buffer of its own, and each
assignment copies the new value into it. Tiles in a cube core's memories
(TileLocation L1 / L0A / L0B / L0C) are asc2.cube.CubeTile."""

from __future__ import annotations

import importlib
import math
from enum import IntEnum
from typing import Any, Optional

import asc
from asc.errors import CodegenError
from asc.language.basic.utils import builtin

from . import dialect, masking

_BLOCK = 32  # bytes: the Unified Buffer's alignment
_ELEMENTS = 128  # a tile's elements are computed on in multiples of this (Tile.length)


class TileLocation(IntEnum):
    """Where a tile lives (PyAsc2's TileLocation, its values): the Unified Buffer, or a cube core's L1, L0A
    (matmul's left operand), L0B (its right operand) or L0C (its result); FIX is accepted as a name only. BT,
    the bias table (matmul's bias row), is ours: PyAsc2 has no bias, asctile (22) does."""

    BT = 22
    L0A = 23
    L0B = 24
    L0C = 25
    UB = 26
    L1 = 27
    FIX = 28


def check_shape(shape: Any, dtype: asc.DataType, what: str, column: bool = False) -> tuple[int, ...]:
    """A tile shape: 1 or 2 compile-time dims > 0; a 2-D tile's rows a whole number of 32-byte blocks, or
    with `column`, also [rows, 1] (a column: dense, what broadcasts over the columns of [rows, cols])."""
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = (shape,)
    try:
        dims = tuple(shape)
    except TypeError:
        raise CodegenError(f"{what}: a tile shape is a list of ints, got {shape!r}") from None
    if not 1 <= len(dims) <= 2:
        raise CodegenError(f"{what}: tiles have 1 or 2 dimensions, got {len(dims)}")
    for d in dims:
        if not isinstance(d, int) or isinstance(d, bool) or d <= 0:
            raise CodegenError(f"{what}: tile dimensions are ints > 0 known while compiling, got {d!r}")
    if len(dims) == 2 and dims[1] * dtype.sizeof() % _BLOCK and not (column and dims[1] == 1):
        raise CodegenError(
            f"{what}: a 2-D tile's last dimension must be a whole number of 32-byte blocks, got "
            f"{dims[1]} x {dtype.sizeof()} bytes"
        )
    return dims


def _operator(name: str, reflected: bool = False, module: str = "ops") -> Any:
    """A binary operator that calls asc2.<module>.<name> (operands swapped for the reflected form)."""

    def method(self: Tile, other: Any) -> Tile:
        fn = getattr(importlib.import_module(f"asc2.{module}"), name)
        return fn(other, self) if reflected else fn(self, other)

    method.__name__ = name
    return method


def _method(name: str, module: str = "ops") -> Any:
    """A method that calls asc2.<module>.<name> with the tile first (a kernel builtin)."""

    def method(self: Tile, *args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(f"asc2.{module}"), name)(self, *args, **kwargs)

    method.__name__ = name
    return builtin(method)


def _shape_method(name: str) -> Any:
    """A method that calls asc2.<name> of asc2.shape with the tile first (a kernel builtin)."""

    def method(self: Tile, *args: Any) -> Any:
        from . import shape

        return getattr(shape, name)(self, *args)

    method.__name__ = name
    return builtin(method)


class Tile:
    """``asc2.load`` / arithmetic / ``asc2.full`` results; ``.shape``, ``.dtype``, ``.size``."""

    __asc_defer_binary__ = True  # `scalar + tile` comes here, not to the scalar
    location = TileLocation.UB  # cube tiles (asc2.cube.CubeTile) live elsewhere

    def __init__(self, shape: tuple[int, ...], dtype: asc.DataType, buf: Optional[asc.LocalTensor] = None):
        self.shape, self.dtype = shape, dtype
        self.buf = buf if buf is not None else asc.LocalTensorAuto(dtype, self.length)
        if buf is None:
            masking.created(self)  # inside asc2.mask regions

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def length(self) -> int:
        """The elements element-wise instructions cover: the size rounded up to a multiple of 128 elements.
        For every dtype that is whole 32-byte blocks (every block a store copies out was written) and, for
        16- and 32-bit dtypes, whole 256-byte repeats (what compare and select need); a tile converted to
        another dtype covers the same elements."""
        return Tile.length_of(self.shape)

    @staticmethod
    def length_of(shape: tuple[int, ...]) -> int:
        """A tile of `shape`'s length (see length)."""
        return -(-math.prod(shape) // _ELEMENTS) * _ELEMENTS

    def __repr__(self) -> str:
        return f"Tile({list(self.shape)}, {self.dtype.name})"

    # -- loop-carried variables (asc.codegen.function_visitor) ----------------------------------------
    def __asc_var__(self) -> Tile:
        var = Tile(self.shape, self.dtype)
        asc.copy(var.buf, self.buf, self.length)
        return var

    def __asc_assign__(self, name: str, value: Any) -> None:
        from .ops import as_tile

        value = as_tile(value, self.shape, self.dtype, f"'{name}' = ...")
        if value.shape != self.shape or value.dtype != self.dtype:
            raise CodegenError(
                f"'{name}' holds a {self!r} across a loop or run-time if; it cannot become a {value!r} there"
            )
        asc.copy(self.buf, value.buf, self.length)

    # -- operators and methods: the functions of asc2.ops ----------------------------------------------
    __add__, __radd__ = _operator("add"), _operator("add", reflected=True)
    __sub__, __rsub__ = _operator("sub"), _operator("sub", reflected=True)
    __mul__, __rmul__ = _operator("mul"), _operator("mul", reflected=True)
    __truediv__, __rtruediv__ = _operator("div"), _operator("div", reflected=True)
    __neg__ = _method("negative")
    __lt__, __le__ = _operator("less"), _operator("less_equal")
    __gt__, __ge__ = _operator("greater"), _operator("greater_equal")
    __eq__, __ne__ = _operator("equal"), _operator("not_equal")  # type: ignore[assignment]
    __hash__ = object.__hash__

    @builtin
    def __matmul__(self, other: Any) -> Any:
        from . import cube

        return cube.matmul(self, other)

    @builtin
    def __rmatmul__(self, other: Any) -> Any:
        from . import cube

        return cube.matmul(other, self)

    @property
    def rank(self) -> int:
        return len(self.shape)

    # bitwise (asc2.bitwise), ** (asc2.pow), // (asc2.floor_divide, unless the kernel's dialect says otherwise:
    # asc2.dialect), abs(t)
    __and__, __rand__ = _operator("bitwise_and", module="bitwise"), _operator("bitwise_and", True, "bitwise")
    __or__, __ror__ = _operator("bitwise_or", module="bitwise"), _operator("bitwise_or", True, "bitwise")
    __xor__, __rxor__ = _operator("bitwise_xor", module="bitwise"), _operator("bitwise_xor", True, "bitwise")
    __invert__ = _method("bitwise_not", "bitwise")
    __pow__, __rpow__ = _operator("pow", module="arith"), _operator("pow", True, "arith")
    __floordiv__ = dialect.method("__floordiv__", _operator("floor_divide", module="arith"))
    __rfloordiv__ = dialect.method("__rfloordiv__", _operator("floor_divide", True, "arith"))
    __abs__ = _method("abs")

    transpose = _method("transpose", "transpose")

    @property
    def T(self) -> Any:  # noqa: N802 - NumPy's name
        from .transpose import transpose

        return transpose(self)

    to = dialect.method("to", _method("to"))
    exp, sqrt, relu = _method("exp"), _method("sqrt"), _method("relu")
    sum, max, min = _method("reduce_sum"), _method("reduce_max"), _method("reduce_min")  # noqa: A003
    # the element-wise area's methods (PyAsc2 binds each unary function and reduce_prod to Tile)
    __lshift__, __rshift__ = _operator("left_shift"), _operator("right_shift")
    prod = _method("reduce_prod")
    sin, cos, tan, sinh, cosh, tanh = (_method(n) for n in ("sin", "cos", "tan", "sinh", "cosh", "tanh"))
    erf, exp2, log, log2, floor, ceil = (_method(n) for n in ("erf", "exp2", "log", "log2", "floor", "ceil"))
    abs, rsqrt, softmax = _method("abs"), _method("rsqrt"), _method("softmax")  # noqa: A003

    def __pos__(self) -> Tile:
        return self

    reshape, ravel = _shape_method("reshape"), _shape_method("ravel")
    expand_dims, squeeze = _shape_method("expand_dims"), _shape_method("squeeze")
    broadcast_to = _shape_method("broadcast_to")


def _share_operators() -> None:
    """Split tiles (asc2.split) take the same operators and element-wise methods."""
    from .split import SplitTile

    for name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
                 "__rtruediv__", "__neg__", "__pos__", "__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__",
                 "__hash__", "to", "exp", "sqrt", "relu", "sum", "max", "min", "__lshift__", "__rshift__", "sin",
                 "cos", "tan", "sinh", "cosh", "tanh", "erf", "exp2", "log", "log2", "floor", "ceil", "abs",
                 "rsqrt", "rank", "__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__", "__invert__",
                 "__pow__", "__rpow__", "__floordiv__", "__rfloordiv__", "__abs__"):  # fmt: skip
        setattr(SplitTile, name, getattr(Tile, name))


_share_operators()
