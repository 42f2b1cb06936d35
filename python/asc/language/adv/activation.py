"""asc.adv's activations: softmax, softmax_flash_v2 (Ascend C's SoftMax, SoftmaxFlashV2) and swiglu (SwiGLU),
built from the basic vector instructions as the library does on the board (library.py says how).

The softmax functions work on src as an [m, k] matrix (ND): k, the last axis, 32-byte aligned; a row's
reductions run over its first ori_k elements (the rest is padding, which the element-wise steps still
compute). Each row is computed in float32 as Ascend C's implementation does: reducemax, a broadcast of the row's
max over a 32-byte block (the max output), x - max, exp, reducesum, its broadcast (the sum output), and for
softmax the division. A per-row output (sum, max, exp_max) holds the row's value over one 32-byte block: 8
float32 or 16 float16 elements per row. https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/83RC1/API/ascendcopapi/atlasascendc_api_07_0754.html
"""

from __future__ import annotations

from typing import Any, Optional

import asc

from ...errors import CodegenError
from ...runtime.jit import jit
from ..basic.utils import builtin, require_local
from ..core import dtype as dt
from ..core.enums import RoundMode, TPosition
from ..core.ir_value import Scalar, to_scalar
from ..core.tensor import LocalTensor
from .library import call_operands, inline, library_call, require, shape_rows_cols, temp_buffer_of
from .tiling import SoftmaxTiling
from .types import SoftmaxConfig, SoftmaxMode, SoftMaxShapeInfo

_FLOATS = (dt.float16, dt.float32)
# A row is broadcast-subtracted and divided in 64-element repeats, at most 255 of them per instruction.
MAX_ROW = 255 * 64
# float32 elements the expansion keeps besides the row: the row's reduced value (8, brcb reads a block's worth)
# and its broadcast (64: brcb fills 8 blocks), which is also the reduction's work area.
_RED, _BLK = 8, 64


def per_row(dtype: dt.DataType) -> int:
    """Elements of a per-row output (sum, max, exp_max) of `dtype`: one 32-byte block."""
    return 32 // dtype.sizeof()


@jit
def _pick(first: Any, fallback: Any):
    """first, or fallback when first is 0 (an unset shape field)."""
    value = first + 0
    if value == 0:
        value = fallback + 0
    return value


@jit
def _row_broadcast(op: Any, dst: Any, src0: Any, blk: Any, k: Any):
    """dst = op(src0, the row's value) over a row of k float32s: the value's 32-byte block at blk is read by
    every block of every repeat (src1 block and repeat strides 0), Ascend C's broadcast of a row's max or sum."""
    full = k // 64
    if full > 0:
        op(dst, src0, blk, 64, full, asc.BinaryRepeatParams(1, 1, 0, 8, 8, 0))
    tail = k - full * 64
    if tail > 0:
        op(dst[full * 64 :], src0[full * 64 :], blk, tail, 1, asc.BinaryRepeatParams(1, 1, 0, 8, 8, 0))


@jit
def _over_rows(body: Any, m: Any):
    for r in asc.range(0, m):
        body(r)


def local(value: Any, api: str, role: str) -> Any:
    """A LocalTensor argument. One declared without memory (``asc.LocalTensor(dtype)``, Ascend C's
    ``LocalTensor<T> t;``) compiles, as in Ascend C, as an empty Unified Buffer tensor: running the call then
    fails on its first access (out of the tensor's bounds), not while compiling."""
    t = require_local(value, api, role)
    if t.handle is None and t.dtype is not None:
        t.handle = LocalTensor(t.dtype, TPosition.VECCALC, 0, 0).handle
    return t


def _int(value: Any) -> Scalar:
    return to_scalar(value, dt.int32)


def _tiling_fields(tiling: Any, api: str) -> list:
    if not isinstance(tiling, SoftmaxTiling):
        raise CodegenError(f"{api}: tiling must be an asc.adv.SoftmaxTiling, got {type(tiling).__name__}")
    return [_int(getattr(tiling, name)) for name, _ in tiling.fields()]


def _struct_spelling(struct_type: str, fields: list, first: int) -> str:
    """An immediately-invoked lambda building Ascend C's tiling struct from operands first.. (one per field)."""
    sets = " ".join(f"t.{f.c_name} = {{{first + i}}};" for i, (_, f) in enumerate(fields))
    return f"[&]() {{{{ {struct_type} t{{{{}}}}; {sets} return t; }}}}()"


def _shape(src: Any, shape_info: Optional[SoftMaxShapeInfo], tiling: SoftmaxTiling) -> tuple:
    """(m, k, ori_k) as int32 scalars: from the SoftMaxShapeInfo argument when it has them, else src's
    set_shape_info (its last axis k, the others' product m), else the tiling's src_m and src_k (Ascend C reads
    the ShapeInfo first; asc falls back on the tiling for tensors that carry no shape)."""
    shape_m, shape_k = shape_rows_cols(src)
    m = inline(_pick, _int(shape_m), _int(tiling.src_m))
    k = inline(_pick, _int(shape_k), _int(tiling.src_k))
    ori_k = k
    if shape_info is not None:
        m = inline(_pick, _int(shape_info.src_m), m)
        k = inline(_pick, _int(shape_info.src_k), k)
        ori_k = inline(_pick, _int(shape_info.ori_src_k), k)
    return m, k, ori_k


def _check_tensors(api: str, tensors: dict, compute: dt.DataType, stats: dt.DataType) -> dict:
    """The tensors as LocalTensors with their dtypes checked: the data tensors `compute`, the per-row ones
    `stats` (float16 data may have float32 statistics)."""
    out = {}
    for role, (t, want) in tensors.items():
        if t is None:
            continue
        lt = local(t, api, role)
        if lt.dtype != (compute if want == "data" else stats):
            raise CodegenError(
                f"{api}: {role} must be {(compute if want == 'data' else stats).name} like "
                f"{'src' if want == 'data' else 'the other per-row outputs'}, got {lt.dtype.name}"
            )
        out[role] = lt
    return out


def _stats_dtype(api: str, src: Any, stat: Any) -> tuple:
    s = local(src, api, "src")
    if s.dtype not in _FLOATS:
        raise CodegenError(f"{api}: src must be float16 or float32, got {s.dtype.name}")
    st = local(stat, api, "the per-row outputs").dtype
    if st not in _FLOATS or (s.dtype == dt.float32 and st != dt.float32):
        raise CodegenError(
            f"{api}: the sum and max tensors must be {s.dtype.name}"
            + (" or float32" if s.dtype == dt.float16 else "")
            + f" (src is {s.dtype.name}), got {st.name}"
        )
    return s.dtype, st


def _write_stat(out: Any, r: Any, value: Any, red: Any, blk: Any) -> None:
    """Row r's value (the 8 float32s at value) over its 32-byte block of a per-row output. float16: 16
    elements, the value narrowed into red and broadcast by a float16 brcb into blk (both free by then).
    Copies are muls by 1, which keep -0.0 and NaN."""
    row = out[r * per_row(out.dtype) :]
    if out.dtype == dt.float32:
        asc.muls(row, value, 1.0, 8)
        return
    red_h, blk_h = red.reinterpret_cast(dt.float16), blk.reinterpret_cast(dt.float16)
    asc.cast(red_h, value, RoundMode.CAST_RINT, 8)
    asc.brcb(blk_h, red_h, 1, asc.BrcbRepeatParams(1, 8))
    asc.muls(row, blk_h, 1.0, 16)


def _read_stat(work: Any, src: Any, r: Any) -> None:
    """Row r's value of a per-row input as 8 float32s at work (the first 8 elements of its block)."""
    row = src[r * per_row(src.dtype) :]
    if src.dtype == dt.float32:
        asc.muls(work, row, 1.0, 8)
    else:
        asc.cast(work, row, RoundMode.CAST_NONE, 8)


# Rows the per-row staging of SOFTMAX_OUTPUT_WITHOUT_BRC handles: brcb and block_reduce_max take 8 rows a
# repeat, at most 255 repeats.
MAX_UNBROADCAST_ROWS = 255 * 8


def _softmax_like(api: str, call: str, operands: list, t: dict, tmp: Any, shape: tuple, need: Any,
                  update: bool, normalize: bool, brc: bool = True) -> None:  # fmt: skip
    """The expansion shared by softmax (normalize) and softmax_flash_v2 (update: with the running max and sum
    of the earlier blocks). Without brc (SOFTMAX_OUTPUT_WITHOUT_BRC) the per-row tensors hold one value per
    row: the inputs are broadcast into float32 blocks in the temporary buffer first (brcb), the outputs staged
    there as blocks and reduced to one value each at the end (block_reduce_max over 8 equal values)."""
    dst, src = t["dst"], t["src"]
    half = src.dtype == dt.float16

    def expansion() -> None:
        m, k, ori_k = shape
        require(k > 0, f"{api}: src has no shape: set_shape_info on it, or pass a tiling (or shape info) with src_k")
        require(m > 0, f"{api}: src has no rows (src_m is 0)")
        require(k <= MAX_ROW, f"{api}: a row holds at most {MAX_ROW} elements")
        require(ori_k <= k, f"{api}: ori_src_k must not exceed src_k")
        require(
            (k * src.dtype.sizeof()) % 32 == 0,
            f"{api}: src_k must be 32-byte aligned ({per_row(src.dtype)} {src.dtype.name} elements)",
        )
        req = need(k)
        inputs = ["in_max", "in_sum"] if update else []
        outputs = ["max", "sum"] + (["exp_max"] if update else [])
        rows8 = (m + 7) // 8 * 8
        staged = len(inputs) + len(outputs)
        if not brc:
            require(
                m <= MAX_UNBROADCAST_ROWS,
                f"{api}: SOFTMAX_OUTPUT_WITHOUT_BRC takes at most {MAX_UNBROADCAST_ROWS} rows",
            )
            req = req + (rows8 + staged * rows8 * 8) * 4
        need_text = f"(row length x 4 + {need(0)})" if half else str(need(0))
        if not brc:
            need_text += f" + (rows rounded up to 8) x {4 + staged * 32}"
        require(tmp.get_size() >= req, f"{api}: the temporary buffer is too small; it needs {need_text} bytes")
        f = tmp.reinterpret_cast(dt.float32)
        red, blk = f, f[_RED:]
        aux_max = f[_RED + _BLK :]  # a copy of the row's value while red and blk carry it out
        aux = f[_RED + _BLK + 8 :] if update else None  # update: the earlier max, sum and exp_max blocks
        x_f = f[_RED + _BLK + 8 + (24 if update else 0) :] if half else None  # float16: the row widened
        asc.duplicate(red, 0.0, _RED)  # brcb reads the whole block of the row's value
        per = dict(t)  # where the row loop reads and writes the per-row values (as blocks)
        if not brc:
            base = _RED + _BLK + 8 + (24 if update else 0) + (k if half else 0)
            vals = f[base:]
            for i, name in enumerate(inputs + outputs):
                per[name] = f[base + rows8 + i * rows8 * 8 :]
            for name in inputs:
                asc.duplicate(vals, 0.0, rows8)
                _copy_values(vals, t[name], m, RoundMode.CAST_NONE)
                asc.brcb(per[name], vals, rows8 // 8, asc.BrcbRepeatParams(1, 8))
            for name in outputs:  # block_reduce_max reads whole 8-row repeats
                asc.duplicate(per[name], 0.0, rows8 * 8)

        @builtin
        def row(r: Any) -> None:
            x_src = src[r * k :]
            x_dst = dst[r * k :]
            x = x_src
            y = x_dst
            if half:
                asc.cast(x_f, x_src, RoundMode.CAST_NONE, k)
                x = y = x_f
            asc.reduce_max(red, x, blk, ori_k)
            if update:
                in_max, in_sum, exp_max = aux, aux[8:], aux[16:]
                _read_stat(in_max, per["in_max"], r)
                asc.max(red, red, in_max, 1)
            asc.brcb(blk, red, 1, asc.BrcbRepeatParams(1, 8))
            if update:
                asc.sub(exp_max, in_max, blk, 8)
                asc.exp(exp_max, exp_max, 8)
            inline(_row_broadcast, asc.sub, y, x, blk, k)
            # red and blk are free until the sum: the max (and exp_max) go out through them
            asc.muls(aux_max, blk, 1.0, 8)
            _write_stat(per["max"], r, aux_max, red, blk)
            if update:
                _write_stat(per["exp_max"], r, exp_max, red, blk)
            asc.exp(y, y, k)
            asc.duplicate(red, 0.0, _RED)
            asc.reduce_sum(red, y, blk, ori_k)
            if update:
                _read_stat(in_sum, per["in_sum"], r)
                asc.mul(in_sum, in_sum, exp_max, 1)
                asc.add(red, red, in_sum, 1)
            asc.brcb(blk, red, 1, asc.BrcbRepeatParams(1, 8))
            if normalize:
                inline(_row_broadcast, asc.div, y, y, blk, k)
            asc.muls(aux_max, blk, 1.0, 8)
            _write_stat(per["sum"], r, aux_max, red, blk)
            asc.duplicate(red, 0.0, _RED)
            if half:
                asc.cast(x_dst, x_f, RoundMode.CAST_RINT, k)

        inline(_over_rows, row, m)
        if not brc:
            for name in outputs:  # each row's block of 8 equal values to the one value
                asc.block_reduce_max(vals, per[name], rows8 // 8, 64, 1, 1, 8)
                _copy_values(t[name], vals, m, RoundMode.CAST_RINT)

    library_call(call, operands, expansion)


def _copy_values(dst: Any, src: Any, n: Any, mode: RoundMode) -> None:
    """n elements, converted when the dtypes differ (muls by 1 keeps -0.0 and NaN)."""
    if dst.dtype == src.dtype:
        asc.muls(dst, src, 1.0, n)
    else:
        asc.cast(dst, src, mode, n)


def _need(half: bool, update: bool) -> Any:
    """Bytes of temporary buffer the expansion needs for rows of k elements."""
    fixed = (_RED + _BLK + 8 + (24 if update else 0)) * 4
    return lambda k: (k * 4 if half else 0) + fixed


def _flags(*values: bool) -> str:
    return ", ".join("true" if v else "false" for v in values)


@builtin
def softmax(dst: Any, sum: Any, max: Any, src: Any, tiling: Any, temp_buffer: Optional[Any] = None,
            reuse_source: bool = False, basic_block: bool = False, data_format_nz: bool = False) -> None:  # fmt: skip
    """Ascend C ``SoftMax``: per row of src ([m, k], ND), max = rowmax(src), dst = exp(src - max) / sum with
    sum = rowsum(exp(src - max)); sum and max hold each row's value over a 32-byte block (8 float32 or 16
    float16 per row). The shape is src's set_shape_info (else the tiling's src_m, src_k)."""
    api = "adv.softmax"
    if data_format_nz:
        raise CodegenError(f"{api}: the NZ data format is not supported (only ND)")
    compute, stats = _stats_dtype(api, src, sum)
    roles = {"dst": (dst, "data"), "sum": (sum, "stat"), "max": (max, "stat"), "src": (src, "data")}
    t = _check_tensors(api, roles, compute, stats)
    fields = _tiling_fields(tiling, api)
    tmp_given = temp_buffer is not None
    tmp = temp_buffer_of(temp_buffer, api)
    operands: list = [t["dst"], t["sum"], t["max"], t["src"]] + ([tmp] if tmp_given else [])
    first = len(operands)
    operands += fields
    args = ", ".join(f"{{{i}}}" for i in range(first))
    flags = _flags(reuse_source, basic_block, data_format_nz)
    call = f"AscendC::SoftMax<{{T:0}}, {flags}>({args}, {_struct_spelling('SoftMaxTiling', tiling.fields(), first)})"
    shape = _shape(t["src"], None, tiling)
    need = _need(compute == dt.float16, False)
    _softmax_like(api, call, operands, t, tmp, shape, need, False, True)


@builtin
def softmax_flash_v2(dst_tensor: Any, exp_sum_tensor: Any, max_tensor: Any, src_tensor: Any, exp_max_tensor: Any,
                     in_exp_sum_tensor: Any, in_max_tensor: Any, tiling: Any,
                     softmax_shape_info: Optional[Any] = None, shared_tmp_buffer: Optional[Any] = None,
                     out_reduce_max: Optional[Any] = None, is_update: bool = False, is_reuse_source: bool = False,
                     is_basic_block: bool = False, is_data_format_nz: bool = False,
                     config: Optional[Any] = None) -> None:  # fmt: skip
    """Ascend C ``SoftmaxFlashV2`` (FlashAttention-2's softmax step), per row of src: without is_update, max =
    rowmax(src), dst = exp(src - max), exp_sum = rowsum(dst); with it, max = max(in_max, rowmax(src)), dst =
    exp(src - max), exp_max = exp(in_max - max), exp_sum = exp_max * in_exp_sum + rowsum(dst). dst is not
    normalised. The per-row tensors hold each row's value over a 32-byte block (SoftmaxMode.SOFTMAX_NORMAL) or
    once per row (SOFTMAX_OUTPUT_WITHOUT_BRC, through config)."""
    api = "adv.softmax_flash_v2"
    if is_data_format_nz:
        raise CodegenError(f"{api}: the NZ data format is not supported (only ND)")
    if out_reduce_max is not None:
        raise CodegenError(f"{api}: out_reduce_max (the Ascend 950 form) is not supported")
    if config is not None and not isinstance(config, SoftmaxConfig):
        raise CodegenError(f"{api}: config must be an asc.adv.SoftmaxConfig, got {type(config).__name__}")
    if softmax_shape_info is not None and not isinstance(softmax_shape_info, SoftMaxShapeInfo):
        raise CodegenError(
            f"{api}: softmax_shape_info must be an asc.adv.SoftMaxShapeInfo, got {type(softmax_shape_info).__name__}"
        )
    compute, stats = _stats_dtype(api, src_tensor, exp_sum_tensor)
    roles = {"dst": (dst_tensor, "data"), "sum": (exp_sum_tensor, "stat"), "max": (max_tensor, "stat"),
             "src": (src_tensor, "data"), "in_sum": (in_exp_sum_tensor, "stat"),
             "in_max": (in_max_tensor, "stat")}  # fmt: skip
    t = _check_tensors(api, roles, compute, stats)
    t["exp_max"] = local(exp_max_tensor, api, "exp_max_tensor")
    if t["exp_max"].dtype != compute:
        raise CodegenError(f"{api}: exp_max_tensor must be {compute.name} like src, got {t['exp_max'].dtype.name}")
    fields = _tiling_fields(tiling, api)
    tmp_given = shared_tmp_buffer is not None
    tmp = temp_buffer_of(shared_tmp_buffer, api)
    operands: list = [t["dst"], t["sum"], t["max"], t["src"], t["exp_max"], t["in_sum"], t["in_max"]]
    if tmp_given:
        operands.append(tmp)
    first = len(operands)
    operands += fields
    spelled_tiling = _struct_spelling("SoftMaxTiling", tiling.fields(), first)
    info_spelled = ""
    if softmax_shape_info is not None:
        info_first = len(operands)
        operands += [_int(getattr(softmax_shape_info, n)) for n, _ in softmax_shape_info.fields()]
        info_spelled = ", " + _struct_spelling("AscendC::SoftMaxShapeInfo", softmax_shape_info.fields(), info_first)
    args = ", ".join(f"{{{i}}}" for i in range(first))
    flags = _flags(is_update, is_reuse_source, is_basic_block, is_data_format_nz)
    cfg = config if config is not None else SoftmaxConfig()
    prefix, cfg_arg = "", ""
    if not cfg.is_default():
        # a template argument of reference type: a constexpr object with static storage, declared at the call
        # (the statement starts with the SoftmaxMode it uses, as an adv call's statement is an AscendC:: one)
        name = f"asc_softmax_cfg_{id(cfg) & 0xFFFFFF:x}"
        prefix = (f"AscendC::SoftmaxMode {name}_mode = AscendC::SoftmaxMode::{cfg.mode.name}; (void){name}_mode; "
                  f"static constexpr AscendC::SoftmaxConfig {name} = {cfg.spelled()}; ")  # fmt: skip
        cfg_arg = f", {name}"
    call = f"{prefix}AscendC::SoftmaxFlashV2<{{T:0}}, {flags}{cfg_arg}>({args}, {spelled_tiling}{info_spelled})"
    shape = _shape(t["src"], softmax_shape_info, tiling)
    need = _need(compute == dt.float16, is_update)
    brc = cfg.mode == SoftmaxMode.SOFTMAX_NORMAL
    _softmax_like(api, call, operands, t, tmp, shape, need, is_update, False, brc)


def _swiglu_body(beta: Any) -> Any:
    @builtin
    def compute(out: Any, x: Any, work: list, n: Any) -> None:
        """out = a * b * sigmoid(beta * b) where work[2] holds a widened (x is b): sigmoid as 1 / (1 + e^-beta b)."""
        asc.muls(work[0], x, -beta if isinstance(beta, float) else beta * -1.0, n)
        asc.exp(work[0], work[0], n)
        asc.adds(work[0], work[0], 1.0, n)
        asc.div(work[0], x, work[0], n)
        asc.mul(out, work[0], work[1], n)

    return compute


@jit
def _swiglu_chunks(body: Any, dst: Any, a: Any, b: Any, tmp: Any, count: Any, buffers: Any, api: Any):
    """body(dst, a, b, tmp, chunk, n) over chunks of as many elements as `buffers` float32 rows of tmp hold."""
    per = tmp.get_size() // (buffers * 4 * 64) * 64
    need = buffers * 4 * 64
    require(per > 0, f"{api}: the temporary buffer holds fewer than {need} bytes; it needs at least {need}")
    for start in asc.range(0, count, per):
        n = count - start
        if n > per:
            n = per + 0
        body(dst[start:], a[start:], b[start:], tmp, per, n)


@builtin
def swiglu(dst_tensor: Any, src_tensor0: Any, src_tensor1: Any, scalar_value: Any = 1.0,
           shared_tmp_buffer: Optional[Any] = None, cal_count: Optional[Any] = None) -> None:  # fmt: skip
    """Ascend C ``SwiGLU``: dst = src0 * swish(src1) = src0 * src1 / (1 + e^(-beta * src1)), beta =
    scalar_value, over cal_count elements (all of src0 when None)."""
    api = "adv.swiglu"
    d = local(dst_tensor, api, "dst_tensor")
    a = local(src_tensor0, api, "src_tensor0")
    b = local(src_tensor1, api, "src_tensor1")
    if d.dtype not in _FLOATS or a.dtype != d.dtype or b.dtype != d.dtype:
        raise CodegenError(
            f"{api}: dst and both sources must be float16 or float32 alike, got {d.dtype.name}, {a.dtype.name} "
            f"and {b.dtype.name}"
        )
    if not isinstance(scalar_value, (int, float, Scalar)) or isinstance(scalar_value, bool):
        raise CodegenError(f"{api}: scalar_value (beta) must be a number, got {type(scalar_value).__name__}")
    beta = to_scalar(scalar_value, dt.float32) if isinstance(scalar_value, Scalar) else float(scalar_value)
    tmp_given = shared_tmp_buffer is not None
    tmp = temp_buffer_of(shared_tmp_buffer, api)
    n = a.get_size() if cal_count is None else to_scalar(cal_count, dt.int32)
    beta_op = beta if isinstance(beta, Scalar) else to_scalar(beta, dt.float32)
    operands, args = call_operands([d, a, b, beta_op], tmp if tmp_given else None, n if cal_count is not None else None)
    call = f"AscendC::SwiGLU<{{T:0}}, false>({args})"
    half = d.dtype == dt.float16
    compute = _swiglu_body(beta)
    buffers = 4 if half else 2  # work[0], work[1] (a widened or copied), and float16's b and out

    @builtin
    def body(dst_c: Any, a_c: Any, b_c: Any, t: Any, chunk: Any, m: Any) -> None:
        f = t.reinterpret_cast(dt.float32)
        work = [f[i * chunk :] for i in range(buffers)]
        if half:
            asc.cast(work[1], a_c, RoundMode.CAST_NONE, m)
            asc.cast(work[2], b_c, RoundMode.CAST_NONE, m)
            compute(work[3], work[2], work, m)
            asc.cast(dst_c, work[3], RoundMode.CAST_RINT, m)
        else:
            asc.muls(work[1], a_c, 1.0, m)
            compute(dst_c, b_c, work, m)

    library_call(call, operands, lambda: inline(_swiglu_chunks, body, d, a, b, tmp, n, buffers, api))


__all__ = ["softmax", "softmax_flash_v2", "swiglu"]
