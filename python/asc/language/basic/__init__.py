"""asc.language.basic: the instruction-level API."""

from .data_copy import data_copy
from .duplicate import duplicate
from .sync import pipe_barrier, set_flag, wait_flag
from .sys_var import get_block_idx, get_block_num
from .vec_binary import add, div, max, min, mul, sub

__all__ = [
    "add",
    "data_copy",
    "div",
    "duplicate",
    "get_block_idx",
    "get_block_num",
    "max",
    "min",
    "mul",
    "pipe_barrier",
    "set_flag",
    "sub",
    "wait_flag",
]
