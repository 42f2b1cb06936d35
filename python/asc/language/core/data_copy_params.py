"""DataCopyParams: a data_copy of `block_count` rows of `block_len` 32-byte
blocks, with `src_stride` / `dst_stride` blocks of gap after each row on the
source / destination side (the Ascend C fields srcGap/dstGap; 0 = contiguous)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class DataCopyParams:
    __asc_builtin__ = True  # kernels may build it from run-time values

    block_count: Any = 1
    block_len: Any = 0
    src_stride: Any = 0
    dst_stride: Any = 0


@dataclass
class DataCopyExtParams:
    """data_copy_pad rows: `block_len` is in bytes; the strides are gaps, in bytes on
    the GM side and in 32-byte blocks on the Unified Buffer side."""

    __asc_builtin__ = True

    block_count: Any = 1
    block_len: Any = 0
    src_stride: Any = 0
    dst_stride: Any = 0
    rsv: Any = 0


@dataclass
class DataCopyPadExtParams:
    """Padding of each row copied GM -> UB: `left_padding` / `right_padding` elements
    (at most 32 bytes each) filled with `padding_value` when `is_pad`."""

    __asc_builtin__ = True

    dtype: Any = None
    is_pad: Any = False
    left_padding: Any = 0
    right_padding: Any = 0
    padding_value: Any = 0
