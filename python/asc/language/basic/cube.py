"""The cube unit's instructions: load_data (L1 -> L0A/L0B, pipe MTE1), mmad
(L0A x L0B -> L0C, pipe M) and fixpipe (L0C -> GM, or on Ascend 950 L0C -> a
vector core's Unified Buffer, pipe FIX). data_copy with Nd2NzParams (GM -> L1)
is in data_copy.py."""

from __future__ import annotations

import warnings
from typing import Any

from ...codegen.context import current_builder
from ...errors import CodegenError, PlatformWarning
from ...lib.runtime.platforms import CompilationArch, platform_to_arch
from ...lib.runtime.state import current_platform
from ..core import dtype as dt
from ..core.cube_params import (
    FixpipeConfig,
    FixpipeParamsArch3510,
    FixpipeParamsV220,
    LoadData2DParams,
    LoadData2dTransposeParams,
    MmadParams,
)
from ..core.enums import CO2Layout, TPosition
from ..core.ir_value import to_int
from ..core.param_structs import (
    LoadData2dTransposeParamsV2,
    LoadData3DParamsV1,
    LoadData3DParamsV2,
    LoadData3DParamsV2Pro,
)
from ..core.tensor import GlobalTensor, LocalTensor
from .cube_extras import load_data_3d
from .positions import addressed_as
from .utils import builtin, require_local


def _ints(values: list, what: str) -> list[int]:
    return [to_int(v, what).handle for v in values]


@builtin
def load_data(dst: Any, src: Any, params: Any, is_set_padding: Any = True) -> None:
    """L1 (A1/B1) -> L0A (A2) or L0B (B2): in 512-byte fractals, as `asc.LoadData2DParams` says, or image to
    column of an NC1HWC0 feature map, as `asc.LoadData3DParamsV2` says (`is_set_padding`: Ascend C's
    IsResetLoad3dConfig.isSetPadding; False pads with set_load_data_padding_value's value)."""
    if isinstance(params, (LoadData3DParamsV1, LoadData3DParamsV2, LoadData3DParamsV2Pro)):
        load_data_3d(dst, src, params, is_set_padding)
        return
    if not isinstance(params, LoadData2DParams):
        raise CodegenError(
            f"load_data: params must be an asc.LoadData2DParams or asc.LoadData3DParamsV2, got {type(params).__name__}"
        )
    d, s = require_local(dst, "load_data", "dst"), require_local(src, "load_data", "src")
    current_builder().op("load_data", [d.handle, s.handle, *_ints(params.fields(), "LoadData2DParams")])


@builtin
def load_data_with_transpose(dst: Any, src: Any, params: Any) -> None:
    """L1 -> L0A/L0B transposing whole squares (16 x 16; 32 x 32 for 1-byte types), as
    `asc.LoadData2dTransposeParams` says: the way to a transposed operand for 1- and 4-byte types.
    With `asc.LoadData2dTransposeParamsV2` (Ascend 950PR/950DT's form, L1 -> L0B; start_index and src_stride in
    512-byte fractals, src_frac_gap between a 1-byte square's two source fractals) the kernel compiles with a
    PlatformWarning on an Atlas A2/A3 platform, where a launch is a KernelError; the Ascend 950 rows run it."""
    v2 = isinstance(params, LoadData2dTransposeParamsV2)
    if not v2 and not isinstance(params, LoadData2dTransposeParams):
        raise CodegenError(
            "load_data_with_transpose: params must be an asc.LoadData2dTransposeParams or "
            f"asc.LoadData2dTransposeParamsV2, got {type(params).__name__}"
        )
    d = require_local(dst, "load_data_with_transpose", "dst")
    s = require_local(src, "load_data_with_transpose", "src")
    d = addressed_as(d, (TPosition.B2,) if v2 else (TPosition.A2, TPosition.B2), "load_data_with_transpose", "dst")
    s = addressed_as(s, (TPosition.A1, TPosition.B1), "load_data_with_transpose", "src")
    if not v2:
        current_builder().op("load_data_with_transpose", [d.handle, s.handle, *_ints(params.fields(), "params")])
        return
    platform = current_platform()
    if platform_to_arch(platform) != CompilationArch.C310:
        file, line, _ = current_builder().loc
        warnings.warn_explicit(
            f"load_data_with_transpose with LoadData2dTransposeParamsV2 is Ascend 950PR/950DT's form, not Atlas "
            f"A2/A3's ({platform}): the kernel compiles, and running it fails. Use asc.LoadData2dTransposeParams",
            PlatformWarning,
            file,
            line,
        )
    p = params
    fields = [p.start_index, p.repeat_times, p.src_stride, p.dst_gap, p.dst_frac_gap, p.src_frac_gap, p.addr_mode]
    current_builder().op("load_data_with_transpose.v2", [d.handle, s.handle, *_ints(fields, "params")])


# Mmad's dtype combinations (dst, fm, filter) of Atlas A2/A3; the others the verifier takes are the Atlas
# training series' and inference AI Core's (float16 <- float16, uint32 / int32 <- uint8, int32 <- uint8 x int8).
_A2_MMAD = {(dt.float32, dt.float16), (dt.float32, dt.bfloat16), (dt.float32, dt.float32), (dt.int32, dt.int8)}
# (dst, fm, filter) of those older series only: warned about here; any other combination the verifier refuses
_LEGACY_MMAD = {(dt.float16, dt.float16, dt.float16), (dt.uint32, dt.uint8, dt.uint8), (dt.int32, dt.uint8, dt.uint8),
                (dt.int32, dt.uint8, dt.int8)}  # fmt: skip


@builtin
def mmad(dst: Any, fm: Any, filter: Any, *args: Any) -> None:  # noqa: A002 - pyasc's name
    """``mmad(dst, fm, filter, params)``: dst (CO1, L0C) = or += fm (A2, L0A) x filter (B2, L0B);
    ``mmad(dst, fm, filter, bias, params)``: dst = bias (C2, the bias table) + fm x filter.
    Atlas A2/A3 multiply into float32 (from float16, bfloat16, float32) or int32 (from int8). float16 <- float16,
    uint32 / int32 <- uint8 and int32 <- uint8 x int8 are the Atlas training series' and inference AI Core's: they
    compile with a PlatformWarning, and a launch on an A2/A3 platform is a KernelError."""
    if len(args) not in (1, 2) or not isinstance(args[-1], MmadParams):
        raise CodegenError("mmad takes (dst, fm, filter, [bias,] asc.MmadParams(m, n, k, ...))")
    p = args[-1]
    roles = ((dst, "dst", TPosition.CO1), (fm, "fm", TPosition.A2), (filter, "filter", TPosition.B2))
    views = [addressed_as(require_local(t, "mmad", r), (pos,), "mmad", r) for t, r, pos in roles]
    tensors = [v.handle for v in views]
    c, a, b = (v.dtype for v in views)
    if (c, a, b) in _LEGACY_MMAD:
        file, line, _ = current_builder().loc
        warnings.warn_explicit(
            f"mmad of {a.name} x {b.name} into {c.name} is not supported on Atlas A2/A3 nor on the Model's Ascend "
            f"950 rows (Ascend C lists it for the Atlas training series and Atlas inference AI Core): the kernel "
            f"compiles, and running it fails. Multiply into float32 (int32 for int8) and convert in fixpipe",
            PlatformWarning,
            file,
            line,
        )
    half = ".f16" if c == dt.float16 else ""
    sizes = _ints([p.m, p.n, p.k], "MmadParams")
    if len(args) == 2:
        bias = addressed_as(require_local(args[0], "mmad", "bias"), (TPosition.C2,), "mmad", "bias")
        current_builder().op("mmad.bias_f16" if half else "mmad.bias", [*tensors, bias.handle, *sizes])
        return
    source = int(p.cmatrix_source) if isinstance(p.cmatrix_source, bool) else p.cmatrix_source
    current_builder().op(f"mmad{half}", [*tensors, *sizes, *_ints([p.init(), source], "MmadParams")])


@builtin
def set_fix_pipe_pre_quant_flag(config: Any) -> None:
    """Loads the quantisation scalar (DEQF16: bits 0..31 a float scale) that data_copy with
    DataCopyCO12DstParams uses; it takes effect for the L0C copies queued after it."""
    current_builder().op("set_fix_pipe_pre_quant_flag", [to_int(config, "the quantisation scalar").handle])


@builtin
def fixpipe(dst: Any, src: Any, *args: Any, params: Any = None, config: Any = None) -> None:
    """L0C (CO1) -> a GlobalTensor: ``fixpipe(dst, src, params[, config])`` or, for the per-column quant modes
    (VDEQF16, VQF322B8_PRE, VREQ8), ``fixpipe(dst, src, cbuf_workspace, params[, config])`` with one uint64
    quant word per column in an L1 tensor. `params` is an `asc.FixpipeParamsV220`: NZ2ND
    (config=FixpipeConfig.cfg_row_major, the default) or NZ2NZ (FixpipeConfig.cfg_nz), converted by
    quant_pre and ReLU'd if relu_en. `params` and `config` may be given by keyword.

    On Ascend 950, ``fixpipe(ub_tensor, src, asc.FixpipeParamsArch3510(...), asc.FixpipeConfig.cfg_row_major_ub)``
    (or ``cfg_nz_ub``) in a MIX_AIC_1_1 / MIX_AIC_1_2 kernel's cube core writes the Unified Buffer of its vector
    core(s) at the tensor's address (docs/cube.md, "L0C -> UB")."""
    if params is not None:
        args = (*args, params)
    if isinstance(dst, LocalTensor):
        _fixpipe_to_ub(dst, src, args, config)
        return
    params = [a for a in args if isinstance(a, FixpipeParamsV220)]
    tensors = [a for a in args if isinstance(a, LocalTensor)]
    extra = [a for a in args if not isinstance(a, (FixpipeParamsV220, FixpipeConfig, LocalTensor))]
    config = config or next((a for a in args if isinstance(a, FixpipeConfig)), FixpipeConfig.cfg_row_major)
    if len(params) != 1 or len(tensors) > 1 or extra:
        raise CodegenError(
            "fixpipe takes (dst, src, asc.FixpipeParamsV220(...)[, config]) or (dst, src, cbuf_workspace, "
            "asc.FixpipeParamsV220(...)[, config])"
        )
    if not isinstance(dst, GlobalTensor):
        raise CodegenError(f"fixpipe: dst must be a GlobalTensor, got {type(dst).__name__}")
    if not isinstance(src, LocalTensor):
        raise CodegenError(f"fixpipe: src must be a LocalTensor at CO1, got {type(src).__name__}")
    if config.layout == CO2Layout.COLUMN_MAJOR:
        raise CodegenError("fixpipe: the column-major layout is not available on Atlas A2")
    src = addressed_as(src, (TPosition.CO1,), "fixpipe", "src")
    tensors = [
        addressed_as(t, (TPosition.A1, TPosition.B1, TPosition.C1), "fixpipe", "cbuf_workspace") for t in tensors
    ]
    operands = [dst._require(), src.handle, *_ints(params[0].fields(), "FixpipeParamsV220")]
    attrs = {"nz2nd": int(config.layout == CO2Layout.ROW_MAJOR)}
    if tensors:
        current_builder().op("fixpipe.vector_quant", [*operands, tensors[0].handle], attrs)
        return
    current_builder().op("fixpipe", operands, attrs)


def _fixpipe_to_ub(dst: LocalTensor, src: Any, args: tuple, config: Any) -> None:
    """Ascend C's Fixpipe<T, U, config>(dstUB, srcL0C, FixpipeParamsArch3510) with config.isToUB."""
    params = [a for a in args if isinstance(a, FixpipeParamsArch3510)]
    config = config or next((a for a in args if isinstance(a, FixpipeConfig)), FixpipeConfig.cfg_row_major_ub)
    extra = [a for a in args if not isinstance(a, (FixpipeParamsArch3510, FixpipeConfig))]
    if len(params) != 1 or extra:
        raise CodegenError(
            "fixpipe into the Unified Buffer takes (dst, src, asc.FixpipeParamsArch3510(...)[, "
            "asc.FixpipeConfig.cfg_row_major_ub or cfg_nz_ub]); the per-column quant tensor is not on the Model"
        )
    if not config.is_to_ub:
        raise CodegenError(
            "fixpipe into a LocalTensor needs a FixpipeConfig with is_to_ub=True (Ascend C's isToUB): "
            "asc.FixpipeConfig.cfg_row_major_ub or cfg_nz_ub"
        )
    if config.layout == CO2Layout.COLUMN_MAJOR:
        raise CodegenError("fixpipe: the Model does not implement NZ2DN (CO2Layout.COLUMN_MAJOR) into the UB")
    if dst.position not in (TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC):
        raise CodegenError(
            f"fixpipe: a LocalTensor dst must be in the Unified Buffer (VECIN, VECCALC or VECOUT), not "
            f"TPosition.{dst.position.name}; L0C -> L1 is data_copy with DataCopyCO12DstParams"
        )
    if not isinstance(src, LocalTensor):
        raise CodegenError(f"fixpipe: src must be a LocalTensor at CO1, got {type(src).__name__}")
    src = addressed_as(src, (TPosition.CO1,), "fixpipe", "src")
    operands = [dst.handle, src.handle, *_ints(params[0].fields(), "FixpipeParamsArch3510")]
    current_builder().op("fixpipe.ub", operands, {"nz2nd": int(config.layout == CO2Layout.ROW_MAJOR)})
