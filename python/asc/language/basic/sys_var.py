"""Which block (core) is running."""

from __future__ import annotations

from ...codegen.context import current_builder
from ..core import dtype as dt
from ..core.ir_value import Scalar
from .utils import builtin


@builtin
def get_block_idx() -> Scalar:
    """Index of the running block, 0 .. block_num-1 (int64)."""
    return Scalar(current_builder().op("get_block_idx"), dt.int64)


@builtin
def get_block_num() -> Scalar:
    """Number of blocks of the launch (int64)."""
    return Scalar(current_builder().op("get_block_num"), dt.int64)
