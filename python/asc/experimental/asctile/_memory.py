"""asctile's moves between GM and tiles and between memories: copy_in is asc2.load, copy_out asc2.store and
copy asc2.copy, with asctile's signatures (offsets positional, then shape and location) and its real_shape
/ pad_value rules (pyasc-dev's memory_ops.py): a copy_in reads the tile's first real_shape[i] elements along
each axis that lie inside the tensor and fills the rest with pad_value (0 unless given: where pyasc-dev
leaves the padding undefined, here it is 0); a copy_out writes only the first real_shape[i] elements that
lie inside the tensor."""

from __future__ import annotations

from enum import IntEnum
from typing import Any, Optional

import asc2
from asc.errors import CodegenError
from asc.language.basic.utils import builtin
from asc.language.core.ir_value import Scalar
from asc2.cube import CubeTile
from asc2.memory import Tensor
from asc2.split import SplitTile
from asc2.tile import Tile, TileLocation

from ._tensors import TensorLocation, location


class DistribMode(IntEnum):
    """How ``copy(..., distrib=)`` spreads a tile between a cube core and its vector sub-blocks (asctile's names
    and values). L0C -> UB: FullVec0 / FullVec1 the whole tile to one, SplitByM / SplitByN each its half of the
    rows / columns (cv_ratio=2; asc2.handover). UB -> L1: FullVec0 / FullVec1 one sub-block's whole tile,
    JoinByM / JoinByN both sub-blocks' tiles as the rows / columns of one twice as tall / wide (asc2.join)."""

    FullVec0 = 0
    FullVec1 = 1
    SplitByM = 2
    SplitByN = 3
    JoinByM = 4
    JoinByN = 5


def _ints(values: Any, what: str, name: str, rank: Optional[int] = None) -> list:
    """A list of ints / run-time ints (offsets, real_shape) of `rank` entries."""
    if isinstance(values, (list, tuple)):
        out = list(values)
    elif isinstance(values, (int, Scalar)) and not isinstance(values, bool):
        out = [values]
    else:
        raise CodegenError(f"{what}: {name} is a list of ints or run-time ints, got {values!r}")
    for v in out:
        if isinstance(v, bool) or not (isinstance(v, int) or isinstance(v, Scalar) and v.dtype.is_int()):
            raise CodegenError(f"{what}: {name} is a list of ints or run-time ints, got {v!r}")
    if rank is not None and len(out) != rank:
        raise CodegenError(f"{what}: {len(out)} {name} for rank {rank}")
    return out


def _real_shape(real: Any, shape: tuple, what: str) -> tuple:
    dims = _ints(real, what, "real_shape", len(shape))
    for r, d in zip(dims, shape):
        if isinstance(r, int) and not 0 <= r <= d:
            raise CodegenError(f"{what}: real_shape {dims} exceeds the tile's shape {list(shape)}")
    return tuple(dims)


def _tensor(t: Any, what: str, role: str) -> Tensor:
    if not isinstance(t, Tensor):
        raise CodegenError(f"{what}: {role} is an asctile.global_tensor, got {type(t).__name__}")
    return t


@builtin
def copy_in(src: Any, offsets: Any, shape: Any = None, location: Any = TensorLocation.Auto, *,
            real_shape: Any = None, pad_value: Any = None) -> Any:  # fmt: skip
    """A tile of `shape` from `src` at `offsets` (asc2.load), or without a shape the one element there as a
    scalar. `location` UB / Auto (the Unified Buffer), L1, L0A or L0B (cube tiles)."""
    what = "asctile.copy_in"
    t = _tensor(src, what, "src")
    at = _ints(offsets, what, "offsets", len(t.shape))
    if shape is None:
        if real_shape is not None or pad_value is not None:
            raise CodegenError(f"{what}: a scalar load takes no real_shape or pad_value")
        return asc2.load(t, offsets=at)
    dims = tuple(shape) if isinstance(shape, (list, tuple)) else (shape,)
    dest = _location(location, what)
    real = None if real_shape is None else _real_shape(real_shape, dims, what)
    if real is not None and dest != TileLocation.UB:
        raise CodegenError(f"{what}: real_shape is not supported for TensorLocation.{dest.name}")
    pad = 0 if pad_value is None else pad_value
    if dest != TileLocation.UB:
        return asc2.load(t, dims, offsets=at, pad_value=pad, location=dest)
    return asc2.load(t, dims, offsets=at, pad_value=pad, real_shape=real)


def _location(value: Any, what: str) -> TileLocation:
    return location(value, what)


@builtin
def copy_out(src: Any, dst: Any, offsets: Any, *, real_shape: Any = None) -> None:
    """`src` (a tile, or a scalar / one-element tile stored as one element) into `dst` at `offsets`
    (asc2.store); a tile of another dtype than `dst`'s is refused (convert it with ``.to(dtype)``), a
    one-element one converted."""
    what = "asctile.copy_out"
    t = _tensor(dst, what, "dst")
    at = _ints(offsets, what, "offsets", len(t.shape))
    if not isinstance(src, (Tile, SplitTile)) or src.size == 1:
        if real_shape is not None:
            raise CodegenError(f"{what}: real_shape cannot be used for a scalar store")
        asc2.store(src, t, offsets=at)
        return
    if real_shape is not None:
        if isinstance(src, CubeTile):
            raise CodegenError(f"{what}: real_shape is for tiles in the Unified Buffer, not {src!r}")
        asc2.store(src, t, offsets=at, real_shape=_real_shape(real_shape, src.shape, what))
        return
    asc2.store(src, t, offsets=at)


@builtin
def copy(src: Any, offsets: Any = None, shape: Any = None, location: Any = None, distrib: Any = None) -> Any:
    """The part of `src` of `shape` at `offsets` as a new tile (asc2.copy), in `location` (default: src's):
    L1 -> L0A / L0B / BT and L0C -> L1 between the cube's memories, and L0C -> UB (Ascend 950) into the vector
    cores, `distrib` saying which gets what (asc2.handover), and UB -> L1 (Ascend 950) back into the cube core,
    `distrib` saying whose tile goes where (asc2.join)."""
    what = "asctile.copy"
    if distrib is not None and not isinstance(distrib, DistribMode):
        raise CodegenError(f"{what}: distrib is an asctile.DistribMode, got {distrib!r}")
    if not isinstance(src, Tile):
        raise CodegenError(f"{what}: src is a LocalTensor, got {type(src).__name__}")
    if distrib in (DistribMode.JoinByM, DistribMode.JoinByN) and shape is not None:
        rows, cols = src.shape if len(src.shape) == 2 else (0, 0)
        joined = (2 * rows, cols) if distrib == DistribMode.JoinByM else (rows, 2 * cols)
        if tuple(shape) != joined:
            raise CodegenError(f"{what}: joining by axis is only supported for the joined shape {joined}, got "
                               f"{tuple(shape)}")  # fmt: skip
        shape = None
    dest = None if location is None else _location(location, what)
    at = None if offsets is None else _ints(offsets, what, "offsets", len(src.shape))
    return asc2.copy(src, shape, offsets=at, location=dest, distrib=distrib)


__all__ = ["DistribMode", "copy", "copy_in", "copy_out"]
