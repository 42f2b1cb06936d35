"""set_aipp_functions: the AIPP (AI core pre-processing) registers load_image_to_local reads (Ascend C
SetAippFunctions). One op-table row per form (src/ir/ops_data_movement.cpp), which states the semantics and
cites the documentation."""

from __future__ import annotations

from typing import Any

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core import dtype as dt
from ..core.aipp_params import AippParams
from ..core.enums import AippInputFormat
from ..core.ir_value import Scalar, cast, is_runtime, to_int, to_scalar
from ..core.tensor import GlobalTensor
from .utils import builtin


def _int(value: Any, what: str) -> int:
    return to_int(int(value) if isinstance(value, bool) else value, f"set_aipp_functions {what}").handle


def _flag(value: Any, what: str) -> int:
    if is_runtime(value):
        return to_int(value, what).handle if value.dtype != dt.bool_ else cast(value, dt.int32).handle
    return to_scalar(int(bool(value)), dt.int32).handle


def _typed(value: Any, dtype: dt.DataType, what: str) -> int:
    if isinstance(value, Scalar):
        return cast(value, dtype).handle
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CodegenError(f"set_aipp_functions: {what} must be a number, got {type(value).__name__}")
    if dtype == dt.int8 and (not float(value).is_integer() or not -128 <= value <= 127):
        raise CodegenError(f"set_aipp_functions: {what} {value} is not an int8")
    return to_scalar(value, dtype).handle


def _fields(config: AippParams) -> list[int]:
    """The 37 field operands, in the row's order."""
    u = config.dtype
    p, s, line, c = config.padding_params, config.swap_params, config.single_line_params, config.c_padding_params
    d, csc = config.dtc_params, config.csc_params
    out = [_int(p.padding_mode, "AippPaddingParams.padding_mode")]
    out += [_typed(getattr(p, f"padding_value_ch{k}"), u, f"padding_value_ch{k}") for k in range(4)]
    out += [_flag(s.is_swap_rb, "is_swap_rb"), _flag(s.is_swap_uv, "is_swap_uv"), _flag(s.is_swap_ax, "is_swap_ax")]
    out.append(_flag(line.is_single_line_copy, "is_single_line_copy"))
    out += [_int(getattr(d, f"dtc_mean_ch{k}"), f"dtc_mean_ch{k}") for k in range(3)]
    out += [_typed(getattr(d, f"dtc_min_ch{k}"), dt.float16, f"dtc_min_ch{k}") for k in range(3)]
    out += [_typed(getattr(d, f"dtc_var_ch{k}"), dt.float16, f"dtc_var_ch{k}") for k in range(3)]
    out.append(_int(d.dtc_round_mode, "dtc_round_mode"))
    out += [_int(c.c_padding_mode, "c_padding_mode"), _typed(c.c_padding_value, u, "c_padding_value")]
    out.append(_flag(csc.is_enable_csc, "is_enable_csc"))
    out += [_int(getattr(csc, f"csc_matrix_r{r}_c{k}"), f"csc_matrix_r{r}_c{k}") for r in range(3) for k in range(3)]
    out += [_int(getattr(csc, f"csc_bias_in_{k}"), f"csc_bias_in_{k}") for k in range(3)]
    out += [_int(getattr(csc, f"csc_bias_out_{k}"), f"csc_bias_out_{k}") for k in range(3)]
    return out


@builtin
def set_aipp_functions(*args: Any, **kwargs: Any) -> None:
    """``AscendC::SetAippFunctions``: ``set_aipp_functions(src0, input_format, config)`` (YUV400, RGB888,
    XRGB8888) or ``set_aipp_functions(src0, src1, input_format, config)`` (YUV420SP: src1 is the UV plane).
    Loads the AIPP registers the next load_image_to_local reads: the image, its asc.AippInputFormat and the
    asc.AippParams (padding, channel swaps, single-line read, data type conversion to config.dtype (int8 or
    float16), channel padding, colour-space conversion). The image is read as uint8 bytes from the tensors'
    addresses, whatever their dtype."""
    names = ("src0", "src1", "input_format", "config")
    if len(args) == 3 and "src1" not in kwargs:
        args = (args[0], None, *args[1:])
    values = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names or k in values:
            raise CodegenError(f"set_aipp_functions: unexpected argument {k!r}")
        values[k] = v
    src0, src1, fmt, config = (values.get(n) for n in names)
    for role, t in (("src0", src0), ("src1", src1)):
        if t is not None and not isinstance(t, GlobalTensor):
            raise CodegenError(f"set_aipp_functions: {role} must be a GlobalTensor, got {type(t).__name__}")
    if src0 is None:
        raise CodegenError("set_aipp_functions needs src0, the image in GM")
    if not isinstance(fmt, AippInputFormat):
        raise CodegenError(f"set_aipp_functions: input_format must be an asc.AippInputFormat, got {fmt!r}")
    if not isinstance(config, AippParams):
        raise CodegenError(f"set_aipp_functions: config must be an asc.AippParams, got {type(config).__name__}")
    if (src1 is not None) != (fmt == AippInputFormat.YUV420SP_U8):
        raise CodegenError("set_aipp_functions: AippInputFormat.YUV420SP_U8 takes src0 (Y) and src1 (UV); the other "
                           "formats take src0 only")  # fmt: skip
    tensors = [src0._require()] + ([src1._require()] if src1 is not None else [])
    name = "set_aipp_functions.dual" if src1 is not None else "set_aipp_functions"
    current_builder().op(name, [*tensors, *_fields(config)], {"format": int(fmt), "dtype": config.dtype.code})
