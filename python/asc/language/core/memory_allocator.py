"""LocalMemAllocator: static tensor programming's bump allocator over one local memory.

Each alloc places a LocalTensor at the current address and moves the address past it,
rounded up to 32 bytes (local tensor addresses are 32-byte aligned). Addresses are
compile-time numbers while every size is; a run-time size makes later ones run-time."""

from __future__ import annotations

from typing import Any

from ...codegen.context import current_builder
from ...errors import CodegenError
from . import dtype as dt
from .enums import Hardware, TPosition
from .ir_value import is_runtime, to_int
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
        current_builder()  # only inside kernels
        if not isinstance(hard, Hardware) or hard not in _POSITIONS:
            raise CodegenError(f"LocalMemAllocator: hard must be a local asc.Hardware (UB, L1, L0A, ...), got {hard!r}")
        self.hard = hard
        self._addr: Any = 0

    def get_cur_addr(self) -> Any:
        """The byte address the next alloc places its tensor at."""
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
        tensor = LocalTensor(dtype, pos, self._addr, tile_size)
        self._addr = (self._addr + tile_size * dtype.sizeof() + (_ALIGN - 1)) // _ALIGN * _ALIGN
        return tensor


# kernels call these with run-time values (a dynamic tile_size)
LocalMemAllocator.alloc.__asc_builtin__ = True  # type: ignore[attr-defined]
LocalMemAllocator.get_cur_addr.__asc_builtin__ = True  # type: ignore[attr-defined]
