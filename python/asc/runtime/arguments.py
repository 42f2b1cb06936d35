"""Launch arguments: numpy arrays, torch tensors and Python/numpy scalars."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from .._ffi import lib
from ..errors import LaunchArgumentError
from ..language.core import dtype as dt

KIND_SCALAR, KIND_BUFFER = 0, 1
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


@dataclass(frozen=True)
class ArgSpec:
    """What a launch argument contributes to the specialisation key."""

    kind: int  # KIND_SCALAR / KIND_BUFFER
    dtype: dt.DataType


_INT32, _INT64, _FLOAT32 = (ArgSpec(KIND_SCALAR, d) for d in (dt.int32, dt.int64, dt.float32))


def _is_torch_tensor(value: Any) -> bool:
    return type(value).__module__.startswith("torch") and hasattr(value, "data_ptr")


_BUFFER_SPECS: dict[Any, ArgSpec] = {}  # numpy / torch dtype object -> spec, filled on first use


def _buffer_spec(dtype: Any) -> Any:
    spec = _BUFFER_SPECS.get(dtype)
    if spec is None:
        d = dt.from_name(str(dtype))
        if d is None:
            return None
        spec = _BUFFER_SPECS[dtype] = ArgSpec(KIND_BUFFER, d)
    return spec


def numpy_module() -> Any:
    """numpy if it is imported: `import asc` does not import it (a numpy argument means the caller has)."""
    return sys.modules.get("numpy")


def describe(value: Any, kernel: str, param: str) -> ArgSpec:
    """The kind and dtype of one argument; raises LaunchArgumentError if unsupported."""
    np = numpy_module()
    if (np is not None and isinstance(value, np.ndarray)) or _is_torch_tensor(value):
        spec = _buffer_spec(value.dtype)
        fp8 = dt.float8_of_numpy(str(value.dtype))
        if fp8 is not None:  # ml_dtypes' 8-bit floats
            raise LaunchArgumentError(f"{kernel}(): argument '{param}' is {fp8.name}: {dt.unsupported_reason(fp8)}")
        if spec is None:
            raise LaunchArgumentError(
                f"{kernel}(): argument '{param}' has dtype {value.dtype}, which kernels do not support"
            )
        return spec
    if isinstance(value, bool) or (np is not None and isinstance(value, np.bool_)):
        return ArgSpec(KIND_SCALAR, dt.bool_)
    if isinstance(value, int):
        return _INT32 if _INT32_MIN <= value <= _INT32_MAX else _INT64
    if np is not None and isinstance(value, np.generic):
        d = dt.from_name(value.dtype.name)
        if d is None:
            raise LaunchArgumentError(f"{kernel}(): argument '{param}' has dtype {value.dtype}, which is not supported")
        return ArgSpec(KIND_SCALAR, d)
    if isinstance(value, float):
        return _FLOAT32
    mock = type(value).__name__
    if mock in ("MockTensor", "MockValue") and type(value).__module__ == "asc.runtime.jit":  # compile-only
        d = value.dtype if isinstance(value.dtype, dt.DataType) else dt.from_name(str(value.dtype))
        if d is None:
            raise LaunchArgumentError(f"{kernel}(): argument '{param}' is a {mock} of {value.dtype!r}, not a dtype")
        return ArgSpec(KIND_BUFFER if mock == "MockTensor" else KIND_SCALAR, d)
    raise LaunchArgumentError(  # pyasc's words first (its tests match them), then what to pass instead
        f"{kernel}(): argument '{param}' is a {type(value).__name__}: Argument type in JIT function is not "
        f"supported: {type(value).__name__}; kernels take numpy arrays, torch tensors, ints, floats and bools"
    )


def buffer_of(value: Any, kernel: str, param: str) -> tuple[int, int, int]:
    """(address, size in bytes, asc_arg_kind_t) of an array argument, without copying it: host memory
    (numpy arrays, CPU tensors) is ASC_ARG_BUFFER, a torch_npu tensor's NPU memory ASC_ARG_DEVICE_BUFFER
    (which only Backend.NPU takes; the Model says so)."""
    np = numpy_module()
    if np is not None and isinstance(value, np.ndarray):
        if not value.flags.c_contiguous:
            raise LaunchArgumentError(f"{kernel}(): argument '{param}' must be C-contiguous (use np.ascontiguousarray)")
        return value.__array_interface__["data"][0], value.nbytes, lib.ASC_ARG_BUFFER
    if value.device.type not in ("cpu", "npu"):
        raise LaunchArgumentError(
            f"{kernel}(): argument '{param}' is on {value.device}; asc takes numpy arrays, CPU tensors and (on "
            "Backend.NPU) torch_npu tensors"
        )
    if not value.is_contiguous():
        raise LaunchArgumentError(f"{kernel}(): argument '{param}' must be contiguous (use .contiguous())")
    kind = lib.ASC_ARG_DEVICE_BUFFER if value.device.type == "npu" else lib.ASC_ARG_BUFFER
    return value.data_ptr(), value.numel() * value.element_size(), kind


def check_writable(value: Any, kernel: str, param: str) -> None:
    """Refuses, before anything runs, a buffer the kernel writes that its owner forbade writing: a numpy
    array that is not writeable (flags.writeable False, np.frombuffer of bytes, a read-only np.memmap),
    or a torch tensor that requires grad while grad mode is on (torch refuses an in-place op on a leaf
    that requires grad; on any other, the kernel's write would be missing from the autograd graph, so
    gradients through it would be silently wrong). A torch tensor it accepts has its version counter bumped,
    as torch's own in-place ops do: autograd then notices when a tensor it saved for backward was overwritten."""
    np = numpy_module()
    if np is not None and isinstance(value, np.ndarray):
        if not value.flags.writeable:
            what = "a read-only np.memmap" if isinstance(value, np.memmap) else "read-only (flags.writeable is False)"
            raise LaunchArgumentError(
                f"{kernel}(): argument '{param}' is {what}, but the kernel writes it; pass a writeable array "
                "(np.array(x) copies one)"
            )
        return
    if type(value).__module__.startswith("torch"):
        check_torch_writable(value, kernel, param)


def check_torch_writable(value: Any, kernel: str, param: str) -> None:
    """check_writable for a torch tensor (see there); bumps its version counter."""
    import torch
    from torch.autograd.graph import increment_version

    if value.requires_grad and torch.is_grad_enabled():
        if value.is_leaf:
            raise LaunchArgumentError(
                f"{kernel}(): argument '{param}' is a leaf tensor that requires grad, and the kernel writes it "
                "in place: a leaf Variable that requires grad cannot be used in an in-place operation (pass "
                "x.detach(), or launch under torch.no_grad())"
            )
        raise LaunchArgumentError(
            f"{kernel}(): argument '{param}' requires grad, and the kernel writes it in place, which autograd "
            "cannot record: gradients through it would be wrong (pass x.detach() or a fresh tensor, or launch "
            "under torch.no_grad())"
        )
    increment_version(value)


def int_range(dtype: dt.DataType) -> tuple[int, int]:
    """The values an integer (or bool) dtype holds."""
    if dtype.kind == "bool":
        return 0, 1
    if dtype.is_signed():
        return -(1 << (dtype.bitwidth - 1)), (1 << (dtype.bitwidth - 1)) - 1
    return 0, (1 << dtype.bitwidth) - 1


def int_bits(value: Any, dtype: dt.DataType, kernel: str, param: str) -> int:
    """An integer launch argument as asc_arg_t.i holds it (uint64 as its bit pattern); refuses, naming the
    argument and the range, a value its dtype cannot hold (never truncated)."""
    v = int(value)
    lo, hi = int_range(dtype)
    if not lo <= v <= hi:
        raise LaunchArgumentError(
            f"{kernel}(): argument '{param}' is {v}, which does not fit its dtype {dtype.name} ({lo}..{hi})"
        )
    return v - (1 << 64) if v >= 1 << 63 else v
