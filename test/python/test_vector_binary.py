"""Vector binary instructions (count mode) against numpy, over dtypes and tails."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt

OPS = {
    "add": (asc.add, np.add),
    "sub": (asc.sub, np.subtract),
    "mul": (asc.mul, np.multiply),
    "div": (asc.div, np.divide),
    "max": (asc.max, np.maximum),
    "min": (asc.min, np.minimum),
}
SUPPORTED = {
    "add": ("float32", "float16", "int16", "int32"),
    "sub": ("float32", "float16", "int16", "int32"),
    "mul": ("float32", "float16", "int16", "int32"),
    "div": ("float32", "float16"),
    "max": ("float32", "float16", "int16", "int32"),
    "min": ("float32", "float16", "int16", "int32"),
}


def make_kernel(instruction):
    @asc.jit
    def binary_kernel(
        x: asc.GlobalAddress,
        y: asc.GlobalAddress,
        z: asc.GlobalAddress,
        padded: int,
        count: int,
    ):
        """Copy `padded` elements in, apply the op to the first `count`, copy `padded` out."""
        x_gm = asc.GlobalTensor()
        y_gm = asc.GlobalTensor()
        z_gm = asc.GlobalTensor()
        x_gm.set_global_buffer(x, padded)
        y_gm.set_global_buffer(y, padded)
        z_gm.set_global_buffer(z, padded)
        nbytes = (padded * x.dtype.sizeof() + 31) // 32 * 32
        a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, padded)
        b = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, nbytes, padded)
        c = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 2 * nbytes, padded)
        asc.data_copy(a, x_gm, padded)
        asc.data_copy(b, y_gm, padded)
        asc.data_copy(c, z_gm, padded)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        instruction(c, a, b, count)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(z_gm, c, padded)

    return binary_kernel


KERNELS = {name: make_kernel(fn) for name, (fn, _) in OPS.items()}


def inputs(rng, dtype, n, op):
    if np.dtype(dtype).kind == "f":
        x = rng.uniform(-100, 100, n).astype(dtype)
        y = rng.uniform(-100, 100, n).astype(dtype)
        if op == "div":
            y[np.abs(y) < 1] = 3
        return x, y
    info = np.iinfo(dtype)
    # full range, so add/sub/mul overflow and must wrap like numpy
    return (rng.integers(info.min, info.max, n, endpoint=True, dtype=dtype),
            rng.integers(info.min, info.max, n, endpoint=True, dtype=dtype))  # fmt: skip


CASES = [(op, dtype) for op, dtypes in SUPPORTED.items() for dtype in dtypes]


@pytest.mark.parametrize("op,dtype", CASES)
@pytest.mark.parametrize("count", [1, 13, 64, 300, 4096])
def test_matches_numpy_and_leaves_the_tail(op, dtype, count, rng):
    per_block = 32 // np.dtype(dtype).itemsize
    padded = (count + per_block - 1) // per_block * per_block
    x, y = inputs(rng, dtype, padded, op)
    sentinel = np.arange(padded).astype(dtype)
    z = sentinel.copy()
    with np.errstate(over="ignore"):
        expected = OPS[op][1](x[:count], y[:count]).astype(dtype)
    KERNELS[op][1, rt.current_stream()](x, y, z, padded, count)
    np.testing.assert_array_equal(z[:count], expected)
    np.testing.assert_array_equal(z[count:], sentinel[count:])  # past `count` nothing is written


@asc.jit
def in_place(x: asc.GlobalAddress, y: asc.GlobalAddress, n: int, IS_ADD: asc.ConstExpr[bool]):
    """dst is the same tensor as src0, which Ascend C allows (100% overlap)."""
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    y_gm.set_global_buffer(y, n)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, n)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 4096, n)
    asc.data_copy(a, x_gm, n)
    asc.data_copy(b, y_gm, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if IS_ADD:
        asc.add(a, a, b, n)
    else:
        asc.mul(a, a, b, n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(x_gm, a, n)


@pytest.mark.parametrize("is_add", [True, False])
def test_in_place_dst_equals_src(is_add, rng):
    x, y = rng.random(256, dtype=np.float32), rng.random(256, dtype=np.float32)
    expected = x + y if is_add else x * y
    in_place[1, rt.current_stream()](x, y, 256, is_add)
    np.testing.assert_array_equal(x, expected)


BF16 = pytest.importorskip("ml_dtypes").bfloat16


@pytest.mark.parametrize("op,dtype", [("div", np.int32), ("add", np.int8), ("max", np.uint16), ("mul", BF16)])
def test_unsupported_dtype_is_a_compile_error(op, dtype):
    x = np.zeros(64, dtype)
    with pytest.raises(asc.CodegenError, match=f"dtype {np.dtype(dtype).name} is not supported") as err:
        KERNELS[op][1, rt.current_stream()](x, x, x.copy(), 64, 64)
    assert "test_vector_binary.py" in str(err.value)
