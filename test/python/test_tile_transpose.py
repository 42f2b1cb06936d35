"""asc2.transpose / Tile.T / Tile.transpose and asctile's (the same function) against numpy.transpose: every
dtype pyasc-dev lists (int8, int16, int32, float16, bfloat16, float32), shapes that are not multiples of 16,
shapes whose result takes several Gather blocks (one run-time loop and a last, smaller block), a dim of 1, and
the errors."""

import ml_dtypes
import numpy as np
import pytest

import asc
import asc.experimental.asctile as asctile
import asc.lib.runtime as rt
import asc2
from asc.errors import CodegenError


@asc2.jit
def transposed(x_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress, shape: asc.ConstExpr, form: asc.ConstExpr[int]):
    rows, cols = shape
    x = asc2.load(asc2.tensor(x_ptr, [rows, cols]), [rows, cols], offsets=[0, 0])
    if form == 0:
        t = x.T
    elif form == 1:
        t = x.transpose(1, 0)
    else:
        t = asc2.transpose(x, -1, -2)
    asc2.store(t.ravel(), asc2.tensor(out_ptr, [cols * rows]), offsets=[0])  # a [cols, 1] result has no 2-D store


CASES = [
    (np.float32, (24, 40), 0),  # neither a multiple of 16
    (np.float32, (8, 1024), 1),  # result rows in two Gather blocks: the run-time loop
    (np.float32, (24, 200), 2),  # a whole block and a smaller last one
    (np.int32, (40, 8), 0),
    (np.float16, (32, 48), 0),
    (np.int16, (16, 80), 1),
    (ml_dtypes.bfloat16, (48, 16), 0),
    (np.int8, (32, 96), 0),  # through float16
    (np.float32, (1, 64), 0),  # a dim of 1: a reshape
    (np.float32, (16, 16), 1),
]


@pytest.mark.parametrize("dtype,shape,form", CASES)
def test_transpose_against_numpy(dtype, shape, form):
    rng = np.random.default_rng(sum(shape))
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    else:
        x = rng.normal(size=shape).astype(dtype)
    out = np.zeros(shape[::-1], dtype)
    transposed[1, rt.current_stream()](x, out, shape, form)
    np.testing.assert_array_equal(out.view(np.uint8), np.ascontiguousarray(np.transpose(x)).view(np.uint8))


@asctile.jit
def asctile_transposed(x_ptr: asctile.GlobalAddress, out_ptr: asctile.GlobalAddress, rows: asctile.ConstExpr[int],
                       cols: asctile.ConstExpr[int]):  # fmt: skip
    x = asctile.copy_in(asctile.global_tensor(x_ptr, [rows, cols]), [0, 0], [rows, cols])
    y = x * 2.0  # a standalone transpose (pyasc-dev's note): its input is computed, not loaded
    asctile.copy_out(asctile.transpose(y) + y.T.T.T, asctile.global_tensor(out_ptr, [cols, rows]), [0, 0])


def test_asctile_transpose():
    x = np.arange(40 * 24, dtype=np.float32).reshape(40, 24)
    out = np.zeros((24, 40), np.float32)
    asctile_transposed[1, rt.current_stream()](x, out, 40, 24)
    np.testing.assert_array_equal(out, 4 * x.T)


@asc2.jit
def bad_transpose(x_ptr: asc.GlobalAddress, case: asc.ConstExpr[int]):
    x = asc2.load(asc2.tensor(x_ptr, [4, 64]), [4, 64], offsets=[0, 0])
    if case == 0:
        asc2.transpose(x, 0, 0)
    elif case == 1:
        _ = x.T  # [64, 4] float32: rows of 16 bytes, not whole 32-byte blocks
    elif case == 2:
        _ = asc2.ravel(x).T
    elif case == 3:
        asc2.transpose(x.to(asc.float16).to(asc.float32) > 0)


@pytest.mark.parametrize("case,match", [
    (0, r"asc2\.transpose: axis \[0, 0\] is not an order of the 2 axes of Tile\(\[4, 64\], float32\)"),
    (1, r"asc2\.transpose of Tile\(\[4, 64\], float32\) to \[64, 4\]: a 2-D tile's last dimension must be a whole "
        r"number of 32-byte blocks"),
    (2, r"Tile\(\[256\], float32\) has one axis"),
    (3, r"asc2\.transpose: a tile of the Unified Buffer, got Mask"),
])  # fmt: skip
def test_transpose_errors(case, match):
    with pytest.raises(CodegenError, match=match) as info:
        bad_transpose[1, rt.current_stream()](np.zeros((4, 64), np.float32), case)
    assert "test_tile_transpose.py" in str(info.value)
