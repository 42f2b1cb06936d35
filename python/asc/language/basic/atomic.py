"""Atomic GM writes: after ``set_atomic_add(dtype)`` (or ``set_atomic_max`` /
``set_atomic_min``) every data_copy and fixpipe into GM combines each element
with the one already there, computed in `dtype`, until ``set_atomic_none()``.
Several blocks may then write the same GM bytes: the result does not depend on
their order (up to floating-point rounding of the sums)."""

from __future__ import annotations

from typing import Any

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core import dtype as dt
from ..core.enums import AtomicDtype, AtomicOp
from .utils import builtin

_ATOMIC_DTYPES = (dt.float16, dt.bfloat16, dt.float32, dt.int32, dt.int16, dt.int8)


def _set(name: str, dtype: Any) -> None:
    if dtype not in _ATOMIC_DTYPES:
        raise CodegenError(
            f"{name}: dtype must be one of float16, bfloat16, float32, int32, int16, int8, got {dtype!r}"
        )
    current_builder().op(name, [], {"dtype": dtype.code})


@builtin
def set_atomic_add(dtype: Any) -> None:
    """Later GM writes add to GM: gm = gm + value, in `dtype`."""
    _set("set_atomic_add", dtype)


@builtin
def set_atomic_max(dtype: Any) -> None:
    """Later GM writes keep the larger: gm = max(gm, value), in `dtype`."""
    _set("set_atomic_max", dtype)


@builtin
def set_atomic_min(dtype: Any) -> None:
    """Later GM writes keep the smaller: gm = min(gm, value), in `dtype`."""
    _set("set_atomic_min", dtype)


@builtin
def set_atomic_type(dtype: Any) -> None:
    """Changes the dtype of the atomic operation set_atomic_add / max / min chose."""
    _set("set_atomic_type", dtype)


@builtin
def set_atomic_none() -> None:
    """Later GM writes overwrite again."""
    current_builder().op("set_atomic_none", [])


_STORE_DTYPES = {AtomicDtype.ATOMIC_F32: dt.float32, AtomicDtype.ATOMIC_F16: dt.float16,
                 AtomicDtype.ATOMIC_S16: dt.int16, AtomicDtype.ATOMIC_S32: dt.int32,
                 AtomicDtype.ATOMIC_S8: dt.int8, AtomicDtype.ATOMIC_BF16: dt.bfloat16}  # fmt: skip


@builtin
def set_store_atomic_config(atomic_type: Any, atomic_op: Any = AtomicOp.ATOMIC_SUM) -> None:
    """SetStoreAtomicConfig: ATOMIC_NONE turns atomics off, any other AtomicDtype turns on the sum in it."""
    if atomic_op != AtomicOp.ATOMIC_SUM:
        raise CodegenError(f"set_store_atomic_config: atomic_op must be AtomicOp.ATOMIC_SUM, got {atomic_op!r}")
    if atomic_type == AtomicDtype.ATOMIC_NONE:
        current_builder().op("set_atomic_none", [])
    elif atomic_type in _STORE_DTYPES:
        _set("set_atomic_add", _STORE_DTYPES[AtomicDtype(atomic_type)])
    else:
        raise CodegenError(f"set_store_atomic_config: unknown AtomicDtype {atomic_type!r}")
