"""Which block (core) is running: its index, and for cube/vector kernels which kind of core."""

from __future__ import annotations

from ...codegen.context import current_builder
from ..core import dtype as dt
from ..core.ir_value import Scalar
from .utils import builtin


@builtin
def get_block_idx() -> Scalar:
    """Index of the running block, 0 .. block_num-1 (int64); on the vector cores of a MIX_AIC_1_2 kernel
    2 * group + get_sub_block_idx()."""
    return Scalar(current_builder().op("get_block_idx"), dt.int64)


@builtin
def get_block_num() -> Scalar:
    """Number of blocks of the launch (int64)."""
    return Scalar(current_builder().op("get_block_num"), dt.int64)


@builtin
def get_sub_block_idx() -> Scalar:
    """Which vector core of its group runs (0 or 1 in a MIX_AIC_1_2 kernel; 0 on a cube core) (int64)."""
    return Scalar(current_builder().op("get_sub_block_idx"), dt.int64)


@builtin
def get_sub_block_num() -> Scalar:
    """Vector cores per group seen from this core: 2 on a vector core of a MIX_AIC_1_2 kernel, else 1 (int64)."""
    return Scalar(current_builder().op("get_sub_block_num"), dt.int64)


@builtin
def ascend_is_aic() -> Scalar:
    """True on a cube core (AIC)."""
    return Scalar(current_builder().op("ascend_is_aic"), dt.bool_)


@builtin
def ascend_is_aiv() -> Scalar:
    """True on a vector core (AIV)."""
    return Scalar(current_builder().op("ascend_is_aiv"), dt.bool_)
