"""asc2.atomic_add / atomic_max / atomic_min: a tile stored into a GM tensor combining each element with the
one there (gm = gm + v, max(gm, v), min(gm, v)), so that several blocks may write the same elements. Lowered
as the store between SetAtomicAdd / SetAtomicMax / SetAtomicMin and SetAtomicNone, which make the store's
DataCopyPad combine; their dtypes on Atlas A2/A3 are int8, int16, half, bfloat16, int32 and float
(https://www.hiascend.com/document/detail/en/canncommercial/850/API/ascendcopapi/atlasascendc_api_07_0284.html,
.../atlasascendc_api_07_0285.html; SetAtomicAdd: .../atlasascendc_api_07_0209.html of the 800 release)."""

from __future__ import annotations

from typing import Any, Callable

import asc
from asc.errors import CodegenError
from asc.language.basic.utils import builtin

from .memory import Tensor, store
from .tile import Tile

ATOMIC_DTYPES = (asc.float16, asc.bfloat16, asc.float32, asc.int16, asc.int32, asc.int8)


def _atomic(name: str, setter: Callable[[asc.DataType], None], tile: Any, tensor: Any, offsets: Any) -> None:
    what = f"asc2.{name}"
    if not isinstance(tile, Tile):
        raise CodegenError(f"{what}: the value is a tile, got {type(tile).__name__}")
    if not isinstance(tensor, Tensor):
        raise CodegenError(f"{what}: the destination is an asc2.tensor, got {type(tensor).__name__}")
    if tile.dtype not in ATOMIC_DTYPES:
        raise CodegenError(f"{what}: {', '.join(d.name for d in ATOMIC_DTYPES)} tiles only, got {tile.dtype.name}")
    if tile.dtype != tensor.dtype:
        raise CodegenError(f"{what}: a {tile.dtype.name} tile into a {tensor.dtype.name} tensor")
    setter(tile.dtype)
    store(tile, tensor, offsets=offsets)
    asc.set_atomic_none()


@builtin
def atomic_add(tile: Any, tensor: Any, offsets: Any) -> None:
    """tensor[offsets...] += tile, atomically."""
    _atomic("atomic_add", asc.set_atomic_add, tile, tensor, offsets)


@builtin
def atomic_max(tile: Any, tensor: Any, offsets: Any) -> None:
    """tensor[offsets...] = max(tensor[offsets...], tile), atomically."""
    _atomic("atomic_max", asc.set_atomic_max, tile, tensor, offsets)


@builtin
def atomic_min(tile: Any, tensor: Any, offsets: Any) -> None:
    """tensor[offsets...] = min(tensor[offsets...], tile), atomically."""
    _atomic("atomic_min", asc.set_atomic_min, tile, tensor, offsets)
