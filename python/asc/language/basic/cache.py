"""The scalar unit's caches: data_cache_clean_and_invalid, data_cache_preload, icache_preload,
get_icache_preload_status (Ascend C DataCacheCleanAndInvalid, DataCachePreload, ICachePreLoad,
GetICachePreloadStatus). Each is one row of the op table (src/ir/ops_debug.cpp). The Model's scalar unit reads and
writes GM directly, with no cache to fall out of step with it, so they change no data; each costs the scalar unit a
GM round trip in the timing model and appears in traces."""

from __future__ import annotations

from typing import Any, Optional

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core import dtype as dt
from ..core.enums import CacheLine, DcciDst
from ..core.ir_value import Scalar, to_int
from ..core.tensor import GlobalTensor
from .utils import builtin


@builtin
def data_cache_clean_and_invalid(
    entire_type: CacheLine, *args: Any, dcci_dst: Optional[DcciDst] = None, dst: Optional[GlobalTensor] = None
) -> None:
    """``AscendC::DataCacheCleanAndInvalid<T, entireType[, dcciDst]>(dst)``: write back and invalidate the data cache
    line holding dst's address (CacheLine.SINGLE_CACHE_LINE) or the whole data cache (ENTIRE_DATA_CACHE), keeping
    it coherent with `dcci_dst` (DcciDst.CACHELINE_OUT / CACHELINE_ALL: GM). pyasc's call shapes:
    ``(entire_type, dcci_dst, dst)`` and ``(entire_type, dst)``, positional or keyword."""
    fn = "data_cache_clean_and_invalid"
    for a in args:
        if isinstance(a, DcciDst) and dcci_dst is None:
            dcci_dst = a
        elif isinstance(a, GlobalTensor) and dst is None:
            dst = a
        else:
            raise CodegenError(f"{fn}: unexpected argument {a!r} (takes entire_type, [dcci_dst,] dst)")
    if not isinstance(entire_type, CacheLine):
        raise CodegenError(f"{fn}: entire_type must be an asc.CacheLine, got {entire_type!r}")
    if dcci_dst is not None and not isinstance(dcci_dst, DcciDst):
        raise CodegenError(f"{fn}: dcci_dst must be an asc.DcciDst, got {dcci_dst!r}")
    if not isinstance(dst, GlobalTensor):
        raise CodegenError(f"{fn}: dst must be a GlobalTensor, got {type(dst).__name__}")
    b = current_builder()
    if dcci_dst is None:
        b.op(f"{fn}.no_dst", [dst._require()], {"entire_type": int(entire_type)})
    else:
        b.op(fn, [dst._require()], {"entire_type": int(entire_type), "dcci_dst": int(dcci_dst)})


@builtin
def data_cache_preload(src: GlobalTensor, cache_offset: Any) -> None:
    """``AscendC::DataCachePreload(src, cacheOffset)``: fetch the data cache line `cache_offset` bytes past the
    address of `src`, a GlobalTensor of uint64."""
    if not isinstance(src, GlobalTensor):
        raise CodegenError(f"data_cache_preload: src must be a GlobalTensor, got {type(src).__name__}")
    if src.dtype != dt.uint64:
        raise CodegenError(f"data_cache_preload: src must be a GlobalTensor of asc.uint64, got {src.dtype.name}")
    offset = to_int(cache_offset, "data_cache_preload cache_offset")
    current_builder().op("data_cache_preload", [src._require(), offset.handle])


@builtin
def icache_preload(pre_fetch_len: Any) -> None:
    """``AscendC::ICachePreLoad(preFetchLen)``: prefetch `pre_fetch_len` of the kernel's instructions into the
    instruction cache."""
    current_builder().op("icache_preload", [to_int(pre_fetch_len, "icache_preload pre_fetch_len").handle])


@builtin
def get_icache_preload_status() -> Scalar:
    """``AscendC::GetICachePreloadStatus()``: 0 when the instruction-cache preload is idle, 1 while busy (int64). The
    Model's preload is done when issued: always 0."""
    return Scalar(current_builder().op("get_icache_preload_status"), dt.int64)
