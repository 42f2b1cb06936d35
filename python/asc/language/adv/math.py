"""asc.adv's element-wise math functions (Ascend C's advanced Math API: Erf, Floor, ...; the
trigonometric and hyperbolic ones are in trigonometric.py), each built from
the basic vector instructions over the temporary buffer as the library does on the board (library.py says how).

Every function takes pyasc's arguments ``(dst, src, count=None, temp_buffer=None, is_reuse_source=False)``:
`count` elements (all of src when None), intermediates in `temp_buffer` (a uint8 LocalTensor; the framework's
buffer, the Unified Buffer left after the TPipe's allocations, when None). float16 is computed in float32 in the
temporary buffer and rounded once at the end. The work goes in chunks of as many elements as the temporary buffer
holds, as Ascend C's implementation does: a larger buffer means fewer, longer vector instructions."""

from __future__ import annotations

from typing import Any, Callable

import asc

from ...runtime.jit import jit
from ..basic.utils import builtin, require_local
from ..core import dtype as dt
from ..core.enums import RoundMode
from .library import call_operands, count_of, inline, library_call, require, temp_buffer_of
from .tmp_sizes import FLOAT_BYTES, HALF_EXTRA, REPEAT_ELEMENTS


@jit
def _chunk_elements(tmp: Any, buffers: Any, api: Any):
    """Elements per chunk: as many whole 64-element repeats as `buffers` float32 intermediates of them fit in
    tmp; fewer than one is an error at the user's line."""
    need = buffers * FLOAT_BYTES * REPEAT_ELEMENTS
    per = tmp.get_size() // need * REPEAT_ELEMENTS
    require(
        per > 0,
        f"{api}: the temporary buffer holds fewer than {need} bytes; it needs at least {need} "
        f"({buffers} float32 intermediates of one 64-element repeat)",
    )
    return per


@jit
def _in_chunks(body: Any, dst: Any, src: Any, tmp: Any, count: Any, buffers: Any, api: Any):
    """body(dst, src, tmp, chunk, n) on chunks of src: `chunk` elements (the intermediates' stride in tmp), n of
    them in this one (the last may be shorter)."""
    per = _chunk_elements(tmp, buffers, api)
    for start in asc.range(0, count, per):
        n = count - start
        if n > per:
            n = per + 0
        body(dst[start:], src[start:], tmp, per, n)


@jit
def _in_chunks2(body: Any, dst: Any, src0: Any, src1: Any, tmp: Any, count: Any, buffers: Any, api: Any):
    """_in_chunks with two sources: body(dst, src0, src1, tmp, chunk, n) on chunks of both."""
    per = _chunk_elements(tmp, buffers, api)
    for start in asc.range(0, count, per):
        n = count - start
        if n > per:
            n = per + 0
        body(dst[start:], src0[start:], src1[start:], tmp, per, n)


def _float_work(tmp: Any, chunk: Any, index: int) -> Any:
    """Intermediate `index` of a chunk: `chunk` float32 elements of the temporary buffer."""
    return tmp.reinterpret_cast(dt.float32)[index * chunk :]


def _unary(api: str, dst: Any, src: Any, count: Any, temp_buffer: Any, is_reuse_source: Any, buffers: int,
           compute: Callable[..., None], template: str = "", always_count: bool = False) -> None:  # fmt: skip
    """A float element-wise function: compute(out, x, work, n) on float32 tensors, `work` the intermediates.
    `template`: more template arguments after T (``", 10"``); `always_count`: the library has no form without
    calCount (the whole of src is passed as the count)."""
    d, s = require_local(dst, f"adv.{api.lower()}", "dst"), require_local(src, f"adv.{api.lower()}", "src")
    name = f"adv.{api.lower()}"
    if d.dtype != s.dtype or d.dtype not in (dt.float16, dt.float32):
        raise_type(name, d, s)
    tmp_given = temp_buffer is not None
    tmp = temp_buffer_of(temp_buffer, name)
    n = count_of(count, s, name)
    reuse = "true" if is_reuse_source else "false"
    operands, args = call_operands([d, s], tmp if tmp_given else None, n if count is not None or always_count else None)
    call = f"AscendC::{api}<{{T:0}}{template}, {reuse}>({args})"
    half = d.dtype == dt.float16
    # float16: the source chunk is widened into one more float32 intermediate and the result narrowed at the end
    extra = HALF_EXTRA if half else 0

    @builtin
    def body(dst_c: Any, src_c: Any, t: Any, chunk: Any, m: Any) -> None:
        work = [_float_work(t, chunk, i) for i in range(buffers + extra)]
        if half:
            x, out = work[buffers], work[buffers + 1]
            asc.cast(x, src_c, RoundMode.CAST_NONE, m)
            compute(out, x, work, m)
            asc.cast(dst_c, out, RoundMode.CAST_RINT, m)
        else:
            compute(dst_c, src_c, work, m)

    library_call(call, operands, lambda: inline(_in_chunks, body, d, s, tmp, n, buffers + extra, name))


def raise_type(name: str, d: Any, s: Any) -> None:
    from ...errors import CodegenError

    raise CodegenError(f"{name}: dst and src must both be float16 or float32, got {d.dtype.name} and {s.dtype.name}")
