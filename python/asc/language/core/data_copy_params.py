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
