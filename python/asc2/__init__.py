"""asc2: tile programming over asc. Kernels load tiles (values in the Unified
Buffer) from GM views, compute on them with operators and functions, and
store them back; the compiler places the tiles (allocate_local) and inserts
every synchronisation (insert_sync). See docs/tile-api.md."""

import builtins
import sys

from asc.runtime import register_code_package

from .arith import floor_divide, pow
from .atomic import atomic_add, atomic_max, atomic_min
from .bitwise import bitwise_and, bitwise_not, bitwise_or, bitwise_xor
from .creation import concat, full, full_like, zeros, zeros_like
from .cube import matmul, matmul_acc, zeros_acc
from .jit import jit
from .masking import mask
from .memory import Tensor, copy, load, store, tensor
from .ops import (
    abs,
    add,
    block_idx,
    block_num,
    ceil,
    cos,
    cosh,
    div,
    equal,
    erf,
    exp,
    exp2,
    floor,
    greater,
    greater_equal,
    left_shift,
    less,
    less_equal,
    log,
    log2,
    maximum,
    minimum,
    mul,
    negative,
    not_equal,
    reduce_max,
    reduce_min,
    reduce_prod,
    reduce_sum,
    relu,
    right_shift,
    rms_norm,
    rsqrt,
    sin,
    sinh,
    softmax,
    sqrt,
    sub,
    tan,
    tanh,
    where,
)
from .shape import broadcast_to, expand_dims, ravel, reshape, squeeze
from .tile import Tile, TileLocation
from .transpose import transpose

range = builtins.range  # a kernel loop; parallel= and unroll_factor= are accepted hints

register_code_package(sys.modules[__name__])  # asc2's code builds kernels: editing it invalidates cached ones

__all__ = [
    "Tensor",
    "Tile",
    "TileLocation",
    "abs",
    "add",
    "atomic_add",
    "atomic_max",
    "atomic_min",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "block_idx",
    "block_num",
    "broadcast_to",
    "ceil",
    "concat",
    "copy",
    "cos",
    "cosh",
    "div",
    "equal",
    "erf",
    "exp",
    "exp2",
    "expand_dims",
    "floor",
    "floor_divide",
    "full",
    "full_like",
    "greater",
    "greater_equal",
    "jit",
    "left_shift",
    "less",
    "less_equal",
    "load",
    "log",
    "log2",
    "mask",
    "matmul",
    "matmul_acc",
    "maximum",
    "minimum",
    "mul",
    "negative",
    "not_equal",
    "pow",
    "range",
    "ravel",
    "reduce_max",
    "reduce_min",
    "reduce_prod",
    "reduce_sum",
    "relu",
    "reshape",
    "right_shift",
    "rms_norm",
    "rsqrt",
    "sin",
    "sinh",
    "softmax",
    "sqrt",
    "squeeze",
    "store",
    "sub",
    "tan",
    "tanh",
    "tensor",
    "transpose",
    "where",
    "zeros",
    "zeros_acc",
    "zeros_like",
]
