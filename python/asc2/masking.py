"""asc2.mask: ``with asc2.mask(count=n, other=v):`` / ``with asc2.mask(bits=(hi, lo), other=v):`` — the tiles
the enclosed operations compute hold `v` at the elements outside the mask: past the first `n`, or, in each
256-byte repeat of the tile (64 elements of a 32-bit dtype, 128 of a 16-bit one), where the bit of the
128-bit pattern hi:lo (bit i for element i of the repeat, lo first) is clear, as Ascend C's vector masks in
count and bitwise mode select elements. Without `other` those elements are left unspecified (here: computed
like the others).

Element-wise operations are independent per element, so applying the mask once at the end of the region, to
every tile made in it and still held by a variable, gives each such tile what a masked computation would."""

from __future__ import annotations

import weakref
from typing import Any, Optional

import asc
from asc.codegen import regions
from asc.errors import CodegenError
from asc.language.basic.utils import builtin
from asc.language.core.ir_value import Scalar, to_scalar
from asc.language.core.ir_value import cast as scalar_cast

_active: list[_Region] = []


def created(tile: Any) -> None:
    """Tile.__init__: a tile made inside mask regions is masked when the innermost one ends."""
    if _active:
        _active[-1].tiles[id(tile)] = tile


class _Region:
    def __init__(self, count: Any, bits: Optional[tuple[int, int]], other: Any):
        self.count, self.bits, self.other = count, bits, other
        self.tiles: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
        _active.append(self)

    def __asc_region__(self, completed: bool = True) -> None:
        _active.remove(self)
        if not completed or self.other is None:
            return
        from . import elementwise
        from .ops import _scalar, full

        for tile in list(self.tiles.values()):
            selection = self._bits(tile)
            other = _scalar(self.other, tile.dtype, "asc2.mask")
            masked = elementwise.select(selection, tile, other, lambda s, t=tile: full(t.shape, s, t.dtype))
            asc.copy(tile.buf, masked.buf, tile.length)

    def _bits(self, tile: Any) -> asc.LocalTensor:
        """One bit per element of the tile's length: set inside the mask."""
        words = tile.length // 16
        selection = asc.LocalTensorAuto(asc.uint8, max(32, tile.length // 8))
        w = selection.reinterpret_cast(asc.uint16)
        if self.bits is None:
            _count_bits(w, words, self.count)
            return selection
        size = tile.dtype.sizeof()
        if size not in (2, 4):
            raise CodegenError(f"asc2.mask: bits= masks 16- and 32-bit tiles, got {tile.dtype.name}")
        hi, lo = self.bits
        pattern = [(lo >> (16 * k)) & 0xFFFF for k in range(4)] + ([(hi >> (16 * k)) & 0xFFFF for k in range(4)]
                                                                 if size == 2 else [])  # fmt: skip
        if len(set(pattern)) == 1:
            asc.duplicate(w, to_scalar(pattern[0], asc.uint16), words)
            return selection
        per = len(pattern)
        with regions.for_range(0, words // per) as r:
            for k, word in enumerate(pattern):
                w.set_value(r * per + k, to_scalar(word, asc.uint16))
        return selection


def _count_bits(w: asc.LocalTensor, words: int, count: Any) -> None:
    """The first `count` bits of `words` 16-bit words set, the rest clear."""
    asc.duplicate(w, to_scalar(0, asc.uint16), words)
    if not isinstance(count, Scalar):
        n = max(0, min(int(count), words * 16))
        if n // 16:
            asc.duplicate(w, to_scalar(0xFFFF, asc.uint16), n // 16)
        if n % 16:
            w.set_value(n // 16, to_scalar((1 << (n % 16)) - 1, asc.uint16))
        return
    n = to_scalar(count, asc.int32)
    whole = n // 16
    with regions.if_(whole > 0):
        asc.duplicate(w, to_scalar(0xFFFF, asc.uint16), whole)
    rest = n - whole * 16
    with regions.if_(whole < words):
        with regions.if_(rest > 0):
            w.set_value(whole, scalar_cast((to_scalar(1, asc.int32) << rest) - 1, asc.uint16))


@builtin
def mask(*, count: Any = None, bits: Any = None, other: Any = None) -> _Region:
    """A region whose tiles hold `other` outside the first `count` elements, or outside the bit pattern
    bits=(hi, lo) repeated every 256 bytes."""
    if (count is None) == (bits is None):
        raise CodegenError("asc2.mask: give exactly one of count= and bits=")
    is_int = isinstance(count, int) and not isinstance(count, bool)
    if count is not None and not (is_int or isinstance(count, Scalar) and count.dtype.is_int()):
        raise CodegenError(f"asc2.mask: count is an int or a run-time int, got {count!r}")
    if bits is not None:
        bits = tuple(bits)
        if len(bits) != 2 or not all(isinstance(b, int) and not isinstance(b, bool) and 0 <= b < 2**64 for b in bits):
            raise CodegenError(f"asc2.mask: bits is two compile-time 64-bit ints (hi, lo), got {bits!r}")
    return _Region(count, bits, other)
