"""compare / compare_scalar (one result bit per element) and select (by a bit mask), count mode."""

from __future__ import annotations

from typing import Any

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core.enums import CMPMODE, SelMode
from ..core.ir_value import Scalar, cast, to_int, to_scalar
from ..core.tensor import LocalTensor
from .utils import builtin, require_local


def _bits_holder_count(count: Any, holder: LocalTensor) -> Any:
    """How many elements of `holder` hold `count` bits."""
    bits = 8 * holder.dtype.sizeof()
    return to_int((to_int(count, "count") + (bits - 1)) // bits if not isinstance(count, int) else -(-count // bits),
                  "count")  # fmt: skip


def _scalar_like(value: Any, tensor: LocalTensor) -> Scalar:
    return cast(value, tensor.dtype) if isinstance(value, Scalar) else to_scalar(value, tensor.dtype)


@builtin
def compare(dst: Any, src0: Any, src1: Any, cmp_mode: CMPMODE, count: Any = None, **params: Any) -> None:
    """Bit i of dst (little-endian within each byte) = src0[i] <cmp_mode> src1[i], for i < count.

    count * sizeof(src) must be whole 256-byte repeats."""
    if params or count is None:
        raise CodegenError("compare(dst, src0, src1, cmp_mode, count) is supported; the mask forms are not yet")
    if not isinstance(cmp_mode, CMPMODE):
        raise CodegenError(f"compare: cmp_mode must be an asc.CMPMODE, got {cmp_mode!r}")
    d, a, b = (require_local(t, "compare", r) for t, r in ((dst, "dst"), (src0, "src0"), (src1, "src1")))
    n = to_int(count, "count")
    current_builder().op("compare", [d.handle, a.handle, b.handle, n.handle, _bits_holder_count(count, d).handle],
                         {"cmp_mode": int(cmp_mode)})  # fmt: skip


@builtin
def compare_scalar(dst: Any, src0: Any, src1_scalar: Any, cmp_mode: CMPMODE, count: Any = None, **params: Any) -> None:
    """Bit i of dst = src0[i] <cmp_mode> src1_scalar, for i < count."""
    if params or count is None:
        raise CodegenError(
            "compare_scalar(dst, src0, scalar, cmp_mode, count) is supported; the mask forms are not yet"
        )
    if not isinstance(cmp_mode, CMPMODE):
        raise CodegenError(f"compare_scalar: cmp_mode must be an asc.CMPMODE, got {cmp_mode!r}")
    d, a = require_local(dst, "compare_scalar", "dst"), require_local(src0, "compare_scalar", "src0")
    s = _scalar_like(src1_scalar, a)
    n = to_int(count, "count")
    operands = [d.handle, a.handle, s.handle, n.handle, _bits_holder_count(count, d).handle]
    current_builder().op("compare_scalar", operands, {"cmp_mode": int(cmp_mode)})


@builtin
def select(dst: Any, sel_mask: Any, src0: Any, src1: Any, sel_mode: SelMode, count: Any = None, **params: Any) -> None:
    """dst[i] = src0[i] where bit i of sel_mask is 1, else src1[i] (a tensor, VSEL_TENSOR_TENSOR_MODE)
    or src1 (a scalar, VSEL_TENSOR_SCALAR_MODE), for i < count."""
    if params or count is None:
        raise CodegenError(
            "select(dst, sel_mask, src0, src1, sel_mode, count) is supported; the mask forms are not yet"
        )
    d = require_local(dst, "select", "dst")
    m = require_local(sel_mask, "select", "sel_mask")
    a = require_local(src0, "select", "src0")
    n = to_int(count, "count")
    if sel_mode == SelMode.VSEL_TENSOR_TENSOR_MODE:
        b = require_local(src1, "select", "src1")
        name, other = "select", b.handle
    elif sel_mode == SelMode.VSEL_TENSOR_SCALAR_MODE:
        if isinstance(src1, LocalTensor):
            raise CodegenError("select: VSEL_TENSOR_SCALAR_MODE takes a scalar src1")
        name, other = "select_scalar", _scalar_like(src1, d).handle
    else:
        raise CodegenError("select: VSEL_CMPMASK_SPR (the compare register) is not supported yet")
    current_builder().op(name, [d.handle, m.handle, a.handle, other, n.handle, _bits_holder_count(count, m).handle])
