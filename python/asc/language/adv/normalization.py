"""asc.adv's normalisation: rmsnorm (Ascend C's RmsNorm), built from the basic vector instructions as the
library does on the board (library.py says how).

src is [B, S, H] (ND): each of its B*S rows of H elements (H 32-byte aligned, the first original_h of them
data) becomes dst = src / sqrt(mean(src^2) + epsilon) * gamma, gamma of H elements, computed in float32 (float16
widened and rounded once at the end). https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/83RC1/API/ascendcopapi/atlasascendc_api_07_0793.html
"""

from __future__ import annotations

from typing import Any, Optional

import asc

from ...errors import CodegenError
from ...runtime.jit import jit
from ..basic.utils import builtin
from ..core import dtype as dt
from ..core.enums import RoundMode
from ..core.ir_value import Scalar, to_scalar
from .activation import _BLK, _RED, MAX_ROW, _pick, _row_broadcast, _struct_spelling, local, per_row
from .library import inline, library_call, require, shape_rows_cols, temp_buffer_of
from .tiling import RmsNormTiling


@jit
def _over_rows(body: Any, rows: Any):
    for r in asc.range(0, rows):
        body(r)


@jit
def _mean_factor(reciprocal: Any, ori_h: Any):
    """1 / original_h: the tiling's reciprocal_of_h_length when set, else computed."""
    value = reciprocal + 0.0
    if value == 0.0:
        value = 1.0 / ori_h
    return value


def rmsnorm_tmp_bytes(h: Any, half: bool) -> Any:
    """Bytes of temporary buffer rmsnorm's expansion needs for rows of h elements: a float32 row of squares
    (and float16's widened row and gamma), the row's mean and its broadcast."""
    return h * 4 * (3 if half else 1) + (_RED + _BLK) * 4


@builtin
def rmsnorm(dst: Any, src: Any, gamma: Any, epsilon: Any, tiling: Any, temp_buffer: Optional[Any] = None,
            basic_block: bool = False) -> None:  # fmt: skip
    """Ascend C ``RmsNorm``: dst = src / sqrt(mean(src^2, last axis) + epsilon) * gamma per row. The shape is
    the tiling's (b_length * s_length rows of h_length, the mean over original_h_length); a tiling without
    one (all 0) takes src's set_shape_info."""
    api = "adv.rmsnorm"
    d, s, g = (local(t, api, r) for t, r in ((dst, "dst"), (src, "src"), (gamma, "gamma")))
    if s.dtype not in (dt.float16, dt.float32) or d.dtype != s.dtype or g.dtype != s.dtype:
        raise CodegenError(
            f"{api}: dst, src and gamma must be float16 or float32 alike, got {d.dtype.name}, {s.dtype.name} and "
            f"{g.dtype.name}"
        )
    if not isinstance(tiling, RmsNormTiling):
        raise CodegenError(f"{api}: tiling must be an asc.adv.RmsNormTiling, got {type(tiling).__name__}")
    if not isinstance(epsilon, (int, float, Scalar)) or isinstance(epsilon, bool):
        raise CodegenError(f"{api}: epsilon must be a number, got {type(epsilon).__name__}")
    half = s.dtype == dt.float16
    tmp_given = temp_buffer is not None
    tmp = temp_buffer_of(temp_buffer, api)
    eps = to_scalar(epsilon, s.dtype)
    fields = [to_scalar(getattr(tiling, n), f.dtype) for n, f in tiling.fields()]
    operands: list = [d, s, g] + ([tmp] if tmp_given else []) + [eps]
    first = len(operands)
    operands += fields
    args = ", ".join(f"{{{i}}}" for i in range(first))
    flag = "true" if basic_block else "false"
    call = f"AscendC::RmsNorm<{{T:0}}, {flag}>({args}, {_struct_spelling('RmsNormTiling', tiling.fields(), first)})"

    def expansion() -> None:
        shape_rows, shape_h = shape_rows_cols(s)
        i32 = dt.int32
        tiling_rows = to_scalar(tiling.b_length, i32) * to_scalar(tiling.s_length, i32)
        rows = inline(_pick, tiling_rows, to_scalar(shape_rows, i32))
        h = inline(_pick, to_scalar(tiling.h_length, i32), to_scalar(shape_h, i32))
        ori_h = inline(_pick, to_scalar(tiling.original_h_length, i32), h)
        require(h > 0, f"{api}: src has no shape: pass a tiling with h_length, or set_shape_info on src")
        require(h <= MAX_ROW, f"{api}: a row holds at most {MAX_ROW} elements")
        require(ori_h <= h, f"{api}: original_h_length must not exceed h_length")
        require(
            (h * s.dtype.sizeof()) % 32 == 0,
            f"{api}: h_length must be 32-byte aligned ({per_row(s.dtype)} {s.dtype.name} elements)",
        )
        require(
            tmp.get_size() >= rmsnorm_tmp_bytes(h, half),
            f"{api}: the temporary buffer is too small; it needs (h x {12 if half else 4} + {(_RED + _BLK) * 4}) bytes",
        )
        factor = inline(
            _mean_factor, to_scalar(tiling.reciprocal_of_h_length, dt.float32), to_scalar(ori_h, dt.float32)
        )
        eps32 = to_scalar(epsilon, dt.float32) if not isinstance(epsilon, Scalar) else to_scalar(eps, dt.float32)
        f = tmp.reinterpret_cast(dt.float32)
        red, blk, sq = f, f[_RED:], f[_RED + _BLK :]
        asc.duplicate(red, 0.0, _RED)  # brcb reads the whole block of the row's value
        gam = g
        x_f = None
        if half:  # the widened row and gamma after the squares
            x_f, g_f = sq[h:], sq[h * 2 :]
            asc.cast(g_f, g, RoundMode.CAST_NONE, h)
            gam = g_f

        @builtin
        def row(r: Any) -> None:
            x_src, x_dst = s[r * h :], d[r * h :]
            x, y = x_src, x_dst
            if half:
                asc.cast(x_f, x_src, RoundMode.CAST_NONE, h)
                x = y = x_f
            asc.mul(sq, x, x, h)
            asc.reduce_sum(red, sq, blk, ori_h)
            asc.muls(red, red, factor, 1)
            asc.adds(red, red, eps32, 1)
            asc.sqrt(red, red, 1)
            asc.brcb(blk, red, 1, asc.BrcbRepeatParams(1, 8))
            inline(_row_broadcast, asc.div, y, x, blk, h)
            asc.mul(y, y, gam, h)
            if half:
                asc.cast(x_dst, x_f, RoundMode.CAST_RINT, h)

        inline(_over_rows, row, rows)

    library_call(call, operands, expansion)


__all__ = ["rmsnorm", "rmsnorm_tmp_bytes"]
