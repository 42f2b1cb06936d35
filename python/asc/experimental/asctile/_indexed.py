"""asctile.gather / asctile.scatter (pyasc-dev's memory_ops signatures): rows of a GM tensor read into, or
written from, the rows of a tile, at positions an index tile gives. Each index is read by the scalar unit
from the Unified Buffer, and its row moves with one DataCopyPad (MTE2 for gather, MTE3 for scatter) at the
GM offset computed from it: the row DMA per index, in a run-time loop over the indices.

gather(src, offsets, dim, index, check_bounds=True, num_indices=None, pad_value=None): row i of the result
is src[offsets[0], ..., offsets[dim - 1], offsets[dim] + index[i], :] (the dims after `dim`); its last dim is
rounded up to 32 bytes, and the rounding, the rows of indices outside [0, src.shape[dim]) (with
check_bounds) and the rows past num_indices are pad_value (0 by default; pyasc-dev leaves the rows past
num_indices unspecified). scatter(src, dim, index, dst, offsets, check_bounds=True, num_indices=None)
writes row i of src to that row of dst, skipping out-of-range indices with check_bounds; of two equal
indices the later row is the one left in GM (the copies run in order). Without check_bounds an index
outside the tensor is the Model's OutOfBoundsError (pyasc-dev: the caller guarantees the indices).

Tiles are 1-D or 2-D, so the indexed dim is the tensor's last but one (a [len(index), last] tile);
pyasc-dev's dim = the last one is its NotImplementedError, and here too."""

from __future__ import annotations

from typing import Any, Optional

import asc
from asc.codegen import regions
from asc.errors import CodegenError
from asc.language.basic.utils import builtin
from asc.language.core.ir_value import Scalar, cast, minmax
from asc2 import memory
from asc2.elementwise import fill
from asc2.memory import Tensor
from asc2.split import needs_split
from asc2.tile import Tile, TileLocation

from ._errors import NotOnTheModelError

_INDEX = (asc.int8, asc.int16, asc.int32, asc.int64)
_I64 = asc.int64


def _check(what: str, t: Any, role: str, dim: Any, index: Any, offsets: Any) -> list:
    if not isinstance(t, Tensor):
        raise CodegenError(f"{what}: {role} is an asctile.global_tensor, got {type(t).__name__}")
    rank = len(t.shape)
    if isinstance(dim, bool) or not isinstance(dim, int) or not 0 <= dim < rank:
        raise CodegenError(f"{what}: dim {dim!r} is not an axis of the {rank}-D tensor '{role}'")
    if dim == rank - 1:
        raise NotOnTheModelError(f"{what} along the last dimension is not implemented (as in pyasc-dev)")
    if dim != rank - 2:
        raise CodegenError(f"{what}: dim {dim} of a {rank}-D tensor makes a {rank - dim}-D tile; tiles have 1 or 2 "
                           f"dimensions, so dim is the last but one ({rank - 2})")  # fmt: skip
    if not isinstance(t.shape[-1], int):
        raise CodegenError(f"{what}: the dims of '{role}' after dim are known while compiling, got {t.shape[-1]!r}")
    if not isinstance(index, Tile) or index.location != TileLocation.UB or len(index.shape) != 1:
        raise CodegenError(f"{what}: index is a 1-D tile of the Unified Buffer, got {index!r}")
    if index.dtype not in _INDEX:
        raise CodegenError(f"{what}: index is an int8, int16, int32 or int64 tile, got {index.dtype.name}")
    at = list(offsets) if isinstance(offsets, (list, tuple)) else [offsets]
    if len(at) != dim + 1:
        raise CodegenError(f"{what}: {len(at)} offsets for dim {dim}: give dim + 1 = {dim + 1}")
    for v in at:
        if isinstance(v, bool) or not (isinstance(v, int) or isinstance(v, Scalar) and v.dtype.is_int()):
            raise CodegenError(f"{what}: offsets are ints or run-time ints, got {v!r}")
    return [cast(v, _I64) if isinstance(v, Scalar) else v for v in at]


def _count(what: str, num_indices: Any, n: int) -> Any:
    """How many indices to process: all n, or num_indices (an int or a run-time int) clamped to [0, n]."""
    if num_indices is None:
        return n
    if isinstance(num_indices, bool) or not (
        isinstance(num_indices, int) or isinstance(num_indices, Scalar) and num_indices.dtype.is_int()
    ):
        raise CodegenError(f"{what}: num_indices is an int or a run-time int, got {num_indices!r}")
    if isinstance(num_indices, int):
        return max(0, min(num_indices, n))
    return minmax("max", [minmax("min", [cast(num_indices, asc.int32), n]), 0])


def _each_row(t: Tensor, at: list, index: Tile, count: Any, check_bounds: bool, body: Any) -> None:
    """body(i, gm offset of its row) for i < count whose row offsets[-1] + index[i] is inside `t` (every i
    without check_bounds)."""
    with regions.for_range(0, count) as i:
        row = cast(index.buf.get_value(i), _I64) + at[-1]
        start = memory._linear(t, [*at[:-1], row, 0])
        if not check_bounds:
            body(i, start)
        else:  # 0 <= row < the dim's length
            with regions.if_(minmax("min", [row, (t.shape[-2] - 1) - row]) >= 0):
                body(i, start)


@builtin
def gather(src: Any, offsets: Any, dim: Any, index: Any, check_bounds: bool = True,
           num_indices: Optional[Any] = None, pad_value: Optional[Any] = None) -> Tile:  # fmt: skip
    """A [len(index), src.shape[-1] rounded up to 32 bytes] tile of src's rows at offsets[dim] + index[i]
    (module docstring)."""
    what = "asctile.gather"
    at = _check(what, src, "src", dim, index, offsets)
    if not isinstance(check_bounds, bool):
        raise CodegenError(f"{what}: check_bounds is a bool, got {check_bounds!r}")
    size = src.dtype.sizeof()
    cols = src.shape[-1]
    width = -(-cols * size // 32) * 32 // size
    dims = (index.shape[0], width)
    if needs_split(dims, src.dtype):
        raise CodegenError(f"{what}: a {list(dims)} {src.dtype.name} tile is larger than a tile of the Unified "
                           "Buffer can be; gather fewer indices at a time")  # fmt: skip
    count = _count(what, num_indices, index.shape[0])
    pad = 0 if pad_value is None else pad_value
    out = Tile(dims, src.dtype)
    fill(out.buf, pad, src.dtype, out.length)  # the rounding, the skipped rows and past the size
    if src.stored:
        memory._copies_in_wait_for_copies_out()
    src.loaded = True
    row_pad = (width - cols) if cols * size % 32 else 0

    def copy(i: Any, start: Any) -> None:
        params = asc.DataCopyExtParams(1, cols * size, 0, 0)
        pad_params = asc.DataCopyPadExtParams(src.dtype, True, 0, row_pad, memory._pad_scalar(pad, src.dtype))
        asc.data_copy_pad(out.buf[i * width :], src.gm[start:], params, pad_params)

    _each_row(src, at, index, count, check_bounds, copy)
    return out


@builtin
def scatter(src: Any, dim: Any, index: Any, dst: Any, offsets: Any, check_bounds: bool = True,
            num_indices: Optional[Any] = None) -> None:  # fmt: skip
    """Row i of the tile `src` into dst's row offsets[dim] + index[i] (module docstring)."""
    what = "asctile.scatter"
    at = _check(what, dst, "dst", dim, index, offsets)
    if not isinstance(check_bounds, bool):
        raise CodegenError(f"{what}: check_bounds is a bool, got {check_bounds!r}")
    if not isinstance(src, Tile) or src.location != TileLocation.UB or len(src.shape) != 2:
        raise CodegenError(f"{what}: src is a 2-D tile of the Unified Buffer (rows to write), got {src!r}")
    if src.dtype != dst.dtype:
        raise CodegenError(f"{what}: 'src' and 'dst' have different data types: {src.dtype.name} and "
                           f"{dst.dtype.name}")  # fmt: skip
    cols = dst.shape[-1]
    if src.shape[1] < cols:
        raise CodegenError(f"{what}: rows of {src!r} are shorter than dst's rows of {cols}")
    if index.shape[0] > src.shape[0]:
        raise CodegenError(f"{what}: {index.shape[0]} indices for the {src.shape[0]} rows of {src!r}")
    count = _count(what, num_indices, index.shape[0])
    size, width = src.dtype.sizeof(), src.shape[1]

    def copy(i: Any, start: Any) -> None:
        asc.data_copy_pad(dst.gm[start:], src.buf[i * width :], asc.DataCopyExtParams(1, cols * size, 0, 0))

    _each_row(dst, at, index, count, check_bounds, copy)
    dst.stored = True
    if dst.loaded:
        memory._copies_in_wait_for_copies_out()


__all__ = ["gather", "scatter"]
