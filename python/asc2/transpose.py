"""transpose of a 2-D Unified Buffer tile: [rows, cols] -> [cols, rows], with the vector Gather instruction
(Ascend C's Gather, element by element from byte offsets: int16 / uint16 / float16 / bfloat16 / int32 / uint32
/ float32 on Atlas A2, https://gitcode.com/cann/asc-devkit/blob/9.0.0-beta.2/docs/api/context/c_api/vector_compute/asc_gather.md).
Element [j, i] of the result is element [i, j] of the source, at byte i * cols * size + j * size: the offsets
of a block of result rows are computed on the vector unit (a first row i * cols * size, then each row the one
before + size, both by doubling with Adds), and one Gather fills the block; further blocks read from a
src_base `size` bytes further per row. Any shape whose result is a tile works (no multiple-of-16 rule:
the result's rows are whole 32-byte blocks, as every 2-D tile's). int8 goes through float16 (exact both ways).
A dim of 1 makes it a reshape (the same elements in the same order)."""

from __future__ import annotations

from typing import Any

import asc
from asc.codegen import regions
from asc.errors import CodegenError
from asc.language.basic.utils import builtin
from asc.language.core.ir_value import to_scalar

from .elementwise import fill
from .split import SplitTile
from .tile import Tile, TileLocation, check_shape

DTYPES = (asc.int8, asc.int16, asc.int32, asc.float16, asc.bfloat16, asc.float32, asc.uint16, asc.uint32)
_OFFSETS = 4096  # elements of the offsets block (16 KB of uint32): result rows gathered per instruction
_SEED = 8  # offsets written by the scalar unit before doubling: one 32-byte block of uint32


def _axes(t: Tile, axis: tuple, what: str) -> tuple[int, ...]:
    rank = len(t.shape)
    if len(axis) == 1 and isinstance(axis[0], (list, tuple)):
        axis = tuple(axis[0])
    if not axis:
        if rank < 2:
            raise CodegenError(f"{what}: {t!r} has one axis; transpose swaps the last two")
        return (1, 0)
    ints = all(isinstance(a, int) and not isinstance(a, bool) and -rank <= a < rank for a in axis)
    order = tuple(a % rank for a in axis) if ints else ()
    if len(axis) != rank or sorted(order) != list(range(rank)):
        raise CodegenError(f"{what}: axis {list(axis)} is not an order of the {rank} axes of {t!r}")
    return order


def _progression(dst: Any, count: int, step: int, first: int) -> None:
    """dst[k] = first + k * step for k < count (int32): the first block by the scalar unit, the rest by
    doubling (dst[m:2m] = dst[:m] + m * step, m a whole number of 32-byte blocks)."""
    for k in range(min(_SEED, count)):
        dst.set_value(k, to_scalar(first + k * step, asc.int32))
    m = _SEED
    while m < count:
        n = min(m, count - m)
        asc.adds(dst[m:], dst, to_scalar(m * step, asc.int32), n)
        m *= 2


def _offsets(rows: int, cols: int, size: int, block_rows: int) -> Any:
    """The byte offsets of `block_rows` result rows of `rows` elements: [j, i] -> i * cols * size + j * size."""
    n = block_rows * rows
    off = asc.LocalTensorAuto(asc.int32, -(-n // 64) * 64)
    _progression(off, rows, cols * size, 0)
    m = 1
    while m < block_rows:  # rows m.. = rows 0.. + m * size bytes
        k = min(m, block_rows - m)
        asc.adds(off[m * rows :], off, to_scalar(m * size, asc.int32), k * rows)
        m *= 2
    return off.reinterpret_cast(asc.uint32)


def _gathered(t: Tile) -> Tile:
    rows, cols = t.shape
    size = t.dtype.sizeof()
    out = Tile((cols, rows), t.dtype)
    block = max(1, min(cols, _OFFSETS // rows))
    off = _offsets(rows, cols, size, block)
    whole, rest = divmod(cols, block)
    if whole == 1:
        asc.gather(out.buf, t.buf, off, 0, block * rows)
    elif whole > 1:
        with regions.for_range(0, whole) as b:
            asc.gather(out.buf[b * (block * rows) :], t.buf, off, b * (block * size), block * rows)
    if rest:
        asc.gather(out.buf[whole * block * rows :], t.buf, off, whole * block * size, rest * rows)
    if out.length > out.size:  # the elements past the result's, which instructions compute on too
        fill(out.buf[out.size :], 0, t.dtype, out.length - out.size)  # size * bytes: whole 32-byte blocks
    return out


@builtin
def transpose(t: Any, *axis: int) -> Tile:
    """The tile with its axes in the order `axis` ((1, 0) for a 2-D tile; no axis: the last two swapped)."""
    from .shape import reshape

    what = "asc2.transpose"
    if isinstance(t, SplitTile):
        raise t.unsupported(what)
    if not isinstance(t, Tile) or t.location != TileLocation.UB:
        raise CodegenError(f"{what}: a tile of the Unified Buffer, got {t!r} (cube tiles are transposed while "
                           "loading into L0B)")  # fmt: skip
    order = _axes(t, axis, what)
    if order == tuple(range(len(t.shape))):
        return t
    if t.dtype not in DTYPES:
        raise CodegenError(f"{what}: {', '.join(d.name for d in DTYPES)} tiles, got {t.dtype.name}")
    rows, cols = t.shape
    if rows == 1 or cols == 1:
        return reshape(t, cols, rows)
    check_shape((cols, rows), t.dtype, f"{what} of {t!r} to [{cols}, {rows}]")
    if t.dtype == asc.int8:  # Gather has no 8-bit form: through float16, exact both ways
        wide = Tile(t.shape, asc.float16)
        asc.cast(wide.buf, t.buf, asc.RoundMode.CAST_NONE, t.length)
        moved = _gathered(wide)
        out = Tile(moved.shape, asc.int8)
        asc.cast(out.buf, moved.buf, asc.RoundMode.CAST_TRUNC, out.length)
        return out
    return _gathered(t)


__all__ = ["DTYPES", "transpose"]
