"""Layout instructions on pipe V: transpose, trans_data_to_5hd."""

from __future__ import annotations

from typing import Any

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core import dtype as dt
from ..core.enums import TPosition
from ..core.ir_value import Scalar, cast, to_int
from ..core.layout_params import TransposeParamsExt
from ..core.param_structs import TransDataTo5HDParams
from ..core.tensor import ADDR_LIST_SIZE, LocalTensor
from .utils import builtin, require_local


@builtin
def transpose(dst: Any, src: Any, *args: Any, **kwargs: Any) -> None:
    """``transpose(dst, src)``: one 16x16 matrix of 2-byte elements, dst = src.T.
    ``transpose(dst, src, shared_tmp_buffer, params)``: TransposeParamsExt with TRANSPOSE_NCHW2NHWC,
    TRANSPOSE_NHWC2NCHW or TRANSPOSE_ND2ND_B16; shared_tmp_buffer is a uint8 LocalTensor."""
    d, s = require_local(dst, "transpose", "dst"), require_local(src, "transpose", "src")
    builder = current_builder()
    if not args and not kwargs:
        builder.op("transpose", [d.handle, s.handle])
        return
    values = dict(zip(["shared_tmp_buffer", "params"], args), **kwargs)
    if set(values) != {"shared_tmp_buffer", "params"}:
        raise CodegenError("transpose takes (dst, src) or (dst, src, shared_tmp_buffer, params)")
    tmp = require_local(values["shared_tmp_buffer"], "transpose", "shared_tmp_buffer")
    params = values["params"]
    if not isinstance(params, TransposeParamsExt):
        raise CodegenError(f"transpose: params must be an asc.TransposeParamsExt, got {type(params).__name__}")
    if not isinstance(params.transpose_type, int):
        raise CodegenError("transpose: transpose_type must be a compile-time asc.TransposeType")
    fields = ("n_size", "c_size", "h_size", "w_size")
    sizes = [to_int(getattr(params, f), f"transpose {f}").handle for f in fields]
    builder.op(
        "transpose.ext", [d.handle, s.handle, tmp.handle, *sizes], {"transpose_type": int(params.transpose_type)}
    )


_5HD_DTYPES = (dt.int8, dt.uint8, dt.int16, dt.uint16, dt.float16, dt.int32, dt.uint32, dt.float32)


def _5hd_params(params: Any) -> list[int]:
    if not isinstance(params, TransDataTo5HDParams):
        raise CodegenError(
            f"trans_data_to_5hd: params must be an asc.TransDataTo5HDParams, got {type(params).__name__}"
        )
    names = ("dst_high_half", "src_high_half", "repeat_times", "dst_rep_stride", "src_rep_stride")
    values = [getattr(params, n) for n in names]
    return [
        to_int(int(v) if isinstance(v, bool) else v, f"TransDataTo5HDParams.{n}").handle for v, n in zip(values, names)
    ]


def _5hd_dtype(found: list[Any], given: Any) -> dt.DataType:
    """The data's dtype (Ascend C's template argument): `dtype` when given, else what the addresses point at."""
    if given is not None:
        if not isinstance(given, dt.DataType):
            raise CodegenError(f"trans_data_to_5hd: dtype must be an asc dtype, got {given!r}")
        return given
    known = [d for d in found if d is not None]
    if not known:
        raise CodegenError("trans_data_to_5hd: cannot tell the data's dtype from the addresses (they do not come from "
                           "LocalTensor.get_phy_addr); pass dtype=asc.<dtype>")  # fmt: skip
    if any(d != known[0] for d in known):
        raise CodegenError(
            f"trans_data_to_5hd: the addresses point at data of dtypes {sorted({d.name for d in known})}"
        )
    return known[0]


@builtin
def trans_data_to_5hd(dst_or_list: Any, src_or_list: Any, params: Any, dtype: Any = None) -> None:
    """``AscendC::TransDataTo5HD``: NCHW -> NC1HWC0 (and 2-D block transposes). Each repeat transposes the 16
    x 16 matrix of 16 source 32-byte blocks into 16 destination blocks (dst block i element j = src block j element
    i for 2-byte data; 1-byte data takes each block's low or high 16 bytes by src_high_half / dst_high_half; for
    4-byte data dst blocks 2p, 2p + 1 get element p of src blocks 0-7, 8-15); repeat r moves every address by r x
    rep_stride blocks. The lists: 16 LocalTensors each, 16 uint64 addresses each (get_phy_addr values), or two
    LocalTensor(asc.uint64) holding the 16 addresses. `dtype` (an asc extension) names the data's dtype when the
    addresses do not show it."""
    fn = "trans_data_to_5hd"
    builder = current_builder()
    fields = _5hd_params(params)
    if isinstance(dst_or_list, LocalTensor):
        src = require_local(src_or_list, fn, "src")
        d_handle, s_handle = dst_or_list._require(fn), src._require(fn)
        d = _5hd_dtype([builder.addr_dtypes.get(d_handle), builder.addr_dtypes.get(s_handle)], dtype)
        builder.op(fn, [d_handle, s_handle, *fields], {"dtype": d.code})
        return
    if not isinstance(dst_or_list, (list, tuple)) or not isinstance(src_or_list, (list, tuple)):
        raise CodegenError(f"{fn}: dst and src are two lists of {ADDR_LIST_SIZE} LocalTensors or addresses, or two "
                           "LocalTensor(asc.uint64) address lists")  # fmt: skip
    if not dst_or_list and not src_or_list:
        return  # pyasc emits nothing for empty lists
    if len(dst_or_list) != ADDR_LIST_SIZE or len(src_or_list) != ADDR_LIST_SIZE:
        raise CodegenError(f"{fn}: each list holds {ADDR_LIST_SIZE} entries, got {len(dst_or_list)} (dst) and "
                           f"{len(src_or_list)} (src)")  # fmt: skip
    entries = [*dst_or_list, *src_or_list]
    if all(isinstance(e, LocalTensor) for e in entries):
        dtypes = {e.dtype for e in entries}
        if len(dtypes) != 1:
            raise CodegenError(f"{fn}: the tensors must share one dtype, got {sorted(d.name for d in dtypes)}")
        d = _5hd_dtype([entries[0].dtype], dtype)
        addrs = []
        for k, e in enumerate(entries):
            if e.position not in (TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC):
                raise CodegenError(f"{fn}: list entry {k} is at TPosition.{e.position.name}; the tensors must be in "
                                   "the Unified Buffer (VECIN, VECOUT or VECCALC)")  # fmt: skip
            addrs.append(e.get_phy_addr().handle)
    elif any(isinstance(e, LocalTensor) for e in entries):
        raise CodegenError(f"{fn}: a list holds LocalTensors or addresses, not both")
    else:
        addrs, found = [], []
        for k, e in enumerate(entries):
            if isinstance(e, bool) or not isinstance(e, (int, Scalar)):
                raise CodegenError(f"{fn}: address {k} must be a uint64 address, got {type(e).__name__}")
            a = to_int(e, f"{fn} address")
            found.append(builder.addr_dtypes.get(a.handle))
            addrs.append(cast(a, dt.uint64).handle)
        d = _5hd_dtype(found, dtype)
    if d not in _5HD_DTYPES:
        raise CodegenError(f"{fn}: moves {', '.join(x.name for x in _5HD_DTYPES)} data, not {d.name}")
    builder.op(f"{fn}.list", [*addrs, *fields], {"dtype": d.code})
