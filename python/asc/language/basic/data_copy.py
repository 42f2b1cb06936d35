"""data_copy (counts, DataCopyParams, SliceInfo lists, layouts), data_copy_pad (rows, and the UB -> L1 ND2NZ
form), set_pad_value and load_image_to_local."""

from __future__ import annotations

from typing import Any, Optional

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core import dtype as dt
from ..core.cube_params import DataCopyCO12DstParams, Nd2NzParams, Nz2NdParamsFull
from ..core.data_copy_params import DataCopyExtParams, DataCopyPadExtParams, DataCopyParams
from ..core.enums import BlockMode, DeqScale, TPosition, pad_t
from ..core.ir_value import Scalar, cast, is_runtime, to_int, to_scalar
from ..core.param_structs import DataCopyEnhancedParams, DataCopyPadParams, LoadImageToLocalParams, SliceInfo
from ..core.tensor import GlobalTensor, LocalTensor
from .positions import addressed_as
from .utils import builtin, require_local, require_tensor

_L1 = (TPosition.A1, TPosition.B1, TPosition.C1)  # TSCM
_SLICE_FIELDS = ("start_index", "end_index", "stride", "burst_len", "shape_value")
_MAX_SLICE_DIMS = 8  # K_MAX_DIM


def _slice_copy(dst: Any, src: Any, dst_slices: Any, src_slices: Any, dim_value: Any) -> None:
    """data_copy with SliceInfo lists (Ascend C's slice data movement); the row documents the semantics."""
    if not isinstance(src_slices, (list, tuple)):
        raise CodegenError("data_copy: the SliceInfo form takes two lists, slice_list1 (dst) and slice_list2 (src)")
    if dim_value is None:
        dim_value = len(dst_slices)
    if is_runtime(dim_value) or isinstance(dim_value, bool) or not isinstance(dim_value, int):
        raise CodegenError(f"data_copy: dim_value must be a Python int (the lists' length), got {dim_value!r}")
    if not 1 <= dim_value <= _MAX_SLICE_DIMS:
        raise CodegenError(f"data_copy: dim_value must be 1 to {_MAX_SLICE_DIMS}, got {dim_value}")
    if len(dst_slices) != dim_value or len(src_slices) != dim_value:
        raise CodegenError(f"data_copy: dim_value {dim_value} needs {dim_value} SliceInfo in each list, got "
                           f"{len(dst_slices)} (dst) and {len(src_slices)} (src)")  # fmt: skip
    if isinstance(dst, LocalTensor) and isinstance(src, GlobalTensor):
        name = "data_copy.slice.gm_to_local"
    elif isinstance(dst, GlobalTensor) and isinstance(src, LocalTensor):
        name = "data_copy.slice.local_to_gm"
    else:
        raise CodegenError("data_copy: SliceInfo copies go GM -> Unified Buffer (dst a LocalTensor, src a "
                           "GlobalTensor) or Unified Buffer -> GM")  # fmt: skip
    operands = [dst.handle, src.handle]
    for side, slices in (("slice_list1", dst_slices), ("slice_list2", src_slices)):
        for k, info in enumerate(slices):
            if not isinstance(info, SliceInfo):
                raise CodegenError(f"data_copy: {side}[{k}] must be an asc.SliceInfo, got {type(info).__name__}")
            operands += [to_int(getattr(info, f), f"SliceInfo.{f}").handle for f in _SLICE_FIELDS]
    current_builder().op(name, operands, {"dims": dim_value})


def _enhanced_defaults(p: DataCopyEnhancedParams) -> None:
    """The enhanced options (block modes, dequantisation, relu, padding) act on the CO1 -> CO2 path; a GM / Unified
    Buffer copy takes them at their defaults, where the copy is DataCopyParams' own."""
    checks = (
        ("block_mode", BlockMode.BLOCK_MODE_NORMAL),
        ("deq_scale", DeqScale.DEQ_NONE),
        ("pad_mode", pad_t.PAD_NONE),
    )
    for name, default in checks:
        value = getattr(p, name)
        if is_runtime(value) or int(value) != int(default):
            raise CodegenError(f"data_copy: DataCopyEnhancedParams.{name} {value!r} applies to the CO1 -> CO2 "
                               f"path, which asc does not model; GM and UB copies take {default.name}")  # fmt: skip
    if is_runtime(p.is_relu) or bool(p.is_relu):
        raise CodegenError("data_copy: DataCopyEnhancedParams.is_relu applies to the CO1 -> CO2 path, which asc does "
                           "not model; GM and Unified Buffer copies take is_relu_in=False")  # fmt: skip


@builtin
def data_copy(dst: Any, src: Any, *args: Any, **kwargs: Any) -> None:
    """Copies from `src` to `dst` (GM->UB on MTE2, UB->GM on MTE3, UB->UB on V).

    ``data_copy(dst, src, count)``: `count` elements; ``count * sizeof(dtype)``
    must be a multiple of 32 bytes, as on the NPU.
    ``data_copy(dst, src, asc.DataCopyParams(block_count, block_len, src_stride, dst_stride))``:
    rows of 32-byte blocks with gaps between them; ``data_copy(dst, src, params, asc.DataCopyEnhancedParams())``
    the same copy (the enhanced options act on the CO1 -> CO2 path only).
    ``data_copy(dst, src, slice_list1, slice_list2, dim_value)``: the slices of the SliceInfo lists (dst's, src's),
    GM -> Unified Buffer or back.
    """
    rest = list(args)

    def take(*names: str) -> Any:
        for n in names:
            if n in kwargs:
                return kwargs.pop(n)
        return rest.pop(0) if rest else None

    first = take("count", "repeat_params", "params", "intri_params", "slice_list1")
    require_tensor(dst, "data_copy", "dst")
    require_tensor(src, "data_copy", "src")
    if isinstance(first, (list, tuple)):
        second, dim_value = take("slice_list2"), take("dim_value")
        if rest or kwargs:
            raise CodegenError(f"data_copy: unexpected arguments {rest or list(kwargs)} after the SliceInfo lists")
        _slice_copy(dst, src, first, second, dim_value)
        return
    enhanced = take("enhanced_params") if isinstance(first, DataCopyParams) else None
    if rest or kwargs:
        raise CodegenError(f"data_copy takes (dst, src, count), (dst, src, DataCopyParams[, DataCopyEnhancedParams]), "
                           f"(dst, src, Nd2NzParams / Nz2NdParamsFull / DataCopyCO12DstParams) or (dst, src, "
                           f"slice_list1, slice_list2, dim_value); unexpected {rest or list(kwargs)}")  # fmt: skip
    if first is None:
        raise CodegenError("data_copy needs a count, a DataCopyParams, layout params or SliceInfo lists")
    if isinstance(first, (Nd2NzParams, Nz2NdParamsFull)):  # ND -> Nz into L1 (from GM or the UB), Nz -> ND to GM
        fields = [to_int(v, type(first).__name__).handle for v in first.fields()]
        name = "data_copy.nd2nz" if isinstance(first, Nd2NzParams) else "data_copy.nz2nd"
        if name == "data_copy.nd2nz" and isinstance(dst, LocalTensor):  # ND2NZ writes L1 (TSCM)
            dst = addressed_as(dst, _L1, "data_copy", "dst")
            if isinstance(src, LocalTensor):
                name = "data_copy.nd2nz.ub"
        current_builder().op(name, [dst.handle, src.handle, *fields])
        return
    if isinstance(first, DataCopyCO12DstParams):  # L0C -> GM or L1 through the fixpipe
        fields = [to_int(v, "DataCopyCO12DstParams").handle for v in first.fields()]
        nz2nd = int(first.nz2nd_en) if isinstance(first.nz2nd_en, bool) else 1
        if isinstance(src, LocalTensor):
            src = addressed_as(src, (TPosition.CO1,), "data_copy", "src")
        if isinstance(dst, LocalTensor):  # L0C -> L1: NZ to NZ, nz2nd_en as given (Ascend 950's when set)
            dst = addressed_as(dst, (TPosition.C1, TPosition.A1, TPosition.B1), "data_copy", "dst")
            nz2nd = int(first.nz2nd_en) if isinstance(first.nz2nd_en, bool) else 0
            current_builder().op("fixpipe.l1", [dst.handle, src.handle, *fields], {"nz2nd": nz2nd, "deq_register": 1})
            return
        current_builder().op("fixpipe", [dst.handle, src.handle, *fields], {"nz2nd": nz2nd, "deq_register": 1})
        return
    if not isinstance(first, DataCopyParams):
        if isinstance(first, (DataCopyExtParams, DataCopyEnhancedParams)) or not (
            is_runtime(first) or isinstance(first, int)
        ):
            raise CodegenError(f"data_copy: expected a count or asc.DataCopyParams, got {type(first).__name__}")
        current_builder().op("data_copy", [dst.handle, src.handle, to_int(first, "data_copy count").handle])
        return
    if enhanced is not None:
        if not isinstance(enhanced, DataCopyEnhancedParams):
            raise CodegenError(f"data_copy: expected asc.DataCopyEnhancedParams, got {type(enhanced).__name__}")
        _enhanced_defaults(enhanced)
    p = first
    fields = [p.block_count, p.block_len, p.src_stride, p.dst_stride]
    names = ("block_count", "block_len", "src_stride", "dst_stride")
    operands = [to_int(v, f"DataCopyParams.{n}").handle for v, n in zip(fields, names)]
    current_builder().op("data_copy", [dst.handle, src.handle, *operands])


@builtin
def data_copy_pad(dst: Any, src: Any, data_copy_params: Any, pad_params: Any = None, nd2nz_params: Any = None) -> None:
    """Copies rows of any byte length between GM and the Unified Buffer (GM->UB on MTE2, UB->GM on MTE3).

    In the Unified Buffer each row starts on a 32-byte block and is padded to a
    whole number of blocks; `pad_params` (GM->UB only) fills the pads.
    ``data_copy_pad(dst, src, params, asc.Nd2NzParams(...))`` with two LocalTensors: Unified Buffer -> L1
    (TSCM) through GM, the rows laid out ND then moved ND2NZ as data_copy's Nd2NzParams form does."""
    if isinstance(pad_params, Nd2NzParams) or nd2nz_params is not None:
        _pad_nd2nz(dst, src, data_copy_params, nd2nz_params if nd2nz_params is not None else pad_params)
        return
    # Ascend C's DataCopyPad takes DataCopyParams / DataCopyPadParams too: the same fields, narrower integers
    if not isinstance(data_copy_params, (DataCopyExtParams, DataCopyParams)):
        got = type(data_copy_params).__name__
        raise CodegenError(f"data_copy_pad: expected asc.DataCopyExtParams or asc.DataCopyParams, got {got}")
    require_tensor(dst, "data_copy_pad", "dst")
    require_tensor(src, "data_copy_pad", "src")
    p = data_copy_params
    names = ("block_count", "block_len", "src_stride", "dst_stride")
    operands = [to_int(getattr(p, n), f"{type(p).__name__}.{n}").handle for n in names]
    if isinstance(dst, LocalTensor):
        pad = pad_params or DataCopyPadExtParams()
        if not isinstance(pad, (DataCopyPadExtParams, DataCopyPadParams)):
            raise CodegenError(
                f"data_copy_pad: expected asc.DataCopyPadExtParams or asc.DataCopyPadParams, got {type(pad).__name__}"
            )
        fill = pad.padding_value
        value = cast(fill, dst.dtype) if is_runtime(fill) else to_scalar(fill, dst.dtype)
        is_pad = pad.is_pad if is_runtime(pad.is_pad) else int(bool(pad.is_pad))
        operands += [to_int(pad.left_padding, "left_padding").handle, to_int(pad.right_padding, "right_padding").handle]
        operands += [value.handle, to_int(is_pad, "is_pad").handle]
        current_builder().op("data_copy_pad.gm_to_local", [dst.handle, src.handle, *operands])
    else:
        if isinstance(src, GlobalTensor):
            raise CodegenError("data_copy_pad copies GM -> Unified Buffer (dst a LocalTensor) or back, not GM -> GM")
        if pad_params is not None:
            raise CodegenError("data_copy_pad: padding applies to GM -> Unified Buffer copies only")
        current_builder().op("data_copy_pad.local_to_gm", [dst.handle, src.handle, *operands])


def _pad_nd2nz(dst: Any, src: Any, data_copy_params: Any, nd2nz: Any) -> None:
    if not isinstance(dst, LocalTensor) or not isinstance(src, LocalTensor):
        raise CodegenError("data_copy_pad: the Nd2NzParams form copies a LocalTensor (VECIN / VECOUT) to a "
                           "LocalTensor in L1 (TSCM)")  # fmt: skip
    if not isinstance(nd2nz, Nd2NzParams):
        raise CodegenError(f"data_copy_pad: nd2nz_params must be an asc.Nd2NzParams, got {type(nd2nz).__name__}")
    if not isinstance(data_copy_params, (DataCopyExtParams, DataCopyParams)):
        got = type(data_copy_params).__name__
        raise CodegenError(f"data_copy_pad: expected asc.DataCopyExtParams or asc.DataCopyParams, got {got}")
    p = data_copy_params
    names = ("block_count", "block_len", "src_stride", "dst_stride")
    operands = [to_int(getattr(p, n), f"{type(p).__name__}.{n}").handle for n in names]
    operands += [to_int(v, f"Nd2NzParams.{i}").handle for i, v in enumerate(nd2nz.fields())]
    current_builder().op("data_copy_pad.nd2nz", [dst.handle, src.handle, *operands])


@builtin
def set_pad_value(padding_value: Any, pos: Any = TPosition.MAX, dtype: Optional[dt.DataType] = None) -> None:
    """``AscendC::SetPadValue``: the value data_copy_pad (GM -> VECIN / VECOUT) fills its pads with when its
    pad params do not (is_pad False). `pos` is TPosition.MAX (either), VECIN or VECOUT. The register holds the
    value's bytes: a Python int is an int32 and a float a float32, as in pyasc, unless `dtype` (an asc extension)
    or a run-time scalar's dtype says otherwise; a copy of dtype T pads with the low sizeof(T) bytes."""
    if pos is None:
        pos = TPosition.MAX
    if not isinstance(pos, TPosition) or pos not in (TPosition.MAX, TPosition.VECIN, TPosition.VECOUT):
        raise CodegenError(f"set_pad_value: pos must be TPosition.MAX, VECIN or VECOUT, got {pos!r}")
    if dtype is not None and not isinstance(dtype, dt.DataType):
        raise CodegenError(f"set_pad_value: dtype must be an asc dtype, got {dtype!r}")
    if isinstance(padding_value, Scalar):
        value = padding_value if dtype is None else cast(padding_value, dtype)
    elif isinstance(padding_value, (int, float)) and not isinstance(padding_value, bool):
        value = to_scalar(padding_value, dtype)
    else:
        raise CodegenError(f"set_pad_value: padding_value must be a number, got {type(padding_value).__name__}")
    if value.dtype == dt.bool_:
        raise CodegenError("set_pad_value: padding_value must be a number, not a bool")
    current_builder().op("set_pad_value", [value.handle], {"pos": int(pos)})


_IMAGE_FIELDS = ("horiz_size", "vert_size", "horiz_start_pos", "vert_start_pos", "src_horiz_size", "top_pad_size",
                 "bot_pad_size", "left_pad_size", "right_pad_size")  # fmt: skip


@builtin
def load_image_to_local(dst: Any, load_data_params: Any) -> None:
    """``AscendC::LoadImageToLocal``: a horiz_size x vert_size window of the image set_aipp_functions configured,
    through the AIPP stages, into `dst` (A1 / B1) as rows of pixels of C0 channels (32 bytes, or 4 channels with
    channel padding mode 1), padded top / bottom / left / right."""
    d = require_local(dst, "load_image_to_local", "dst")
    if not isinstance(load_data_params, LoadImageToLocalParams):
        got = type(load_data_params).__name__
        raise CodegenError(f"load_image_to_local: load_data_params must be an asc.LoadImageToLocalParams, got {got}")
    fields = [to_int(getattr(load_data_params, f), f"LoadImageToLocalParams.{f}").handle for f in _IMAGE_FIELDS]
    current_builder().op("load_image_to_local", [d.handle, *fields])
