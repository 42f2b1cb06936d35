"""Stride parameters of the vector instructions' mask/repeat (high-dimensional) mode.

Strides count 32-byte data blocks: a block stride separates the 8 blocks of
one repeat (1 = contiguous), a repeat stride separates repeats (8 = contiguous).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class BinaryRepeatParams:
    __asc_builtin__ = True  # kernels may build it from run-time values
    dst_blk_stride: Any = 1
    src0_blk_stride: Any = 1
    src1_blk_stride: Any = 1
    dst_rep_stride: Any = 8
    src0_rep_stride: Any = 8
    src1_rep_stride: Any = 8

    def block_strides(self) -> list:
        return [self.dst_blk_stride, self.src0_blk_stride, self.src1_blk_stride]

    def repeat_strides(self) -> list:
        return [self.dst_rep_stride, self.src0_rep_stride, self.src1_rep_stride]


@dataclass
class CopyRepeatParams:
    """asc.copy's strides: `dst_stride` / `src_stride` between the blocks of a repeat,
    `dst_repeat_size` / `src_repeat_size` between repeats (all in 32-byte blocks)."""

    __asc_builtin__ = True

    dst_stride: Any = 0
    src_stride: Any = 0
    dst_repeat_size: Any = 0
    src_repeat_size: Any = 0

    def block_strides(self) -> list:
        return [self.dst_stride, self.src_stride]

    def repeat_strides(self) -> list:
        return [self.dst_repeat_size, self.src_repeat_size]


@dataclass
class UnaryRepeatParams:
    __asc_builtin__ = True
    dst_blk_stride: Any = 1
    src_blk_stride: Any = 1
    dst_rep_stride: Any = 8
    src_rep_stride: Any = 8

    def block_strides(self) -> list:
        return [self.dst_blk_stride, self.src_blk_stride]

    def repeat_strides(self) -> list:
        return [self.dst_rep_stride, self.src_rep_stride]
