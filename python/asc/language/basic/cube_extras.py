"""The cube unit's extras: init_const_value (Ascend C InitConstValue), the 4:2 structured-sparse pair
load_data_with_sparse / mmad_with_sparse, load_data with LoadData3DParamsV2 (img2col; called through
cube.load_data) and the per-core modes those instructions read: set_load_data_boundary,
set_load_data_padding_value, set_load_data_repeat, set_hf32_mode, set_hf32_trans_mode,
set_mm_layout_transform. Each is one op-table row (src/ir/ops_cube_extras.cpp), which cites the
documentation; docs/cube.md describes them."""

from __future__ import annotations

from typing import Any

# numpy is imported by the functions that take numpy values: `import asc` does not import it.
from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core import dtype as dt
from ..core.cube_params import LoadData2DParams, MmadParams
from ..core.enums import TPosition
from ..core.ir_value import Scalar, binary, cast, const, to_int
from ..core.param_structs import (
    InitConstValueParams,
    LoadData3DParamsV1,
    LoadData3DParamsV2,
    LoadData3DParamsV2Pro,
    LoadDataRepeatParam,
)
from .utils import builtin, require_local

_L1 = (TPosition.A1, TPosition.B1)


def _int(value: Any, what: str) -> int:
    import numpy as np

    if isinstance(value, Scalar) and value.dtype == dt.bool_:
        return cast(value, dt.int32).handle
    return to_int(int(value) if isinstance(value, (bool, np.bool_)) else value, what).handle


def _ints(values: list, what: str) -> list[int]:
    return [_int(v, what) for v in values]


def _value(value: Any, dtype: dt.DataType, fn: str, what: str) -> Scalar:
    """`value` as a scalar of `dtype`: run-time scalars converted as C++ converts them, Python and numpy numbers
    as constants."""
    import numpy as np

    if isinstance(value, Scalar):
        if value.dtype == dt.bool_:
            raise CodegenError(f"{fn}: {what} must be a number, got a bool scalar")
        return cast(value, dtype)
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CodegenError(f"{fn}: {what} must be a number, got {type(value).__name__}")
    if not dtype.is_float() and isinstance(value, float) and not value.is_integer():
        raise CodegenError(f"{fn}: {what} {value} is not an integer and the tensor is {dtype.name}")
    return const(value, dtype)


def _flag(value: Any, fn: str) -> int:
    import numpy as np

    if isinstance(value, Scalar):
        return _int(value, fn)
    if not isinstance(value, (bool, int, np.bool_, np.integer)):
        raise CodegenError(f"{fn}: takes a bool, got {type(value).__name__}")
    return const(int(bool(value)), dt.int32).handle


@builtin
def init_const_value(dst: Any, init_const_value_params: Any) -> None:
    """``AscendC::InitConstValue``: sets `repeat_times` iterations of `block_num` blocks of dst (A1/B1: 32-byte
    blocks; A2/B2: 512-byte blocks), `dst_gap` blocks between iterations, to `init_value` (converted to dst's
    dtype: int16, uint16, half, bfloat16, int32, uint32 or float)."""
    p = init_const_value_params
    if not isinstance(p, InitConstValueParams):
        raise CodegenError(f"init_const_value: params must be an asc.InitConstValueParams, got {type(p).__name__}")
    d = require_local(dst, "init_const_value", "dst")
    value = _value(p.init_value, d.dtype, "init_const_value", "init_value")
    operands = [d.handle, *_ints([p.repeat_times, p.block_num, p.dst_gap], "InitConstValueParams"), value.handle]
    current_builder().op("init_const_value", operands, {"l1": int(d.position in _L1)})


@builtin
def load_data_with_sparse(dst: Any, src: Any, idx: Any, load_data_params: Any = None, **kwargs: Any) -> None:
    """``AscendC::LoadDataWithSparse``: `repeat_times` 512-byte fractals of the dense int8 B matrix from src (B1),
    from fractal `start_index`, to dst (B2), and their 128-byte fractals of 2-bit indices (uint8 idx in L1, four
    a byte, the first in the lowest bits) to the cube's index buffer that mmad_with_sparse reads. The other
    LoadData2DParams fields are unused; there is no transpose."""
    params = load_data_params if load_data_params is not None else kwargs.pop("load_data_param", None)
    if kwargs:
        raise CodegenError(f"load_data_with_sparse: unexpected arguments {sorted(kwargs)}")
    if not isinstance(params, LoadData2DParams):
        raise CodegenError(
            f"load_data_with_sparse: params must be an asc.LoadData2DParams, got {type(params).__name__}"
        )
    if isinstance(params.if_transpose, (bool, int)) and params.if_transpose:
        raise CodegenError("load_data_with_sparse: does not transpose (if_transpose must be False)")
    tensors = [
        require_local(t, "load_data_with_sparse", r).handle for t, r in ((dst, "dst"), (src, "src"), (idx, "idx"))
    ]
    current_builder().op("load_data_with_sparse", [*tensors, *_ints(params.fields(), "LoadData2DParams")])


@builtin
def mmad_with_sparse(dst: Any, fm: Any, filter: Any, mmad_params: Any) -> None:  # noqa: A002 - pyasc's name
    """``AscendC::MmadWithSparse``: dst (int32, CO1) = or += fm (int8, A2, m x k, Zz) x filter (int8, B2: the
    4:2-densified k/2 x n matrix, Zn), each group of four fm values along K reduced to the two the index buffer
    (load_data_with_sparse) picks."""
    if not isinstance(mmad_params, MmadParams):
        raise CodegenError(f"mmad_with_sparse: params must be an asc.MmadParams, got {type(mmad_params).__name__}")
    p = mmad_params
    tensors = [
        require_local(t, "mmad_with_sparse", r).handle for t, r in ((dst, "dst"), (fm, "fm"), (filter, "filter"))
    ]
    source = int(p.cmatrix_source) if isinstance(p.cmatrix_source, bool) else p.cmatrix_source
    operands = [*tensors, *_ints([p.m, p.n, p.k, p.init(), source], "MmadParams")]
    current_builder().op("mmad_with_sparse", operands)


_U64 = 1 << 64


def _pack(fields: list[tuple[Any, int, int, str]], fn: str) -> Scalar:
    """A uint64 word of (value, shift, bits, name) fields, as Ascend C packs extConfig and filterConfig."""
    import numpy as np

    word: Scalar | None = None
    constant = 0
    for value, shift, bits, name in fields:
        if isinstance(value, (bool, np.bool_)):
            value = int(value)
        if isinstance(value, Scalar):
            part = binary("shl", cast(value, dt.uint64), shift)
            word = part if word is None else binary("or", word, part)
            continue
        if not isinstance(value, (int, np.integer)):
            raise CodegenError(f"{fn}: {name} must be an integer, got {type(value).__name__}")
        if not 0 <= int(value) < 1 << bits:
            raise CodegenError(f"{fn}: {name} {int(value)} is outside 0..{(1 << bits) - 1}")
        constant |= int(value) << shift
    const_word = const(constant - _U64 if constant >= 1 << 63 else constant, dt.uint64)
    return const_word if word is None else binary("or", word, const_word)


def _config(value: Any, fn: str, name: str) -> Scalar:
    import numpy as np

    if isinstance(value, Scalar):
        return cast(value, dt.uint64)
    if not isinstance(value, (int, np.integer)) or not 0 <= int(value) < _U64:
        raise CodegenError(f"{fn}: {name} must be a 64-bit unsigned integer, got {value!r}")
    bits = int(value)
    return const(bits - _U64 if bits >= 1 << 63 else bits, dt.uint64)


def _load_3d_op(d: Any, s: Any, channel_size: Any, flags: list, ext: Scalar, filt: Scalar) -> None:
    operands = [d.handle, s.handle, _int(channel_size, "channel_size"), *_ints(flags, "LoadData3DParams"),
                ext.handle, filt.handle]  # fmt: skip
    current_builder().op("load_data.3dv2pro", operands)


def load_data_3d(dst: Any, src: Any, params: Any, is_set_padding: Any = True) -> None:
    """load_data with a 3-D (img2col) parameter struct; cube.load_data dispatches here. LoadData3DParamsV2 is
    Ascend C's SetFmatrix (the feature map's height, width and padding), SetLoadDataPaddingValue (with
    is_set_padding, Ascend C's IsResetLoad3dConfig.isSetPadding) and the V2Pro load of the packed fields."""
    if isinstance(params, LoadData3DParamsV1):
        raise CodegenError(
            "load_data: LoadData3DParamsV1 is not available on Atlas A2 (Ascend C's v1 3-D load is for Atlas "
            "training and inference products); use asc.LoadData3DParamsV2"
        )
    d, s = require_local(dst, "load_data", "dst"), require_local(src, "load_data", "src")
    if not isinstance(is_set_padding, bool):
        raise CodegenError("load_data: is_set_padding must be a Python bool (Ascend C's IsResetLoad3dConfig)")
    if isinstance(params, LoadData3DParamsV2Pro):  # the feature map and padding value from the registers
        flags = [params.en_transpose, params.en_small_k, params.filter_size_w, params.filter_size_h,
                 params.f_matrix_ctrl]  # fmt: skip
        _load_3d_op(d, s, params.channel_size, flags, _config(params.ext_config, "load_data", "ext_config"),
                    _config(params.filter_config, "load_data", "filter_config"))  # fmt: skip
        return
    p: LoadData3DParamsV2 = params
    pads = list(p.pad_list)
    if len(pads) != 4:
        raise CodegenError(f"load_data: pad_list has 4 values (left, right, top, bottom), got {len(pads)}")
    current_builder().op("set_fmatrix", _ints([p.l1_h, p.l1_w, *pads], "LoadData3DParamsV2"))
    if is_set_padding:
        current_builder().op(
            "set_load_data_padding_value", [_value(p.pad_value, d.dtype, "load_data", "pad_value").handle]
        )
    fn = "LoadData3DParamsV2"
    ext = _pack([(p.k_extension, 0, 16, "k_extension"), (p.m_extension, 16, 16, "m_extension"),
                 (p.k_start_pt, 32, 16, "k_start_pt"), (p.m_start_pt, 48, 16, "m_start_pt")], fn)  # fmt: skip
    filt = _pack([(p.stride_w, 0, 8, "stride_w"), (p.stride_h, 8, 8, "stride_h"), (p.filter_w, 16, 8, "filter_w"),
                  (p.filter_h, 24, 8, "filter_h"), (p.dilation_filter_w, 32, 8, "dilation_filter_w"),
                  (p.dilation_filter_h, 40, 8, "dilation_filter_h")], fn)  # fmt: skip
    _load_3d_op(d, s, p.channel_size, [p.en_transpose, False, p.filter_size_w, p.filter_size_h, p.f_matrix_ctrl],
                ext, filt)  # fmt: skip


@builtin
def set_load_data_boundary(boundary: Any) -> None:
    """``AscendC::SetLoadDataBoundary``: load_data (3-D) reads of L1 at or past `boundary` bytes (at least 1024;
    0: no boundary) wrap to the start of L1."""
    current_builder().op("set_load_data_boundary", [to_int(boundary, "set_load_data_boundary").handle])


@builtin
def set_load_data_padding_value(pad_value: Any) -> None:
    """``AscendC::SetLoadDataPaddingValue``: the value load_data (3-D) pads with when called with
    is_set_padding=False (converted to the loaded tensors' dtype)."""
    import numpy as np

    if isinstance(pad_value, np.generic):
        pad_value = pad_value.item()
    if isinstance(pad_value, Scalar):
        value = pad_value
    elif isinstance(pad_value, (int, float)) and not isinstance(pad_value, bool):
        value = const(pad_value, dt.float32 if isinstance(pad_value, float) else dt.int32)
    else:
        raise CodegenError(f"set_load_data_padding_value: pad_value must be a number, got {type(pad_value).__name__}")
    current_builder().op("set_load_data_padding_value", [value.handle])


@builtin
def set_load_data_repeat(param: Any) -> None:
    """``AscendC::SetLoadDataRepeat``: later load_data (3-D) calls move `repeat_time` blocks, the source moving
    `repeat_stride` x 16 rows (repeat_mode 0) or x C0 columns (repeat_mode 1) each time."""
    if not isinstance(param, LoadDataRepeatParam):
        raise CodegenError(
            f"set_load_data_repeat: param must be an asc.LoadDataRepeatParam, got {type(param).__name__}"
        )
    values = _ints([param.repeat_time, param.repeat_stride, param.repeat_mode], "LoadDataRepeatParam")
    current_builder().op("set_load_data_repeat", values)


@builtin
def set_hf32_mode(hf32_mode: Any) -> None:
    """``AscendC::SetHF32Mode``: True: mmad rounds float32 fm and filter values to HF32 (float32's exponent,
    11 mantissa bits) before multiplying; False: plain float32."""
    current_builder().op("set_hf32_mode", [_flag(hf32_mode, "set_hf32_mode")])


@builtin
def set_hf32_trans_mode(trans_mode: Any) -> None:
    """``AscendC::SetHF32TransMode``: HF32 rounds to nearest, ties towards zero (True) or to even (False)."""
    current_builder().op("set_hf32_trans_mode", [_flag(trans_mode, "set_hf32_trans_mode")])


@builtin
def set_mm_layout_transform(mm_layout_mode: Any) -> None:
    """``AscendC::SetMMLayoutTransform``: mmad produces results N first, then M (True), or M first (False);
    the values are the same either way."""
    current_builder().op("set_mm_layout_transform", [_flag(mm_layout_mode, "set_mm_layout_transform")])
