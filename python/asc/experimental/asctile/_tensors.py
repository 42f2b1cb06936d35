"""asctile's tensors over asc2's: GlobalTensor is asc2.Tensor (``global_tensor`` is asc2.tensor) and
LocalTensor is asc2.Tile itself, so that every asc2 operation's result is an asctile LocalTensor. asc2's
Tile has asctile's methods (``rank``, ``.to(location)``, ``.T``, ``& | ^ ~ **``, ``abs()``; ``& | ^ ~`` on
comparisons' masks); where asctile means something else (``//``, ``.to`` with asctile's enums) its meaning
is registered as the "asctile" tile dialect (asc2.dialect), which only asctile kernels compile with."""

from __future__ import annotations

from enum import IntEnum
from typing import Any

import asc2
from asc.errors import CodegenError
from asc.language.basic.utils import builtin
from asc2 import dialect
from asc2.memory import Tensor
from asc2.tile import Tile, TileLocation

GlobalTensor = Tensor
LocalTensor = Tile


class TensorLocation(IntEnum):
    """Where a local tensor lives (asctile's names). UB, L1, L0A, L0B, L0C and FIX are asc2.TileLocation's
    values, so the two compare equal; Auto (the compiler chooses) is the Unified Buffer here, as for every
    tile asc2 creates."""

    Auto = 0
    BT = int(TileLocation.BT)
    L0A = int(TileLocation.L0A)
    L0B = int(TileLocation.L0B)
    L0C = int(TileLocation.L0C)
    UB = int(TileLocation.UB)
    L1 = int(TileLocation.L1)
    FIX = int(TileLocation.FIX)


class RoundMode(IntEnum):
    """asctile's rounding modes of ``cast`` / ``.to(dtype, round_mode)``; Default is asc2's choice per pair
    of dtypes (docs/tile-api.md), the others the Cast instruction's modes."""

    Default = 0
    NoRound = 1
    Rint = 2
    Floor = 3
    Ceil = 4
    Round = 5
    Trunc = 6
    Odd = 7


def location(value: Any, what: str) -> TileLocation:
    """An asctile location (a TensorLocation, an asc2.TileLocation or its name) as asc2's TileLocation."""
    if isinstance(value, str):
        if value not in TensorLocation.__members__:
            raise CodegenError(f"{what}: no location {value!r} (one of {', '.join(TensorLocation.__members__)})")
        value = TensorLocation[value]
    if not isinstance(value, (TensorLocation, TileLocation)):
        raise CodegenError(f"{what}: a location is an asctile.TensorLocation or its name, got {value!r}")
    if value == TensorLocation.Auto:
        return TileLocation.UB
    return TileLocation(int(value))


@builtin
def global_tensor(base: Any, shape: Any, l2_cache: bool = True) -> Tensor:
    """A GM tensor of `shape` at `base` (asc2.tensor). `l2_cache=False` is accepted: the Model has no L2
    cache to bypass, so it changes nothing."""
    if not isinstance(l2_cache, bool):
        raise CodegenError(f"asctile.global_tensor: l2_cache is a bool, got {l2_cache!r}")
    if isinstance(shape, (list, tuple)) and not shape:
        raise CodegenError("asctile.global_tensor: the shape has at least one dimension")
    return asc2.tensor(base, shape)


# -- what asctile's LocalTensor means where asc2's Tile means something else ---------------------------------
# asc2's Tile already has asctile's methods (rank, & | ^ ~, **, abs(), .T / .transpose, .to(location)); two
# differ, and take asctile's meaning in asctile kernels only (asctile.jit compiles with tile_dialect="asctile":
# asc2.dialect), so that importing asctile changes nothing for asc2 kernels.

DIALECT = "asctile"


def _floordiv(self: Any, other: Any) -> Any:
    """asctile's ``//`` is its ``/`` (LocalTensor.__floordiv__ returns self / other): true division."""
    return asc2.div(self, other)


def _rfloordiv(self: Any, other: Any) -> Any:
    return asc2.div(other, self)


def _to(self: Any, *args: Any, **kwargs: Any) -> Any:
    """``t.to(dtype, round_mode=RoundMode.Default)`` (asctile.cast) or ``t.to(location)`` with asctile's
    TensorLocation (asctile.copy)."""
    from . import _ops
    from ._memory import copy

    target = args[0] if args else kwargs.get("dtype", kwargs.get("location"))
    if isinstance(target, (str, TensorLocation, TileLocation)):
        if len(args) + len(kwargs) != 1:
            raise CodegenError("LocalTensor.to(location) takes the location only")
        dest = location(target, "LocalTensor.to")
        return self if dest == self.location else copy(self, location=dest)
    return _ops.cast(self, *args, **kwargs)


dialect.register(DIALECT, {"__floordiv__": _floordiv, "__rfloordiv__": _rfloordiv, "to": builtin(_to)})

__all__ = ["DIALECT", "GlobalTensor", "LocalTensor", "RoundMode", "TensorLocation", "global_tensor", "location"]
