"""Tiles too large for the Unified Buffer. A load (or full) of more than
SPLIT_BYTES gives a SplitTile: a deferred computation that element-wise
operations extend and that a store or a reduction carries out chunk by chunk
(a loop over CHUNK_BYTES pieces, plus a last, smaller one), so only a few
chunks are ever in the Unified Buffer. A value used twice is computed again
for each use. 1-D tiles split into element ranges, 2-D tiles into row ranges."""

from __future__ import annotations

import functools
import math
from typing import Any, Callable, Optional

import asc
from asc.codegen import regions
from asc.errors import CodegenError
from asc.language.core.ir_value import Scalar, minmax

SPLIT_BYTES = 64 * 1024  # a tile above this is split
CHUNK_BYTES = 16 * 1024  # each chunk's share of the Unified Buffer (at 4 bytes an element)

# A chunk: where it starts along axis 0 (elements or rows; an int or a run-time int32) and its shape.
Chunk = tuple[Any, tuple[int, ...]]


def chunk_extent(shape: tuple[int, ...]) -> int:
    """Elements (1-D) or rows (2-D) per chunk, counted at 4 bytes an element so that every dtype fits."""
    per_row = math.prod(shape[1:]) * 4
    if per_row > CHUNK_BYTES:
        raise CodegenError(f"a tile of shape {list(shape)} is too large for the Unified Buffer, and its rows of "
                           f"{per_row // 4} elements too long to split it by rows")  # fmt: skip
    return CHUNK_BYTES // per_row


def needs_split(shape: tuple[int, ...], dtype: asc.DataType) -> bool:
    return math.prod(shape) * dtype.sizeof() > SPLIT_BYTES


class SplitTile:
    """A tile computed chunk by chunk: ``build(chunk)`` emits the chunk's computation and returns its Tile."""

    __asc_defer_binary__ = True

    def __init__(self, shape: tuple[int, ...], dtype: asc.DataType, build: Callable[[Chunk], Any]):
        self.shape, self.dtype, self.build = shape, dtype, build

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def __repr__(self) -> str:
        return f"Tile({list(self.shape)}, {self.dtype.name}, split)"

    def __asc_var__(self) -> Any:
        raise CodegenError(f"{self!r} is larger than the Unified Buffer and computed in chunks where it is used; it "
                           "cannot be carried across a loop or run-time if")  # fmt: skip

    def unsupported(self, what: str) -> CodegenError:
        return CodegenError(f"{what} of {self!r}, which is larger than the Unified Buffer and computed in chunks, "
                            "is not supported")  # fmt: skip


def lift(dtype_of: Optional[Callable[..., asc.DataType]] = None) -> Callable:
    """Makes a tile function accept split tiles: then it returns a split tile that applies the function to
    each chunk of its operands. `dtype_of(*args)` gives the result's dtype (default: the split operand's)."""

    def wrap(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def apply(*args: Any, **kwargs: Any) -> Any:
            from .tile import TileLocation  # here: tile.py imports this module

            if any(getattr(a, "location", TileLocation.UB) != TileLocation.UB for a in args):
                from . import cube  # a cube tile: relu and .to fuse into its fixpipe; the rest are refused

                return cube.elementwise(fn.__name__, *args, **kwargs)
            splits = [a for a in args if isinstance(a, SplitTile)]
            if not splits:
                return fn(*args, **kwargs)
            first = splits[0]
            for a in args:
                if getattr(a, "shape", first.shape) != first.shape and not isinstance(a, (int, float, Scalar)):
                    raise CodegenError(f"asc2.{fn.__name__}: shapes {list(first.shape)} and {list(a.shape)} differ")
            dtype = dtype_of(*args) if dtype_of else first.dtype

            def build(chunk: Chunk) -> Any:
                return fn(*[a.build(chunk) if isinstance(a, SplitTile) else a for a in args], **kwargs)

            return SplitTile(first.shape, dtype, build)

        return apply

    return wrap


def for_each_chunk(shape: tuple[int, ...], body: Callable[[Chunk], None]) -> None:
    """Calls body(chunk) for a loop over the whole chunks (one loop body) and then the last, smaller one."""
    with regions.unpaired():  # chunks are not double-buffered with the user's loop
        extent = chunk_extent(shape)
        whole, rest = divmod(shape[0], extent)
        chunk_shape = (extent, *shape[1:])
        if whole == 1:
            body((0, chunk_shape))
        elif whole > 1:
            with regions.for_range(0, whole) as k:
                body((k * extent, chunk_shape))
        if rest:
            body((whole * extent, (rest, *shape[1:])))


def reduce_chunks(t: SplitTile, combine: str, reduce_chunk: Callable[[Any], Scalar]) -> Scalar:
    """A whole-tile reduction: each chunk's, combined (`combine`: "add", "max" or "min") in a variable."""
    extent = chunk_extent(t.shape)
    # the first chunk on its own defines the variable, outside the loop over the others
    first = reduce_chunk(t.build((0, (min(extent, t.shape[0]), *t.shape[1:]))))
    total = regions.variable(first)

    def fold(chunk: Chunk) -> None:
        start, shape = chunk
        part = reduce_chunk(t.build((start + extent, shape)))
        value = total + part if combine == "add" else minmax(combine, [total, part])
        regions.assign(total, value)

    if t.shape[0] > extent:
        for_each_chunk((t.shape[0] - extent, *t.shape[1:]), fold)
    return regions.variable(total)  # its value now
