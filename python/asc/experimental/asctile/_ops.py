"""asctile's operations over asc2's: most are asc2's own functions under asctile's names and argument
orders; what asc2 lacks and the instructions have is built here from them (bitwise and / or / xor / not,
pow, layer_norm, broadcast_shapes / broadcast_tensors, cast with a rounding mode, empty, to_asc / from_asc). The names
the Model has no semantics for yet are in _refused."""

from __future__ import annotations

import math
from typing import Any

import asc
import asc2
from asc.errors import CodegenError
from asc.language.basic.utils import builtin
from asc.language.core.ir_value import Scalar, to_scalar
from asc.language.core.ir_value import cast as scalar_cast

# -- asc2's operations under the same names --------------------------------------------------------------
from asc2 import (  # noqa: E402,F401 - re-exported
    abs,
    add,
    atomic_add,
    atomic_max,
    atomic_min,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    block_idx,
    block_num,
    broadcast_to,
    ceil,
    concat,
    cos,
    cosh,
    div,
    elementwise,
    equal,
    erf,
    exp,
    exp2,
    expand_dims,
    floor,
    full,
    full_like,
    greater,
    greater_equal,
    left_shift,
    less,
    less_equal,
    log,
    log2,
    mask,
    maximum,
    minimum,
    mul,
    negative,
    not_equal,
    pow,
    ravel,
    reduce_max,
    reduce_min,
    reduce_prod,
    reduce_sum,
    relu,
    reshape,
    right_shift,
    rms_norm,
    rsqrt,
    sin,
    sinh,
    softmax,
    sqrt,
    squeeze,
    sub,
    tan,
    tanh,
    transpose,
    where,
    zeros,
    zeros_like,
)
from asc2.cube import CubeTile
from asc2.memory import Tensor
from asc2.shape import broadcast_shape
from asc2.split import SplitTile
from asc2.tile import Tile, check_shape

from ._tensors import RoundMode, TensorLocation, location


@builtin
def ceildiv(x: Any, y: Any) -> Any:
    """The smallest integer >= x / y, for ints (on the host too) and run-time ints (C's signed division)."""
    return (x + y - 1) // y


# -- the cube --------------------------------------------------------------------------------------------


@builtin
def matmul(input: Any, other: Any, bias: Any = None, *, hf32: bool = False) -> CubeTile:  # noqa: A002
    """input @ other (+ bias, a BT row) into a new L0C tile (asc2.matmul); operands in L0A / L0B, or L1
    (moved there); hf32=True rounds float32 operands to HF32 (Ascend C's SetHF32Mode) for this product."""
    return asc2.matmul(input, other, bias, hf32=hf32)


@builtin
def matmul_acc(acc: Any, input: Any, other: Any, *, hf32: bool = False) -> None:  # noqa: A002
    """acc += input @ other (asc2.matmul_acc, whose arguments are in another order)."""
    asc2.matmul_acc(input, other, acc, hf32=hf32)


@builtin
def zeros_acc(shape: Any, dtype: Any, *, bias: Any = None) -> CubeTile:
    """An accumulator in L0C (asc2.zeros_acc): zeros, or the bias row (a BT tile) in every row."""
    return asc2.zeros_acc(shape, dtype, bias=bias)


# -- conversions -----------------------------------------------------------------------------------------

_MODES = {
    RoundMode.NoRound: asc.RoundMode.CAST_NONE,
    RoundMode.Rint: asc.RoundMode.CAST_RINT,
    RoundMode.Floor: asc.RoundMode.CAST_FLOOR,
    RoundMode.Ceil: asc.RoundMode.CAST_CEIL,
    RoundMode.Round: asc.RoundMode.CAST_ROUND,
    RoundMode.Trunc: asc.RoundMode.CAST_TRUNC,
    RoundMode.Odd: asc.RoundMode.CAST_ODD,
}


@builtin
def cast(input: Any, dtype: Any, round_mode: Any = RoundMode.Default) -> Any:  # noqa: A002
    """A tile (or a scalar) converted to `dtype`. RoundMode.Default rounds as asc2's ``.to(dtype)``; another
    mode is given to the Cast instruction, which refuses the modes its documentation does not list for the
    pair of dtypes."""
    what = "asctile.cast"
    if not isinstance(dtype, asc.DataType):
        raise CodegenError(f"{what}: dtype is an asc dtype, got {dtype!r}")
    if not isinstance(round_mode, RoundMode):
        raise CodegenError(f"{what}: round_mode is an asctile.RoundMode, got {round_mode!r}")
    if isinstance(input, (bool, int, float)):
        return to_scalar(input, dtype)
    if isinstance(input, Scalar):
        return scalar_cast(input, dtype)
    if not isinstance(input, (Tile, SplitTile)):
        raise CodegenError(f"{what}: expected a tile or a scalar, got {type(input).__name__}")
    if round_mode == RoundMode.Default or dtype == input.dtype:
        return asc2.ops.cast(input, dtype)
    if not isinstance(input, Tile) or isinstance(input, CubeTile):
        raise CodegenError(f"{what}: a rounding mode is for Unified Buffer tiles, got {input!r}")
    if len(input.shape) == 2:
        check_shape(input.shape, dtype, what)
    out = Tile(input.shape, dtype)
    asc.cast(out.buf, input.buf, _MODES[round_mode], out.length)
    return out


# -- shapes ----------------------------------------------------------------------------------------------


def broadcast_shapes(*shapes: Any) -> tuple:
    """The shape NumPy broadcasts `shapes` to (pure: on the host and while compiling)."""
    if not shapes:
        raise CodegenError("asctile.broadcast_shapes: give at least one shape")
    result: tuple = ()
    for s in shapes:
        dims = tuple(s) if isinstance(s, (list, tuple)) else (s,)
        if not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in dims):
            raise CodegenError(f"asctile.broadcast_shapes: a shape is a list of ints >= 0, got {s!r}")
        common = broadcast_shape(result, dims) if result else dims
        if common is None:
            raise CodegenError(f"asctile.broadcast_shapes: shapes {list(result)} and {list(dims)} do not broadcast")
        result = common
    return tuple(result)


broadcast_shapes = builtin(broadcast_shapes)


@builtin
def broadcast_tensors(*tensors: Any) -> tuple:
    """The tiles each broadcast to their common shape (asc2.broadcast_to)."""
    for t in tensors:
        if not isinstance(t, Tile):
            raise CodegenError(f"asctile.broadcast_tensors: expected tiles, got {type(t).__name__}")
    common = broadcast_shapes(*(t.shape for t in tensors))
    return tuple(t if t.shape == common else asc2.broadcast_to(t, *common) for t in tensors)


# -- low level: asc2 tiles are asc LocalTensors the compiler places ----------------------------------------


@builtin
def empty(shape: Any, dtype: Any, location: Any = TensorLocation.Auto) -> Tile:
    """A tile whose elements are not set (the elements past its size, which instructions compute on too,
    are zeros). Unified Buffer only."""
    what = "asctile.empty"
    if _location(location, what) != asc2.TileLocation.UB:
        raise CodegenError(f"{what}: tiles are created in the Unified Buffer (location UB), got {location!r}")
    dims = check_shape(shape, dtype, what)
    out = Tile(dims, dtype)
    if out.size != out.length:
        elementwise.fill(out.buf, 0, dtype, out.length)
    return out


def _location(value: Any, what: str) -> Any:
    return location(value, what)


@builtin
def empty_like(tensor: Any, location: Any = None) -> Tile:
    if not isinstance(tensor, Tile):
        raise CodegenError(f"asctile.empty_like: expected a tile, got {type(tensor).__name__}")
    return empty(tensor.shape, tensor.dtype, TensorLocation.Auto if location is None else location)


@builtin
def to_asc(asctile_object: Any) -> Any:
    """A tile's asc.LocalTensor (its buffer: basic instructions may write it, the compiler still orders
    them), a global tensor's asc.GlobalTensor; anything else unchanged."""
    if isinstance(asctile_object, CubeTile) or isinstance(asctile_object, SplitTile):
        raise CodegenError(f"asctile.to_asc: {asctile_object!r} has no one asc.LocalTensor")
    if isinstance(asctile_object, Tile):
        return asctile_object.buf
    if isinstance(asctile_object, Tensor):
        return asctile_object.gm
    return asctile_object


@builtin
def from_asc(asc_object: Any, *, location: Any = TensorLocation.Auto) -> Any:
    """An asc.LocalTensorAuto of the Unified Buffer (whose shape is known while compiling) as a tile of its
    shape, sharing its buffer; anything else unchanged."""
    what = "asctile.from_asc"
    if isinstance(asc_object, asc.GlobalTensor):
        raise CodegenError(f"{what}: an asc.GlobalTensor carries no shape here; use asctile.global_tensor")
    if not isinstance(asc_object, asc.LocalTensor):
        return asc_object
    if _location(location, what) != asc2.TileLocation.UB:
        raise CodegenError(f"{what}: Unified Buffer tensors only, got location {location!r}")
    shape = getattr(asc_object, "shape", None)
    if not isinstance(asc_object, asc.LocalTensorAuto) or not all(isinstance(d, int) for d in shape or ()):
        raise CodegenError(f"{what}: an asc.LocalTensorAuto whose shape is known while compiling, got {asc_object!r}")
    dims = check_shape(tuple(shape), asc_object.dtype, what)
    if Tile.length_of(dims) > math.prod(dims):
        raise CodegenError(f"{what}: a tile of {list(dims)} computes on {Tile.length_of(dims)} elements (a multiple "
                           f"of 128); allocate the asc.LocalTensorAuto with that many")  # fmt: skip
    return Tile(dims, asc_object.dtype, asc_object)


# -- layer_norm: asc2's reductions and broadcasting, in float32 ---------------------------------------------

_NORM = (asc.float16, asc.bfloat16, asc.float32)


@builtin
def layer_norm(input: Any, gamma: Any, beta: Any, epsilon: Any, output_rstd: bool = True) -> tuple:  # noqa: A002
    """(input - mean) * rstd * gamma + beta along the last axis, with the mean and the rstd (or, with
    output_rstd=False, the variance: the mean of the squared deviations) per row as float32 tiles of
    [rows] ([1] for a 1-D input). Computed in float32 from asc2's reductions and broadcasting."""
    what = "asctile.layer_norm"
    for name, v in (("input", input), ("gamma", gamma), ("beta", beta)):
        if not isinstance(v, Tile) or isinstance(v, CubeTile):
            raise CodegenError(f"{what}: {name} is a Unified Buffer tile, got {v!r}")
        if v.dtype not in _NORM:
            raise CodegenError(f"{what}: {name} is float16, bfloat16 or float32, got {v.dtype.name}")
    cols = input.shape[-1]
    for name, v in (("gamma", gamma), ("beta", beta)):
        if v.shape not in ((cols,), (1, cols)):
            raise CodegenError(f"{what}: {name} is a [{cols}] tile for {input!r}, got {v!r}")
    if not isinstance(output_rstd, bool):
        raise CodegenError(f"{what}: output_rstd is a bool, got {output_rstd!r}")
    x = input if len(input.shape) == 2 else asc2.reshape(input, 1, cols)
    x = asc2.ops.cast(x, asc.float32)
    g, b = (asc2.reshape(asc2.ops.cast(v, asc.float32), 1, cols) for v in (gamma, beta))
    mean = asc2.reduce_sum(x, 1, keep_dims=False) * (1.0 / cols)  # [rows]
    d = x - asc2.expand_dims(mean, 1)
    var = asc2.reduce_sum(d * d, 1, keep_dims=False) * (1.0 / cols)
    rstd = asc2.rsqrt(var + epsilon)
    out = d * asc2.expand_dims(rstd, 1) * g + b
    out = asc2.ops.cast(out, input.dtype)
    if len(input.shape) == 1:
        out = asc2.reshape(out, cols)
    return out, mean, rstd if output_rstd else var
