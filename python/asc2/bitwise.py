"""Bitwise operations: the And / Or / Not instructions on the tiles' bits seen as int16 (the instructions'
16-bit dtypes; every integer tile is whole 16-bit words, as its length is a multiple of 128 elements), xor as
(a | b) & ~(a & b). On two comparisons' masks they combine the masks' bits (``(x > 0) & (y < 1)``)."""

from __future__ import annotations

from typing import Any, Callable

import asc
from asc.errors import CodegenError
from asc.language.basic.utils import builtin

from .ops import Mask, as_tile
from .split import SplitTile, lift
from .tile import Tile, TileLocation

INTEGERS = (asc.int8, asc.int16, asc.int32, asc.uint8, asc.uint16, asc.uint32)


def _as_int16(buf: Any, dtype: asc.DataType) -> Any:
    return buf if dtype == asc.int16 else buf.reinterpret_cast(asc.int16)


def _mask_words(m: Mask) -> int:
    return max(32, m.length // 8) // 2  # the bytes of its bits, as int16


def _tiles(name: str, a: Any, b: Any) -> tuple[Tile, Tile]:
    from .shape import broadcast_pair

    what = f"asc2.{name}"
    if not isinstance(a, Tile) and not isinstance(b, Tile):
        raise CodegenError(f"{what}: at least one operand must be a tile")
    t = a if isinstance(a, Tile) else b
    if t.location != TileLocation.UB or t.dtype not in INTEGERS:
        raise CodegenError(f"{what}: integer tiles only ({', '.join(d.name for d in INTEGERS)}) of the Unified "
                           f"Buffer, got {t!r}")  # fmt: skip
    a, b = (as_tile(v, t.shape, t.dtype, what) for v in (a, b))
    if a.dtype != b.dtype:
        raise CodegenError(f"{what}: dtypes {a.dtype.name} and {b.dtype.name} differ; convert one with .to(dtype)")
    if a.shape != b.shape:
        a, b = broadcast_pair(what, a, b)
    return a, b


def _binary(name: str, combine: Callable[[Any, Any, Any, int], None]) -> Callable[[Any, Any], Any]:
    def op(a: Any, b: Any) -> Any:
        if isinstance(a, Mask) and isinstance(b, Mask):
            if a.shape != b.shape:
                raise CodegenError(f"asc2.{name}: masks of shapes {list(a.shape)} and {list(b.shape)}")
            out = Mask(a.shape, a.length, a.dtype)
            combine(_as_int16(out.bits, asc.uint8), _as_int16(a.bits, asc.uint8), _as_int16(b.bits, asc.uint8),
                    _mask_words(a))  # fmt: skip
            return out
        if isinstance(a, (Mask, SplitTile)) or isinstance(b, (Mask, SplitTile)):
            raise CodegenError(f"asc2.{name}: operands are integer tiles (or a scalar), or two comparison masks")
        a, b = _tiles(name, a, b)
        out = Tile(a.shape, a.dtype)
        words = out.length * a.dtype.sizeof() // 2
        combine(_as_int16(out.buf, a.dtype), _as_int16(a.buf, a.dtype), _as_int16(b.buf, a.dtype), words)
        return out

    op.__name__ = op.__qualname__ = name
    op = lift()(op)
    op.__doc__ = f"a {name.split('_')[1]} b, bit by bit, of integer tiles (a scalar on either side) or of two masks."
    return builtin(op)


def _xor(dst: Any, a: Any, b: Any, n: int) -> None:
    both = asc.LocalTensorAuto(asc.int16, -(-n // 128) * 128)
    asc.bitwise_and(both, a, b, n)
    asc.bitwise_not(both, both, n)
    asc.bitwise_or(dst, a, b, n)
    asc.bitwise_and(dst, dst, both, n)


bitwise_and = _binary("bitwise_and", lambda d, a, b, n: asc.bitwise_and(d, a, b, n))
bitwise_or = _binary("bitwise_or", lambda d, a, b, n: asc.bitwise_or(d, a, b, n))
bitwise_xor = _binary("bitwise_xor", _xor)


@builtin
@lift()
def bitwise_not(t: Any) -> Any:
    """~t: every bit of an integer tile (or of a comparison's mask) flipped."""
    if isinstance(t, Mask):
        out = Mask(t.shape, t.length, t.dtype)
        asc.bitwise_not(_as_int16(out.bits, asc.uint8), _as_int16(t.bits, asc.uint8), _mask_words(t))
        return out
    if not isinstance(t, Tile) or t.location != TileLocation.UB or t.dtype not in INTEGERS:
        raise CodegenError(f"asc2.bitwise_not: an integer tile of the Unified Buffer or a comparison's mask, "
                           f"got {t!r}")  # fmt: skip
    out = Tile(t.shape, t.dtype)
    words = out.length * t.dtype.sizeof() // 2
    asc.bitwise_not(_as_int16(out.buf, t.dtype), _as_int16(t.buf, t.dtype), words)
    return out


__all__ = ["INTEGERS", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor"]
