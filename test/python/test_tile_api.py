"""The asc2 tile API against numpy: loads and stores with tails and padding
(1-D and 2-D, offsets and tile_id), arithmetic with tiles and scalars on
either side, math functions, reductions, creation, conversions, loop-carried
tiles, and the errors for misuse, each naming the kernel's line."""

from typing import Any

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
import asc2


@asc2.jit
def vadd(x_ptr: asc.GlobalAddress, y_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress, size: int,
         tile: asc.ConstExpr[int], per_block: asc.ConstExpr[int]):  # fmt: skip
    x_gm = asc2.tensor(x_ptr, [size])
    y_gm = asc2.tensor(y_ptr, [size])
    out_gm = asc2.tensor(out_ptr, [size])
    base = asc2.block_idx() * tile * per_block
    for i in range(per_block):
        offset = base + i * tile
        x = asc2.load(x_gm, [tile], offsets=[offset])
        y = asc2.load(y_gm, [tile], offsets=[offset])
        asc2.store(x + y, out_gm, offsets=[offset])


@pytest.mark.parametrize("size,tile,cores", [(8192, 128, 16), (1000, 128, 4), (77, 32, 3), (5, 8, 2)])
def test_vector_add_with_tails(size, tile, cores, rng):
    x = rng.random(size, dtype=np.float32)
    y = rng.random(size, dtype=np.float32)
    out = np.full(size + 8, -7, np.float32)  # past `size` nothing is written
    per_block = asc.ceildiv(asc.ceildiv(size, tile), cores)
    vadd[cores, rt.current_stream()](x, y, out[:size], size, tile, per_block)
    np.testing.assert_array_equal(out[:size], x + y)
    np.testing.assert_array_equal(out[size:], -7)


@asc2.jit
def row_softmax(x_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress, rows: int, cols: int,
                tile: asc.ConstExpr[int]):  # fmt: skip
    x_gm = asc2.tensor(x_ptr, [rows, cols])
    out_gm = asc2.tensor(out_ptr, [rows, cols])
    for i in range(asc2.block_idx(), rows, asc2.block_num(), parallel=True):
        row = asc2.load(x_gm, [1, tile], offsets=[i, 0], pad_value=float("-inf"))
        numerator = asc2.exp(row - asc2.reduce_max(row))
        asc2.store(numerator / asc2.reduce_sum(numerator), out_gm, offsets=[i, 0])


@pytest.mark.parametrize("rows,cols,tile", [(64, 1024, 1024), (37, 96, 128), (5, 8, 64)])
def test_row_softmax(rows, cols, tile, rng):
    x = rng.normal(0, 2, (rows, cols)).astype(np.float32)
    out = np.zeros_like(x)
    row_softmax[8, rt.current_stream()](x, out, rows, cols, tile)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=2e-6, atol=1e-7)


@asc2.jit
def window(x_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress, h: int, w: int, r0: int, c0: int,
           th: asc.ConstExpr[int], tw: asc.ConstExpr[int], pad: asc.ConstExpr[float]):  # fmt: skip
    """A th x tw tile of x at (r0, c0), padded with `pad` outside x, stored at tile_id (1, 1) of a
    (2 th) x (2 tw) output."""
    x_gm = asc2.tensor(x_ptr, [h, w])
    out_gm = asc2.tensor(out_ptr, [2 * th, 2 * tw])
    t = asc2.load(x_gm, [th, tw], offsets=[r0, c0], pad_value=pad)
    asc2.store(t, out_gm, tile_id=[1, 1])


@pytest.mark.parametrize("r0,c0", [(0, 0), (3, 5), (9, 17), (12, 30), (20, 40)])
def test_2d_tiles_are_padded_on_load_and_clipped_on_store(r0, c0, rng):
    h, w, th, tw = 13, 33, 4, 16
    x = rng.random((h, w), dtype=np.float32)
    out = np.full((2 * th, 2 * tw), -1, np.float32)
    window[1, rt.current_stream()](x, out, h, w, r0, c0, th, tw, 9.5)
    want_tile = np.full((th, tw), 9.5, np.float32)
    part = x[r0 : r0 + th, c0 : c0 + tw]
    want_tile[: part.shape[0], : part.shape[1]] = part
    want = np.full_like(out, -1)
    want[th:, tw:] = want_tile
    np.testing.assert_array_equal(out, want)


@asc2.jit
def corner_store(x_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress, h: int, w: int):
    """A 4 x 16 tile stored over the bottom-right corner of an h x w array: only what lies inside is written."""
    x_gm = asc2.tensor(x_ptr, [4, 16])
    out_gm = asc2.tensor(out_ptr, [h, w])
    asc2.store(asc2.load(x_gm, [4, 16], offsets=[0, 0]), out_gm, offsets=[h - 2, w - 5])


def test_a_2d_store_writes_only_inside_the_tensor(rng):
    x = rng.random((4, 16), dtype=np.float32)
    h, w = 6, 21
    backing = np.full(h * w + 16, -3, np.float32)
    corner_store[1, rt.current_stream()](x, backing[: h * w], h, w)
    want = np.full((h, w), -3, np.float32)
    want[h - 2 :, w - 5 :] = x[:2, :5]
    np.testing.assert_array_equal(backing[: h * w].reshape(h, w), want)
    np.testing.assert_array_equal(backing[h * w :], -3)


BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "maximum": np.maximum,
    "minimum": np.minimum,
}


@asc2.jit
def binary(x_ptr: asc.GlobalAddress, y_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress, s: float,
           n: asc.ConstExpr[int], op: asc.ConstExpr, form: asc.ConstExpr[str]):  # fmt: skip
    x_gm, y_gm = asc2.tensor(x_ptr, [n]), asc2.tensor(y_ptr, [n])
    out_gm = asc2.tensor(out_ptr, [3 * n])
    x = asc2.load(x_gm, [n], offsets=[0])
    y = asc2.load(y_gm, [n], offsets=[0])
    if form == "+":  # the operators, with a run-time scalar on either side
        asc2.store(x + y, out_gm, offsets=[0])
        asc2.store(x + s, out_gm, offsets=[n])
        asc2.store(s + y, out_gm, offsets=[2 * n])
    elif form == "-":
        asc2.store(x - y, out_gm, offsets=[0])
        asc2.store(x - s, out_gm, offsets=[n])
        asc2.store(s - y, out_gm, offsets=[2 * n])
    elif form == "*":
        asc2.store(x * y, out_gm, offsets=[0])
        asc2.store(x * s, out_gm, offsets=[n])
        asc2.store(s * y, out_gm, offsets=[2 * n])
    elif form == "/":
        asc2.store(x / y, out_gm, offsets=[0])
        asc2.store(x / s, out_gm, offsets=[n])
        asc2.store(s / y, out_gm, offsets=[2 * n])
    else:
        asc2.store(op(x, y), out_gm, offsets=[0])
        asc2.store(op(x, 2), out_gm, offsets=[n])  # a Python number takes the tile's dtype
        asc2.store(op(3, y), out_gm, offsets=[2 * n])


# division is for float tiles (int32 is an error, tested below)
BINARY_CASES = [(name, dtype) for name in BINARY for dtype in (np.float32, np.float16, np.int32)
                if not (name == "div" and dtype == np.int32)]  # fmt: skip


@pytest.mark.parametrize("name,dtype", BINARY_CASES, ids=[f"{n}-{np.dtype(d).name}" for n, d in BINARY_CASES])
def test_binary_ops_with_tiles_and_scalars(name, dtype, rng):
    n = 40
    x = (rng.random(n) * 20 - 10).astype(dtype)
    y = (rng.random(n) * 20 - 10).astype(dtype)
    y[y == 0] = 1
    out = np.zeros(3 * n, dtype)
    binary[1, rt.current_stream()](x, y, out, 1.5, n, getattr(asc2, name), "functions")
    f = BINARY[name]
    want = np.concatenate([f(x, y), f(x, dtype(2)), f(dtype(3), y)]).astype(dtype)
    np.testing.assert_allclose(out, want, rtol=1e-3 if dtype == np.float16 else 1e-6)


@pytest.mark.parametrize("name,form", [("add", "+"), ("sub", "-"), ("mul", "*"), ("div", "/")])
def test_operators_with_a_run_time_scalar(name, form, rng):
    n = 24
    x = rng.random(n, dtype=np.float32) + 0.5
    y = rng.random(n, dtype=np.float32) + 0.5
    out = np.zeros(3 * n, np.float32)
    binary[1, rt.current_stream()](x, y, out, 1.5, n, None, form)
    f = BINARY[name]
    want = np.concatenate([f(x, y), f(x, np.float32(1.5)), f(np.float32(1.5), y)])
    np.testing.assert_array_equal(out, want)


UNARY = {
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "rsqrt": lambda v: 1 / np.sqrt(v),
    "abs": np.abs,
    "relu": lambda v: np.maximum(v, 0),
    "negative": np.negative,
}


@asc2.jit
def unary(x_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress, n: asc.ConstExpr[int], op: asc.ConstExpr):
    x_gm, out_gm = asc2.tensor(x_ptr, [n]), asc2.tensor(out_ptr, [n])
    asc2.store(op(asc2.load(x_gm, [n], offsets=[0])), out_gm, offsets=[0])


@pytest.mark.parametrize("name", list(UNARY))
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_math_functions(name, dtype, rng):
    n = 100
    x = (rng.random(n) * 4 + 0.1).astype(dtype)
    if name in ("abs", "relu", "negative"):
        x = x - dtype(2)
    out = np.zeros(n, dtype)
    unary[1, rt.current_stream()](x, out, n, getattr(asc2, name))
    want = UNARY[name](x.astype(np.float64))
    np.testing.assert_allclose(out, want, rtol=2e-3 if dtype == np.float16 else 2e-6, atol=1e-6)


@asc2.jit
def reductions(x_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress, rows: asc.ConstExpr[int],
               cols: asc.ConstExpr[int]):  # fmt: skip
    """Out: sum, max, min of all; then the column sums / maxes / mins (dim 0); then the row sums / maxes /
    mins (dim 1)."""
    x_gm = asc2.tensor(x_ptr, [rows, cols])
    out_gm = asc2.tensor(out_ptr, [3 + 3 * cols + 3 * rows])
    t = asc2.load(x_gm, [rows, cols], offsets=[0, 0])
    asc2.store(asc2.reduce_sum(t), out_gm, offsets=[0])
    asc2.store(t.max(), out_gm, offsets=[1])
    asc2.store(asc2.reduce_min(t), out_gm, offsets=[2])
    asc2.store(asc2.reduce_sum(t, 0), out_gm, offsets=[3])
    asc2.store(asc2.reduce_max(t, 0, keep_dims=True).reshape(cols), out_gm, offsets=[3 + cols])
    asc2.store(t.min(-2), out_gm, offsets=[3 + 2 * cols])
    asc2.store(asc2.reduce_sum(t, 1), out_gm, offsets=[3 + 3 * cols])
    asc2.store(asc2.reduce_max(t, 1), out_gm, offsets=[3 + 3 * cols + rows])
    asc2.store(t.min(1), out_gm, offsets=[3 + 3 * cols + 2 * rows])


@pytest.mark.parametrize("rows,cols", [(8, 64), (3, 136), (1, 8)])
def test_reductions_whole_and_along_each_axis(rows, cols, rng):
    x = rng.integers(-100, 100, (rows, cols)).astype(np.float32)  # integers: every order sums exactly
    out = np.zeros(3 + 3 * cols + 3 * rows, np.float32)
    reductions[1, rt.current_stream()](x, out, rows, cols)
    want = np.concatenate([[x.sum(), x.max(), x.min()], x.sum(0), x.max(0), x.min(0), x.sum(1), x.max(1),
                           x.min(1)])  # fmt: skip
    np.testing.assert_array_equal(out, want)


@asc2.jit
def running_sum(x_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress, n: int, tile: asc.ConstExpr[int]):
    """The sum of x's tiles (a loop-carried tile), then its elements' total as a scalar."""
    x_gm = asc2.tensor(x_ptr, [n])
    out_gm = asc2.tensor(out_ptr, [tile + 1])
    acc = asc2.zeros([tile], asc.float32)
    for i in range((n + tile - 1) // tile):
        acc = acc + asc2.load(x_gm, [tile], offsets=[i * tile])
    asc2.store(acc, out_gm, offsets=[0])
    asc2.store(acc.sum(), out_gm, offsets=[tile])


def test_a_tile_assigned_in_a_loop_carries_its_value(rng):
    n, tile = 1000, 64
    x = rng.integers(-9, 10, n).astype(np.float32)
    out = np.zeros(tile + 1, np.float32)
    running_sum[1, rt.current_stream()](x, out, n, tile)
    padded = np.zeros(16 * tile, np.float32)
    padded[:n] = x
    columns = padded.reshape(-1, tile).sum(0)
    np.testing.assert_array_equal(out, np.concatenate([columns, [columns.sum()]]))


@asc2.jit
def conversions(x_ptr: asc.GlobalAddress, h_ptr: asc.GlobalAddress, i_ptr: asc.GlobalAddress,
                f_ptr: asc.GlobalAddress, n: asc.ConstExpr[int]):  # fmt: skip
    x = asc2.load(asc2.tensor(x_ptr, [n]), [n], offsets=[0])
    h = x.to(asc.float16)
    asc2.store(h, asc2.tensor(h_ptr, [n]), offsets=[0])
    i = x.to(asc.int32)
    asc2.store(i, asc2.tensor(i_ptr, [n]), offsets=[0])
    asc2.store(h.to(asc.float32) + i.to(asc.float32), asc2.tensor(f_ptr, [n]), offsets=[0])


def test_conversions_round_like_numpy(rng):
    n = 64
    x = (rng.random(n) * 200 - 100).astype(np.float32)
    h, i, f = np.zeros(n, np.float16), np.zeros(n, np.int32), np.zeros(n, np.float32)
    conversions[1, rt.current_stream()](x, h, i, f, n)
    np.testing.assert_array_equal(h, x.astype(np.float16))
    np.testing.assert_array_equal(i, x.astype(np.int32))  # towards zero
    np.testing.assert_array_equal(f, x.astype(np.float16).astype(np.float32) + x.astype(np.int32).astype(np.float32))


@asc2.jit
def filled(out_ptr: asc.GlobalAddress, at: int, value: float):
    out_gm = asc2.tensor(out_ptr, [48])
    asc2.store(asc2.full([16], value, asc.float32), out_gm, offsets=[0])
    asc2.store(asc2.zeros([16], asc.float32) + 2.5, out_gm, offsets=[16])
    asc2.store(asc2.full([16], 4.0), out_gm, offsets=[32])
    asc2.store(asc2.load(out_gm, offsets=[at]) * 10.0, out_gm, offsets=[47])  # scalar load and store


def test_full_zeros_and_scalar_access():
    out = np.zeros(48, np.float32)
    filled[1, rt.current_stream()](out, 20, -1.25)
    want = np.concatenate([np.full(16, -1.25), np.full(16, 2.5), np.full(16, 4.0)]).astype(np.float32)
    want[47] = 25.0
    np.testing.assert_array_equal(out, want)


def _error_of(kernel, *args):
    with pytest.raises(asc.CodegenError) as info:
        kernel[1, rt.current_stream()](*args)
    return str(info.value)


@asc2.jit
def mismatched(x_ptr: asc.GlobalAddress, case: asc.ConstExpr[int]):
    t = asc2.tensor(x_ptr, [64])
    a = asc2.load(t, [32], offsets=[0])
    if case == 0:
        a + asc2.load(t, [16], offsets=[0])
    elif case == 1:
        asc2.load(asc2.tensor(x_ptr, [8, 8]), [2, 3], offsets=[0, 0])
    elif case == 2:
        asc2.store(a.to(asc.float16), t, offsets=[0])
    elif case == 3:
        asc2.load(t, [2, 8], offsets=[0, 0])
    elif case == 4:
        asc2.reduce_sum(a, 2)
    elif case == 5:
        asc2.load(t, [8])
    elif case == 6:
        asc2.load(asc2.tensor(x_ptr, [8, 8]), [2, 8], offsets=[0, 0]).sum(1, keep_dims=True)
    elif case == 7:
        b = asc2.zeros([32], asc.float32)
        for _ in range(2):
            b = asc2.zeros([16], asc.float32)
    elif case == 8:
        asc2.load(asc2.tensor(x_ptr.reinterpret(asc.int32), [64]), [8], offsets=[0]) / 2
    elif case == 9:
        x = asc2.exp(asc2.load(asc2.tensor(x_ptr.reinterpret(asc.int32), [64]), [8], offsets=[0]))


@pytest.mark.parametrize(
    "case,message",
    [
        (0, "asc2.add: shapes [32] and [16] differ"),
        (1, "a 2-D tile's last dimension must be a whole number of 32-byte blocks, got 3 x 4 bytes"),
        (2, "asc2.store: a float16 tile into a float32 tensor; convert it with .to(asc.float32) first"),
        (3, "asc2.load: a 2-D tile from a 1-D tensor"),
        (4, "asc2.reduce_sum: dims are ints in [-1, 0], got 2"),
        (5, "asc2.load: give exactly one of offsets= and tile_id="),
        (6, "keep_dims along the last axis"),
        (7, "'b' holds a Tile([32], float32) across a loop or run-time if; it cannot become a Tile([16], float32)"),
        (8, "asc2.div: float16 and float32 tiles only, got int32"),
        (9, "asc2.exp: float16, bfloat16 and float32 tiles only, got int32"),
    ],
)
def test_misuse_is_a_codegen_error_at_the_kernels_line(case, message):
    text = _error_of(mismatched, np.zeros(64, np.float32), case)
    assert message in text
    assert "test_tile_api.py" in text


@asc2.jit
def hinted(x_ptr: asc.GlobalAddress, n: int, hint: asc.ConstExpr[int]):
    t = asc2.tensor(x_ptr, [n])
    if hint == 0:
        for i in range(n, unroll_factor=4, parallel=False):
            asc2.store(asc2.load(t, offsets=[i]) + 1.0, t, offsets=[i])
    elif hint == 1:
        for _ in range(n, unroll_factor=0):
            pass
    else:
        for _ in range(n, schedule="fast"):
            pass


def test_range_takes_only_the_scheduling_hints():
    x = np.arange(5, dtype=np.float32)
    hinted[1, rt.current_stream()](x, 5, 0)
    np.testing.assert_array_equal(x, np.arange(5) + 1)  # the loop runs as written
    for hint, shown in ((1, "unroll_factor=0"), (2, "schedule='fast'")):
        text = _error_of(hinted, x, 5, hint)
        assert "range() takes parallel=<bool> and unroll_factor=<positive int> only" in text and shown in text


@asc2.jit
def reversed_tiles(x_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress, tiles: int, start: int, step: int):
    """Tile i of x, doubled, into tile i of out, for i in range(start, -1, step): a loop built in pairs
    (double buffering) with a run-time trip count and step, odd, even or empty."""
    x_gm = asc2.tensor(x_ptr, [tiles * 16])
    out_gm = asc2.tensor(out_ptr, [tiles * 16])
    for i in range(start, -1, step):
        asc2.store(asc2.load(x_gm, [16], tile_id=[i]) * 2.0, out_gm, tile_id=[i])


@pytest.mark.parametrize("start,step", [(6, -1), (6, -2), (5, -2), (0, -1), (-1, -1), (6, -7)])
def test_loops_built_in_pairs_run_every_iteration_once(start, step, rng):
    tiles = 7
    x = rng.random(tiles * 16, dtype=np.float32)
    out = np.full(tiles * 16, -1, np.float32)
    reversed_tiles[1, rt.current_stream()](x, out, tiles, start, step)
    want = np.full(tiles * 16, -1, np.float32)
    for i in range(start, -1, step):
        want[i * 16 : (i + 1) * 16] = x[i * 16 : (i + 1) * 16] * 2
    np.testing.assert_array_equal(out, want)


@asc2.jit
def large(x_ptr: asc.GlobalAddress, y_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress, s_ptr: asc.GlobalAddress,
          n: int, size: asc.ConstExpr[int]):  # fmt: skip
    """Tiles of `size` elements, more than the Unified Buffer holds: computed and stored in chunks."""
    x_gm, y_gm, out_gm = asc2.tensor(x_ptr, [n]), asc2.tensor(y_ptr, [n]), asc2.tensor(out_ptr, [n])
    x = asc2.load(x_gm, [size], offsets=[0])
    y = asc2.load(y_gm, [size], offsets=[0])
    asc2.store(asc2.exp(x - y) * 2.0 + 1.0, out_gm, offsets=[0])
    s_gm = asc2.tensor(s_ptr, [4])
    asc2.store(asc2.reduce_sum(x), s_gm, offsets=[0])
    asc2.store(y.max(), s_gm, offsets=[1])
    asc2.store(asc2.reduce_min(x - y), s_gm, offsets=[2])
    asc2.store(asc2.softmax(x).sum(), s_gm, offsets=[3])


@pytest.mark.parametrize("n,size", [(100003, 100003), (70000, 65536), (50000, 60000)])
def test_tiles_larger_than_the_unified_buffer_are_split(n, size, rng):
    x = rng.integers(-3, 4, n).astype(np.float32)
    y = rng.integers(-3, 4, n).astype(np.float32)
    out = np.full(n, -1, np.float32)
    sums = np.zeros(4, np.float32)
    large[1, rt.current_stream()](x, y, out, sums, n, size)
    m = min(n, size)  # a tile past the tensor's end reads padding (0) and writes nothing there
    want = np.full(n, -1, np.float32)
    want[:m] = np.exp(x[:m] - y[:m]) * 2 + 1
    np.testing.assert_allclose(out, want, rtol=1e-6)
    xp, yp = np.zeros(size, np.float32), np.zeros(size, np.float32)
    xp[:m], yp[:m] = x[:m], y[:m]
    assert sums[:3].tolist() == [xp.sum(), yp.max(), (xp - yp).min()]
    assert sums[3] == pytest.approx(1.0, rel=1e-4)


@asc2.jit
def large_rows(x_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress, rows: asc.ConstExpr[int],
               cols: asc.ConstExpr[int], case: asc.ConstExpr[int]):  # fmt: skip
    x_gm, out_gm = asc2.tensor(x_ptr, [rows, cols]), asc2.tensor(out_ptr, [rows, cols])
    t = asc2.load(x_gm, [rows, cols], offsets=[0, 0])
    if case == 0:
        asc2.store(t * t - 1.0, out_gm, offsets=[0, 0])
    elif case == 1:
        asc2.reduce_sum(t, 0)
    elif case == 2:
        for _ in range(2):
            t = t + 1.0
    elif case == 3:
        asc2.softmax(t)


def test_a_large_2d_tile_is_split_by_rows(rng):
    x = rng.random((300, 136), dtype=np.float32)
    out = np.zeros_like(x)
    large_rows[1, rt.current_stream()](x, out, 300, 136, 0)
    np.testing.assert_array_equal(out, x * x - 1)


@pytest.mark.parametrize(
    "rows,cols,case,message",
    [
        (300, 136, 1, "asc2.reduce_sum along an axis of Tile([300, 136], float32, split)"),
        (300, 136, 2, "cannot be carried across a loop or run-time if"),
        (300, 136, 3, "asc2.softmax of Tile([300, 136], float32, split)"),
        (4, 8192, 0, "its rows of 8192 elements too long to split it by rows"),
    ],
)
def test_what_split_tiles_do_not_support_is_an_error(rows, cols, case, message):
    text = _error_of(large_rows, np.zeros((rows, cols), np.float32), np.zeros((rows, cols), np.float32), rows, cols,
                     case)  # fmt: skip
    assert message in text and "test_tile_api.py" in text


@asc2.jit
def branchy(x_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress, rows: int, tiles: asc.ConstExpr[int]):
    """Loads in a run-time if and in an inner loop of a loop built in pairs: row r's tiles doubled when r is
    even, plus one when odd, then the row's first tile added to each."""
    x_gm = asc2.tensor(x_ptr, [rows, tiles * 32])
    out_gm = asc2.tensor(out_ptr, [rows, tiles * 32])
    for r in range(rows):
        first = asc2.load(x_gm, [1, 32], offsets=[r, 0])
        for j in range(tiles):
            t = asc2.load(x_gm, [1, 32], offsets=[r, j * 32])
            if r % 2 == 0:
                asc2.store(t * 2.0 + first, out_gm, offsets=[r, j * 32])
            else:
                asc2.store(asc2.load(x_gm, [1, 32], offsets=[r, j * 32]) + 1.0 + first, out_gm, offsets=[r, j * 32])


@pytest.mark.parametrize("rows", [1, 4, 5])
def test_loads_in_nested_regions_of_a_loop_built_in_pairs(rows, rng):
    tiles = 3
    x = rng.integers(-9, 10, (rows, tiles * 32)).astype(np.float32)
    out = np.zeros_like(x)
    branchy[1, rt.current_stream()](x, out, rows, tiles)
    first = np.tile(x[:, :32], tiles)
    want = np.where((np.arange(rows) % 2 == 0)[:, None], x * 2 + first, x + 1 + first)
    np.testing.assert_array_equal(out, want)


@asc2.jit
def selections(x_ptr: asc.GlobalAddress, y_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress,
               n: asc.ConstExpr[int]):  # fmt: skip
    x_gm, y_gm, out_gm = asc2.tensor(x_ptr, [n]), asc2.tensor(y_ptr, [n]), asc2.tensor(out_ptr, [6 * n])
    x = asc2.load(x_gm, [n], offsets=[0])
    y = asc2.load(y_gm, [n], offsets=[0])
    asc2.store(asc2.where(x > y, x, y), out_gm, offsets=[0])
    asc2.store(asc2.where(x < 0.5, 0.0, x), out_gm, offsets=[n])
    asc2.store(asc2.where(0.25 >= x, x, -1.0), out_gm, offsets=[2 * n])  # a scalar on the left: x <= 0.25
    asc2.store(asc2.where(x == y, 1.0, 0.0), out_gm, offsets=[3 * n])  # two scalars: x's dtype
    asc2.store(asc2.where(asc2.not_equal(x, y), x * 2.0, y), out_gm, offsets=[4 * n])
    asc2.store(asc2.where(asc2.less_equal(x, y), x, y) + asc2.where(asc2.greater_equal(x, y), 0.0, 1.0), out_gm,
               offsets=[5 * n])  # fmt: skip


@pytest.mark.parametrize("n", [40, 200, 70000])  # 70000: split tiles, compared chunk by chunk
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_comparisons_and_where(n, dtype, rng):
    x = rng.random(n).astype(dtype)
    y = rng.random(n).astype(dtype)
    y[::7] = x[::7]
    out = np.zeros(6 * n, dtype)
    selections[1, rt.current_stream()](x, y, out, n)
    one, zero = dtype(1), dtype(0)
    want = np.concatenate([np.where(x > y, x, y), np.where(x < dtype(0.5), zero, x),
                           np.where(dtype(0.25) >= x, x, dtype(-1)), np.where(x == y, one, zero),
                           np.where(x != y, x * dtype(2), y),
                           np.where(x <= y, x, y) + np.where(x >= y, zero, one)]).astype(dtype)  # fmt: skip
    np.testing.assert_array_equal(out, want)


@asc2.jit
def bad_selection(x_ptr: asc.GlobalAddress, case: asc.ConstExpr[int]):
    x = asc2.load(asc2.tensor(x_ptr, [64]), [64], offsets=[0])
    if case == 0:
        asc2.where(x, x, 0.0)
    elif case == 1:
        m = asc2.load(asc2.tensor(x_ptr.reinterpret(asc.uint8), [128]), [128], offsets=[0]) > 0
    elif case == 2:
        asc2.where(x > 0.0, asc2.load(asc2.tensor(x_ptr, [64]), [32], offsets=[0]), 0.0)


@pytest.mark.parametrize(
    "case,message",
    [
        (0, "asc2.where: the condition is a comparison of tiles (t > 0), got Tile"),
        (1, "asc2.greater: float16, bfloat16, float32, int16, int32 tiles only, got uint8"),
        (2, "asc2.where: a value of shape [32] for a mask of [64]"),
    ],
)
def test_selection_misuse_is_an_error(case, message):
    text = _error_of(bad_selection, np.zeros(64, np.float32), case)
    assert message in text and "test_tile_api.py" in text


@asc2.jit
def row_broadcast(x_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress, rows: asc.ConstExpr[int],
                  cols: asc.ConstExpr[int]):  # fmt: skip
    """A row ([cols] or [1, cols]) with a [rows, cols] tile, either side; also axis reductions' results used
    in arithmetic (their tiles are written a part at a time)."""
    x_gm, out_gm = asc2.tensor(x_ptr, [rows, cols]), asc2.tensor(out_ptr, [5 * rows, cols])
    t = asc2.load(x_gm, [rows, cols], offsets=[0, 0])
    mean = asc2.reduce_sum(t, 0) / float(rows)
    asc2.store(t - mean, out_gm, offsets=[0, 0])
    asc2.store(asc2.reduce_max(t, 0, keep_dims=True) - t, out_gm, offsets=[rows, 0])
    asc2.store(t / asc2.reduce_max(t, 0), out_gm, offsets=[2 * rows, 0])
    asc2.store(asc2.maximum(mean, t), out_gm, offsets=[3 * rows, 0])
    row_sums = asc2.reduce_sum(t, 1) * 2.0  # a [rows] tile computed on over its whole length
    asc2.store(asc2.full([rows, cols], 0.0) + row_sums.sum(), out_gm, offsets=[4 * rows, 0])


@pytest.mark.parametrize("rows,cols", [(6, 64), (3, 8), (40, 136)])
def test_a_row_broadcasts_over_the_rows(rows, cols, rng):
    x = rng.integers(1, 9, (rows, cols)).astype(np.float32)
    out = np.zeros((5 * rows, cols), np.float32)
    row_broadcast[1, rt.current_stream()](x, out, rows, cols)
    mean = (x.sum(0) / np.float32(rows)).astype(np.float32)
    total = np.float32((x.sum(1) * 2).sum())
    want = np.concatenate([x - mean, x.max(0, keepdims=True) - x, x / x.max(0), np.maximum(mean, x),
                           np.full((rows, cols), total)])  # fmt: skip
    np.testing.assert_allclose(out, want, rtol=1e-6)


@asc2.jit
def bad_broadcast(x_ptr: asc.GlobalAddress, case: asc.ConstExpr[int]):
    t = asc2.load(asc2.tensor(x_ptr, [4, 32]), [4, 32], offsets=[0, 0])
    if case == 0:
        t + asc2.load(asc2.tensor(x_ptr, [128]), [16], offsets=[0])
    else:
        t + asc2.load(asc2.tensor(x_ptr.reinterpret(asc.int16), [256]), [32], offsets=[0])


@pytest.mark.parametrize("case,message", [(0, "asc2.add: shapes [4, 32] and [16] differ"),
                                          (1, "asc2.add: dtypes float32 and int16 have no common dtype")])  # fmt: skip
def test_shapes_that_do_not_broadcast_are_an_error(case, message):
    text = _error_of(bad_broadcast, np.zeros(128, np.float32), case)
    assert message in text and "test_tile_api.py" in text


@asc.jit
def fetch(t: Any, i: Any) -> Any:
    """A device function that loads: the loop calling it is double-buffered all the same."""
    return asc2.load(t, [16], tile_id=[i])


def doubled_tiles(x_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress, tiles: int):
    x_gm, out_gm = asc2.tensor(x_ptr, [tiles * 16]), asc2.tensor(out_ptr, [tiles * 16])
    for i in range(tiles):
        asc2.store(fetch(x_gm, i) * 2.0, out_gm, tile_id=[i])


@pytest.mark.parametrize("double_buffer", [True, False])
def test_double_buffering_follows_the_loads_not_their_names(double_buffer, rng):
    """The double_buffer pass pairs a loop's iterations when its body loads (here through a device function);
    copy 1's tiles are the second halves of copy 0's (local_tensor.slice). Off, the loop runs as written."""
    kernel = asc2.jit(doubled_tiles, double_buffer=double_buffer)
    x = rng.random(5 * 16, dtype=np.float32)
    out = np.zeros_like(x)
    kernel[1, rt.current_stream()](x, out, 5)
    np.testing.assert_array_equal(out, x * 2)
    ir = kernel.ir(x, out, 5)
    assert ("local_tensor.slice" in ir) == double_buffer
    assert ("arith.mod" in ir) == double_buffer  # the odd last iteration's test
