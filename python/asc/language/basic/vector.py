"""The vector instructions (src/ir/vector_ops.def), each in two forms:

* count mode:  ``op(dst, src..., count)`` — the first `count` elements;
* mask mode:   ``op(dst, src..., mask, repeat_times, repeat_params)`` — repeats
  of 256 bytes; `mask` is an int (the first `mask` elements of each repeat) or
  a pair of 64-bit ints (a bit per element); `repeat_params` is a
  BinaryRepeatParams (binary ops) or UnaryRepeatParams (unary and scalar ops).
  With ``is_set_mask=False`` the instruction runs with the mask register set
  earlier by ``set_vector_mask`` (and `mask` is ``asc.MASK_PLACEHOLDER``).
"""

from __future__ import annotations

from typing import Any, Optional

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core import dtype as dt
from ..core.ir_value import Scalar, cast, to_int, to_scalar
from ..core.repeat_params import BinaryRepeatParams, CopyRepeatParams, UnaryRepeatParams
from .utils import builtin, require_local

_U64 = 2**64
MASK_FROM_REGISTER = 2  # the mask_mode of is_set_mask=False


def _mask_operands(mask: Any) -> tuple[int, Scalar, Scalar]:
    """(mask_mode, mask0, mask1): 0 = continuous (mask0 = element count), 1 = bit mask."""
    if isinstance(mask, (list, tuple)):
        if len(mask) != 2:
            raise CodegenError("a bit mask is a pair [low 64 bits, high 64 bits]")
        words = []
        for word in mask:
            if isinstance(word, int) and not isinstance(word, bool):
                if not 0 <= word < _U64:
                    raise CodegenError(f"a mask word must fit in 64 bits, got {word}")
                word = word - _U64 if word >= 2**63 else word  # the same 64 bits, as int64
                words.append(to_scalar(word, dt.int64))
            else:
                words.append(cast(to_int(word, "mask"), dt.int64))
        return 1, words[0], words[1]
    return 0, cast(to_int(mask, "mask"), dt.int64), to_scalar(0, dt.int64)


def mask_operands(mask: Any, is_set_mask: Any) -> tuple[int, Scalar, Scalar]:
    """(mask_mode, mask0, mask1) of a mask-mode call, honouring is_set_mask."""
    if not isinstance(is_set_mask, bool):
        raise CodegenError("is_set_mask must be a Python bool (True or False)")
    if not is_set_mask:
        return MASK_FROM_REGISTER, to_scalar(0, dt.int64), to_scalar(0, dt.int64)
    return _mask_operands(mask)


def mask_form_operands(name: str, args: tuple, kwargs: dict, params_type: type) -> tuple[int, list]:
    """(mask_mode, operand handles) of a ``mask, repeat_times, repeat_params[, is_set_mask]`` call tail:
    mask0, mask1, repeat_times, the block strides, the repeat strides."""
    values = dict(zip(["mask", "repeat_times", "repeat_params", "is_set_mask"], args), **kwargs)
    missing = [f for f in ("mask", "repeat_times", "repeat_params") if f not in values]
    if missing:
        raise CodegenError(f"{name}: give count, or mask, repeat_times and repeat_params (missing {missing})")
    unknown = set(values) - {"mask", "repeat_times", "repeat_params", "is_set_mask"}
    if unknown:
        raise CodegenError(f"{name}: unexpected arguments {sorted(unknown)}")
    block_strides, repeat_strides = _strides_from_params(name, values, params_type)
    mode, mask0, mask1 = mask_operands(values["mask"], values.get("is_set_mask", True))
    handles = [mask0.handle, mask1.handle, to_int(values["repeat_times"], "repeat_times").handle]
    handles += [to_int(v, "a block stride").handle for v in block_strides]
    handles += [to_int(v, "a repeat stride").handle for v in repeat_strides]
    return mode, handles


def _strides_from_params(name: str, values: dict, params_type: type) -> tuple[list, list]:
    params = values["repeat_params"]
    if not isinstance(params, params_type):
        raise CodegenError(f"{name}: repeat_params must be an asc.{params_type.__name__}, got {type(params).__name__}")
    return params.block_strides(), params.repeat_strides()


def emit(
    name: str,
    tensors: list,
    scalar: Optional[Any],
    args: tuple,
    kwargs: dict,
    params_type: Optional[type],
    stride_fields: tuple[str, ...] = ("repeat_params",),
) -> None:
    """Emits `name` (count mode) or `name.mask` from a call's arguments. The
    strides come from a repeat-params object of `params_type`, or (when it is
    None) from the block-stride and repeat-stride fields named in `stride_fields`."""
    # the count form: (count) or, as pyasc spells it, (count, is_set_mask), where is_set_mask does nothing
    count_form = "repeat_times" not in kwargs and (len(args) <= 1 or (len(args) == 2 and isinstance(args[1], bool)))
    fields = ["count", "is_set_mask"] if count_form else ["mask", "repeat_times", *stride_fields]
    values = dict(zip(fields, args), **kwargs)
    is_set_mask = values.pop("is_set_mask", True)
    locals_ = [require_local(t, name, role) for t, role in tensors]
    handles = [t.handle for t in locals_]
    if scalar is not None:
        value = cast(scalar, locals_[0].dtype) if isinstance(scalar, Scalar) else to_scalar(scalar, locals_[0].dtype)
        handles.append(value.handle)
    builder = current_builder()
    if "count" in values and "mask" not in values:
        handles.append(to_int(values["count"], f"{name} count").handle)
        builder.op(name, handles)
        return
    missing = [f for f in ("mask", "repeat_times", *stride_fields) if f not in values]
    if missing:
        wanted = ", ".join(f"{f}=" for f in ("mask", "repeat_times", *stride_fields))
        raise CodegenError(f"{name}: give count=, or {wanted} (missing {missing})")
    if params_type is not None:
        block_strides, repeat_strides = _strides_from_params(name, values, params_type)
    else:
        block_strides, repeat_strides = [values[stride_fields[0]]], [values[stride_fields[1]]]
    mode, mask0, mask1 = mask_operands(values["mask"], is_set_mask)
    handles += [mask0.handle, mask1.handle, to_int(values["repeat_times"], "repeat_times").handle]
    handles += [to_int(s, "a block stride").handle for s in block_strides]
    handles += [to_int(s, "a repeat stride").handle for s in repeat_strides]
    builder.op(f"{name}.mask", handles, {"mask_mode": mode})


# The engines of the generated wrappers (vec_ops.py), one per family of src/ir/vector_ops.def.
def binary(name: str, dst: Any, src0: Any, src1: Any, args: tuple, kwargs: dict) -> None:
    """dst, src0, src1; mask/repeat mode with a BinaryRepeatParams."""
    emit(name, [(dst, "dst"), (src0, "src0"), (src1, "src1")], None, args, kwargs, BinaryRepeatParams)


def unary(name: str, dst: Any, src: Any, args: tuple, kwargs: dict) -> None:
    """dst, src; mask/repeat mode with a UnaryRepeatParams."""
    emit(name, [(dst, "dst"), (src, "src")], None, args, kwargs, UnaryRepeatParams)


def with_scalar(name: str, dst: Any, src: Any, scalar: Any, args: tuple, kwargs: dict) -> None:
    """dst, src, scalar; mask/repeat mode with a UnaryRepeatParams."""
    emit(name, [(dst, "dst"), (src, "src")], scalar, args, kwargs, UnaryRepeatParams)


def fill(name: str, dst: Any, scalar: Any, args: tuple, kwargs: dict) -> None:
    """dst, scalar; mask/repeat mode with dst_block_stride and dst_repeat_stride."""
    emit(name, [(dst, "dst")], scalar, args, kwargs, None, ("dst_block_stride", "dst_repeat_stride"))


@builtin
def copy(dst: Any, src: Any, *args: Any, **kwargs: Any) -> None:
    """``AscendC::Copy``: dst = src, on pipe V: ``copy(dst, src, count)`` or
    ``copy(dst, src, mask, repeat_time, params)`` with
    ``asc.CopyRepeatParams(dst_stride, src_stride, dst_repeat_size, src_repeat_size)``.
    Hand-written (vec_ops.py imports it): its mask form differs from the other UNARY rows'."""
    if "repeat_time" in kwargs:
        kwargs["repeat_times"] = kwargs.pop("repeat_time")
    emit("copy", [(dst, "dst"), (src, "src")], None, args, kwargs, CopyRepeatParams)
