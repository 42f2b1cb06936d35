"""Shape operations: reshape, ravel, expand_dims, squeeze (the same dense
row-major elements under another shape: no copy) and broadcast_to (NumPy's
broadcasting: dims of 1 repeated, missing leading dims added), which binary
operations also use to bring two tiles of different shapes to a common one.
A [rows, 1] tile (a column, from reshape / expand_dims) is dense like any
other; it broadcasts over the columns of [rows, cols], is combined
element-wise, and is not loaded or stored as 2-D (ravel it)."""

from __future__ import annotations

import math
from typing import Any, Optional

import asc
from asc.codegen import regions
from asc.errors import CodegenError
from asc.language.basic.utils import builtin

from .tile import Tile, check_shape

_BIT_VIEWS = {2: asc.int16, 4: asc.int32}


def bits(buf: asc.LocalTensor, dtype: asc.DataType, what: str) -> asc.LocalTensor:
    """`buf` seen as integers of its element width: Copy and Duplicate move the bits of any 2- or 4-byte
    dtype that way (bfloat16 included, which they do not take as itself)."""
    view = _BIT_VIEWS.get(dtype.sizeof())
    if view is None:
        raise CodegenError(f"{what}: {dtype.name} tiles are not supported here (2- and 4-byte dtypes only)")
    return buf if dtype == view else buf.reinterpret_cast(view)


def _tile(t: Any, what: str) -> Tile:
    if not isinstance(t, Tile):
        raise CodegenError(f"{what}: expected a tile, got {type(t).__name__}")
    return t


def _dims(shape: tuple) -> Any:
    """``f(t, 2, 32)`` and ``f(t, [2, 32])`` alike."""
    return shape[0] if len(shape) == 1 and isinstance(shape[0], (list, tuple)) else shape


@builtin
def reshape(t: Any, *shape: Any) -> Tile:
    """The same elements under another shape of the same size (no copy)."""
    t = _tile(t, "asc2.reshape")
    dims = check_shape(_dims(shape), t.dtype, "asc2.reshape", column=True)
    if math.prod(dims) != t.size:
        raise CodegenError(f"asc2.reshape: {list(dims)} does not hold the {t.size} elements of {t!r}")
    return Tile(dims, t.dtype, t.buf)


@builtin
def ravel(t: Any) -> Tile:
    """The elements as a 1-D tile."""
    t = _tile(t, "asc2.ravel")
    return reshape(t, t.size)


def _axes(axis: tuple, rank: int, what: str) -> list[int]:
    out = []
    for a in _dims(axis):
        if not isinstance(a, int) or isinstance(a, bool) or not -rank <= a < rank:
            raise CodegenError(f"{what}: an axis is an int in [{-rank}, {rank - 1}], got {a!r}")
        out.append(a % rank)
    return sorted(set(out))


@builtin
def expand_dims(t: Any, *axis: int) -> Tile:
    """Dims of 1 inserted at `axis` (positions in the result)."""
    t = _tile(t, "asc2.expand_dims")
    shape = list(t.shape)
    for a in _axes(axis, len(shape) + len(_dims(axis)), "asc2.expand_dims"):
        shape.insert(a, 1)
    return reshape(t, shape)


@builtin
def squeeze(t: Any, *axis: int) -> Tile:
    """The dims of 1 at `axis` removed (all of them without `axis`)."""
    t = _tile(t, "asc2.squeeze")
    rank = len(t.shape)
    axes = _axes(axis, rank, "asc2.squeeze") if axis else [i for i, d in enumerate(t.shape) if d == 1]
    for a in axes:
        if t.shape[a] != 1:
            raise CodegenError(f"asc2.squeeze: axis {a} of {t!r} has length {t.shape[a]}, not 1")
    shape = [d for i, d in enumerate(t.shape) if i not in axes] or [1]
    return reshape(t, shape)


def broadcast_shape(a: tuple, b: tuple) -> Optional[tuple]:
    """NumPy's broadcast of two shapes, or None when they do not broadcast."""
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and 1 not in (x, y):
            return None
        out.append(max(x, y))
    return tuple(reversed(out))


@builtin
def broadcast_to(t: Any, *shape: Any) -> Tile:
    """`t` repeated to `shape` as NumPy broadcasts: each of t's dims (aligned from the last) is the target's
    or 1; a one-element tile becomes a tile filled with its value, a row ([cols] or [1, cols]) is repeated
    over the rows, a column ([rows, 1]) over the columns."""
    t = _tile(t, "asc2.broadcast_to")
    dims = check_shape(_dims(shape), t.dtype, "asc2.broadcast_to", column=True)
    if broadcast_shape(t.shape, dims) != dims:
        raise CodegenError(f"asc2.broadcast_to: cannot broadcast {t!r} to {list(dims)}")
    if t.shape == dims:
        return t
    out = Tile(dims, t.dtype)
    src, dst = bits(t.buf, t.dtype, "asc2.broadcast_to"), bits(out.buf, t.dtype, "asc2.broadcast_to")
    if t.size == 1 or out.size != out.length:  # one value everywhere; or defined values past the size
        asc.duplicate(dst, src.get_value(0), out.length)
    if t.size == 1:
        return out
    rows, cols = dims
    if t.shape == (rows, 1):  # a column: its r-th element fills row r
        with regions.for_range(0, rows) as r:
            asc.duplicate(dst[r * cols :], src.get_value(r), cols)
        return out
    # t's dims match the target's from the last on: after the leading 1s it is one row of the target
    # ([cols] or [1, cols] over [rows, cols]), copied into each row (rows start on 32-byte blocks)
    with regions.for_range(0, rows) as r:
        asc.copy(dst[r * cols :], src, cols)
    return out


def broadcast_pair(what: str, a: Tile, b: Tile) -> tuple[Tile, Tile]:
    """Two tiles brought to their common (broadcast) shape, for an element-wise operation."""
    shape = broadcast_shape(a.shape, b.shape)
    if shape is None:
        raise CodegenError(f"{what}: shapes {list(a.shape)} and {list(b.shape)} differ and do not broadcast")
    return broadcast_to(a, shape), broadcast_to(b, shape)


__all__ = ["broadcast_to", "expand_dims", "ravel", "reshape", "squeeze"]
