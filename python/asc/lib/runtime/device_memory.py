"""Device memory (malloc, free, memcpy, copy_data_to/from_device).

On the Model, device memory is host memory this package owns: malloc returns the address of a new buffer
(as a ctypes.c_void_p, like pyasc's handles), kept alive until free. Copies are checked against the
allocation they touch, so an overrun is an error rather than a corrupted heap; launch_kernel passes an
address inside an allocation to a kernel as a GM buffer ending where the allocation ends.
"""

from __future__ import annotations

import bisect
import ctypes
import threading
from typing import Any, Optional, Union

from ..._ffi import ffi
from . import state
from .support import MallocPolicy, MemcpyKind, Memory, MemoryType
from .unsupported import npu_missing

# Allocations start on a 512-byte boundary (as CANN's device allocations do), so every GM alignment a kernel
# may rely on holds.
ALIGN = 512

Address = Union[Memory, int, Any]  # a handle, an address, a ctypes pointer or a numpy array


class _Allocation:
    __slots__ = ("buffer", "start", "size")

    def __init__(self, size: int):
        self.buffer = ffi.new("char[]", size + ALIGN - 1)  # zeroed, as the Model's GM starts
        base = int(ffi.cast("uintptr_t", self.buffer))
        self.start = (base + ALIGN - 1) // ALIGN * ALIGN
        self.size = size


# the copy kinds whose destination / source is device memory
_TO_DEVICE = {MemcpyKind.RT_MEMCPY_HOST_TO_DEVICE, MemcpyKind.RT_MEMCPY_DEVICE_TO_DEVICE,
              MemcpyKind.RT_MEMCPY_HOST_TO_DEVICE_EX, MemcpyKind.RT_MEMCPY_ADDR_DEVICE_TO_DEVICE}  # fmt: skip
_FROM_DEVICE = {MemcpyKind.RT_MEMCPY_DEVICE_TO_HOST, MemcpyKind.RT_MEMCPY_DEVICE_TO_DEVICE,
                MemcpyKind.RT_MEMCPY_DEVICE_TO_HOST_EX, MemcpyKind.RT_MEMCPY_ADDR_DEVICE_TO_DEVICE}  # fmt: skip

_lock = threading.Lock()
_allocations: dict[int, _Allocation] = {}  # by start address
_starts: list[int] = []  # sorted, for finding the allocation an address is in


def address_of(value: Address) -> int:
    """The address a handle, int, ctypes pointer or array (numpy: its data) stands for."""
    if value is None:
        raise ValueError("a null address")
    if isinstance(value, int):
        return value
    if isinstance(value, ctypes.c_void_p):
        if value.value is None:
            raise ValueError("a null address")
        return value.value
    if hasattr(value, "__array_interface__"):
        return value.__array_interface__["data"][0]
    if hasattr(value, "data_ptr"):
        return value.data_ptr()
    return ctypes.cast(value, ctypes.c_void_p).value or 0


def allocation_at(address: int) -> Optional[tuple[int, int]]:
    """(start, size) of the Model allocation holding `address`, or None."""
    with _lock:
        i = bisect.bisect_right(_starts, address) - 1
        if i < 0:
            return None
        a = _allocations[_starts[i]]
        return (a.start, a.size) if address < a.start + a.size else None


def bytes_left(address: int, what: str) -> int:
    """How many bytes of its allocation follow `address`; raises if it is not in one."""
    found = allocation_at(address)
    if found is None:
        raise ValueError(f"{what} {address:#x} is not device memory (not inside an asc.lib.runtime.malloc allocation)")
    start, size = found
    return start + size - address


def malloc(
    size: int,
    memory_type: MemoryType = MemoryType.RT_MEMORY_DEFAULT,
    policy: MallocPolicy = MallocPolicy.RT_MEMORY_POLICY_NONE,
) -> Memory:
    """`size` bytes of zeroed device memory. `memory_type` and `policy` are accepted and ignored (the Model
    has one GM)."""
    if not isinstance(size, int) or size <= 0:
        raise RuntimeError(f"malloc size must be an int > 0, got {size!r}")
    if not state.is_model():
        npu_missing("malloc", "aclrtMalloc")
    allocation = _Allocation(size)
    with _lock:
        _allocations[allocation.start] = allocation
        bisect.insort(_starts, allocation.start)
    return Memory(allocation.start)


def free(mem_handle: Address) -> None:
    """Releases an allocation malloc made (its start address); freeing anything else is an error."""
    if not state.is_model():
        npu_missing("free", "aclrtFree")
    address = address_of(mem_handle)
    with _lock:
        if address not in _allocations:
            raise ValueError(f"free: {address:#x} is not the start of a live allocation (freed twice?)")
        del _allocations[address]
        _starts.remove(address)


def memcpy(dst: Address, dst_nbytes: int, src: Address, src_nbytes: int, kind: MemcpyKind) -> None:
    """Copies `src_nbytes` bytes from `src` to `dst` (room for `dst_nbytes`), as aclrtMemcpy does: it is an
    error to copy more than the destination holds. `kind` says which sides are device memory; those are
    checked against their allocation. The copy is complete when this returns."""
    if dst_nbytes <= 0 or src_nbytes <= 0:
        raise RuntimeError("memcpy: src and dst sizes must be greater than 0")
    if src_nbytes > dst_nbytes:
        raise ValueError(f"memcpy: {src_nbytes} bytes do not fit in a {dst_nbytes}-byte destination")
    if not state.is_model():
        npu_missing("memcpy", "aclrtMemcpy")
    kind = MemcpyKind(kind)
    dst_address, src_address = address_of(dst), address_of(src)
    device_dst = kind in _TO_DEVICE
    device_src = kind in _FROM_DEVICE
    if device_dst and bytes_left(dst_address, "memcpy destination") < src_nbytes:
        raise ValueError(f"memcpy: {src_nbytes} bytes overrun the destination's allocation")
    if device_src and bytes_left(src_address, "memcpy source") < src_nbytes:
        raise ValueError(f"memcpy: {src_nbytes} bytes overrun the source's allocation")
    ctypes.memmove(dst_address, src_address, src_nbytes)


def copy_data_to_device(src_mem_handle: Address, nbytes: int) -> Memory:
    """A new allocation holding a copy of the `nbytes` bytes at `src_mem_handle` (host memory)."""
    dst = malloc(nbytes, MemoryType.RT_MEMORY_HBM)
    memcpy(dst, nbytes, src_mem_handle, nbytes, MemcpyKind.RT_MEMCPY_HOST_TO_DEVICE)
    return dst


def copy_data_from_device(mem_dst_handle: Address, mem_src_handle: Address, nbytes: int) -> None:
    """Copies `nbytes` bytes of device memory at `mem_src_handle` to host memory at `mem_dst_handle`."""
    memcpy(mem_dst_handle, nbytes, mem_src_handle, nbytes, MemcpyKind.RT_MEMCPY_DEVICE_TO_HOST)


def free_mem() -> None:
    """Frees every allocation still live (pyasc calls it after a launch)."""
    if not state.is_model():
        npu_missing("free_mem", "aclrtFree")
    with _lock:
        _allocations.clear()
        _starts.clear()


def live_allocations() -> int:
    """How many allocations are live (for tests and leak checks)."""
    with _lock:
        return len(_allocations)
