"""Device binaries on Backend.NPU: kernels built elsewhere (an object file's bytes), loaded, looked up and
launched through libasc's C ABI (asc_device_load_binary, asc_device_binary_function, asc_device_unload_binary,
asc_device_launch_function: aclrtBinaryLoadFromData, aclrtBinaryGetFunction, aclrtBinaryUnLoad,
aclrtLaunchKernelWithHostArgs). Nothing is known of such a kernel's parameters but what the arguments say:
device memory (malloc's NPU allocations) passes as its address, numpy arrays as host memory copied in and
back, and scalars must carry their C type (ctypes or numpy scalars)."""

from __future__ import annotations

import ctypes
import sys
import threading
from typing import Any, Iterable

from ..._ffi import ffi, lib
from . import state
from .device_memory import address_of, bytes_left, on_npu
from .support import Function, Kernel

_lock = threading.Lock()
_binaries: dict[int, Any] = {}  # binary handle -> the _Device it is loaded on
_functions: dict[int, tuple[Any, str, int]] = {}  # function handle -> (its _Device, kernel name, binary handle)

# ctypes scalar types -> asc_dtype_t (the C type of the parameter)
_CTYPES = {
    ctypes.c_bool: lib.ASC_DTYPE_BOOL,
    ctypes.c_int8: lib.ASC_DTYPE_INT8,
    ctypes.c_uint8: lib.ASC_DTYPE_UINT8,
    ctypes.c_int16: lib.ASC_DTYPE_INT16,
    ctypes.c_uint16: lib.ASC_DTYPE_UINT16,
    ctypes.c_int32: lib.ASC_DTYPE_INT32,
    ctypes.c_uint32: lib.ASC_DTYPE_UINT32,
    ctypes.c_int64: lib.ASC_DTYPE_INT64,
    ctypes.c_uint64: lib.ASC_DTYPE_UINT64,
    ctypes.c_float: lib.ASC_DTYPE_FLOAT32,
}
# numpy scalar dtype names -> asc_dtype_t
_NUMPY_SCALARS = "bool int8 uint8 int16 uint16 int32 uint32 int64 uint64 float16 float32".split()
_NUMPY = {name: getattr(lib, f"ASC_DTYPE_{name.upper()}") for name in _NUMPY_SCALARS}


def load(kernel_binary: bytes) -> Kernel:
    """Loads an object file's bytes on the current device: its handle."""
    device = state._current_device()
    data = ffi.from_buffer(kernel_binary)
    out = ffi.new("void**")
    state._check(lib.asc_device_load_binary(device.handle, data, len(data), out))
    handle = int(ffi.cast("uintptr_t", out[0]))
    with _lock:
        _binaries[handle] = device
    return Kernel(handle)


def _handle(value: Any, table: dict, what: str) -> int:
    handle = address_of(value)
    with _lock:
        if handle not in table:
            raise ValueError(f"{what} {handle:#x} is not one register_device_binary_kernel / register_function gave")
    return handle


def unload(kernel_handle: Any) -> None:
    handle = _handle(kernel_handle, _binaries, "unregister_device_binary_kernel:")
    with _lock:
        device = _binaries.pop(handle)
        for f in [f for f, (_, _, b) in _functions.items() if b == handle]:
            del _functions[f]  # they go with the binary (a later launch through one is refused here)
    state._check(lib.asc_device_unload_binary(device.handle, ffi.cast("void*", handle)))


def function(kernel_handle: Any, fn_name: str) -> Function:
    """The kernel `fn_name` in a loaded binary."""
    handle = _handle(kernel_handle, _binaries, "register_function:")
    with _lock:
        device = _binaries[handle]
    name = fn_name.encode()
    out = ffi.new("void**")
    state._check(lib.asc_device_binary_function(device.handle, ffi.cast("void*", handle), name, len(name), out))
    func = int(ffi.cast("uintptr_t", out[0]))
    with _lock:
        _functions[func] = (device, fn_name, handle)
    return Function(func)


def _argument(a: Any, value: Any, name: str, i: int) -> None:
    if isinstance(value, ctypes._SimpleCData) and type(value) in _CTYPES:
        a.kind, a.dtype = lib.ASC_ARG_SCALAR, _CTYPES[type(value)]
        if a.dtype == lib.ASC_DTYPE_FLOAT32:
            a.f = float(value.value)
        else:
            a.i = int(value.value)
        return
    np = sys.modules.get("numpy")  # a numpy value means the caller imported it: `import asc` does not
    if np is not None and isinstance(value, np.generic):
        code = _NUMPY.get(value.dtype.name)
        if code is None:
            raise TypeError(f"{name}: argument {i} is a numpy {value.dtype.name}, which no kernel parameter takes")
        a.kind, a.dtype = lib.ASC_ARG_SCALAR, code
        if value.dtype.kind == "f":
            a.f = float(value)
        else:
            a.i = int(value)
        return
    if np is not None and isinstance(value, np.ndarray):  # host memory: copied to the device and back
        a.kind, a.dtype = lib.ASC_ARG_BUFFER, lib.ASC_DTYPE_UINT8
        a.ptr = ffi.cast("void*", address_of(value))
        a.size = value.nbytes
        return
    if isinstance(value, (bool, float)) or (isinstance(value, int) and not on_npu(value)):
        raise TypeError(
            f"{name}: argument {i} is a Python {type(value).__name__}: a device binary's parameters are not known, "
            "so give a scalar as a ctypes or numpy value of its C type (ctypes.c_int32(...), np.float16(...))"
        )
    address = address_of(value)
    if not on_npu(address):
        raise ValueError(f"{name}: argument {i} {address:#x} is not NPU memory malloc gave")
    a.kind, a.dtype = lib.ASC_ARG_DEVICE_BUFFER, lib.ASC_DTYPE_UINT8
    a.ptr = ffi.cast("void*", address)
    a.size = bytes_left(address, f"{name}: argument {i}")


def launch(fn_handle: Any, block_num: int, args: Iterable[Any]) -> None:
    """Runs a registered function on `block_num` cores of its device and waits for it."""
    handle = _handle(fn_handle, _functions, "launch_kernel:")
    with _lock:
        device, name, _ = _functions[handle]
    args = list(args)
    c_args = ffi.new("asc_arg_t[]", max(1, len(args)))
    for i, (a, value) in enumerate(zip(c_args, args)):
        _argument(a, value, name, i)
    status = lib.asc_device_launch_function(device.handle, ffi.cast("void*", handle), block_num, c_args, len(args))
    state._check(status, name)
