"""Device memory (malloc, free, memcpy, copy_data_to/from_device).

On the Model, device memory is host memory this package owns: malloc returns the address of a new buffer
(as a ctypes.c_void_p, like pyasc's handles), kept alive until free. Copies are checked against the
allocation they touch, so an overrun is an error rather than a corrupted heap; launch_kernel passes an
address inside an allocation to a kernel as a GM buffer ending where the allocation ends.

On the NPU, the same calls go through libasc's C ABI to ACL on the current device (asc_device_malloc,
asc_device_free, asc_device_memcpy: aclrtMalloc, aclrtFree, aclrtMemcpy); the allocations are remembered
here too, so copies into them are checked the same way before ACL sees them.
"""

from __future__ import annotations

import bisect
import ctypes
import threading
from typing import Any, Optional, Union

from ..._ffi import ffi, lib
from . import state
from .support import MallocPolicy, MemcpyKind, Memory, MemoryType

# Allocations start on a 512-byte boundary (as CANN's device allocations do), so every GM alignment a kernel
# may rely on holds.
ALIGN = 512

Address = Union[Memory, int, Any]  # a handle, an address, a ctypes pointer or a numpy array


class _Allocation:
    __slots__ = ("buffer", "start", "size", "device")

    def __init__(self, size: int):
        self.buffer = ffi.new("char[]", size + ALIGN - 1)  # zeroed, as the Model's GM starts
        base = int(ffi.cast("uintptr_t", self.buffer))
        self.start = (base + ALIGN - 1) // ALIGN * ALIGN
        self.size = size
        self.device = None  # a Model allocation


class _NpuAllocation:
    """Memory aclrtMalloc gave on an NPU device (kept alive with it, to free it there)."""

    __slots__ = ("start", "size", "device")

    def __init__(self, start: int, size: int, device: Any):
        self.start, self.size, self.device = start, size, device


# MemcpyKind -> asc_memcpy_kind_t (asc.h: ACL's four directions); the _EX and ADDR_ forms are the same directions.
_NPU_KIND = {
    MemcpyKind.RT_MEMCPY_HOST_TO_HOST: lib.ASC_MEMCPY_HOST_TO_HOST,
    MemcpyKind.RT_MEMCPY_HOST_TO_DEVICE: lib.ASC_MEMCPY_HOST_TO_DEVICE,
    MemcpyKind.RT_MEMCPY_HOST_TO_DEVICE_EX: lib.ASC_MEMCPY_HOST_TO_DEVICE,
    MemcpyKind.RT_MEMCPY_DEVICE_TO_HOST: lib.ASC_MEMCPY_DEVICE_TO_HOST,
    MemcpyKind.RT_MEMCPY_DEVICE_TO_HOST_EX: lib.ASC_MEMCPY_DEVICE_TO_HOST,
    MemcpyKind.RT_MEMCPY_DEVICE_TO_DEVICE: lib.ASC_MEMCPY_DEVICE_TO_DEVICE,
    MemcpyKind.RT_MEMCPY_ADDR_DEVICE_TO_DEVICE: lib.ASC_MEMCPY_DEVICE_TO_DEVICE,
}
# MallocPolicy -> asc_malloc_policy_t (aclrtMemMallocPolicy's page policies)
_NPU_POLICY = {
    MallocPolicy.RT_MEMORY_POLICY_NONE: lib.ASC_MALLOC_HUGE_FIRST,
    MallocPolicy.RT_MEMORY_POLICY_HUGE_PAGE_FIRST: lib.ASC_MALLOC_HUGE_FIRST,
    MallocPolicy.RT_MEMORY_POLICY_HUGE_PAGE_ONLY: lib.ASC_MALLOC_HUGE_ONLY,
    MallocPolicy.RT_MEMORY_POLICY_DEFAULT_PAGE_ONLY: lib.ASC_MALLOC_NORMAL_ONLY,
}


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


def on_npu(address: int) -> bool:
    """Whether `address` is inside an allocation malloc made on the NPU (not the Model)."""
    with _lock:
        i = bisect.bisect_right(_starts, address) - 1
        if i < 0:
            return False
        a = _allocations[_starts[i]]
        return address < a.start + a.size and a.device is not None


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
    """`size` bytes of device memory: on the Model zeroed, `memory_type` and `policy` accepted and ignored (it
    has one GM); on the NPU aclrtMalloc's (not initialised) on the current device, with `policy`'s page policy
    (`memory_type` is ACL's to choose)."""
    if not isinstance(size, int) or size <= 0:
        raise RuntimeError(f"malloc size must be an int > 0, got {size!r}")
    if not state.is_model():
        return _npu_malloc(size, MallocPolicy(policy))
    allocation = _Allocation(size)
    with _lock:
        _allocations[allocation.start] = allocation
        bisect.insort(_starts, allocation.start)
    return Memory(allocation.start)


def _npu_malloc(size: int, policy: MallocPolicy) -> Memory:
    if policy not in _NPU_POLICY:
        names = ", ".join(p.name for p in _NPU_POLICY)
        raise ValueError(f"malloc: {policy.name} is not a policy asc passes to aclrtMalloc on Backend.NPU ({names})")
    device = state._current_device()
    out = ffi.new("void**")
    state._check(lib.asc_device_malloc(device.handle, size, _NPU_POLICY[policy], out))
    allocation = _NpuAllocation(int(ffi.cast("uintptr_t", out[0])), size, device)
    with _lock:
        _allocations[allocation.start] = allocation
        bisect.insort(_starts, allocation.start)
    return Memory(allocation.start)


def _release(allocation: Any) -> None:
    """Gives an NPU allocation back to ACL (a Model one goes with its buffer)."""
    if allocation.device is not None:
        state._check(lib.asc_device_free(allocation.device.handle, ffi.cast("void*", allocation.start)))


def free(mem_handle: Address) -> None:
    """Releases an allocation malloc made (its start address); freeing anything else is an error. On the NPU
    the memory goes back to ACL (aclrtFree)."""
    address = address_of(mem_handle)
    with _lock:
        allocation = _allocations.get(address)
        if allocation is None:
            raise ValueError(f"free: {address:#x} is not the start of a live allocation (freed twice?)")
        del _allocations[address]
        _starts.remove(address)
    _release(allocation)


def memcpy(dst: Address, dst_nbytes: int, src: Address, src_nbytes: int, kind: MemcpyKind) -> None:
    """Copies `src_nbytes` bytes from `src` to `dst` (room for `dst_nbytes`), as aclrtMemcpy does: it is an
    error to copy more than the destination holds. `kind` says which sides are device memory; those are
    checked against their allocation. The copy is complete when this returns."""
    if dst_nbytes <= 0 or src_nbytes <= 0:
        raise RuntimeError("memcpy: src and dst sizes must be greater than 0")
    if src_nbytes > dst_nbytes:
        raise ValueError(f"memcpy: {src_nbytes} bytes do not fit in a {dst_nbytes}-byte destination")
    kind = MemcpyKind(kind)
    dst_address, src_address = address_of(dst), address_of(src)
    device_dst = kind in _TO_DEVICE
    device_src = kind in _FROM_DEVICE
    if not state.is_model():
        _npu_memcpy(dst_address, dst_nbytes, src_address, src_nbytes, kind, device_dst, device_src)
        return
    if device_dst and bytes_left(dst_address, "memcpy destination") < src_nbytes:
        raise ValueError(f"memcpy: {src_nbytes} bytes overrun the destination's allocation")
    if device_src and bytes_left(src_address, "memcpy source") < src_nbytes:
        raise ValueError(f"memcpy: {src_nbytes} bytes overrun the source's allocation")
    ctypes.memmove(dst_address, src_address, src_nbytes)


def _npu_memcpy(dst: int, dst_nbytes: int, src: int, nbytes: int, kind: MemcpyKind, device_dst: bool,
                device_src: bool) -> None:  # fmt: skip
    """aclrtMemcpy through asc_device_memcpy. A device side inside an allocation of malloc's is checked here; other
    device addresses (torch_npu's) are ACL's to check."""
    if kind not in _NPU_KIND:
        raise ValueError(f"memcpy: {kind.name} is not a direction aclrtMemcpy takes on Backend.NPU")
    for is_device, address, what in ((device_dst, dst, "destination"), (device_src, src, "source")):
        found = allocation_at(address) if is_device else None
        if found is not None and found[0] + found[1] - address < nbytes:
            raise ValueError(f"memcpy: {nbytes} bytes overrun the {what}'s allocation")
    device = state._current_device()
    status = lib.asc_device_memcpy(
        device.handle, ffi.cast("void*", dst), dst_nbytes, ffi.cast("void*", src), nbytes, _NPU_KIND[kind]
    )
    state._check(status)


def copy_data_to_device(src_mem_handle: Address, nbytes: int) -> Memory:
    """A new allocation holding a copy of the `nbytes` bytes at `src_mem_handle` (host memory)."""
    dst = malloc(nbytes, MemoryType.RT_MEMORY_HBM)
    memcpy(dst, nbytes, src_mem_handle, nbytes, MemcpyKind.RT_MEMCPY_HOST_TO_DEVICE)
    return dst


def copy_data_from_device(mem_dst_handle: Address, mem_src_handle: Address, nbytes: int) -> None:
    """Copies `nbytes` bytes of device memory at `mem_src_handle` to host memory at `mem_dst_handle`."""
    memcpy(mem_dst_handle, nbytes, mem_src_handle, nbytes, MemcpyKind.RT_MEMCPY_DEVICE_TO_HOST)


def free_mem() -> None:
    """Frees every allocation still live (pyasc calls it after a launch): on the NPU, the NPU's (aclrtFree
    each), on the Model the Model's."""
    npu = not state.is_model()
    with _lock:
        mine = [a for a in _allocations.values() if (a.device is not None) == npu]
        for a in mine:
            del _allocations[a.start]
            _starts.remove(a.start)
    errors = []
    for a in mine:
        try:
            _release(a)
        except Exception as e:  # noqa: BLE001 - free the rest, then report the first failure
            errors.append(e)
    if errors:
        raise errors[0]


def live_allocations() -> int:
    """How many allocations are live (for tests and leak checks)."""
    with _lock:
        return len(_allocations)
