"""Element-wise kernels tiled the way pyasc's generalization tests tile them.

Those tests split `total` elements over N cores as block_length = ceil(total / N),
copy whole tiles of a fixed tile_length and run tile_num = ceil(block_length /
tile_length) tiles per core. Whenever total is not a multiple of N * tile_length,
the last cores copy whole tiles that run past the end of the arrays, and
neighbouring cores' tiles overlap. On the NPU that runs: the allocator's padding
and the rest of the segment the caching allocator maps take the stray bytes, and
the overlapping cores write the same values. The Model runs it too
(docs/model-backend.md, "Memory like the board's") and keeps these promises:

* every size that stays inside its arrays runs and matches numpy exactly;
* every other size runs, matches numpy on the real elements and warns
  (MemcheckWarning), writing not one byte outside the arrays; the arrays are
  views into larger backing buffers, so the bound must be the array passed, not
  the memory behind it;
* in strict mode such a size is an `OutOfBoundsError` (a `KernelError`) naming
  this file and the line of the offending `data_copy`, and nothing outside the
  arrays is written.
"""

import inspect

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.errors import KernelError, OutOfBoundsError

HERE = "test_generalization_bounds.py"
CORES = 8
TILE = 512
BUFFER_NUM = 1
GUARD = 4096  # elements after each array, more than any overrun
SENTINEL = -99  # the output's initial contents and its guard
INPUT_GUARD = 77  # after each input: an op on it never gives SENTINEL


# ---- device functions: one tile in, one tile through an op, one tile out ----


@asc.jit
def load_tile(i: int, src_gm: asc.GlobalTensor, in_que: asc.TQue, tile_length: asc.ConstExpr[int]):
    src_local = in_que.alloc_tensor(src_gm.dtype)
    asc.data_copy(src_local, src_gm[i * tile_length :], count=tile_length)
    in_que.enque(src_local)


@asc.jit
def store_tile(i: int, dst_gm: asc.GlobalTensor, out_que: asc.TQue, tile_length: asc.ConstExpr[int]):
    dst_local = out_que.deque(dst_gm.dtype)
    asc.data_copy(dst_gm[i * tile_length :], dst_local, count=tile_length)
    out_que.free_tensor(dst_local)


@asc.jit
def add_tile(dtype: asc.DataType, que_a: asc.TQue, que_b: asc.TQue, out_que: asc.TQue,
             tile_length: asc.ConstExpr[int]):  # fmt: skip
    a = que_a.deque(dtype)
    b = que_b.deque(dtype)
    c = out_que.alloc_tensor(dtype)
    asc.add(c, a, b, count=tile_length)
    out_que.enque(c)
    que_a.free_tensor(a)
    que_b.free_tensor(b)


@asc.jit
def unary_tile(dtype: asc.DataType, scalar, in_que: asc.TQue, out_que: asc.TQue, tile_length: asc.ConstExpr[int],
               OP: asc.ConstExpr[str]):  # fmt: skip
    a = in_que.deque(dtype)
    c = out_que.alloc_tensor(dtype)
    if OP == "adds":
        asc.adds(c, a, scalar, count=tile_length)
    else:
        asc.sqrt(c, a, count=tile_length)
    out_que.enque(c)
    in_que.free_tensor(a)


@asc.jit
def fill_tile(dtype: asc.DataType, scalar, out_que: asc.TQue, tile_length: asc.ConstExpr[int]):
    c = out_que.alloc_tensor(dtype)
    asc.duplicate(c, scalar, count=tile_length)
    out_que.enque(c)


# ---- kernels: this core's slice of each array (no length: bounded by the argument), then the tiles ----


@asc.jit
def vadd_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: asc.ConstExpr[int],
                tile_length: asc.ConstExpr[int], tile_num: asc.ConstExpr[int]):  # fmt: skip
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset)
    y_gm.set_global_buffer(y + offset)
    z_gm.set_global_buffer(z + offset)
    pipe = asc.TPipe()
    que_x = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
    que_y = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
    que_z = asc.TQue(asc.TPosition.VECOUT, BUFFER_NUM)
    pipe.init_buffer(que=que_x, num=BUFFER_NUM, len=tile_length * x.dtype.sizeof())
    pipe.init_buffer(que=que_y, num=BUFFER_NUM, len=tile_length * y.dtype.sizeof())
    pipe.init_buffer(que=que_z, num=BUFFER_NUM, len=tile_length * z.dtype.sizeof())
    for i in range(tile_num):
        load_tile(i, x_gm, que_x, tile_length)
        load_tile(i, y_gm, que_y, tile_length)
        add_tile(z.dtype, que_x, que_y, que_z, tile_length)
        store_tile(i, z_gm, que_z, tile_length)


@asc.jit
def unary_kernel(x: asc.GlobalAddress, scalar, z: asc.GlobalAddress, block_length: asc.ConstExpr[int],
                 tile_length: asc.ConstExpr[int], tile_num: asc.ConstExpr[int], OP: asc.ConstExpr[str]):  # fmt: skip
    """adds (OP "adds") or sqrt (OP "sqrt", scalar unused) tile by tile."""
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset)
    z_gm.set_global_buffer(z + offset)
    pipe = asc.TPipe()
    que_x = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
    que_z = asc.TQue(asc.TPosition.VECOUT, BUFFER_NUM)
    pipe.init_buffer(que=que_x, num=BUFFER_NUM, len=tile_length * x.dtype.sizeof())
    pipe.init_buffer(que=que_z, num=BUFFER_NUM, len=tile_length * z.dtype.sizeof())
    for i in range(tile_num):
        load_tile(i, x_gm, que_x, tile_length)
        unary_tile(z.dtype, scalar, que_x, que_z, tile_length, OP)
        store_tile(i, z_gm, que_z, tile_length)


@asc.jit
def duplicate_kernel(scalar, z: asc.GlobalAddress, block_length: asc.ConstExpr[int], tile_length: asc.ConstExpr[int],
                     tile_num: asc.ConstExpr[int]):  # fmt: skip
    offset = asc.get_block_idx() * block_length
    z_gm = asc.GlobalTensor()
    z_gm.set_global_buffer(z + offset)
    pipe = asc.TPipe()
    que_z = asc.TQue(asc.TPosition.VECOUT, BUFFER_NUM)
    pipe.init_buffer(que=que_z, num=BUFFER_NUM, len=tile_length * z.dtype.sizeof())
    for i in range(tile_num):
        fill_tile(z.dtype, scalar, que_z, tile_length)
        store_tile(i, z_gm, que_z, tile_length)


# ---- the host side: tiling, inputs, references ----


def tiling(total):
    """(block_length, tile_num) as pyasc's generalization tests compute them."""
    block_length = -(-total // CORES)
    return block_length, -(-block_length // TILE)


def first_overrun(total):
    """(block, first element) of the tile the lowest overrunning block copies first, or None."""
    block_length, tile_num = tiling(total)
    for block in range(CORES):
        for i in range(tile_num):
            start = block * block_length + i * TILE
            if start + TILE > total:
                return block, start
    return None


def guarded(values, fill):
    """`values` copied into the front of a `fill`-filled buffer: (view of len(values), whole buffer)."""
    backing = np.full(values.size + GUARD, fill, values.dtype)
    backing[: values.size] = values
    return backing[: values.size], backing


def random_values(rng, dtype, n, positive=False):
    if np.dtype(dtype).kind == "f":
        lo = 0.01 if positive else -100.0
        return rng.uniform(lo, 100.0, n).astype(dtype)
    return rng.integers(-1000, 1000, n).astype(dtype)


def random_scalar(rng, dtype):
    if np.dtype(dtype).kind == "f":
        return float(np.dtype(dtype).type(rng.uniform(-3.0, 3.0)))  # exactly representable in dtype
    return int(rng.integers(-50, 50))  # neither it nor INPUT_GUARD + it is SENTINEL


def run(op, dtype, total, rng):
    """Set up `op` on `total` elements: (launch, inputs, copies of the inputs and their backings,
    output view, output backing, numpy reference)."""
    block_length, tile_num = tiling(total)
    tiles = (block_length, TILE, tile_num)
    z, z_backing = guarded(np.full(total, SENTINEL, dtype), SENTINEL)
    stream = rt.current_stream()
    if op == "add":
        x, y = (guarded(random_values(rng, dtype, total), INPUT_GUARD)[0] for _ in range(2))
        inputs, want = [x, y], x + y
        launch = lambda: vadd_kernel[CORES, stream](x, y, z, *tiles)  # noqa: E731
    elif op == "adds":
        x, _ = guarded(random_values(rng, dtype, total), INPUT_GUARD)
        scalar = random_scalar(rng, dtype)
        inputs, want = [x], x + np.array(scalar).astype(dtype)
        launch = lambda: unary_kernel[CORES, stream](x, scalar, z, *tiles, "adds")  # noqa: E731
    elif op == "sqrt":
        x, _ = guarded(random_values(rng, dtype, total, positive=True), INPUT_GUARD)
        inputs, want = [x], np.sqrt(x)
        launch = lambda: unary_kernel[CORES, stream](x, 0, z, *tiles, "sqrt")  # noqa: E731
    else:
        scalar = random_scalar(rng, dtype)
        inputs, want = [], np.full(total, scalar, dtype)
        launch = lambda: duplicate_kernel[CORES, stream](scalar, z, *tiles)  # noqa: E731
    before = [(a.copy(), a.base.copy()) for a in inputs]
    return launch, inputs, before, z, z_backing, want


def close_enough(op, dtype, got, want):
    """Element-wise: exact, except sqrt within the tolerance of its dtype."""
    if op != "sqrt":
        return got == want
    return np.isclose(got.astype(np.float64), want.astype(np.float64), rtol=RTOL[np.dtype(dtype)], atol=0)


def assert_inputs_untouched(inputs, before):
    for a, (values, backing) in zip(inputs, before):
        np.testing.assert_array_equal(a, values)
        np.testing.assert_array_equal(a.base, backing)


def line_of(fn, text):
    """Line number in this file of the first source line of the jit function `fn` containing `text`."""
    lines, start = inspect.getsourcelines(fn.fn)
    for i, line in enumerate(lines):
        if text in line:
            return start + i
    raise AssertionError(text)


RTOL = {np.dtype(np.float16): 1e-3, np.dtype(np.float32): 1e-6}
DTYPES = {
    "add": (np.float16, np.float32, np.int32, np.int16),
    "adds": (np.float16, np.float32, np.int32, np.int16),
    "sqrt": (np.float16, np.float32),
    "duplicate": (np.float16, np.float32, np.int32, np.int16),
}
CASES = [(op, np.dtype(dtype)) for op, dtypes in DTYPES.items() for dtype in dtypes]

SPAN = CORES * TILE  # the sizes that fit are exactly the multiples of this
IN_BOUNDS = [SPAN, 2 * SPAN, 3 * SPAN]
OVERRUNS = [1, 1000, SPAN - CORES, SPAN + 1, 2 * SPAN + SPAN // 2, 9999]


def params(sizes):
    return [pytest.param(op, dtype, n, id=f"{op}-{dtype.name}-{n}") for op, dtype in CASES for n in sizes]


def test_the_sizes_are_what_they_claim():
    """Guards the parametrisation: in-bounds sizes never overrun, every other size does."""
    assert all(first_overrun(n) is None for n in IN_BOUNDS)
    assert all(first_overrun(n) is not None for n in OVERRUNS)
    assert first_overrun(1000) == (4, 500)  # block_length 125: block 4 copies [500, 1012)
    assert first_overrun(4097) == (6, 3590)  # block_length 513, 2 tiles: block 6's second tile
    for n in OVERRUNS:  # the guard is wider than the furthest any core reaches past the end
        block_length, tile_num = tiling(n)
        assert (CORES - 1) * block_length + tile_num * TILE - n <= GUARD


@pytest.mark.parametrize("op,dtype,total", params(IN_BOUNDS))
def test_in_bounds_sizes_match_numpy(op, dtype, total, rng):
    launch, inputs, before, z, z_backing, want = run(op, dtype, total, rng)
    launch()
    if op == "sqrt":
        np.testing.assert_allclose(z.astype(np.float64), want.astype(np.float64), rtol=RTOL[dtype], atol=0)
    else:
        np.testing.assert_array_equal(z, want)
    assert np.all(z_backing[total:] == SENTINEL)
    assert_inputs_untouched(inputs, before)


def check_overrun(op, dtype, total, rng):
    """Runs as on the board: warns, computes every real element, writes nothing outside the arrays."""
    launch, inputs, before, z, z_backing, want = run(op, dtype, total, rng)
    with pytest.warns(asc.errors.MemcheckWarning) as record:
        launch()
    texts = [str(w.message) for w in record if issubclass(w.category, asc.errors.MemcheckWarning)]
    name = "z" if op == "duplicate" else "x"
    assert any(f"argument '{name}', past its {total * dtype.itemsize} bytes" in t for t in texts), texts
    assert np.all(close_enough(op, dtype, z, want))
    assert np.all(z_backing[total:] == SENTINEL), "written past the end of z"
    assert_inputs_untouched(inputs, before)


def check_strict_overrun(op, dtype, total, rng):
    """Strict mode: the first overrun is the error, naming the block, the bytes, the argument and the line."""
    launch, inputs, before, z, z_backing, want = run(op, dtype, total, rng)
    stream = rt.current_stream()
    stream.set_strict(True)
    try:
        with pytest.raises(OutOfBoundsError) as err:
            launch()
    finally:
        stream.set_strict(False)
    assert isinstance(err.value, KernelError)
    text = str(err.value)
    # The first overrun of the lowest overrunning block: a load of x, or (duplicate, no inputs) the store of z.
    block, start = first_overrun(total)
    size = dtype.itemsize
    if op == "duplicate":
        access, name, copy = "data_copy.local_to_gm writes", "z", line_of(store_tile, "asc.data_copy")
    else:
        access, name, copy = "data_copy.gm_to_local reads", "x", line_of(load_tile, "asc.data_copy")
    assert f"block {block}: {access} GM bytes [{start * size}, {(start + TILE) * size}) " in text
    assert f"of argument '{name}', which has only {total * size} bytes" in text
    assert "strict mode" in text
    assert f"{HERE}:{copy}:" in text
    assert np.all(z_backing[total:] == SENTINEL), "written past the end of z"
    # Inside z, every element is untouched or the right answer (overlapping cores write the same values).
    assert np.all((z == SENTINEL) | close_enough(op, dtype, z, want))
    assert_inputs_untouched(inputs, before)


@pytest.mark.parametrize("op,dtype,total", params(OVERRUNS))
def test_overrunning_sizes_run_warn_and_write_nothing_outside(op, dtype, total, rng):
    check_overrun(op, dtype, total, rng)


STRICT_CASES = [
    pytest.param(op, np.dtype(dtypes[0]), n, id=f"{op}-{np.dtype(dtypes[0]).name}-{n}")
    for op, dtypes in DTYPES.items()
    for n in (1, 4097)
]


@pytest.mark.parametrize("op,dtype,total", STRICT_CASES)
def test_strict_mode_makes_an_overrun_an_error_that_writes_nothing(op, dtype, total, rng):
    check_strict_overrun(op, dtype, total, rng)


@pytest.mark.parametrize(
    "op,dtype,total",
    [
        pytest.param("add", np.dtype(np.float32), 4097, id="add"),
        pytest.param("duplicate", np.dtype(np.float16), 1000, id="duplicate"),
    ],
)
def test_overruns_write_nothing_outside_with_the_sanitizer_off(op, dtype, total, rng):
    """Bounds are not a sanitizer check that can be turned off: the Model must never write outside the arrays."""
    stream = rt.current_stream()
    stream.set_sanitize(False)
    try:
        check_overrun(op, dtype, total, rng)
        check_strict_overrun(op, dtype, total, rng)
    finally:
        stream.set_sanitize(True)
