"""Kernels at the runtime level: registering binaries and functions, and launch_kernel.

The Model runs kernels asc.jit builds, not device binaries: a Function here is an asc.jit compiled kernel
(what ``kernel.specialise(args, {})[0]`` returns: its handle and its parameters' kinds and dtypes), and
launch_kernel takes one argument per parameter, device memory (a malloc handle or an address inside an
allocation) for buffers and Python or numpy numbers for scalars. On the NPU the same: the device builds the
kernel at its first launch, and buffers are the NPU memory malloc gave (passed as ASC_ARG_DEVICE_BUFFER,
no copies). Device binaries built elsewhere load on the NPU only (register_device_binary_kernel,
device_binaries.py).
"""

from __future__ import annotations

import ctypes
import sys
from typing import Any, Iterable, Optional, Union

from ..._ffi import ffi, lib, read_text
from . import device_binaries, state
from .device_memory import address_of, bytes_left, on_npu
from .support import CoreType, Kernel, MagicElf, MsprofTaskType

_KIND_BUFFER = 1  # ASC_ARG_BUFFER
_KIND_DEVICE_BUFFER = 2  # ASC_ARG_DEVICE_BUFFER


def magic_elf_value(core_type: CoreType) -> int:
    """The device-binary magic number of a core type (what a binary for those cores is registered with)."""
    if not isinstance(core_type, CoreType):
        raise RuntimeError(f"core type {core_type!r} is not a CoreType")
    return {
        CoreType.AiCore: MagicElf.RT_DEV_BINARY_MAGIC_ELF,
        CoreType.VectorCore: MagicElf.RT_DEV_BINARY_MAGIC_ELF_AIVEC,
        CoreType.CubeCore: MagicElf.RT_DEV_BINARY_MAGIC_ELF_AICUBE,
    }.get(core_type, MagicElf.RT_DEV_BINARY_MAGIC_ELF_AICPU).value


def msprof_task_type(core_type: CoreType) -> int:
    """The msprof task type a launch on these cores is reported as."""
    if not isinstance(core_type, CoreType):
        raise RuntimeError(f"core type {core_type!r} is not a CoreType")
    return {
        CoreType.AiCore: MsprofTaskType.MSPROF_TASK_TYPE_AI_CORE,
        CoreType.VectorCore: MsprofTaskType.MSPROF_TASK_TYPE_AIV,
        CoreType.CubeCore: MsprofTaskType.MSPROF_TASK_TYPE_AI_CORE,
    }.get(core_type, MsprofTaskType.MSPROF_TASK_TYPE_AI_CPU).value


def register_device_binary_kernel(kernel_binary: bytes, core_type_id: int) -> Kernel:
    """Registers a device binary (pyasc: an ELF bisheng built): on the NPU, loads it on the current device
    (aclrtBinaryLoadFromData) and returns its handle; `core_type_id` is accepted (ACL reads the cores from the
    binary). The Model loads no binaries."""
    if len(kernel_binary) <= 0:
        raise RuntimeError("kernel size must be greater than 0 when registering a device binary")
    if state.is_model():
        raise NotImplementedError(
            "the Model runs kernels asc.jit builds, not device binaries: pass launch_kernel the compiled kernel "
            "that `kernel.specialise(args, {})[0]` returns"
        )
    return device_binaries.load(kernel_binary)


def unregister_device_binary_kernel(kernel_handle: Kernel) -> None:
    """Unloads a binary register_device_binary_kernel loaded (aclrtBinaryUnLoad); its functions go with it."""
    if state.is_model():
        raise NotImplementedError("the Model registers no device binaries (see register_device_binary_kernel)")
    device_binaries.unload(kernel_handle)


def register_function(kernel_handle: Any, fn_name: str, mode: int = 0) -> Any:
    """The Function for `fn_name` in a registered kernel. An asc.jit compiled kernel is returned as it is, on
    either backend (`fn_name` and `mode` are accepted and ignored); on the NPU, the kernel `fn_name` of a
    binary register_device_binary_kernel loaded (aclrtBinaryGetFunction; `mode` accepted)."""
    if state.is_model() or _is_compiled(kernel_handle):
        _check_compiled(kernel_handle)
        return kernel_handle
    return device_binaries.function(kernel_handle, fn_name)


def _is_compiled(fn: Any) -> bool:
    return hasattr(fn, "handle") and hasattr(fn, "runtime_params")


def _check_compiled(fn: Any) -> None:
    if not _is_compiled(fn):
        raise TypeError(
            f"launch_kernel takes an asc.jit compiled kernel (kernel.specialise(args, {{}})[0]), "
            f"not a {type(fn).__name__}"
        )


def _scalar(value: Any) -> Union[int, float]:
    if isinstance(value, (ctypes.c_uint64, ctypes.c_int64, ctypes.c_int32, ctypes.c_uint32, ctypes.c_float)):
        return value.value
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    return value


def launch_kernel(
    fn_handle: Any,
    block_num: int,
    args: Iterable[Any],
    num_args: Optional[int] = None,
    sm_desc: Optional[Any] = None,
    stream_handle: Optional[state.Stream] = None,
) -> None:
    """Runs `fn_handle` on `block_num` blocks with `args` (one per kernel parameter) on `stream_handle` (the
    current stream by default). A buffer parameter gets device memory: the kernel sees GM from that address to
    the end of its allocation (on the NPU: memory malloc gave on the NPU, passed as it is). `num_args` and
    `sm_desc` are accepted and ignored."""
    npu = not state.is_model()
    if npu and not _is_compiled(fn_handle):  # a Function register_function found in a device binary
        if block_num <= 0:
            raise ValueError(f"launch_kernel: block_num must be > 0, got {block_num}")
        device_binaries.launch(fn_handle, block_num, args)  # on its device's stream, complete when it returns
        return
    _check_compiled(fn_handle)
    args = list(args)
    params = fn_handle.runtime_params
    if len(args) != len(params):
        raise TypeError(f"{fn_handle.name}: launch_kernel got {len(args)} arguments for {len(params)} parameters")
    if block_num <= 0:
        raise ValueError(f"{fn_handle.name}: block_num must be > 0, got {block_num}")
    c_args = ffi.new("asc_arg_t[]", max(1, len(args)))
    for a, (name, spec), value in zip(c_args, params, args):
        a.kind, a.dtype = spec.kind, spec.dtype.code
        if spec.kind == _KIND_BUFFER:
            address = address_of(value)
            a.ptr = ffi.cast("void*", address)
            a.size = bytes_left(address, f"{fn_handle.name}: argument '{name}'")
            if npu != on_npu(address):
                raise ValueError(
                    f"{fn_handle.name}: argument '{name}' {address:#x} is device memory of the "
                    f"{'Model' if npu else 'NPU'}, not of the current backend ({'NPU' if npu else 'Model'})"
                )
            if npu:
                a.kind = _KIND_DEVICE_BUFFER
        elif spec.dtype.is_float():
            a.f = float(_scalar(value))
        else:
            a.i = int(_scalar(value))
    stream = stream_handle or state.current_stream()
    status = lib.asc_launch(fn_handle.handle, stream.handle, block_num, c_args, len(args))
    if status == lib.ASC_OK and stream.asynchronous:
        stream.pending.append(args)
        return
    if getattr(fn_handle, "prints", False):  # printf output first: it explains a failure
        error = state._error(status, fn_handle.name, fn_handle.param_names)
        sys.stdout.write(read_text(lib.asc_stream_last_output, stream.handle))
        sys.stdout.flush()
        if error is not None:
            raise error
    state._check(status, fn_handle.name, fn_handle.param_names)
