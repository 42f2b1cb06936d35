"""asctile's tensors over asc2's: GlobalTensor is asc2.Tensor (``global_tensor`` is asc2.tensor) and
LocalTensor is asc2.Tile itself, so that every asc2 operation's result is an asctile LocalTensor. The
methods and properties asctile's LocalTensor has and asc2's Tile lacks (``rank``, ``.to(location)``,
``.T``, ``& | ^ ~ ** //``, ``abs()``; ``& | ^ ~`` on comparisons' masks) are added to Tile here, when
asctile is first imported; asc2's own methods are left as they are (``.to`` becomes a superset)."""

from __future__ import annotations

from enum import IntEnum
from typing import Any

import asc2
from asc.errors import CodegenError
from asc.language.basic.utils import builtin
from asc2.memory import Tensor
from asc2.ops import Mask
from asc2.split import SplitTile
from asc2.tile import Tile, TileLocation

GlobalTensor = Tensor
LocalTensor = Tile


class TensorLocation(IntEnum):
    """Where a local tensor lives (asctile's names). UB, L1, L0A, L0B, L0C and FIX are asc2.TileLocation's
    values, so the two compare equal; Auto (the compiler chooses) is the Unified Buffer here, as for every
    tile asc2 creates; BT (the bias table) is accepted as a name only."""

    Auto = 0
    BT = 22
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
    if value == TensorLocation.BT:
        raise CodegenError(f"{what}: the bias table (BT) is not on the Model yet; matmul bias is not either")
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


# -- the methods asctile's LocalTensor has beyond asc2's Tile ------------------------------------------------


def _to(self: Tile, *args: Any, **kwargs: Any) -> Any:
    """``t.to(dtype, round_mode=RoundMode.Default)`` (asctile.cast) or ``t.to(location)`` (asctile.copy)."""
    from . import _ops
    from ._memory import copy

    target = args[0] if args else kwargs.get("dtype", kwargs.get("location"))
    if isinstance(target, (str, TensorLocation, TileLocation)):
        if len(args) + len(kwargs) != 1:
            raise CodegenError("LocalTensor.to(location) takes the location only")
        dest = location(target, "LocalTensor.to")
        return self if dest == self.location else copy(self, location=dest)
    return _ops.cast(self, *args, **kwargs)


def _binary(name: str, reflected: bool = False) -> Any:
    def method(self: Any, other: Any) -> Any:
        from . import _ops

        fn = getattr(_ops, name)
        return fn(other, self) if reflected else fn(self, other)

    method.__name__ = name
    return method


def _unary(name: str) -> Any:
    def method(self: Any) -> Any:
        from . import _ops

        return getattr(_ops, name)(self)

    method.__name__ = name
    return builtin(method)


def _transpose(self: Tile, *axis: int) -> Any:
    from ._ops import transpose

    return transpose(self, *axis)


def _rmatmul(self: Tile, other: Any) -> Any:
    from ._ops import matmul

    return matmul(other, self)


def _install() -> None:
    extra: dict[str, Any] = {
        "rank": property(lambda self: len(self.shape)),
        "__and__": _binary("bitwise_and"),
        "__rand__": _binary("bitwise_and", True),
        "__or__": _binary("bitwise_or"),
        "__ror__": _binary("bitwise_or", True),
        "__xor__": _binary("bitwise_xor"),
        "__rxor__": _binary("bitwise_xor", True),
        "__pow__": _binary("pow"),
        "__rpow__": _binary("pow", True),
        "__floordiv__": _binary("div"),  # asctile's // is its / (LocalTensor.__floordiv__)
        "__rfloordiv__": _binary("div", True),
        "__invert__": _unary("bitwise_not"),
        "__abs__": _unary("abs"),
        "__rmatmul__": _rmatmul,
        "T": property(lambda self: _transpose(self)),
        "transpose": builtin(_transpose),
    }
    for cls in (Tile, SplitTile):
        for name, value in extra.items():
            if name not in cls.__dict__ or name == "rank":
                setattr(cls, name, value)
    for name in ("__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__", "__invert__"):
        setattr(Mask, name, extra[name])  # comparisons' masks combine as asctile's bool tiles do
    Tile.to = builtin(_to)  # a superset of asc2's .to(dtype)
    SplitTile.to = Tile.to
    Tensor.rank = property(lambda self: len(self.shape))  # type: ignore[attr-defined]


_install()

__all__ = ["GlobalTensor", "LocalTensor", "RoundMode", "TensorLocation", "global_tensor", "location"]
