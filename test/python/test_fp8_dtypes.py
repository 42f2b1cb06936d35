"""The 8-bit floats of pyasc's newer release (asc.float8_e4m3fn, float8_e5m2, float8_e8m0fnuz): the names
exist with pyasc's spelling and ml_dtypes' as the numpy side, and since they are Ascend 950 types that Atlas
A2/A3 lack (and the Model's Ascend 950 rows do not compute in yet), a kernel or a launch using one is refused
with that reason, at the user's line, before anything runs."""

import ml_dtypes
import numpy as np
import pytest

import asc
from asc.errors import CodegenError, LaunchArgumentError

FP8 = [asc.float8_e4m3fn, asc.float8_e5m2, asc.float8_e8m0fnuz]


@asc.jit
def copy(x: asc.GlobalAddress, y: asc.GlobalAddress):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    y_gm = asc.GlobalTensor()
    y_gm.set_global_buffer(y)
    t = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(t, x_gm, 64)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.data_copy(y_gm, t, 64)


@asc.jit
def local_of(dtype: asc.ConstExpr):
    asc.LocalTensor(dtype, asc.TPosition.VECIN, 0, 64)


@pytest.mark.parametrize("dtype", FP8, ids=lambda d: d.name)
def test_the_names_are_pyascs_and_one_byte_floats(dtype):
    assert dtype.name in ("float8_e4m3fn", "float8_e5m2", "float8_e8m0fnuz")
    assert dtype.sizeof() == 1 and dtype.is_float()
    assert asc.language.core.DataType(dtype.name) == dtype  # pyasc's DataType("float8_e4m3fn")


@pytest.mark.parametrize("dtype", FP8, ids=lambda d: d.name)
def test_a_local_tensor_of_one_is_refused_at_the_line(dtype):
    with pytest.raises(CodegenError, match=rf"{dtype.name} is an Ascend 950 \(arch C310\) type") as e:
        local_of[1](dtype)
    assert "test_fp8_dtypes.py" in str(e.value)


@pytest.mark.parametrize(
    "numpy_name, name",
    [("float8_e4m3fn", "float8_e4m3fn"), ("float8_e5m2", "float8_e5m2"), ("float8_e8m0fnu", "float8_e8m0fnuz")],
)
def test_an_ml_dtypes_array_is_refused_before_the_launch(numpy_name, name):
    x = np.zeros(64, getattr(ml_dtypes, numpy_name))
    y = np.full(64, 3, np.uint8)
    with pytest.raises(LaunchArgumentError, match=rf"argument 'x' is {name}: .*Atlas A2/A3"):
        copy[1](x, y)
    assert np.all(y == 3)  # nothing ran
