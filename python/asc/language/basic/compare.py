"""compare / compare_scalar (one result bit per element) and select (by bits),
in count mode and mask/repeat mode; the compare register CMPMASK
(compare without dst, select's register form, get_cmp_mask / set_cmp_mask)."""

from __future__ import annotations

from typing import Any

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core import dtype as dt
from ..core.enums import CMPMODE, SelMode
from ..core.ir_value import Scalar, cast, to_int, to_scalar
from ..core.repeat_params import BinaryRepeatParams, UnaryRepeatParams
from ..core.tensor import LocalTensor
from .utils import builtin, require_local
from .vector import MASK_FROM_REGISTER, mask_form_operands, mask_operands


def _bits_holder_count(count: Any, holder: LocalTensor) -> Any:
    """How many elements of `holder` hold `count` bits."""
    bits = 8 * holder.dtype.sizeof()
    return to_int((to_int(count, "count") + (bits - 1)) // bits if not isinstance(count, int) else -(-count // bits),
                  "count")  # fmt: skip


def _scalar_like(value: Any, tensor: LocalTensor) -> Scalar:
    return cast(value, tensor.dtype) if isinstance(value, Scalar) else to_scalar(value, tensor.dtype)


def _is_count_form(args: tuple, kwargs: dict) -> bool:
    return (len(args) == 1 and not kwargs) or (
        not args and set(kwargs) <= {"count", "is_set_mask"} and "count" in kwargs
    )


def _cmp_mode(name: str, cmp_mode: Any) -> int:
    if not isinstance(cmp_mode, CMPMODE):
        raise CodegenError(f"{name}: cmp_mode must be an asc.CMPMODE, got {cmp_mode!r}")
    return int(cmp_mode)


@builtin
def compare(*args: Any, **kwargs: Any) -> None:
    """Bit i of dst (little-endian within each byte) = src0[i] <cmp_mode> src1[i]:

    * ``compare(dst, src0, src1, cmp_mode, count)`` — count * sizeof(src) whole 256-byte repeats;
    * ``compare(dst, src0, src1, cmp_mode, mask, repeat_times, repeat_params, is_set_mask=True)`` — every
      element of each repeat (the mask is reserved on Atlas A2), repeat r's bits at dst + r * N / 8 bytes;
    * ``compare(src0, src1, cmp_mode, mask, repeat_params, is_set_mask=True)`` — one repeat into the compare
      register CMPMASK (only the bits the mask selects change); read it with get_cmp_mask."""
    if len(args) >= 3 and isinstance(args[2], CMPMODE) or (len(args) == 2 and "cmp_mode" in kwargs):
        return _compare_register(*args, **kwargs)
    names = ["dst", "src0", "src1", "cmp_mode"]
    head = dict(zip(names, args), **{k: kwargs.pop(k) for k in names if k in kwargs})
    if set(head) != set(names):
        raise CodegenError("compare takes (dst, src0, src1, cmp_mode, ...) or (src0, src1, cmp_mode, ...)")
    rest = args[4:]
    mode = _cmp_mode("compare", head["cmp_mode"])
    d, a, b = (require_local(head[r], "compare", r) for r in ("dst", "src0", "src1"))
    builder = current_builder()
    if _is_count_form(rest, kwargs):
        count = rest[0] if rest else kwargs["count"]
        n = to_int(count, "count")
        builder.op("compare", [d.handle, a.handle, b.handle, n.handle, _bits_holder_count(count, d).handle],
                   {"cmp_mode": mode})  # fmt: skip
        return
    mask_mode, handles = mask_form_operands("compare", rest, kwargs, BinaryRepeatParams)
    builder.op("compare.mask", [d.handle, a.handle, b.handle, *handles], {"mask_mode": mask_mode, "cmp_mode": mode})


def _compare_register(src0: Any, src1: Any, cmp_mode: Any, mask: Any, repeat_params: Any,
                      is_set_mask: bool = True) -> None:  # fmt: skip
    mode = _cmp_mode("compare", cmp_mode)
    if not isinstance(repeat_params, BinaryRepeatParams):
        raise CodegenError("compare (to CMPMASK): repeat_params must be an asc.BinaryRepeatParams")
    a, b = require_local(src0, "compare", "src0"), require_local(src1, "compare", "src1")
    mask_mode, mask0, mask1 = mask_operands(mask, is_set_mask)
    p = repeat_params
    strides = [p.src0_blk_stride, p.src1_blk_stride, p.src0_rep_stride, p.src1_rep_stride]
    handles = [a.handle, b.handle, mask0.handle, mask1.handle, to_scalar(1, dt.int32).handle]
    handles += [to_int(v, "a stride").handle for v in strides]
    current_builder().op("compare.register", handles, {"mask_mode": mask_mode, "cmp_mode": mode})


@builtin
def compare_scalar(dst: Any, src0: Any, src1_scalar: Any, cmp_mode: CMPMODE, *args: Any, **kwargs: Any) -> None:
    """Bit i of dst = src0[i] <cmp_mode> src1_scalar: ``compare_scalar(dst, src0, scalar, cmp_mode, count)`` or
    ``(..., cmp_mode, mask, repeat_times, repeat_params, is_set_mask=True)`` with UnaryRepeatParams."""
    mode = _cmp_mode("compare_scalar", cmp_mode)
    d, a = require_local(dst, "compare_scalar", "dst"), require_local(src0, "compare_scalar", "src0")
    s = _scalar_like(src1_scalar, a)
    builder = current_builder()
    if _is_count_form(args, kwargs):
        count = args[0] if args else kwargs["count"]
        operands = [d.handle, a.handle, s.handle, to_int(count, "count").handle, _bits_holder_count(count, d).handle]
        builder.op("compare_scalar", operands, {"cmp_mode": mode})
        return
    mask_mode, handles = mask_form_operands("compare_scalar", args, kwargs, UnaryRepeatParams)
    builder.op("compare_scalar.mask", [d.handle, a.handle, s.handle, *handles], {"mask_mode": mask_mode,
               "cmp_mode": mode})  # fmt: skip


@builtin
def select(dst: Any, *args: Any, **kwargs: Any) -> None:
    """dst[i] = src0[i] where the selection bit is 1, else src1[i] (a tensor) or src1 (a scalar):

    * ``select(dst, sel_mask, src0, src1, sel_mode, count)``;
    * ``select(dst, sel_mask, src0, src1, sel_mode, mask, repeat_times, repeat_params, is_set_mask=True)``;
    * ``select(dst, src0, src1, repeat_times=, repeat_params=, sel_mode=SelMode.VSEL_CMPMASK_SPR)`` — the bits
      in CMPMASK and the mask register (set_vector_mask);
    * ``select(dst, sel_mask, src0, repeat_times, repeat_params)`` — VSEL_TENSOR_SCALAR_MODE with the scalar in
      CMPMASK's low bytes (set_cmp_mask of a tensor holding it, or left there by a scalar select) and the mask
      register's mask.

    VSEL_CMPMASK_SPR uses sel_mask's first repeat of bits for every repeat; VSEL_TENSOR_TENSOR_MODE
    (tensor src1) and VSEL_TENSOR_SCALAR_MODE (scalar src1) use repeat r's own bits."""
    if "sel_mode" in kwargs and len(args) == 2:
        return _select_register(dst, *args, **kwargs)
    if _is_scalar_register_form(args, kwargs):
        return _select_scalar_register(dst, *args, **kwargs)
    names = ["sel_mask", "src0", "src1", "sel_mode"]
    head = dict(zip(names, args), **{k: kwargs.pop(k) for k in names if k in kwargs})
    if set(head) != set(names):
        raise CodegenError("select takes (dst, sel_mask, src0, src1, sel_mode, ...)")
    rest = args[4:]
    sel_mode, src1 = head["sel_mode"], head["src1"]
    if not isinstance(sel_mode, SelMode):
        raise CodegenError(f"select: sel_mode must be an asc.SelMode, got {sel_mode!r}")
    d = require_local(dst, "select", "dst")
    m = require_local(head["sel_mask"], "select", "sel_mask")
    a = require_local(head["src0"], "select", "src0")
    if sel_mode == SelMode.VSEL_TENSOR_SCALAR_MODE:
        if isinstance(src1, LocalTensor):
            raise CodegenError("select: VSEL_TENSOR_SCALAR_MODE takes a scalar src1")
        name, other = "select_scalar", _scalar_like(src1, d).handle
    else:
        name, other = "select", require_local(src1, "select", "src1").handle
    builder = current_builder()
    if _is_count_form(rest, kwargs):
        count = rest[0] if rest else kwargs["count"]
        bits = count if sel_mode != SelMode.VSEL_CMPMASK_SPR else 256 // d.dtype.sizeof()
        operands = [d.handle, m.handle, a.handle, other, to_int(count, "count").handle]
        builder.op(name, [*operands, _bits_holder_count(bits, m).handle], {"sel_mode": int(sel_mode)})
        return
    mask_mode, handles = mask_form_operands("select", rest, kwargs, BinaryRepeatParams)
    builder.op(f"{name}.mask", [d.handle, m.handle, a.handle, other, *handles],
               {"mask_mode": mask_mode, "sel_mode": int(sel_mode)})  # fmt: skip


def _is_scalar_register_form(args: tuple, kwargs: dict) -> bool:
    """(sel_mask, src0, repeat_times, repeat_params), positional or keyword, and no src1 / sel_mode."""
    names = ["sel_mask", "src0", "repeat_times", "repeat_params"]
    given = set(names[: len(args)]) | set(kwargs)
    return (
        len(args) <= 4
        and given == set(names)
        and isinstance(args[3] if len(args) == 4 else kwargs.get("repeat_params"), BinaryRepeatParams)
    )


def _select_scalar_register(dst: Any, sel_mask: Any, src0: Any, repeat_times: Any, repeat_params: Any) -> None:
    kwargs = {"mask": 0, "repeat_times": repeat_times, "repeat_params": repeat_params, "is_set_mask": False}
    _, handles = mask_form_operands("select", (), kwargs, BinaryRepeatParams)
    roles = ((dst, "dst"), (sel_mask, "sel_mask"), (src0, "src0"))
    tensors = [require_local(t, "select", r).handle for t, r in roles]
    current_builder().op("select_scalar.register", [*tensors, *handles], {"mask_mode": MASK_FROM_REGISTER})


def _select_register(dst: Any, src0: Any, src1: Any, repeat_times: Any, repeat_params: Any, sel_mode: Any) -> None:
    if sel_mode != SelMode.VSEL_CMPMASK_SPR:
        raise CodegenError("select (register form): only SelMode.VSEL_CMPMASK_SPR takes its bits from CMPMASK")
    kwargs = {"mask": 0, "repeat_times": repeat_times, "repeat_params": repeat_params, "is_set_mask": False}
    _, handles = mask_form_operands("select", (), kwargs, BinaryRepeatParams)
    tensors = [require_local(t, "select", r).handle for t, r in ((dst, "dst"), (src0, "src0"), (src1, "src1"))]
    current_builder().op("select.register", [*tensors, *handles], {"mask_mode": MASK_FROM_REGISTER})


@builtin
def get_cmp_mask(dst: Any) -> None:
    """Writes the 128 bits of the compare register CMPMASK to dst's first 16 bytes (pipe V)."""
    current_builder().op("get_cmp_mask", [require_local(dst, "get_cmp_mask", "dst").handle])


@builtin
def set_cmp_mask(src: Any) -> None:
    """Loads the compare register CMPMASK from src's first 16 bytes (pipe V)."""
    current_builder().op("set_cmp_mask", [require_local(src, "set_cmp_mask", "src").handle])
