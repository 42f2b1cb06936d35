"""asc2: tile programming over asc. Kernels load tiles (values in the Unified
Buffer) from GM views, compute on them with operators and functions, and
store them back; the compiler places the tiles (allocate_local) and inserts
every synchronisation (insert_sync). See docs/tile-api.md."""

import builtins
import sys

from asc.runtime import register_code_package

from .creation import concat, full, full_like, zeros, zeros_like
from .cube import matmul, matmul_acc, zeros_acc
from .jit import jit
from .memory import Tensor, copy, load, store, tensor
from .ops import (
    abs,
    add,
    block_idx,
    block_num,
    div,
    equal,
    exp,
    greater,
    greater_equal,
    less,
    less_equal,
    log,
    maximum,
    minimum,
    mul,
    negative,
    not_equal,
    reduce_max,
    reduce_min,
    reduce_sum,
    relu,
    rsqrt,
    softmax,
    sqrt,
    sub,
    where,
)
from .shape import broadcast_to, expand_dims, ravel, reshape, squeeze
from .tile import Tile, TileLocation

range = builtins.range  # a kernel loop; parallel= and unroll_factor= are accepted hints

register_code_package(sys.modules[__name__])  # asc2's code builds kernels: editing it invalidates cached ones

__all__ = [
    "Tensor",
    "Tile",
    "TileLocation",
    "abs",
    "add",
    "block_idx",
    "block_num",
    "broadcast_to",
    "concat",
    "copy",
    "div",
    "equal",
    "exp",
    "expand_dims",
    "full",
    "full_like",
    "greater",
    "greater_equal",
    "jit",
    "less",
    "less_equal",
    "load",
    "log",
    "matmul",
    "matmul_acc",
    "maximum",
    "minimum",
    "mul",
    "negative",
    "not_equal",
    "range",
    "ravel",
    "reduce_max",
    "reduce_min",
    "reduce_sum",
    "relu",
    "reshape",
    "rsqrt",
    "softmax",
    "sqrt",
    "squeeze",
    "store",
    "sub",
    "tensor",
    "where",
    "zeros",
    "zeros_acc",
    "zeros_like",
]
