"""Whole shapes in the code, halves on the vector cores: asctile's cv_strategy (cv_ratio=2). Inside
``with asctile.cv_strategy(DistribMode.SplitByM)`` (or SplitByN) a matmul's product copied into the Unified
Buffer goes to the two vector sub-blocks by halves (asc2.handover's SPLIT_BY_M / SPLIT_BY_N), and the code goes
on with the whole shape: each tile that holds half of a whole one is a HalfTile (its `shape` the half each
sub-block holds, `whole` the shape the code sees, `axis` the one halved), and the operations on it work on the
halves. The function visitor hands every call and operator of a kernel that entered cv_strategy to `call`,
which applies the rule of the operation:

- element-wise operations (arithmetic, comparisons, unary functions, casts, where): on the halves; a whole
  operand whose dims reach the halved axis with the whole size contributes its half (copied out of it at the
  sub-block's offset), one that broadcasts along it (size 1, or no such dim) as it is;
- reductions and softmax along another axis; reshape / ravel / expand_dims / squeeze / broadcast_to as long as
  the halved axis stays (for SplitByM: the first axis; for SplitByN: the last, unchanged); broadcast_tensors;
- copy_out / asc2.store: each sub-block stores its half at the offsets moved by its share along the axis;
- copy into L1: the halves joined again (asc2.join's JOIN_BY_M / JOIN_BY_N), a whole L1 tile.

Anything else on a HalfTile (a reduction over the halved axis, a transpose, a matmul, a gather, ...) is a
CodegenError naming the operation: pyasc-dev's cv_strategy splits the same set. Halves made inside the
context stay halves after it (their uses outside follow the same rules)."""

from __future__ import annotations

import math
import operator
from typing import Any, Callable, Optional

import asc
from asc.codegen.context import current_builder
from asc.errors import CodegenError

from .elementwise import fill
from .tile import Tile, TileLocation

SPLIT_BY_M, SPLIT_BY_N = 2, 3
_JOIN = {SPLIT_BY_M: 4, SPLIT_BY_N: 5}

_OPERATORS = {operator.add: "add", operator.sub: "sub", operator.mul: "mul", operator.truediv: "div",
              operator.neg: "negative", operator.lt: "less", operator.le: "less_equal", operator.gt: "greater",
              operator.ge: "greater_equal", operator.eq: "equal", operator.ne: "not_equal", operator.pow: "pow",
              operator.floordiv: "floor_divide", operator.and_: "bitwise_and", operator.or_: "bitwise_or",
              operator.xor: "bitwise_xor", operator.invert: "bitwise_not", operator.lshift: "left_shift",
              operator.rshift: "right_shift", operator.abs: "abs", operator.pos: "pos"}  # fmt: skip
_ELEMENTWISE = {*_OPERATORS.values(), "maximum", "minimum", "where", "to", "cast", "exp", "sqrt", "relu", "sin",
                "cos", "tan", "sinh", "cosh", "tanh", "erf", "exp2", "log", "log2", "floor", "ceil", "rsqrt",
                "reciprocal", "sigmoid", "gelu", "silu", "clip", "clamp", "fma"}  # fmt: skip
_REDUCTIONS = {"reduce_sum", "reduce_max", "reduce_min", "reduce_prod", "sum", "max", "min", "prod", "mean"}


class HalfTile(Tile):
    """The half of a `whole`-shaped tile (halved along `axis`) a vector sub-block holds: a Unified Buffer tile
    of the half's shape, sub-block s's half starting at s * shape[axis] along the axis."""

    def __init__(self, half: Tile, whole: tuple[int, ...], axis: int):
        super().__init__(half.shape, half.dtype, half.buf)
        self.whole, self.axis = tuple(whole), axis

    def __repr__(self) -> str:
        return f"Tile({list(self.whole)}, {self.dtype.name}, halves by axis {self.axis})"


def enter(split: int, what: str, copy: Optional[Callable] = None) -> None:
    """The start of a cv_strategy context: copies of L0C tiles into the Unified Buffer split by `split`.
    `copy`: the copy function a tile's ``.to(location)`` means in the kernel's dialect (asctile's copy)."""
    builder = current_builder()
    if builder.cv_ratio != 2:
        raise CodegenError(f"{what}: splitting over the vector sub-blocks needs two of them per cube core: compile "
                           f"with cv_ratio=2")  # fmt: skip
    if getattr(builder, "cv_split", None) is not None:
        raise CodegenError(f"{what}: cv_strategy contexts do not nest")
    builder.cv_split = split
    builder.tile_call_hook = call
    builder.cv_copy = copy


def leave() -> None:
    current_builder().cv_split = None


def call(func: Callable, args: list, kwargs: dict) -> Any:
    """`func(*args, **kwargs)` as a kernel calls it, by the rules of the module; NotImplemented when none applies
    (no HalfTile involved and no L0C -> UB copy to split)."""
    owner = getattr(func, "__self__", None)
    if isinstance(owner, Tile):  # a tile's method: the tile is its first argument
        args, func = [owner, *args], func.__func__
    values = [*args, *kwargs.values()]
    flat = [x for v in values for x in (v if isinstance(v, (list, tuple)) else (v,))]
    halves = [v for v in flat if isinstance(v, HalfTile)]
    name = _OPERATORS.get(func, getattr(func, "__name__", ""))
    copy = getattr(current_builder(), "cv_copy", None)
    if name == "to" and copy is not None and len(args) == 2 and not kwargs and _is_location(args[1]):
        return call(copy, [args[0]], {"location": args[1]})  # t.to(location): a copy
    if name == "copy" and args and not halves:
        return _split_copy(func, args, kwargs)
    if not halves:
        return NotImplemented
    half = halves[0]
    what = f"asctile.{name}" if name else "this operation"
    if name == "copy":
        return _join(func, args, kwargs, what)
    if name in ("copy_out", "store"):
        return _store(func, args, kwargs, half)
    if name in _ELEMENTWISE:
        return _elementwise(func, args, kwargs, half, what)
    if name in _REDUCTIONS or name == "softmax":
        return _along_another_axis(func, args, kwargs, half, name, what)
    if name in ("reshape", "ravel", "expand_dims", "squeeze", "broadcast_to"):
        return _reshaped(func, args, kwargs, half, name, what)
    if name == "broadcast_tensors":
        shape = _broadcast([v.whole if isinstance(v, HalfTile) else tuple(v.shape) for v in args])
        return tuple(call(Tile.broadcast_to, [v, *shape], {}) for v in args)
    raise CodegenError(f"{what}: not eligible for splitting over the vector sub-blocks (cv_strategy splits "
                       f"element-wise operations, reductions, reshapes and broadcasts, copy_out and the copies "
                       f"from L0C and into L1): {half!r}")  # fmt: skip


def _split_copy(func: Callable, args: list, kwargs: dict) -> Any:
    """An L0C tile copied into the Unified Buffer inside the context: by halves."""
    split = getattr(current_builder(), "cv_split", None)
    src = args[0]
    if split is None or getattr(src, "location", None) != TileLocation.L0C:
        return NotImplemented
    if kwargs.get("distrib") is not None or len(args) > 4:
        raise CodegenError("asctile.copy: inside cv_strategy the L0C -> UB copy is split by the strategy: no distrib")
    at = 2 if _is_asctile(func) else 1  # asctile.copy(src, offsets, shape, ...), asc2.copy(tile, shape, ...)
    shape = kwargs.get("shape", args[at] if len(args) > at else None)
    whole = tuple(src.shape if shape is None else shape)
    out = func(*args, **{**kwargs, "distrib": _distrib(func, split)})
    return HalfTile(out, whole, 0 if split == SPLIT_BY_M else len(whole) - 1)


def _is_location(value: Any) -> bool:
    return isinstance(value, str) or type(value).__name__ in ("TensorLocation", "TileLocation")


def _is_asctile(func: Callable) -> bool:
    return func.__module__.startswith("asc.experimental.asctile")


def _distrib(func: Callable, mode: int) -> Any:
    """`mode` as the copy function takes it (asctile's DistribMode, or asc2's int)."""
    if _is_asctile(func):
        from asc.experimental.asctile._memory import DistribMode

        return DistribMode(mode)
    return mode


def _join(func: Callable, args: list, kwargs: dict, what: str) -> Any:
    src = args[0]
    location = kwargs.get("location", args[3] if len(args) > 3 and _is_asctile(func) else None)
    into_l1 = location == "L1" or (not isinstance(location, str) and location is not None and
                                   int(location) == TileLocation.L1)  # fmt: skip
    if not isinstance(src, HalfTile) or not into_l1:
        raise CodegenError(f"{what}: a tile split over the vector sub-blocks moves only into L1 (joined again), got "
                           f"location {location!r}")  # fmt: skip
    if kwargs.get("distrib") is not None or len(args) > 4:
        raise CodegenError(f"{what}: the halves of a split tile join as they were split: no distrib")
    mode = SPLIT_BY_M if src.axis == 0 else SPLIT_BY_N
    if len(src.whole) != 2:
        raise CodegenError(f"{what}: a split tile joins in L1 as a 2-D tile, got {list(src.whole)}")
    plain = Tile(src.shape, src.dtype, src.buf)
    return func(plain, *args[1:], **{**kwargs, "distrib": _distrib(func, _JOIN[mode])})


def _store(func: Callable, args: list, kwargs: dict, half: HalfTile) -> Any:
    """Each sub-block its half, at the offsets moved by its share along the halved axis."""
    src = args[0]
    if src is not half:
        raise CodegenError(f"asctile.{func.__name__}: the destination, not the tile stored, is split: {half!r}")
    key = "offsets"
    at = list(kwargs[key] if key in kwargs else args[2])
    at[half.axis] = at[half.axis] + asc.get_sub_block_idx() * half.shape[half.axis]
    rest = list(args)
    if key in kwargs:
        kwargs = {**kwargs, key: at}
    else:
        rest[2] = at
    if "real_shape" in kwargs and kwargs["real_shape"] is not None:
        raise CodegenError(f"asctile.{func.__name__}: real_shape is not supported for a tile split over the vector "
                           f"sub-blocks")  # fmt: skip
    return func(Tile(src.shape, src.dtype, src.buf), *rest[1:], **kwargs)


def _elementwise(func: Callable, args: list, kwargs: dict, half: HalfTile, what: str) -> Any:
    pieces = [_half_of(v, half, what) for v in args]
    named = {k: _half_of(v, half, what) for k, v in kwargs.items()}
    out = func(*pieces, **named)
    return _wrap(out, half, what)


def _half_of(value: Any, half: HalfTile, what: str) -> Any:
    """What an operand of an element-wise operation on `half` contributes: a half's tile, the sub-block's half
    of a whole tile reaching the halved axis with its whole size, anything else as it is."""
    if isinstance(value, HalfTile):
        if value.axis != half.axis or len(value.whole) != len(half.whole):
            raise CodegenError(f"{what}: operands split along different axes: {value!r} and {half!r}")
        return Tile(value.shape, value.dtype, value.buf)
    if not isinstance(value, Tile) or value.location != TileLocation.UB:
        return value
    a = half.axis - (len(half.whole) - len(value.shape))  # the halved axis among value's dims (from the right)
    if a < 0 or value.shape[a] == 1:
        return value
    if value.shape[a] != half.whole[half.axis]:
        raise CodegenError(f"{what}: {value!r} does not broadcast with {half!r}")
    return _take_half(value, a)


def _take_half(t: Tile, a: int) -> Tile:
    """The running sub-block's half of `t` along its axis `a` (0, or the last of a 2-D tile), copied into a tile."""
    shape = list(t.shape)
    shape[a] //= 2
    out = Tile(tuple(shape), t.dtype)
    if out.size != out.length:  # past the size is computed on too: defined values
        fill(out.buf, 0, out.dtype, out.length)
    size = t.dtype.sizeof()
    s = asc.get_sub_block_idx()
    if a == 0:
        inner = math.prod(shape[1:])
        count = -(-out.size * size // 32) * 32 // size  # whole 32-byte blocks (both buffers are longer)
        asc.data_copy(out.buf, t.buf[s * (shape[0] * inner) :], count)
        return out
    rows, cols = shape
    blocks = cols * size // 32
    asc.data_copy(out.buf, t.buf[s * cols :], asc.DataCopyParams(rows, blocks, blocks, 0))
    return out


def _wrap(out: Any, half: HalfTile, what: str) -> Any:
    """An operation's result on halves as a HalfTile of the whole shape (its rank may have grown)."""
    if not isinstance(out, Tile):
        raise CodegenError(f"{what}: its result on a split tile is not a tile")
    axis = half.axis + len(out.shape) - len(half.whole)
    whole = list(out.shape)
    whole[axis] *= 2
    return HalfTile(out, tuple(whole), axis)


def _dims_of(args: list, kwargs: dict) -> tuple[list, dict]:
    dims = [d for d in args[1:] if isinstance(d, int) and not isinstance(d, bool)]
    for key in ("axis", "dim", "dims"):
        if key in kwargs:
            v = kwargs.pop(key)
            if v is not None:
                dims += list(v) if isinstance(v, (list, tuple)) else [v]
    return dims, kwargs


def _along_another_axis(func: Callable, args: list, kwargs: dict, half: HalfTile, name: str, what: str) -> Any:
    rank = len(half.whole)
    kwargs = dict(kwargs)
    dims, kwargs = _dims_of(args, kwargs)
    if name == "softmax":
        dims = [rank - 1]
    dims = [d % rank for d in dims]
    if not dims or half.axis in dims:
        raise CodegenError(f"{what}: reduces the axis its tile is split along (axis {half.axis} of {half!r}): "
                           f"reduce along the others, or join the halves first")  # fmt: skip
    keep = bool(kwargs.get("keep_dims", kwargs.get("keepdims", False)))
    plain = Tile(half.shape, half.dtype, half.buf)
    out = func(plain, *args[1:], **kwargs) if name != "softmax" else func(plain)
    axis = half.axis if keep or name == "softmax" else half.axis - sum(d < half.axis for d in dims)
    whole = list(out.shape)
    whole[axis] *= 2
    return HalfTile(out, tuple(whole), axis)


def _reshaped(func: Callable, args: list, kwargs: dict, half: HalfTile, name: str, what: str) -> Any:
    plain = Tile(half.shape, half.dtype, half.buf)
    whole, axis = half.whole, half.axis
    if name in ("reshape", "ravel"):  # the halves stay contiguous runs: the first axis, or the last unchanged
        target = [half.size * 2] if name == "ravel" else _target(args[1:])
        if axis == 0 and target[0] % 2 == 0:
            new_axis = 0
        elif axis == len(whole) - 1 and len(target) > 1 and target[-1] == whole[-1]:
            new_axis = len(target) - 1
        else:
            raise CodegenError(f"{what}: {list(target)} changes the axis {half!r} is split along")
    elif name == "broadcast_to":
        target = _target(args[1:])
        new_axis = axis + len(target) - len(whole)
        if new_axis < 0 or target[new_axis] != whole[axis]:
            raise CodegenError(f"{what}: {list(target)} changes the axis {half!r} is split along")
    if name in ("reshape", "ravel", "broadcast_to"):
        phys = list(target)
        phys[new_axis] //= 2
        out = func(plain) if name == "ravel" else func(plain, *phys)
        return HalfTile(out, tuple(target), new_axis)
    if name == "expand_dims":
        inserted = sorted(d % (len(whole) + len(args) - 1) for d in args[1:])
        out = func(plain, *args[1:])
        new_axis = axis
        for d in inserted:
            if d <= new_axis:
                new_axis += 1
        w = list(out.shape)
        w[new_axis] *= 2
        return HalfTile(out, tuple(w), new_axis)
    # squeeze: the dims of 1 removed (the halved axis holds at least two in the whole tile)
    removed = [d % len(whole) for d in args[1:]] or [i for i, d in enumerate(whole) if d == 1]
    if axis in removed:
        raise CodegenError(f"{what}: removes the axis {half!r} is split along")
    out = func(plain, *removed)
    new_axis = axis - sum(d < axis for d in removed)
    w = list(out.shape)
    w[new_axis] *= 2
    return HalfTile(out, tuple(w), new_axis)


def _target(values: list) -> list:
    if len(values) == 1 and isinstance(values[0], (list, tuple)):
        return list(values[0])
    return list(values)


def _broadcast(shapes: list) -> tuple:
    rank = max(len(s) for s in shapes)
    out = []
    for i in range(rank):
        dims = {s[i - rank + len(s)] for s in shapes if i - rank + len(s) >= 0} - {1}
        if len(dims) > 1:
            raise CodegenError(f"asctile.broadcast_tensors: shapes {shapes} do not broadcast")
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def active_split() -> Optional[int]:
    return getattr(current_builder(), "cv_split", None)
