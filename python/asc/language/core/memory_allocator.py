"""LocalMemAllocator: static tensor programming's bump allocator over one local memory.

Each alloc places a LocalTensor at the current address and moves the address past it,
rounded up to 32 bytes (local tensor addresses are 32-byte aligned). Addresses are
compile-time numbers while every size is and no alloc ran inside a run-time loop or
branch; a run-time size, or an alloc in such a region (counted at run time, once per
iteration, as the board's allocator counts), makes later ones run-time."""

from __future__ import annotations

from typing import Any

from ...codegen.context import current_builder
from ...errors import CodegenError
from . import dtype as dt
from .enums import Hardware, TPosition
from .ir_value import Scalar, cast, is_runtime, to_int, to_scalar
from .tensor import LocalTensor

_ALIGN = 32

# the TPositions whose tensors live in each memory
_POSITIONS = {
    Hardware.UB: (TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC),
    Hardware.L1: (TPosition.A1, TPosition.B1, TPosition.C1),
    Hardware.L0A: (TPosition.A2,),
    Hardware.L0B: (TPosition.B2,),
    Hardware.L0C: (TPosition.CO1,),
    Hardware.BIAS: (TPosition.C2,),
}


class LocalMemAllocator:
    """``asc.LocalMemAllocator(hard=asc.Hardware.UB)``; ``alloc(pos, dtype, tile_size)`` returns the next tensor."""

    __asc_builtin__ = True

    def __init__(self, hard: Hardware = Hardware.UB) -> None:
        builder = current_builder()  # only inside kernels
        if not isinstance(hard, Hardware) or hard not in _POSITIONS:
            raise CodegenError(f"LocalMemAllocator: hard must be a local asc.Hardware (UB, L1, L0A, ...), got {hard!r}")
        self.hard = hard
        # The address is a compile-time number (`_addr`) plus the bytes placed inside run-time loops and
        # branches opened after the allocator (`_placed_later`, a run-time variable defined here, so that it
        # carries from one iteration to the next), as on the board, where the allocator counts at run time.
        self._addr: Any = 0
        self._depth = builder.depth
        self._placed_later = Scalar(builder.op("var", [to_scalar(0, dt.uint32).handle]), dt.uint32)
        self._placed_later._mutable = True
        self._counts_later = False  # something was placed inside such a region

    def get_cur_addr(self) -> Any:
        """The byte address the next alloc places its tensor at. Inside a run-time loop or branch opened after
        the allocator it is a run-time value: a later alloc in the same body moves it from one iteration to
        the next."""
        if self._counts_later or current_builder().depth > self._depth:
            return self._addr + self._placed_later
        return self._addr

    def alloc(self, pos: TPosition, dtype: dt.DataType, tile_size: Any) -> LocalTensor:
        """A tensor of `tile_size` `dtype` elements at `pos`, at the current address."""
        if pos not in _POSITIONS[self.hard]:
            allowed = ", ".join(p.name for p in _POSITIONS[self.hard])
            raise CodegenError(f"LocalMemAllocator({self.hard.name}).alloc: {pos!r} is not in {self.hard.name} "
                               f"(its positions: {allowed})")  # fmt: skip
        if not isinstance(dtype, dt.DataType):
            raise CodegenError(f"LocalMemAllocator.alloc: dtype must be an asc dtype, got {dtype!r}")
        if not is_runtime(tile_size):
            tile_size = int(tile_size)
            if tile_size < 0:
                raise CodegenError(f"LocalMemAllocator.alloc: tile_size {tile_size} is negative")
        else:
            tile_size = to_int(tile_size, "tile_size")
        size = (tile_size * dtype.sizeof() + (_ALIGN - 1)) // _ALIGN * _ALIGN
        later = current_builder().depth > self._depth  # runs once per iteration or branch taken
        self._counts_later = self._counts_later or later
        tensor = LocalTensor(dtype, pos, self.get_cur_addr(), tile_size)
        if later:  # counted at run time
            moved = cast(self._placed_later + size, dt.uint32)
            current_builder().op("assign", [self._placed_later.handle, moved.handle])
        else:
            self._addr = self._addr + size
        return tensor


# kernels call these with run-time values (a dynamic tile_size)
LocalMemAllocator.alloc.__asc_builtin__ = True  # type: ignore[attr-defined]
LocalMemAllocator.get_cur_addr.__asc_builtin__ = True  # type: ignore[attr-defined]
