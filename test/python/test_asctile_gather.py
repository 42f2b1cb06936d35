"""asctile.gather / asctile.scatter against numpy: rows of 2-D and 3-D tensors at an index tile's positions
(int32, int16 and int8 indices), float32 / float16 / int32 / bfloat16 data, rows that are not whole 32-byte
blocks (padded with pad_value), out-of-range and negative indices (pad_value rows for gather, skipped rows for
scatter), num_indices at run time, an offset on the indexed dim, repeated scatter indices (the later row
stays), check_bounds=False on valid indices, and the errors."""

import ml_dtypes
import numpy as np
import pytest

import asc.experimental.asctile as asctile
import asc.lib.runtime as rt
from asc.errors import CodegenError, OutOfBoundsError


@asctile.jit
def gathered(src_ptr: asctile.GlobalAddress, idx_ptr: asctile.GlobalAddress, out_ptr: asctile.GlobalAddress,
             rows: int, plane: int, row0: int, count: int, n: asctile.ConstExpr[int], cols: asctile.ConstExpr[int],
             width: asctile.ConstExpr[int], pad: asctile.ConstExpr[float], three_d: asctile.ConstExpr[bool],
             checked: asctile.ConstExpr[bool]):  # fmt: skip
    index = asctile.copy_in(asctile.global_tensor(idx_ptr, [n]), [0], [n])
    if three_d:  # plane `plane` of a [2, rows, cols] tensor, dim 1
        src = asctile.global_tensor(src_ptr, [2, rows, cols])
        tile = asctile.gather(src, [plane, row0], 1, index, check_bounds=checked, num_indices=count, pad_value=pad)
    else:
        src = asctile.global_tensor(src_ptr, [rows, cols])
        tile = asctile.gather(src, [row0], 0, index, check_bounds=checked, num_indices=count, pad_value=pad)
    asctile.static_assert(tile.shape[0] == n and tile.shape[1] == width, "the result's shape")
    asctile.copy_out(tile, asctile.global_tensor(out_ptr, [n, width]), [0, 0])


def _gather_expected(src, idx, row0, count, pad, width):
    rows, cols = src.shape
    out = np.full((len(idx), width), pad, src.dtype)
    for i, k in enumerate(idx[:count]):
        r = row0 + int(k)
        if 0 <= r < rows:
            out[i, :cols] = src[r]
    return out


GATHER = [  # dtype, index dtype, rows, cols, n, row0, count, pad, three_d
    (np.float32, np.int32, 50, 24, 16, 0, 16, -1.0, False),
    (np.float32, np.int32, 37, 13, 24, 5, 20, 0.0, False),  # rows of 52 bytes, an offset, num_indices 20
    (np.float16, np.int16, 64, 40, 32, 0, 32, 7.0, True),
    (np.int32, np.int8, 20, 8, 128, 3, 128, 0.0, False),  # (an int8 tile is loaded whole: 128 of them)
    (ml_dtypes.bfloat16, np.int32, 30, 16, 16, 0, 9, -2.0, True),
]


@pytest.mark.parametrize("dtype,idx_dtype,rows,cols,n,row0,count,pad,three_d", GATHER)
def test_gather(dtype, idx_dtype, rows, cols, n, row0, count, pad, three_d):
    rng = np.random.default_rng(rows * cols)
    planes = (rng.normal(size=(2, rows, cols)) * 20).astype(dtype)
    idx = rng.integers(-3, rows + 3, n).astype(idx_dtype)  # some out of range, some negative
    idx[:2] = [0, rows - 1 - row0]
    width = -(-cols * np.dtype(dtype).itemsize // 32) * 32 // np.dtype(dtype).itemsize
    out = np.zeros((n, width), dtype)
    src = planes if three_d else planes[1]
    gathered[1, rt.current_stream()](src, idx, out, rows, 1, row0, count, n, cols, width, pad, three_d, True)
    expected = _gather_expected(planes[1], idx, row0, count, pad, width)
    np.testing.assert_array_equal(out.view(np.uint8), expected.view(np.uint8))


def test_gather_unchecked_on_valid_indices_and_out_of_bounds_on_the_model():
    rng = np.random.default_rng(9)
    src = rng.normal(size=(40, 16)).astype(np.float32)
    idx = rng.permutation(40)[:16].astype(np.int32)
    out = np.zeros((16, 16), np.float32)
    gathered[1, rt.current_stream()](src, idx, out, 40, 0, 0, 16, 16, 16, 16, 0.0, False, False)
    np.testing.assert_array_equal(out, src[idx])
    idx[3] = 1000  # no bounds check: the read past the tensor is the Model's error
    with pytest.raises(OutOfBoundsError, match=r"past the end of a tensor of 640 elements"):
        gathered[1, rt.current_stream()](src, idx, out, 40, 0, 0, 16, 16, 16, 16, 0.0, False, False)


@asctile.jit
def scattered(src_ptr: asctile.GlobalAddress, idx_ptr: asctile.GlobalAddress, dst_ptr: asctile.GlobalAddress,
              rows: int, row0: int, count: int, n: asctile.ConstExpr[int], cols: asctile.ConstExpr[int],
              width: asctile.ConstExpr[int], three_d: asctile.ConstExpr[bool]):  # fmt: skip
    index = asctile.copy_in(asctile.global_tensor(idx_ptr, [n]), [0], [n])
    data = asctile.copy_in(asctile.global_tensor(src_ptr, [n, width]), [0, 0], [n, width])
    if three_d:
        dst = asctile.global_tensor(dst_ptr, [2, rows, cols])
        asctile.scatter(data + 1, 1, index, dst, [1, row0], num_indices=count)
    else:
        dst = asctile.global_tensor(dst_ptr, [rows, cols])
        asctile.scatter(data + 1, 0, index, dst, [row0], num_indices=count)


SCATTER = [  # dtype, index dtype, rows, cols, n, row0, count, three_d
    (np.float32, np.int32, 50, 24, 16, 0, 16, False),
    (np.float32, np.int16, 37, 13, 24, 4, 21, False),  # rows of 52 bytes: only 13 elements written per row
    (np.float16, np.int32, 64, 48, 32, 0, 32, True),
    (np.int32, np.int8, 20, 8, 128, 2, 128, False),
]


@pytest.mark.parametrize("dtype,idx_dtype,rows,cols,n,row0,count,three_d", SCATTER)
def test_scatter(dtype, idx_dtype, rows, cols, n, row0, count, three_d):
    rng = np.random.default_rng(rows + cols)
    width = -(-cols * np.dtype(dtype).itemsize // 32) * 32 // np.dtype(dtype).itemsize
    data = (rng.normal(size=(n, width)) * 20).astype(dtype)
    idx = rng.integers(-3, rows + 3, n).astype(idx_dtype)
    idx[:3] = [5, 5, 0]  # a repeated index: the later row stays
    dst = (rng.normal(size=(2, rows, cols)) * 20).astype(dtype)
    expected = dst.copy()
    for i, k in enumerate(idx[:count]):
        if 0 <= row0 + int(k) < rows:
            expected[1, row0 + int(k)] = data[i, :cols] + dtype(1)
    target = dst if three_d else dst[1].copy()
    scattered[1, rt.current_stream()](data, idx, target, rows, row0, count, n, cols, width, three_d)
    np.testing.assert_array_equal(target if three_d else np.stack([dst[0], target]), expected)


@asctile.jit
def misuse(x_ptr: asctile.GlobalAddress, case: asctile.ConstExpr[int]):
    x2 = asctile.global_tensor(x_ptr, [8, 16])
    index = asctile.copy_in(asctile.global_tensor(x_ptr, [128]), [0], [8]).to(asctile.int32)
    tile = asctile.copy_in(x2, [0, 0], [8, 16])
    if case == 0:
        asctile.gather(x2, [0, 0], 1, index)
    elif case == 1:
        asctile.gather(x2, [0], 0, tile)
    elif case == 2:
        asctile.gather(x2, [0, 0], 0, index)
    elif case == 3:
        asctile.scatter(tile, 1, index, x2, [0, 0])
    elif case == 4:
        asctile.scatter(tile.to(asctile.float16), 0, index, x2, [0])
    elif case == 5:
        asctile.gather(asctile.global_tensor(x_ptr, [2, 2, 4, 8]), [0, 0], 1, index)
    elif case == 6:
        asctile.scatter(tile, 0, asctile.zeros([16], asctile.int32), x2, [0])


@pytest.mark.parametrize("case,match", [
    (0, r"asctile\.gather along the last dimension is not implemented"),
    (1, r"asctile\.gather: index is a 1-D tile of the Unified Buffer, got Tile\(\[8, 16\], float32\)"),
    (2, r"asctile\.gather: 2 offsets for dim 0: give dim \+ 1 = 1"),
    (3, r"asctile\.scatter along the last dimension is not implemented"),
    (4, r"asctile\.scatter: 'src' and 'dst' have different data types: float16 and float32"),
    (5, r"dim 1 of a 4-D tensor makes a 3-D tile"),
    (6, r"asctile\.scatter: 16 indices for the 8 rows of Tile\(\[8, 16\], float32\)"),
])  # fmt: skip
def test_gather_scatter_errors(case, match):
    with pytest.raises(CodegenError, match=match) as info:
        misuse[1, rt.current_stream()](np.zeros(128, np.float32), case)
    assert "test_asctile_gather.py" in str(info.value)
    if case in (0, 3):
        assert isinstance(info.value, NotImplementedError)
