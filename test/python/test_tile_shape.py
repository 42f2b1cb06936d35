"""asc2's shape, creation and memory operations against numpy: reshape,
ravel, expand_dims, squeeze, broadcast_to and the broadcasting of binary
operations, full / full_like / zeros / zeros_like, concat, copy, one-element
tiles stored as scalars, bfloat16 loads and stores with padding; and
list-valued ConstExpr arguments (shapes), whose values key the kernel cache."""

import ml_dtypes
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
import asc2
from asc.errors import LaunchArgumentError

R, C = 4, 32  # the input tile of `shapes`
# where `shapes` stores each result in its output (elements)
PARTS = {"reshape": R * C, "squeeze": C, "bcast_row": R * C, "bcast_one": R * C, "add_row": R * C,
         "mul_one": R * C, "row_sum": C, "concat2": R * C, "concat1": 12, "copy2": 2 * 16, "copy1": 3,
         "full": 16, "full_like": C, "zeros_like": C}  # fmt: skip
AT = np.cumsum([0, *PARTS.values()])[:-1].tolist()
TOTAL = sum(PARTS.values())
OUT_ROWS = TOTAL // C + 3  # the output seen as [OUT_ROWS, C]: its last two rows take the scalar stores


@asc2.jit
def shapes(x_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress, at: asc.ConstExpr, scalar_at: asc.ConstExpr):
    (reshape_at, squeeze_at, bcast_row_at, bcast_one_at, add_row_at, mul_one_at, row_sum_at, concat2_at,
     concat1_at, copy2_at, copy1_at, full_at, full_like_at, zeros_like_at) = at  # fmt: skip
    x_gm = asc2.tensor(x_ptr, [R, C])
    out = asc2.tensor(out_ptr, [OUT_ROWS * C])
    x = asc2.load(x_gm, [R, C], offsets=[0, 0])
    row = asc2.load(x_gm, [1, C], offsets=[1, 0])  # [1, C]
    one = asc2.load(asc2.tensor(x_ptr, [R * C]), [1], offsets=[5])  # a one-element tile
    asc2.store(asc2.ravel(x.reshape([2, 2 * C])), out, offsets=[reshape_at])
    asc2.store(row.squeeze(0), out, offsets=[squeeze_at])
    asc2.store(asc2.broadcast_to(row.squeeze().expand_dims(0), R, C).ravel(), out, offsets=[bcast_row_at])
    asc2.store(one.broadcast_to([R, C]).reshape(R * C), out, offsets=[bcast_one_at])
    asc2.store((x + row.ravel()).ravel(), out, offsets=[add_row_at])  # [R, C] with [C]
    asc2.store(asc2.ravel(one * x), out, offsets=[mul_one_at])  # [1] with [R, C]
    asc2.store(asc2.ravel(row - asc2.ravel(row) * 2), out, offsets=[row_sum_at])  # [1, C] with [C]
    halves = asc2.concat(asc2.copy(x, [2, C], offsets=[2, 0]), asc2.copy(x, [2, C]))  # rows 2, 3, 0, 1
    asc2.store(halves.ravel(), out, offsets=[concat2_at])
    flat = asc2.load(asc2.tensor(x_ptr, [R * C]), [5], offsets=[0])
    asc2.store(asc2.concat(flat, asc2.load(asc2.tensor(x_ptr, [R * C]), [7], offsets=[40])), out,
               offsets=[concat1_at])  # fmt: skip  # the second part starts inside a block
    asc2.store(asc2.copy(x, [2, 16], offsets=[1, 8]).ravel(), out, offsets=[copy2_at])
    asc2.store(asc2.copy(flat, [3], offsets=[1]), out, offsets=[copy1_at])  # not on a block: by elements
    asc2.store(asc2.full([16], 7, x.dtype), out, offsets=[full_at])
    asc2.store(asc2.full_like(row, 3).ravel() + asc2.zeros_like(row.ravel()), out, offsets=[full_like_at])
    asc2.store(asc2.zeros_like(row).ravel(), out, offsets=[zeros_like_at])
    # one-element tiles are stored as scalars: at any offset, into a tensor of any rank
    asc2.store(one, asc2.tensor(out_ptr, [OUT_ROWS, C]), offsets=[OUT_ROWS - 2, scalar_at])
    asc2.store(one * 2, out, offsets=[(OUT_ROWS - 1) * C + scalar_at + 1])
    v = asc2.load(asc2.tensor(x_ptr, [2, 2, C]), offsets=[1, 0, 7])  # scalars at any rank: x[1, 0, 7]
    asc2.store(v, asc2.tensor(out_ptr, [OUT_ROWS, 1, C]), offsets=[OUT_ROWS - 1, 0, scalar_at + 5])


def _expected(x: np.ndarray) -> np.ndarray:
    row, one, flat = x[1], x.ravel()[5], x.ravel()
    parts = {
        "reshape": flat, "squeeze": row, "bcast_row": np.tile(row, R), "bcast_one": np.full(R * C, one),
        "add_row": (x + row).ravel(), "mul_one": (one * x).ravel(), "row_sum": row - row * 2,
        "concat2": np.concatenate([x[2:], x[:2]]).ravel(), "concat1": np.concatenate([flat[:5], flat[40:47]]),
        "copy2": x[1:3, 8:24].ravel(), "copy1": flat[1:4], "full": np.full(16, 7), "full_like": np.full(C, 3),
        "zeros_like": np.zeros(C),
    }  # fmt: skip
    return np.concatenate([np.asarray(parts[k], x.dtype) for k in PARTS])


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_shape_and_creation_ops_match_numpy(dtype):
    rng = np.random.default_rng(7)
    x = rng.integers(-50, 50, (R, C)).astype(dtype) if dtype == np.int32 else rng.standard_normal((R, C)).astype(dtype)
    out = np.full(OUT_ROWS * C, -1, dtype)
    shapes[1, rt.current_stream()](x, out, AT, 3)
    np.testing.assert_array_equal(out[:TOTAL], _expected(x))
    want = np.full((OUT_ROWS - TOTAL // C) * C - TOTAL % C, -1, dtype)
    want[-2 * C + 3], want[-C + 4], want[-C + 8] = x.ravel()[5], x.ravel()[5] * 2, x.ravel()[2 * C + 7]
    np.testing.assert_array_equal(out[TOTAL:], want)


@asc2.jit
def columns(x_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress):
    x = asc2.load(asc2.tensor(x_ptr, [R, C]), [R, C], offsets=[0, 0])
    col = asc2.reduce_max(x, 1).expand_dims(1)  # [R, 1]: a column
    one = asc2.load(asc2.tensor(x_ptr, [R * C]), [1], offsets=[3])
    out = asc2.tensor(out_ptr, [4 * R * C + C])
    asc2.store((x - col).ravel(), out, offsets=[0])  # [R, C] with [R, 1]
    asc2.store((col * x).ravel(), out, offsets=[R * C])
    asc2.store(col.broadcast_to(R, C).ravel(), out, offsets=[2 * R * C])
    asc2.store(asc2.copy(col, [2, 1], offsets=[1, 0]).reshape(2), out, offsets=[3 * R * C])  # rows 1, 2
    asc2.store((col + one + col * 2).squeeze(1), out, offsets=[4 * R * C])  # [R, 1] with [1] and [R, 1]


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_a_column_broadcasts_over_the_columns(dtype):
    x = np.random.default_rng(3).standard_normal((R, C)).astype(dtype)
    out = np.zeros(4 * R * C + C, dtype)
    columns[1, rt.current_stream()](x, out)
    m = x.max(axis=1, keepdims=True)
    want = np.zeros_like(out)
    want[: R * C], want[R * C : 2 * R * C] = (x - m).ravel(), (m * x).ravel()
    want[2 * R * C : 3 * R * C], want[3 * R * C : 3 * R * C + 2] = np.broadcast_to(m, (R, C)).ravel(), m[1:3, 0]
    want[4 * R * C : 4 * R * C + R] = ((m + x.ravel()[3]) + m * dtype(2)).ravel()
    np.testing.assert_array_equal(out, want)


@asc2.jit
def bf16_moves(x_ptr: asc.GlobalAddress, y_ptr: asc.GlobalAddress, n: int, pad: asc.ConstExpr):
    t = asc2.load(asc2.tensor(x_ptr, [n]), [64], offsets=[0], pad_value=pad)
    asc2.store(t, asc2.tensor(y_ptr, [64]), offsets=[0])
    u = asc2.load(asc2.tensor(x_ptr, [3, n // 3]), [2, 16], offsets=[1, 0], pad_value=-pad)
    asc2.store(u, asc2.tensor(y_ptr, [4, 32]), offsets=[2, 0])
    flat = asc2.tensor(y_ptr, [192])
    asc2.store(asc2.concat(asc2.full([16], 2.5, asc.bfloat16), asc2.copy(t, [16], offsets=[16])), flat,
               offsets=[128])  # fmt: skip
    asc2.store(asc2.copy(t, [1], offsets=[3]).broadcast_to(32), flat, offsets=[160])  # bits moved as int16


@pytest.mark.parametrize("n,pad", [(30, 1.5), (48, 1e-3)])
def test_bfloat16_load_store_pads_with_the_rounded_value(n, pad):
    x = np.random.default_rng(n).standard_normal(n).astype(ml_dtypes.bfloat16)
    y = np.zeros(192, ml_dtypes.bfloat16)
    bf16_moves[1, rt.current_stream()](x, y, n, pad)
    want = np.zeros(192, np.float32)
    want[:64] = np.concatenate([x, np.full(64 - n, pad, ml_dtypes.bfloat16)]).astype(np.float32)
    rows = x.reshape(3, n // 3)[1:3].astype(np.float32)
    block = np.full((2, 16), -np.float32(ml_dtypes.bfloat16(pad)), np.float32)
    block[:, : min(16, n // 3)] = rows[:, :16]
    want[64:80], want[96:112] = block  # rows 2 and 3 of a [4, 32] view
    want[128:144], want[144:160], want[160:192] = 2.5, want[16:32], want[3]
    np.testing.assert_array_equal(y.astype(np.float32), want)


@asc2.jit
def sized(x_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress, shape: asc.ConstExpr, scale: asc.ConstExpr):
    t = asc2.load(asc2.tensor(x_ptr, shape), shape, offsets=[0] * len(shape))
    shape.append(99)  # the kernel's own copy: the caller's list, and so the cache key, stay as they were
    asc2.store(t * scale[1][0], asc2.tensor(out_ptr, [shape[0], shape[1]]), offsets=[0, 0])


def test_list_constexpr_values_key_the_kernel_cache():
    x = np.arange(4 * 64, dtype=np.float32)
    run = sized[1, rt.current_stream()]
    for shape, scale in (([2, 64], (1, [3.0])), ([4, 32], (1, [3.0])), ([2, 64], (1, [5.0])),
                         ([2, 64], (1, [3.0]))):  # fmt: skip
        out = np.zeros_like(x)
        run(x, out, shape, scale)
        n = shape[0] * shape[1]
        np.testing.assert_array_equal(out[:n], x[:n] * scale[1][0])
        assert len(shape) == 2
    shape, scale = [1, 64], (0, [2.0])  # lists changed after a launch: the next launch compiles for their values
    run(x, np.zeros_like(x), shape, scale)
    shape[0], scale[1][0] = 3, 4.0
    out = np.zeros_like(x)
    run(x, out, shape, scale)
    np.testing.assert_array_equal(out, np.concatenate([x[: 3 * 64] * 4, np.zeros(64, np.float32)]))
    with pytest.raises(LaunchArgumentError, match="ConstExpr 'scale' must be hashable, or a list or tuple"):
        run(x, out, [1, 64], {"scale": 1.0})


@asc2.jit
def misused(x_ptr: asc.GlobalAddress, case: asc.ConstExpr[int]):
    t = asc2.load(asc2.tensor(x_ptr, [4, 32]), [4, 32], offsets=[0, 0])
    flat = asc2.load(asc2.tensor(x_ptr, [128]), [16], offsets=[0])
    if case == 0:
        asc2.reshape(t, [3, 32])
    elif case == 1:
        t.broadcast_to(8, 16)
    elif case == 2:
        t.squeeze(0)
    elif case == 3:
        asc2.concat(t, flat)
    elif case == 4:
        asc2.concat(t, t.to(asc.float16))
    elif case == 5:
        asc2.copy(t, [2, 32], offsets=[3, 0])
    elif case == 6:
        t + asc2.load(asc2.tensor(x_ptr, [128]), [8], offsets=[0])
    elif case == 7:
        asc2.store(asc2.full([1], 1.0), asc2.tensor(x_ptr, [128]), tile_id=[0])
    elif case == 8:
        asc2.full([8], "one")
    elif case == 9:
        flat.expand_dims(1).to(asc.float16)
    elif case == 10:
        t.expand_dims(2)
    elif case == 11:
        asc2.store(flat.expand_dims(1), asc2.tensor(x_ptr, [16, 1]), offsets=[0, 0])


@pytest.mark.parametrize("case,message", [
    (0, "asc2.reshape: [3, 32] does not hold the 128 elements of Tile([4, 32], float32)"),
    (1, "asc2.broadcast_to: cannot broadcast Tile([4, 32], float32) to [8, 16]"),
    (2, "asc2.squeeze: axis 0 of Tile([4, 32], float32) has length 4, not 1"),
    (3, "asc2.concat: Tile([16], float32) and Tile([4, 32], float32) differ in a dim other than the first"),
    (4, "asc2.concat: dtypes float32 and float16 differ"),
    (5, "asc2.copy: offsets [3, 0] and shape [2, 32] do not lie inside Tile([4, 32], float32)"),
    (6, "asc2.add: shapes [4, 32] and [8] differ and do not broadcast"),
    (7, "asc2.store: a one-element tile is stored as a scalar, at offsets=, not tile_id="),
    (8, "asc2.full: the value is a number or a run-time scalar, got str"),
    (9, "Tile.to: a 2-D tile's last dimension must be a whole number of 32-byte blocks, got 1 x 2 bytes"),
    (10, "asc2.reshape: tiles have 1 or 2 dimensions, got 3"),
    (11, "asc2.store: a 2-D tile's last dimension must be a whole number of 32-byte blocks, got 1 x 4 bytes"),
])  # fmt: skip
def test_misuse_is_a_codegen_error(case, message):
    with pytest.raises(asc.CodegenError) as info:
        misused[1, rt.current_stream()](np.zeros(128, np.float32), case)
    assert message in str(info.value) and "test_tile_shape.py" in str(info.value)


def _doubled(x_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress, shape: asc.ConstExpr):
    t = asc2.load(asc2.tensor(x_ptr, shape), shape, offsets=[0, 0])
    asc2.store(t * 2.0, asc2.tensor(out_ptr, shape), offsets=[0, 0])


def test_list_constexpr_values_key_the_disk_cache(tmp_path, monkeypatch):
    from asc.runtime import disk_cache

    monkeypatch.setenv("PYASC_CACHE_DIR", str(tmp_path))
    x = np.arange(256, dtype=np.float32)
    for shape, hit in (([1, 64], False), ([1, 64], True), ([2, 64], False), ([[1, 64]][0], True)):
        hits = disk_cache.stats["hits"]
        out = np.zeros_like(x)
        asc2.jit(_doubled)[1, rt.current_stream()](x, out, shape)  # a new function: nothing in memory
        n = shape[0] * shape[1]
        np.testing.assert_array_equal(out, np.concatenate([x[:n] * 2, np.zeros(256 - n, np.float32)]))
        assert (disk_cache.stats["hits"] > hits) == hit
