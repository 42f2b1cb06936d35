"""Conversions fused with arithmetic, and the deq-scale register: add_relu_cast, sub_relu_cast, mul_cast,
add_deq_relu, cast_deq and set_deq_scale (Ascend C AddReluCast, SubReluCast, MulCast, AddDeqRelu, CastDeq,
SetDeqScale). Each is a row of the op table (src/ir/ops_vector.cpp), which states the semantics and cites the
documentation; see docs/basic-api.md."""

from __future__ import annotations

from typing import Any

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core import dtype as dt
from ..core.ir_value import Scalar, cast, to_int, to_scalar
from ..core.param_structs import VdeqInfo
from ..core.repeat_params import BinaryRepeatParams, UnaryRepeatParams
from ..core.tensor import LocalTensor
from .utils import builtin, require_local
from .vector import emit, mask_form_operands


def _binary(name: str, dst: Any, src0: Any, src1: Any, args: tuple, kwargs: dict) -> None:
    emit(name, [(dst, "dst"), (src0, "src0"), (src1, "src1")], None, args, kwargs, BinaryRepeatParams)


@builtin
def add_relu_cast(dst: Any, src0: Any, src1: Any, *args: Any, **kwargs: Any) -> None:
    """``AscendC::AddReluCast``: dst = cast(max(src0 + src1, 0)), float32 -> float16, float16 -> int8 or
    int16 -> int8 (the sum in the source dtype, then converted to nearest, saturating).
    ``add_relu_cast(dst, src0, src1, count)`` or ``(..., mask, repeat_times, repeat_params, is_set_mask=True)``
    with a BinaryRepeatParams; a repeat holds 256 bytes of the source dtype."""
    _binary("add_relu_cast", dst, src0, src1, args, kwargs)


@builtin
def sub_relu_cast(dst: Any, src0: Any, src1: Any, *args: Any, **kwargs: Any) -> None:
    """``AscendC::SubReluCast``: dst = cast(max(src0 - src1, 0)); the dtypes and call forms of add_relu_cast."""
    _binary("sub_relu_cast", dst, src0, src1, args, kwargs)


@builtin
def mul_cast(dst: Any, src0: Any, src1: Any, *args: Any, **kwargs: Any) -> None:
    """``AscendC::MulCast``: dst = cast(src0 * src1), float16 -> int8 or uint8 (the product in half, then to
    nearest, saturating). ``mul_cast(dst, src0, src1, count)`` or ``(..., mask, repeat_times, repeat_params)``."""
    _binary("mul_cast", dst, src0, src1, args, kwargs)


@builtin
def add_deq_relu(dst: Any, src0: Any, src1: Any, *args: Any, **kwargs: Any) -> None:
    """``AscendC::AddDeqRelu``: dst (float16) = max((src0 + src1) * deq_scale, 0) for int32 sources, the scale
    the half one of ``set_deq_scale(scale)``. ``add_deq_relu(dst, src0, src1, count)`` or
    ``(..., mask, repeat_times, repeat_params, is_set_mask=True)``; a repeat holds 64 int32 elements."""
    _binary("add_deq_relu", dst, src0, src1, args, kwargs)


def _flag(value: Any, name: str) -> int:
    # a template argument in Ascend C: a compile-time bool
    if not isinstance(value, bool):
        raise CodegenError(f"cast_deq: {name} must be a Python bool (a compile-time constant), got {value!r}")
    return int(value)


@builtin
def cast_deq(dst: Any, src: Any, *args: Any, **kwargs: Any) -> None:
    """``AscendC::CastDeq``: int16 -> int8 / uint8, dst = src * scale + offset, by the scale, offset and sign
    mode of ``set_deq_scale(scale, offset, sign_mode)`` (``is_vec_deq=False``) or, element e of each 16-element
    block, group e of ``set_deq_scale(vdeq, vdeq_info)`` (``is_vec_deq=True``); the 16 results of source block
    k fill the lower (``half_block=True``) or upper half of destination block k. int32 -> float16:
    dst = src * the half scale of ``set_deq_scale(scale)``.
    ``cast_deq(dst, src, count, is_vec_deq=True, half_block=True)`` or
    ``cast_deq(dst, src, mask, repeat_times, repeat_params, is_set_mask=True, is_vec_deq=True,
    half_block=True)`` with a UnaryRepeatParams (a repeat: 8 source blocks)."""
    d, s = require_local(dst, "cast_deq", "dst"), require_local(src, "cast_deq", "src")
    kwargs = dict(kwargs)
    if "repeat_time" in kwargs:  # pyasc's docs spell it so
        kwargs["repeat_times"] = kwargs.pop("repeat_time")
    count_form = "count" in kwargs or (
        "mask" not in kwargs
        and "repeat_times" not in kwargs
        and (len(args) == 1 or len(args) > 1 and isinstance(args[1], bool))
    )
    fields = (
        ["count", "is_vec_deq", "half_block"]
        if count_form
        else ["mask", "repeat_times", "repeat_params", "is_set_mask", "is_vec_deq", "half_block"]
    )
    if len(args) > len(fields):
        raise CodegenError(f"cast_deq takes at most {len(fields) + 2} positional arguments")
    values = dict(zip(fields, args))
    for key, value in kwargs.items():
        if key in values:
            raise CodegenError(f"cast_deq: {key} given twice")
        values[key] = value
    attrs = {
        "is_vec_deq": _flag(values.pop("is_vec_deq", True), "is_vec_deq"),
        "half_block": _flag(values.pop("half_block", True), "half_block"),
    }
    builder = current_builder()
    if count_form:
        if set(values) != {"count"}:
            raise CodegenError(f"cast_deq: the count form takes count, is_vec_deq, half_block (got {sorted(values)})")
        builder.op("cast_deq", [d.handle, s.handle, to_int(values["count"], "cast_deq count").handle], attrs)
        return
    mode, handles = mask_form_operands("cast_deq", (), values, UnaryRepeatParams)
    builder.op("cast_deq.mask", [d.handle, s.handle, *handles], {"mask_mode": mode, **attrs})


def _float_scalar(value: Any, dtype: dt.DataType, what: str) -> Scalar:
    if isinstance(value, Scalar):
        if not value.dtype.is_float():
            raise CodegenError(f"set_deq_scale: {what} must be a float, got a {value.dtype.name} scalar")
        return cast(value, dtype)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CodegenError(f"set_deq_scale: {what} must be a float, got {type(value).__name__}")
    return to_scalar(float(value), dtype)


def _offset(value: Any, what: str) -> Scalar:
    if isinstance(value, bool):
        raise CodegenError(f"set_deq_scale: {what} must be an int16, got a bool")
    if isinstance(value, int) and not -(2**15) <= value < 2**15:
        raise CodegenError(f"set_deq_scale: {what} {value} does not fit an int16 (only its low 9 bits count)")
    s = to_int(value, f"set_deq_scale {what}")
    return cast(s, dt.int16)


def _sign(value: Any, what: str) -> Scalar:
    if isinstance(value, bool):
        return to_scalar(int(value), dt.int32)
    if isinstance(value, Scalar) and (value.dtype == dt.bool_ or value.dtype.is_int()):
        return cast(value, dt.int32)
    raise CodegenError(f"set_deq_scale: {what} must be a bool, got {value!r}")


@builtin
def set_deq_scale(*args: Any, **kwargs: Any) -> None:
    """``AscendC::SetDeqScale``: writes the deq-scale register (DEQSCALE) later cast_deq and add_deq_relu read.
    ``set_deq_scale(scale)``: a half scale (add_deq_relu, cast_deq from int32);
    ``set_deq_scale(scale, offset, sign_mode)``: a float scale, an offset (its low 9 bits, signed) and the sign
    mode (True: int8 results, False: uint8) for cast_deq from int16 with is_vec_deq=False;
    ``set_deq_scale(vdeq, vdeq_info)``: the 16 groups of an asc.VdeqInfo, also written to the 128-byte uint64
    tensor vdeq, for cast_deq with is_vec_deq=True."""
    builder = current_builder()
    names = ["vdeq", "vdeq_info"] if (args and isinstance(args[0], LocalTensor)) or "vdeq" in kwargs else None
    if names is None:
        names = ["scale", "offset", "sign_mode"]
    if len(args) > len(names):
        raise CodegenError(f"set_deq_scale takes at most {len(names)} arguments here ({', '.join(names)})")
    values = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in names or key in values:
            raise CodegenError(f"set_deq_scale: unexpected or repeated argument {key!r}")
        values[key] = value
    if names[0] == "vdeq":
        if set(values) != {"vdeq", "vdeq_info"}:
            raise CodegenError("set_deq_scale: the tensor form takes vdeq and vdeq_info")
        vdeq = require_local(values["vdeq"], "set_deq_scale", "vdeq")
        info = values["vdeq_info"]
        if not isinstance(info, VdeqInfo):
            raise CodegenError(f"set_deq_scale: vdeq_info must be an asc.VdeqInfo, got {type(info).__name__}")
        for field in ("scale", "offset", "sign_mode"):
            if len(getattr(info, field)) != 16:
                raise CodegenError(f"set_deq_scale: VdeqInfo.{field} has {len(getattr(info, field))} entries, not 16")
        handles = [vdeq.handle, to_scalar(16, dt.int32).handle]  # and the 16 words written to vdeq
        handles += [_float_scalar(v, dt.float32, f"VdeqInfo.scale[{i}]").handle for i, v in enumerate(info.scale)]
        handles += [_offset(v, f"VdeqInfo.offset[{i}]").handle for i, v in enumerate(info.offset)]
        handles += [_sign(v, f"VdeqInfo.sign_mode[{i}]").handle for i, v in enumerate(info.sign_mode)]
        builder.op("set_deq_scale.vector", handles)
        return
    if set(values) == {"scale"}:
        builder.op("set_deq_scale", [_float_scalar(values["scale"], dt.float16, "scale").handle])
        return
    if set(values) != {"scale", "offset", "sign_mode"}:
        raise CodegenError(
            f"set_deq_scale takes (scale), (scale, offset, sign_mode) or (vdeq, vdeq_info), got {sorted(values)}"
        )
    builder.op(
        "set_deq_scale.quant",
        [
            _float_scalar(values["scale"], dt.float32, "scale").handle,
            _offset(values["offset"], "offset").handle,
            _sign(values["sign_mode"], "sign_mode").handle,
        ],
    )
