"""GM views and the moves between them and tiles. A load copies the part of
the tile that lies inside the tensor and fills the rest with `pad_value`; a
store writes only the part inside the tensor (both as NumPy slicing clips),
so tiles may hang over a tensor's end. Rows move with DataCopyPad, so any
element count and offset works."""

from __future__ import annotations

from typing import Any, Optional

import asc
from asc.codegen import regions
from asc.errors import CodegenError
from asc.language.basic.utils import builtin
from asc.language.core.ir_value import Scalar, cast, is_runtime, minmax, to_scalar

from . import cube
from .elementwise import fill
from .shape import bits
from .split import SplitTile, for_each_chunk, needs_split
from .tile import Tile, TileLocation, check_shape

_I64 = asc.int64
_MAX_DIMS = 8


class Tensor:
    """``asc2.tensor(ptr, shape)``: a dense row-major array in GM; dims are ints or run-time ints."""

    def __init__(self, base: asc.GlobalAddress, shape: tuple):
        # run-time dims as int64, so that offsets computed from them do not wrap at 2**31 elements
        shape = tuple(cast(d, _I64) if isinstance(d, Scalar) else d for d in shape)
        self.base, self.shape, self.dtype = base, shape, base.dtype
        self.gm = asc.GlobalTensor()
        self.gm.set_global_buffer(base, _product(shape))
        self.loaded = self.stored = False  # so far in the kernel's text

    @property
    def rank(self) -> int:
        return len(self.shape)

    def __repr__(self) -> str:
        return f"Tensor({list(self.shape)}, {self.dtype.name})"


# The sync inserter orders accesses to local memory; GM is asc2's to order. A tensor both loaded and stored
# gets its copies in ordered (MTE3 before MTE2) on both sides of each store, which also covers a store in one
# loop iteration and a load in the next; scalar accesses wait for every pipe.
_GM_EVENT_ID = 7


def _copies_in_wait_for_copies_out() -> None:
    asc.set_flag(asc.HardEvent.MTE3_MTE2, _GM_EVENT_ID)
    asc.wait_flag(asc.HardEvent.MTE3_MTE2, _GM_EVENT_ID)


def _scalar_access(access: Any) -> Any:
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    result = access()
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    return result


@builtin
def tensor(base: Any, shape: Any) -> Tensor:
    if not isinstance(base, asc.GlobalAddress):
        raise CodegenError(
            f"asc2.tensor: the base is a kernel's asc.GlobalAddress parameter, got {type(base).__name__}"
        )
    dims = tuple(shape) if isinstance(shape, (list, tuple)) else (shape,)
    if not 1 <= len(dims) <= _MAX_DIMS:  # tiles have 1 or 2; scalars are loaded and stored at any rank
        raise CodegenError(f"asc2.tensor: tensors have 1 to {_MAX_DIMS} dimensions, got {len(dims)}")
    for d in dims:
        if isinstance(d, bool) or not (isinstance(d, int) or (isinstance(d, Scalar) and d.dtype.is_int())):
            raise CodegenError(f"asc2.tensor: a dimension is an int or a run-time int, got {d!r}")
    return Tensor(base, dims)


def _product(dims: tuple) -> Any:
    total: Any = 1
    for d in dims:
        total = total * (cast(d, _I64) if isinstance(d, Scalar) else d)
    return total


def _offsets(what: str, t: Tensor, shape: Optional[tuple], offsets: Any, tile_id: Any) -> list:
    if (offsets is None) == (tile_id is None):
        raise CodegenError(f"{what}: give exactly one of offsets= and tile_id=")
    given = offsets if offsets is not None else tile_id
    values = list(given) if isinstance(given, (list, tuple)) else [given]
    if len(values) != len(t.shape):
        raise CodegenError(f"{what}: {len(values)} offsets for a {len(t.shape)}-D tensor")
    if tile_id is not None:
        if shape is None:
            raise CodegenError(f"{what}: tile_id= needs a tile shape")
        values = [i * s for i, s in zip(values, shape)]  # tile i starts at element i * the tile's dim
    return [cast(v, _I64) if isinstance(v, Scalar) else v for v in values]


def _inside(total: Any, offset: Any, extent: int) -> Any:
    """How many of `extent` elements from `offset` lie in [0, total): an int, or a run-time int64."""
    if not is_runtime(total) and not is_runtime(offset):
        return max(0, min(extent, total - offset))
    left = to_scalar(total, _I64) - to_scalar(offset, _I64)
    return minmax("max", [minmax("min", [left, extent]), 0])


def _linear(t: Tensor, offsets: list) -> Any:
    """The row-major element index of `offsets` in `t`."""
    index = offsets[0]
    for offset, dim in zip(offsets[1:], t.shape[1:]):
        index = index * dim + offset
    return index


def _rows_and_cols(t: Tensor, dims: tuple, offsets: list, real: Optional[tuple] = None) -> tuple[Any, Any]:
    """The rows and columns of a `dims` tile at `offsets` that lie inside `t` and, given `real` (asctile's
    real_shape: ints or run-time ints), inside its first `real` rows and columns."""
    if real is not None:  # a tile's first real[i] elements along axis i, still clipped by the tensor's end
        dims = tuple(d if is_runtime(r) else min(r, d) for r, d in zip(real, dims))
    cols = _inside(t.shape[-1], offsets[-1], dims[-1])
    rows = _inside(t.shape[0], offsets[0], dims[0]) if len(dims) == 2 else 1
    if real is not None and is_runtime(real[-1]):
        cols = minmax("min", [to_scalar(cols, _I64), cast(real[-1], _I64)])
    if real is not None and len(dims) == 2 and is_runtime(real[0]):
        rows = minmax("max", [minmax("min", [to_scalar(rows, _I64), cast(real[0], _I64)]), 0])
    return rows, cols


def _when_positive(rows: Any, cols: Any, body: Any) -> None:
    """Runs `body` (emitting IR) when rows and cols are both > 0, deciding at compile time when it can."""
    if not is_runtime(rows) and not is_runtime(cols):
        if rows > 0 and cols > 0:
            body()
        return
    with regions.if_(minmax("min", [to_scalar(rows, _I64), to_scalar(cols, _I64)]) > 0):
        body()


def _blocks(n_bytes: Any) -> Any:
    return (n_bytes + 31) // 32


@builtin
def load(t: Any, shape: Any = None, *, offsets: Any = None, tile_id: Any = None, pad_value: Any = 0,
         location: Any = TileLocation.UB, real_shape: Optional[tuple] = None) -> Any:  # fmt: skip
    """A tile of `shape` from tensor `t` at `offsets` (or tile `tile_id`), elements outside `t` set to
    `pad_value`; without a shape, the one element at `offsets` as a scalar. `location` L1, L0A or L0B: a cube
    tile (asc2.cube). `real_shape` (asc.experimental.asctile's copy_in): only the tile's first real_shape[i]
    elements along each axis are read, the rest are padding too."""
    if not isinstance(t, Tensor):
        raise CodegenError(f"asc2.load: expected an asc2.tensor, got {type(t).__name__}")
    if shape is None:
        at = _offsets("asc2.load", t, None, offsets, tile_id)
        return _scalar_access(lambda: t.gm.get_value(_linear(t, at)))
    dims = check_shape(shape, t.dtype, "asc2.load")
    if len(dims) != len(t.shape):
        raise CodegenError(f"asc2.load: a {len(dims)}-D tile from a {len(t.shape)}-D tensor")
    at = _offsets("asc2.load", t, dims, offsets, tile_id)
    if location != TileLocation.UB:
        if real_shape is not None:
            raise CodegenError("asc2.load: real_shape is for tiles in the Unified Buffer, not cube tiles")
        return cube.load(t, dims, at, cube._location(location, "asc2.load"), pad_value)
    if needs_split(dims, t.dtype):  # loaded chunk by chunk where it is used
        return SplitTile(dims, t.dtype, lambda chunk: load(t, chunk[1], offsets=_shifted(at, chunk[0]),
                                                           pad_value=pad_value,
                                                           real_shape=_shifted_real(real_shape, chunk[0])))  # fmt: skip
    tile = _loaded_tile(dims, t.dtype)
    rows, cols = _rows_and_cols(t, dims, at, real_shape)
    size = t.dtype.sizeof()
    full = not is_runtime(rows) and not is_runtime(cols) and rows == (dims[0] if len(dims) == 2 else 1)
    full = full and cols == dims[-1]
    if tile.size != tile.length:  # elements past the size are computed on too: they hold the padding
        fill(tile.buf, pad_value, tile.dtype, tile.length)
    elif not full:  # a tail: what the copy leaves out is padding
        _fill_unless_whole(tile, rows, cols, dims, pad_value)
    if t.stored:
        _copies_in_wait_for_copies_out()
    t.loaded = True
    row_bytes = cols * size

    def copy() -> None:
        gap = 0 if len(dims) == 1 else (t.shape[1] - cols) * size
        ub_gap = 0 if len(dims) == 1 else (dims[-1] * size - _blocks(row_bytes) * 32) // 32
        pad = (_blocks(row_bytes) * 32 - row_bytes) // size  # the last block of each row, after the data
        params = asc.DataCopyExtParams(rows, row_bytes, gap, ub_gap)
        asc.data_copy_pad(tile.buf, t.gm[_linear(t, at) :], params,
                          asc.DataCopyPadExtParams(t.dtype, True, 0, pad, _pad_scalar(pad_value, t.dtype)))  # fmt: skip

    _when_positive(rows, cols, copy)
    return tile


def _loaded_tile(dims: tuple, dtype: asc.DataType) -> Tile:
    """A load's tile, in a load buffer: in a loop built in pairs (double buffering), consecutive iterations
    load into different memory, so one's copy in need not wait for the other's computing."""
    return Tile(dims, dtype, regions.load_buffer(dtype, Tile.length_of(dims)))


def _shifted(offsets: list, start: Any) -> list:
    """`offsets` moved `start` along axis 0 (a chunk of a split tile)."""
    return [offsets[0] + start, *offsets[1:]]


def _shifted_real(real: Optional[tuple], start: Any) -> Optional[tuple]:
    """A split tile's real_shape for its chunk starting at row `start` (what is left of the real rows)."""
    return None if real is None else (real[0] - start, *real[1:])


def _pad_scalar(value: Any, dtype: asc.DataType) -> Any:
    return cast(value, dtype) if isinstance(value, Scalar) else to_scalar(value, dtype)


def _fill_unless_whole(tile: Tile, rows: Any, cols: Any, dims: tuple, pad_value: Any) -> None:
    if not is_runtime(rows) and not is_runtime(cols):
        fill(tile.buf, pad_value, tile.dtype, tile.length)
        return
    # rows and cols are at most the tile's, so the tile is whole exactly when their product is
    tail = to_scalar(rows, _I64) * to_scalar(cols, _I64) < tile.size
    with regions.if_(tail):
        fill(tile.buf, pad_value, tile.dtype, tile.length)


@builtin
def store(value: Any, t: Any, *, offsets: Any = None, tile_id: Any = None, real_shape: Optional[tuple] = None) -> None:
    """`value` (a tile, or a scalar at `offsets`) into tensor `t`; the part of a tile outside `t` is not
    written. A tile's dtype must be the tensor's (convert with ``.to(dtype)``). `real_shape`
    (asc.experimental.asctile's copy_out): only the tile's first real_shape[i] elements along each axis are
    written."""
    if not isinstance(t, Tensor):
        raise CodegenError(f"asc2.store: expected an asc2.tensor, got {type(t).__name__}")
    if isinstance(value, cube.CubeTile):  # a matmul's result, through the fixpipe
        cube.store(value, t, _offsets("asc2.store", t, value.shape, offsets, tile_id))
        return
    if isinstance(value, SplitTile):  # computed and stored chunk by chunk
        at = _offsets("asc2.store", t, value.shape, offsets, tile_id)
        for_each_chunk(
            value.shape,
            lambda chunk: store(
                value.build(chunk), t, offsets=_shifted(at, chunk[0]), real_shape=_shifted_real(real_shape, chunk[0])
            ),
        )
        return
    if isinstance(value, Tile) and value.size == 1:  # one element, any rank: stored as the scalar it holds
        if tile_id is not None:
            raise CodegenError("asc2.store: a one-element tile is stored as a scalar, at offsets=, not tile_id=")
        value = value.buf.get_value(0)
    if not isinstance(value, Tile):
        if tile_id is not None:
            raise CodegenError("asc2.store: a scalar is stored at offsets=, not tile_id=")
        at = _offsets("asc2.store", t, None, offsets, None)
        _scalar_access(lambda: t.gm.set_value(_linear(t, at), _pad_scalar(value, t.dtype)))
        return
    if value.dtype != t.dtype:
        raise CodegenError(f"asc2.store: a {value.dtype.name} tile into a {t.dtype.name} tensor; convert it with "
                           f".to(asc.{t.dtype.name}) first")  # fmt: skip
    if len(value.shape) != len(t.shape):
        raise CodegenError(f"asc2.store: a {len(value.shape)}-D tile into a {len(t.shape)}-D tensor")
    check_shape(value.shape, value.dtype, "asc2.store")  # a [rows, 1] column is stored raveled
    at = _offsets("asc2.store", t, value.shape, offsets, tile_id)
    rows, cols = _rows_and_cols(t, value.shape, at, real_shape)
    size = t.dtype.sizeof()

    def copy() -> None:
        row_bytes = cols * size
        gap = 0 if len(value.shape) == 1 else (t.shape[1] - cols) * size
        ub_gap = 0 if len(value.shape) == 1 else (value.shape[-1] * size - _blocks(row_bytes) * 32) // 32
        asc.data_copy_pad(t.gm[_linear(t, at) :], value.buf, asc.DataCopyExtParams(rows, row_bytes, ub_gap, gap))

    _when_positive(rows, cols, copy)
    t.stored = True
    if t.loaded:
        _copies_in_wait_for_copies_out()


@builtin
def copy(tile: Any, shape: Any = None, *, offsets: Any = None, location: Any = None, distrib: Any = None) -> Tile:
    """The part of `tile` of `shape` (its whole shape by default) at `offsets` (zeros by default) as a new
    tile; `offsets` are ints, and the part lies inside the tile. Cube tiles move between memories
    (`location=`; `distrib` for an L0C tile into the vector cores' Unified Buffer): asc2.cube.copy."""
    if not isinstance(tile, Tile):
        raise CodegenError(f"asc2.copy: expected a tile, got {type(tile).__name__}")
    if tile.location != TileLocation.UB or (location is not None and location != TileLocation.UB):
        # between the cube's memories (L1 -> L0A / L0B, L0C -> L1)
        return cube.copy(
            tile, shape, offsets=offsets, location=TileLocation.UB if location is None else location, distrib=distrib
        )
    if distrib is not None:
        raise CodegenError("asc2.copy: distrib is for an L0C tile copied into the Unified Buffer")
    dims = check_shape(tile.shape if shape is None else shape, tile.dtype, "asc2.copy", column=True)
    if len(dims) != len(tile.shape):
        raise CodegenError(f"asc2.copy: a {len(dims)}-D part of a {len(tile.shape)}-D tile")
    at = [0] * len(dims) if offsets is None else list(offsets) if isinstance(offsets, (list, tuple)) else [offsets]
    if len(at) != len(dims):
        raise CodegenError(f"asc2.copy: {len(at)} offsets for a {len(dims)}-D tile")
    for o, d, whole in zip(at, dims, tile.shape):
        if isinstance(o, bool) or not isinstance(o, int) or not 0 <= o <= whole - d:
            raise CodegenError(f"asc2.copy: offsets {at} and shape {list(dims)} do not lie inside {tile!r} (offsets "
                               "are ints known while compiling)")  # fmt: skip
    if tuple(at) == (0,) * len(dims) and dims == tile.shape:
        return tile
    out = Tile(dims, tile.dtype)
    if out.size != out.length:  # past the size is computed on too: defined values
        fill(out.buf, 0, out.dtype, out.length)
    rows, cols = (dims[0], dims[1]) if len(dims) == 2 else (1, dims[0])
    width = tile.shape[-1] if len(dims) == 2 else 0
    start = at[0] * width + at[-1] if len(dims) == 2 else at[0]
    src, dst = bits(tile.buf, tile.dtype, "asc2.copy"), bits(out.buf, tile.dtype, "asc2.copy")
    size = tile.dtype.sizeof()
    on_blocks = len(dims) == 1 or (width * size % 32 == 0 and cols * size % 32 == 0)  # not a column's rows
    if start * size % 32 == 0 and on_blocks:  # every row starts on a 32-byte block
        with regions.for_range(0, rows) as r:
            asc.copy(dst[r * cols :], src[start + r * width :], cols)
    else:  # vector instructions start on blocks: element by element
        with regions.for_range(0, rows) as r:
            with regions.for_range(0, cols) as c:
                dst.set_value(r * cols + c, src.get_value(start + r * width + c))
    return out


__all__ = ["Tensor", "copy", "load", "store", "tensor"]
