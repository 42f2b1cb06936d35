"""Parameters of the layout and gather instructions: transpose, brcb, gather_mask."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .enums import TransposeType


@dataclass
class TransposeParamsExt:
    """transpose's extended form: an [n, c, h, w] tensor (or [n, h, w, c]) and the conversion."""

    __asc_builtin__ = True

    n_size: Any = 0
    c_size: Any = 0
    h_size: Any = 0
    w_size: Any = 0
    transpose_type: Any = TransposeType.TRANSPOSE_ND2ND_B16


@dataclass
class BrcbRepeatParams:
    """brcb's destination strides, in 32-byte blocks: between the 8 blocks of a repeat, and between repeats."""

    __asc_builtin__ = True

    dst_blk_stride: Any = 1
    dst_rep_stride: Any = 8


@dataclass
class GatherMaskParams:
    """gather_mask's source strides (32-byte blocks) and repeat count."""

    __asc_builtin__ = True

    src0_block_stride: Any = 1
    repeat_times: Any = 1
    src0_repeat_stride: Any = 0
    src1_repeat_stride: Any = 0
