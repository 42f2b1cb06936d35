"""Tile arithmetic, math functions, reductions and creation, each lowered to
the vector instructions in count mode over the tile's elements. Two tiles
combine when their shapes are equal, or broadcast as NumPy does (a row
[cols] or [1, cols] repeated over the rows of [rows, cols], a one-element
tile over any tile: asc2.broadcast_to); a scalar (a Python number or a
run-time value such as a reduction's result) combines with any tile and takes the tile's dtype."""

from __future__ import annotations

from typing import Any, Callable, Optional

import asc
from asc.codegen import regions
from asc.codegen.context import current_builder
from asc.errors import CodegenError
from asc.language.basic.utils import builtin
from asc.language.core.ir_value import Scalar, to_scalar
from asc.language.core.ir_value import cast as scalar_cast

from . import elementwise
from .split import SplitTile, lift, needs_split, reduce_chunks
from .tile import Tile, check_shape

_FLOATS = (asc.float16, asc.float32)


def _scalar(value: Any, dtype: asc.DataType, what: str) -> Scalar:
    if isinstance(value, asc.GlobalAddress):  # a 0-d tensor argument: its one element
        value = elementwise.address_value(value)
    if isinstance(value, Scalar):
        return scalar_cast(value, dtype)
    if isinstance(value, (bool, int, float)):
        return to_scalar(value, dtype)
    raise CodegenError(f"{what}: expected a tile or a scalar, got {type(value).__name__}")


def as_tile(value: Any, shape: tuple, dtype: asc.DataType, what: str) -> Tile:
    """`value` itself if a tile, else a tile of `shape` filled with the scalar."""
    if isinstance(value, Tile):
        return value
    return full(shape, _scalar(value, dtype, what), dtype)


def _float_only(t: Tile, what: str) -> None:
    if t.dtype not in _FLOATS:
        raise CodegenError(f"{what}: float16 and float32 tiles only, got {t.dtype.name}")


def _same(a: Tile, b: Tile, what: str) -> None:
    if a.shape != b.shape:
        raise CodegenError(f"{what}: shapes {list(a.shape)} and {list(b.shape)} differ")
    if a.dtype != b.dtype:
        raise CodegenError(f"{what}: dtypes {a.dtype.name} and {b.dtype.name} differ; convert one with .to(dtype)")


def _binary(name: str, vector: Callable, a: Any, b: Any,
            with_scalar: Optional[Callable[[Tile, Scalar, bool], Tile]]) -> Tile:  # fmt: skip
    what = f"asc2.{name}"
    if not isinstance(a, Tile) and not isinstance(b, Tile):
        raise CodegenError(f"{what}: at least one operand must be a tile")
    a, b = elementwise.promote(a, b, what)  # tiles of two dtypes: PyAsc2's common one
    if any(isinstance(v, Tile) and v.dtype == asc.bfloat16 for v in (a, b)):  # computed in float32
        a, b = (v if isinstance(v, (Tile, int, float)) else _scalar(v, asc.bfloat16, what) for v in (a, b))
        return elementwise.in_float32(lambda x, y: _binary(name, vector, x, y, with_scalar), asc.bfloat16, a, b)
    if isinstance(a, Tile) and isinstance(b, Tile):
        if a.shape != b.shape and _row_of(a, b) is not None:
            return _row_broadcast(what, vector, a, b)
        if a.shape != b.shape and a.dtype == b.dtype:
            a, b = _broadcast(what, a, b)
        _same(a, b, what)
        out = Tile(a.shape, a.dtype)
        vector(out.buf, a.buf, b.buf, out.length)
        return out
    tile, other, tile_first = (a, b, True) if isinstance(a, Tile) else (b, a, False)
    s = _scalar(other, tile.dtype, what)
    if with_scalar is not None:
        return with_scalar(tile, s, tile_first)
    filled = full(tile.shape, s, tile.dtype)
    return _binary(name, vector, tile if tile_first else filled, filled if tile_first else tile, None)


def _row_of(a: Tile, b: Tile) -> Optional[Tile]:
    """Of a [rows, cols] tile and a [cols] or [1, cols] one (either order), the row (NumPy broadcasting of a
    row over the rows); None for other shapes."""
    for big, small in ((a, b), (b, a)):
        if len(big.shape) == 2 and small.shape in ((big.shape[1],), (1, big.shape[1])) and big.shape[0] > 1:
            # rows on 32-byte blocks (not a [rows, 1] column: that one is broadcast as a whole)
            return small if big.shape[1] * big.dtype.sizeof() % 32 == 0 else None
    return None


def _broadcast(what: str, a: Tile, b: Tile) -> tuple[Tile, Tile]:
    """Other shapes NumPy broadcasts (a one-element tile with any tile, [cols] with [1, cols], ...): both
    tiles repeated to the common shape (asc2.broadcast_to)."""
    from .shape import broadcast_pair

    return broadcast_pair(what, a, b)


def _row_broadcast(what: str, vector: Callable, a: Tile, b: Tile) -> Tile:
    """The instruction row by row: [rows, cols] with a row repeated over the rows (rows start on 32-byte
    blocks, so each row is a tensor of its own)."""
    if a.dtype != b.dtype:
        raise CodegenError(f"{what}: dtypes {a.dtype.name} and {b.dtype.name} differ; convert one with .to(dtype)")
    row = _row_of(a, b)
    big = b if row is a else a
    rows, cols = big.shape
    out = _cleared(big.shape, big.dtype)
    with regions.for_range(0, rows) as r:
        at = r * cols
        left, right = (row.buf, big.buf[at:]) if row is a else (big.buf[at:], row.buf)
        vector(out.buf[at:], left, right, cols)
    return out


def _scalar_op(instruction: Callable) -> Callable[[Tile, Scalar, bool], Tile]:
    def apply(t: Tile, s: Scalar, _tile_first: bool) -> Tile:
        out = Tile(t.shape, t.dtype)
        instruction(out.buf, t.buf, s, out.length)
        return out

    return apply


def _sub_scalar(t: Tile, s: Scalar, tile_first: bool) -> Tile:
    out = Tile(t.shape, t.dtype)
    if tile_first:  # t - s is t + (-s), exactly
        asc.adds(out.buf, t.buf, -s, out.length)
    else:  # s - t is (-t) + s, exactly
        asc.muls(out.buf, t.buf, _scalar(-1, t.dtype, "asc2.sub"), out.length)
        asc.adds(out.buf, out.buf, s, out.length)
    return out


@builtin
@lift()
def add(a: Any, b: Any) -> Tile:
    return _binary("add", asc.add, a, b, _scalar_op(asc.adds))


@builtin
@lift()
def sub(a: Any, b: Any) -> Tile:
    return _binary("sub", asc.sub, a, b, _sub_scalar)


@builtin
@lift()
def mul(a: Any, b: Any) -> Tile:
    return _binary("mul", asc.mul, a, b, _scalar_op(asc.muls))


@builtin
@lift()
def div(a: Any, b: Any) -> Tile:
    """a / b in IEEE division (a scalar operand is broadcast, not turned into a reciprocal)."""
    for v in (a, b):
        if isinstance(v, Tile) and v.dtype != asc.bfloat16:
            _float_only(v, "asc2.div")
    return _binary("div", asc.div, a, b, None)


@builtin
@lift()
def maximum(a: Any, b: Any) -> Tile:
    return _binary("maximum", asc.max, a, b, _scalar_op(asc.maxs))


@builtin
@lift()
def minimum(a: Any, b: Any) -> Tile:
    return _binary("minimum", asc.min, a, b, _scalar_op(asc.mins))


def _unary(name: str) -> Callable[[Tile], Tile]:
    """asc2.<name>: a float math function (elementwise.MATH) of a tile; of a compile-time number for the
    functions PyAsc2 also takes scalars for (exp, erf, sqrt)."""

    def op(t: Any) -> Any:
        constant = elementwise.MATH_CONSTANT.get(name)
        if constant is not None and isinstance(t, (int, float)) and not isinstance(t, bool):
            return constant(float(t))
        if constant is not None and isinstance(t, Scalar):
            return elementwise.scalar_function(name, t)
        if not isinstance(t, Tile):
            raise CodegenError(f"asc2.{name}: expected a tile, got {type(t).__name__}")
        return elementwise.math_function(name, t)

    op.__name__ = op.__qualname__ = name
    return builtin(lift()(op))


exp, log, sqrt, rsqrt, abs = (_unary(n) for n in ("exp", "log", "sqrt", "rsqrt", "abs"))  # noqa: A001
exp2, log2, erf, floor, ceil = (_unary(n) for n in ("exp2", "log2", "erf", "floor", "ceil"))
sin, cos, tan, sinh, cosh, tanh = (_unary(n) for n in ("sin", "cos", "tan", "sinh", "cosh", "tanh"))


@builtin
@lift()
def relu(t: Any) -> Tile:
    """max(t, 0): int32 and float tiles (Relu), int16 and bfloat16 through Maxs / float32."""
    if not isinstance(t, Tile):
        raise CodegenError(f"asc2.relu: expected a tile, got {type(t).__name__}")
    if t.dtype == asc.bfloat16:
        return elementwise.in_float32(relu, t.dtype, t)
    out = Tile(t.shape, t.dtype)
    if t.dtype == asc.int16:
        asc.maxs(out.buf, t.buf, _scalar(0, t.dtype, "asc2.relu"), out.length)
    else:
        asc.relu(out.buf, t.buf, out.length)
    return out


@builtin
@lift()
def negative(t: Any) -> Tile:
    if isinstance(t, Tile) and t.dtype == asc.bfloat16:
        return elementwise.in_float32(negative, t.dtype, t)
    return _scalar_op(asc.muls)(t, _scalar(-1, t.dtype, "asc2.negative"), True)


@builtin
@lift()
def left_shift(t: Any, other: Any) -> Tile:
    """t << other: an int16 / int32 tile by a non-negative int or run-time int."""
    return elementwise.shift("left_shift", t, other)


@builtin
@lift()
def right_shift(t: Any, other: Any) -> Tile:
    """t >> other, arithmetic (the sign bit is kept)."""
    return elementwise.shift("right_shift", t, other)


# Conversions: float narrowing rounds to nearest even, float to int truncates (as NumPy's astype), the rest
# are exact or round to nearest.
_ROUND = {
    (asc.float32, asc.float16): asc.RoundMode.CAST_RINT,
    (asc.float16, asc.float32): asc.RoundMode.CAST_NONE,
    (asc.float32, asc.int32): asc.RoundMode.CAST_TRUNC,
    (asc.float16, asc.int32): asc.RoundMode.CAST_TRUNC,
    (asc.int32, asc.float32): asc.RoundMode.CAST_RINT,
    (asc.float16, asc.int16): asc.RoundMode.CAST_TRUNC,
    (asc.int16, asc.float16): asc.RoundMode.CAST_RINT,
}


@builtin
@lift(lambda t, dtype, *_: dtype)
def cast(t: Tile, dtype: asc.DataType, round_mode: Optional[asc.RoundMode] = None) -> Tile:
    """t converted to `dtype`: rounded as asc2 rounds each pair (above), or with `round_mode` (an
    asc.RoundMode), which the Cast instruction takes and refuses where its documentation does not list the
    mode for the pair of dtypes."""
    if dtype == t.dtype:
        return t
    if round_mode is not None:
        if not isinstance(round_mode, asc.RoundMode):
            raise CodegenError(f"Tile.to: round_mode is an asc.RoundMode, got {round_mode!r}")
        if len(t.shape) == 2:
            check_shape(t.shape, dtype, "Tile.to")
        out = Tile(t.shape, dtype)
        asc.cast(out.buf, t.buf, round_mode, out.length)
        return out
    mode = _ROUND.get((t.dtype, dtype))
    if mode is None:
        raise CodegenError(f"Tile.to: {t.dtype.name} to {dtype.name} is not supported "
                           f"(supported: {', '.join(f'{a.name}->{b.name}' for a, b in _ROUND)})")  # fmt: skip
    if len(t.shape) == 2:
        check_shape(t.shape, dtype, "Tile.to")
    out = Tile(t.shape, dtype)
    asc.cast(out.buf, t.buf, mode, out.length)
    return out


@builtin
def to(t: Any, target: Any, round_mode: Optional[asc.RoundMode] = None) -> Any:
    """``t.to(dtype, round_mode=None)``: cast; ``t.to(location)`` (an asc2.TileLocation or its name): the tile
    moved there (asc2.copy), itself if it is there."""
    from .memory import copy
    from .tile import TileLocation

    if isinstance(target, str):
        if target not in TileLocation.__members__:
            raise CodegenError(f"Tile.to: no location {target!r} (one of {', '.join(TileLocation.__members__)})")
        target = TileLocation[target]
    if isinstance(target, TileLocation):
        if round_mode is not None:
            raise CodegenError("Tile.to(location) takes the location only")
        return t if target == t.location else copy(t, location=target)
    if not isinstance(target, asc.DataType):
        raise CodegenError(f"Tile.to: a dtype or an asc2.TileLocation, got {target!r}")
    return cast(t, target) if round_mode is None else cast(t, target, round_mode)


@builtin
def full(shape: Any, value: Any, dtype: Optional[asc.DataType] = None) -> Tile:
    """A tile of `shape` with every element `value` (dtype: `dtype`, else the value's: float32 for a Python
    float, int32 for an int)."""
    if dtype is None:
        dtype = value.dtype if isinstance(value, Scalar) else asc.float32 if isinstance(value, float) else asc.int32
    dims = check_shape(shape, dtype, "asc2.full")
    if needs_split(dims, dtype):
        return SplitTile(dims, dtype, lambda chunk: full(chunk[1], value, dtype))
    out = Tile(dims, dtype)
    elementwise.fill(out.buf, _scalar(value, dtype, "asc2.full"), dtype, out.length)
    return out


@builtin
def block_idx() -> Scalar:
    # a 1:2 mix kernel's vector cores count 2 * group + sub-block: the tile program's block is the group
    if current_builder().cv_ratio == 2:
        return asc.get_block_idx() // asc.get_sub_block_num()
    return asc.get_block_idx()


@builtin
def block_num() -> Scalar:
    return asc.get_block_num()


# -- comparisons and where --------------------------------------------------------------------------


class Mask:
    """A comparison's result: one bit per element of a tile's shape; `dtype` is the compared tiles', which
    where() gives two scalars."""

    def __init__(self, shape: tuple[int, ...], length: int, dtype: asc.DataType):
        self.shape, self.length, self.dtype = shape, length, dtype
        self.bits = asc.LocalTensorAuto(asc.uint8, max(32, length // 8))

    def __repr__(self) -> str:
        return f"Mask({list(self.shape)})"

    # masks combine bit by bit (asc2.bitwise): (x > 0) & (y < 1), ~(x > 0)
    def __and__(self, other: Any) -> Mask:
        from .bitwise import bitwise_and

        return bitwise_and(self, other)

    def __or__(self, other: Any) -> Mask:
        from .bitwise import bitwise_or

        return bitwise_or(self, other)

    def __xor__(self, other: Any) -> Mask:
        from .bitwise import bitwise_xor

        return bitwise_xor(self, other)

    def __invert__(self) -> Mask:
        from .bitwise import bitwise_not

        return bitwise_not(self)

    __rand__, __ror__, __rxor__ = __and__, __or__, __xor__


_CMP = {"equal": "EQ", "not_equal": "NE", "less": "LT", "less_equal": "LE", "greater": "GT", "greater_equal": "GE"}


def _comparison(name: str) -> Callable[[Any, Any], Mask]:
    mode = getattr(asc.CMPMODE, _CMP[name])
    swapped = getattr(asc.CMPMODE, {"LT": "GT", "GT": "LT", "LE": "GE", "GE": "LE"}.get(_CMP[name], _CMP[name]))

    def op(a: Any, b: Any) -> Mask:
        what = f"asc2.{name}"
        if not isinstance(a, Tile) and not isinstance(b, Tile):
            raise CodegenError(f"{what}: at least one operand must be a tile")
        a, b = elementwise.promote(a, b, what)
        if isinstance(a, Tile) and isinstance(b, Tile):
            _same(a, b, what)
        t, other, cmp = (a, b, mode) if isinstance(a, Tile) else (b, a, swapped)  # s < t is t > s
        if t.dtype not in elementwise.COMPARABLE:
            raise CodegenError(f"{what}: {', '.join(d.name for d in elementwise.COMPARABLE)} tiles only, "
                               f"got {t.dtype.name}")  # fmt: skip
        out = Mask(t.shape, t.length, t.dtype)
        other = other if isinstance(other, Tile) else _scalar(other, t.dtype, what)
        elementwise.compare(out.bits, t, other, cmp, lambda s: full(t.shape, s, t.dtype))
        return out

    op.__name__ = op.__qualname__ = name
    return builtin(lift()(op))


equal, not_equal = _comparison("equal"), _comparison("not_equal")
less, less_equal = _comparison("less"), _comparison("less_equal")
greater, greater_equal = _comparison("greater"), _comparison("greater_equal")


def _where_dtype(mask: Any, a: Any, b: Any) -> asc.DataType:
    """The first tile's dtype (two tiles': their common one); for two scalars, that of the tiles the mask
    compared."""
    if all(isinstance(v, (Tile, SplitTile)) for v in (a, b)):
        return elementwise.common_dtype(a.dtype, b.dtype) or a.dtype
    for v in (a, b):
        if isinstance(v, Tile) or isinstance(v, SplitTile):
            return v.dtype
    return mask.dtype


@builtin
@lift(_where_dtype)
def where(mask: Any, a: Any, b: Any) -> Tile:
    """a where the mask's bit is set, else b; a and b are tiles of the mask's shape or scalars (the result
    has the first tile's dtype, or for two scalars the compared tiles')."""
    if not isinstance(mask, Mask):
        raise CodegenError(f"asc2.where: the condition is a comparison of tiles (t > 0), got {type(mask).__name__}")
    a, b = elementwise.promote(a, b, "asc2.where")
    dtype = _where_dtype(mask, a, b)
    tiles = [v for v in (a, b) if isinstance(v, Tile)] or [full(mask.shape, a, dtype)]
    for v in tiles:
        if v.shape != mask.shape:
            raise CodegenError(f"asc2.where: a value of shape {list(v.shape)} for a mask of {list(mask.shape)}")
    first = as_tile(a, mask.shape, dtype, "asc2.where")
    _same(first, tiles[-1], "asc2.where")
    other = b if isinstance(b, Tile) else _scalar(b, dtype, "asc2.where")
    return elementwise.select(mask.bits, first, other, lambda s: full(mask.shape, s, dtype))


# -- reductions ----------------------------------------------------------------------------------

_REDUCE = {
    "sum": (asc.reduce_sum, asc.add),
    "max": (asc.reduce_max, asc.max),
    "min": (asc.reduce_min, asc.min),
    "prod": (None, asc.mul),
}


def _to_scalar_of(kind: str, t: Tile, src: asc.LocalTensor, count: int) -> Scalar:
    """The reduction of `count` elements from `src` as a scalar (ReduceSum / ReduceMax / ReduceMin)."""
    one = Tile((1,), t.dtype)
    per_repeat = 256 // t.dtype.sizeof()
    work = asc.LocalTensorAuto(t.dtype, max(32 // t.dtype.sizeof(), -(-count // per_repeat)))
    _REDUCE[kind][0](one.buf, src, work, count)
    return one.buf.get_value(0)


def _reduce(kind: str, t: Any, dims: tuple, keep_dims: bool) -> Any:
    what = f"asc2.reduce_{kind}"
    if isinstance(t, SplitTile):
        if dims:
            raise t.unsupported(f"{what} along an axis")
        return reduce_chunks(t, "add" if kind == "sum" else kind, lambda chunk: _reduce(kind, chunk, (), False))
    if not isinstance(t, Tile):
        raise CodegenError(f"{what}: expected a tile, got {type(t).__name__}")
    rank = len(t.shape)
    axes = set()
    for d in dims:
        if not isinstance(d, int) or isinstance(d, bool) or not -rank <= d < rank:
            raise CodegenError(f"{what}: dims are ints in [{-rank}, {rank - 1}], got {d!r}")
        axes.add(d % rank)
    if kind == "prod" and (not axes or len(axes) == rank):
        raise CodegenError(f"{what}: give the dims to reduce (a product of every element is not supported, as "
                           "in PyAsc2)")  # fmt: skip
    if kind == "prod" and t.dtype not in _FLOATS + (asc.int16, asc.int32):
        raise CodegenError(f"{what}: float16, float32, int16 and int32 tiles only, got {t.dtype.name}")
    if not axes or len(axes) == rank and not keep_dims:  # every element: a scalar
        return _to_scalar_of(kind, t, t.buf, t.size)
    if len(axes) == rank:  # every element, kept as a tile of ones
        return full((1,) * rank, _to_scalar_of(kind, t, t.buf, t.size), t.dtype)
    rows, cols = t.shape
    if axes == {0}:  # [rows, cols] -> [cols]: the rows combined in order
        out = _cleared((cols,), t.dtype)
        asc.copy(out.buf, t.buf, cols)
        if rows > 1:
            with regions.for_range(1, rows) as r:
                _REDUCE[kind][1](out.buf, out.buf, t.buf[r * cols :], cols)
        return out.reshape(1, cols) if keep_dims else out
    if keep_dims:
        raise CodegenError(f"{what}: keep_dims along the last axis would make a [{rows}, 1] tile, whose rows are "
                           "not whole 32-byte blocks; reduce without keep_dims (a [rows] tile)")  # fmt: skip
    if kind == "prod":
        return _row_products(t)
    out = _cleared((rows,), t.dtype)  # [rows, cols] -> [rows]: each row reduced to a scalar
    with regions.for_range(0, rows) as r:
        out.buf.set_value(r, _to_scalar_of(kind, t, t.buf[r * cols :], cols))
    return out


def _row_products(t: Tile) -> Tile:
    """[rows, cols] -> [rows], each row's product: Mul of its halves while a half is whole 32-byte blocks
    (no ReduceProd instruction), then the last block's elements multiplied as scalars."""
    rows, cols = t.shape
    per_block = 32 // t.dtype.sizeof()
    work = Tile(t.shape, t.dtype)
    asc.copy(work.buf, t.buf, work.length)
    out = _cleared((rows,), t.dtype)
    with regions.for_range(0, rows) as r:
        row = work.buf[r * cols :]
        width = cols
        while width % 2 == 0 and width // 2 % per_block == 0:
            width //= 2
            asc.mul(row, row, row[width:], width)
        product = row.get_value(0)
        for i in range(1, width):
            product = product * row.get_value(i)
        out.buf.set_value(r, product)
    return out


def _cleared(shape: tuple[int, ...], dtype: asc.DataType) -> Tile:
    """A result tile written a part at a time (row by row, element by element): zeros first where its length
    runs past its size, so that instructions over the whole length read only written memory."""
    out = Tile(shape, dtype)
    if out.size != out.length:
        elementwise.fill(out.buf, 0, dtype, out.length)
    return out


@builtin
def reduce_sum(t: Any, *dims: int, keep_dims: bool = False) -> Any:
    """The sum of all elements (a scalar), or along `dims` (a tile without them, or with size-1 dims when
    keep_dims)."""
    return _reduce("sum", t, dims, keep_dims)


@builtin
def reduce_max(t: Any, *dims: int, keep_dims: bool = False) -> Any:
    return _reduce("max", t, dims, keep_dims)


@builtin
def reduce_min(t: Any, *dims: int, keep_dims: bool = False) -> Any:
    return _reduce("min", t, dims, keep_dims)


@builtin
def reduce_prod(t: Any, *dims: int, keep_dims: bool = False) -> Any:
    """The product along `dims` (given: PyAsc2 has no product of every element)."""
    return _reduce("prod", t, dims, keep_dims)


@builtin
def softmax(t: Any) -> Tile:
    """exp(x - max) / sum over the last axis (each row of a 2-D tile)."""
    if isinstance(t, SplitTile) and len(t.shape) == 1:
        return _softmax_1d(t)
    if isinstance(t, SplitTile):
        raise t.unsupported("asc2.softmax")
    if not isinstance(t, Tile):
        raise CodegenError(f"asc2.softmax: expected a tile, got {type(t).__name__}")
    _float_only(t, "asc2.softmax")
    if len(t.shape) == 1:
        return _softmax_1d(t)
    rows, cols = t.shape
    out = _cleared(t.shape, t.dtype)
    with regions.for_range(0, rows) as r:
        if Tile.length_of((cols,)) == cols:
            row = Tile((cols,), t.dtype, t.buf[r * cols :])
        else:  # a row shorter than its tile's length: on a copy of its own, past the row defined (zeros)
            row = _cleared((cols,), t.dtype)
            asc.copy(row.buf, t.buf[r * cols :], cols)
        asc.copy(out.buf[r * cols :], _softmax_1d(row).buf, cols)
    return out


@builtin
def rms_norm(t: Any, gamma: Any, epsilon: Any) -> Tile:
    """t * gamma / sqrt(mean(t**2) + epsilon) along the last axis (Ascend C's RmsNorm over [rows, H]); gamma
    is [H] or [1, H]; float16 and float32 (float16 is computed in float32 and rounded once)."""
    what = "asc2.rms_norm"
    for name, v in (("the input", t), ("gamma", gamma)):
        if not isinstance(v, Tile):
            raise CodegenError(f"{what}: {name} is a tile, got {type(v).__name__}")
    _float_only(t, what)
    cols = t.shape[-1]
    if gamma.shape not in ((cols,), (1, cols)) or gamma.dtype != t.dtype:
        raise CodegenError(f"{what}: gamma is a [{cols}] {t.dtype.name} tile for {t!r}, got {gamma!r}")
    if t.dtype == asc.float16:
        return cast(rms_norm(cast(t, asc.float32), cast(gamma, asc.float32), epsilon), asc.float16)
    eps = _scalar(epsilon, t.dtype, what)
    g = Tile((cols,), t.dtype, gamma.buf)
    squares = mul(t, t)
    if len(t.shape) == 1:
        scale = rsqrt(add(mul(full((1,), reduce_sum(squares), t.dtype), 1.0 / cols), eps)).buf.get_value(0)
        return mul(mul(t, scale), g)
    scales = rsqrt(add(mul(reduce_sum(squares, 1), 1.0 / cols), eps))  # [rows]
    out = _cleared(t.shape, t.dtype)
    with regions.for_range(0, t.shape[0]) as r:  # each row: Muls by its scale, Mul by gamma (cols elements)
        at = r * cols
        asc.muls(out.buf[at:], t.buf[at:], scales.buf.get_value(r), cols)
        asc.mul(out.buf[at:], out.buf[at:], g.buf, cols)
    return out


def _softmax_1d(t: Tile) -> Tile:
    shifted = sub(t, reduce_max(t))
    numerator = exp(shifted)
    return div(numerator, reduce_sum(numerator))
