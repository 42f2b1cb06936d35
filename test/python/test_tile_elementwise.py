"""asc2's element-wise area against numpy: the six comparisons with where() on every dtype PyAsc2 tests
(float16, bfloat16, float32, int16, int32 — int32 beyond float32's 2**24 and int16 at its extremes, so the
exact routes are checked), scalars on either side and two scalars, a 0-d tensor as a scalar; the math
functions (sin ... ceil, exp2, log2) on float16, float32 and bfloat16; bfloat16 and int32 arithmetic, the
shifts; reduce_prod along each axis; atomic_add / max / min from several blocks; and the errors."""

import ml_dtypes
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
import asc2

BF16 = ml_dtypes.bfloat16
N = 200  # a tail: tiles cover 256 elements
CMPS = (asc2.equal, asc2.not_equal, asc2.greater, asc2.greater_equal, asc2.less, asc2.less_equal)
NP_CMPS = (np.equal, np.not_equal, np.greater, np.greater_equal, np.less, np.less_equal)


def _launch(kernel, *args, cores=1):
    kernel[cores, rt.current_stream()](*args)


@asc2.jit
def where_all(x_ptr: asc.GlobalAddress, y_ptr: asc.GlobalAddress, s_ptr: asc.GlobalAddress,
              out_ptr: asc.GlobalAddress, form: asc.ConstExpr[str]):  # fmt: skip
    """Row k of out: where(cmp_k(...), x, y) for the six comparisons; form "tt" (tile, tile), "ts" (tile and
    the 0-d tensor s), "st" (s and tile, values x and s), "ss" (tile and s, values the scalars 1 and 0)."""
    x = asc2.load(asc2.tensor(x_ptr, [N]), [N], offsets=[0])
    y = asc2.load(asc2.tensor(y_ptr, [N]), [N], offsets=[0])
    out = asc2.tensor(out_ptr, [6 * N])
    for k in asc.static_range(6):
        cmp = CMPS[k]
        if form == "tt":
            z = asc2.where(cmp(x, y), x, y)
        elif form == "ts":
            z = asc2.where(cmp(x, s_ptr), x, y)
        elif form == "st":
            z = asc2.where(cmp(s_ptr, x), x, s_ptr)
        else:
            z = asc2.where(cmp(x, s_ptr), asc.number(1, x_ptr.dtype), asc.number(0, x_ptr.dtype))
        asc2.store(z, out, offsets=[k * N])


def _values(dtype, rng, n=N):
    if dtype == np.int32:  # beyond 2**24, equal high halves, neighbours
        base = rng.integers(-(2**31), 2**31 - 1, n, dtype=np.int64)
        return base.astype(np.int32)
    if dtype == np.int16:
        return rng.integers(-(2**15), 2**15, n).astype(np.int16)
    return rng.normal(0, 3, n).astype(np.float32).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float16, BF16, np.float32, np.int16, np.int32], ids=str)
@pytest.mark.parametrize("form", ["tt", "ts", "st", "ss"])
def test_comparisons_and_where(dtype, form, rng):
    x = _values(dtype, rng)
    y = _values(dtype, rng)
    y[:40] = x[:40]  # equal elements
    if dtype == np.int32:
        y[40:80] = x[40:80] + rng.choice([-1, 1], 40).astype(np.int32)  # same high half, one apart
        x[80:84] = [2**31 - 1, -(2**31), 2**24 + 1, -(2**24) - 1]
        y[80:84] = [2**31 - 2, -(2**31) + 1, 2**24, -(2**24)]
    if dtype == np.int16:
        x[80:84], y[80:84] = [32767, -32768, 0, -1], [-32768, 32767, -1, 0]
    s = np.array(x[7])  # a 0-d tensor: one of x's values, so that equal holds somewhere
    out = np.zeros((6, N), dtype)
    _launch(where_all, x, y, s, out, form)
    for k, cmp in enumerate(NP_CMPS):
        if form == "tt":
            want = np.where(cmp(x, y), x, y)
        elif form == "ts":
            want = np.where(cmp(x, s), x, y)
        elif form == "st":
            want = np.where(cmp(s, x), x, s)
        else:
            want = np.where(cmp(x, s), 1, 0).astype(dtype)
        np.testing.assert_array_equal(out[k], want, err_msg=CMPS[k].__name__)


@asc2.jit
def math_all(x_ptr: asc.GlobalAddress, y_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress, rows: asc.ConstExpr[int]):
    """Row k of out: function k of x (in (0.1, 1.4)) or of y (signed, crossing integers)."""
    x = asc2.load(asc2.tensor(x_ptr, [N]), [N], offsets=[0])
    y = asc2.load(asc2.tensor(y_ptr, [N]), [N], offsets=[0])
    out = asc2.tensor(out_ptr, [rows * N])
    results = (asc2.sin(y), asc2.cos(y), asc2.tan(x), asc2.sinh(y), asc2.cosh(y), asc2.tanh(y), asc2.erf(y),
               asc2.exp2(y), asc2.log2(x), asc2.floor(y), asc2.ceil(y), asc2.rsqrt(x), asc2.abs(y),
               asc2.negative(y), asc2.relu(y), asc2.exp(y), asc2.log(x), asc2.sqrt(x))  # fmt: skip
    for k in asc.static_range(rows):
        asc2.store(results[k], out, offsets=[k * N])


def _np_math(x, y):
    import math

    erf = np.vectorize(math.erf)
    return [np.sin(y), np.cos(y), np.tan(x), np.sinh(y), np.cosh(y), np.tanh(y), erf(y), np.exp2(y), np.log2(x),
            np.floor(y), np.ceil(y), 1 / np.sqrt(x), np.abs(y), -y, np.maximum(y, 0), np.exp(y), np.log(x),
            np.sqrt(x)]  # fmt: skip


@pytest.mark.parametrize("dtype,rtol", [(np.float32, 2e-6), (np.float16, 2e-3), (BF16, 1e-2)], ids=str)
def test_math_functions(dtype, rtol, rng):
    x = rng.uniform(0.1, 1.4, N).astype(dtype)
    y = rng.uniform(-4, 4, N).astype(dtype)
    y[:4] = [-2.0, -0.5, 0.0, 3.0]  # floor / ceil of integers and halves
    want = _np_math(x.astype(np.float64), y.astype(np.float64))
    out = np.zeros((len(want), N), dtype)
    _launch(math_all, x, y, out, len(want))
    names = "sin cos tan sinh cosh tanh erf exp2 log2 floor ceil rsqrt abs negative relu exp log sqrt".split()
    for k, name in enumerate(names):
        np.testing.assert_allclose(out[k].astype(np.float64), want[k], rtol=rtol, atol=rtol, err_msg=name)
    for k in (9, 10, 12, 13, 14):  # exact
        np.testing.assert_array_equal(out[k], want[k].astype(dtype), err_msg=names[k])


@asc2.jit
def where_2d(x_ptr: asc.GlobalAddress, y_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress):
    """2-D tiles hanging over a [6, 40] tensor's rows, at column 8 (a tail of 32 of 40 columns)."""
    x = asc2.load(asc2.tensor(x_ptr, [6, 40]), [8, 32], offsets=[0, 8])
    y = asc2.load(asc2.tensor(y_ptr, [6, 40]), [8, 32], offsets=[0, 8])
    asc2.store(asc2.where(x <= y, y - x, x), asc2.tensor(out_ptr, [6, 40]), offsets=[0, 8])


@pytest.mark.parametrize("dtype", [np.float32, np.int32], ids=str)
def test_where_on_2d_tiles(dtype, rng):
    x, y = (_values(dtype, rng, 240).reshape(6, 40) // (1 if dtype == np.float32 else 4) for _ in range(2))
    x, y = x.astype(dtype), y.astype(dtype)
    out = np.full((6, 40), 5, dtype)
    _launch(where_2d, x, y, out)
    want = out.copy()
    want[:, 8:] = np.where(x[:, 8:] <= y[:, 8:], y[:, 8:] - x[:, 8:], x[:, 8:])
    np.testing.assert_array_equal(out, want)


@asc2.jit
def mixed(a_ptr: asc.GlobalAddress, b_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress, m_ptr: asc.GlobalAddress):
    """Tiles of two dtypes combine in PyAsc2's common one (the wider; of one width, the float)."""
    a = asc2.load(asc2.tensor(a_ptr, [N]), [N], offsets=[0])
    b = asc2.load(asc2.tensor(b_ptr, [N]), [N], offsets=[0])
    asc2.store(a + b, asc2.tensor(out_ptr, [N]), offsets=[0])
    asc2.store(asc2.where(a < b, a, b), asc2.tensor(m_ptr, [N]), offsets=[0])


@pytest.mark.parametrize("da,db,common", [(np.int16, np.int32, np.int32), (np.float16, np.float32, np.float32),
                                          (np.int32, np.float32, np.float32), (BF16, np.float32, np.float32)],
                         ids=str)  # fmt: skip
def test_tiles_of_two_dtypes_promote(da, db, common, rng):
    a = rng.integers(-1000, 1000, N).astype(da)
    b = rng.integers(-1000, 1000, N).astype(db)
    out, m = np.zeros(N, common), np.zeros(N, common)
    _launch(mixed, a, b, out, m)
    wa, wb = a.astype(common), b.astype(common)
    np.testing.assert_array_equal(out, wa + wb)
    np.testing.assert_array_equal(m, np.where(wa < wb, wa, wb))


@asc2.jit
def arith_all(x_ptr: asc.GlobalAddress, y_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress, s: asc.ConstExpr[int]):
    x = asc2.load(asc2.tensor(x_ptr, [N]), [N], offsets=[0])
    y = asc2.load(asc2.tensor(y_ptr, [N]), [N], offsets=[0])
    out = asc2.tensor(out_ptr, [8 * N])
    results = (x + y, x - y, x * y, asc2.maximum(x, y), asc2.minimum(s, y), s - x, x * s, -x)
    for k in asc.static_range(8):
        asc2.store(results[k], out, offsets=[k * N])


@pytest.mark.parametrize("dtype", [BF16, np.int32, np.int16], ids=str)
def test_bfloat16_and_int_arithmetic(dtype, rng):
    if dtype == BF16:
        x, y = (rng.normal(0, 10, N).astype(np.float32).astype(BF16) for _ in range(2))
    else:
        x, y = (rng.integers(-1000, 1000, N).astype(dtype) for _ in range(2))
    s = 3
    out = np.zeros((8, N), dtype)
    _launch(arith_all, x, y, out, s)
    wide = np.float32 if dtype == BF16 else dtype
    a, b, c = x.astype(wide), y.astype(wide), wide(s)
    want = [a + b, a - b, a * b, np.maximum(a, b), np.minimum(c, b), c - a, a * c, -a]
    for k in range(8):  # bfloat16: computed in float32 and rounded once, as numpy's
        np.testing.assert_array_equal(out[k], np.asarray(want[k]).astype(dtype), err_msg=str(k))


@asc2.jit
def shifts(x_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress, k: int, by: asc.ConstExpr[int]):
    x = asc2.load(asc2.tensor(x_ptr, [N]), [N], offsets=[0])
    out = asc2.tensor(out_ptr, [4 * N])
    asc2.store(asc2.left_shift(x, by), out, offsets=[0 * N])
    asc2.store(asc2.right_shift(x, by), out, offsets=[1 * N])
    asc2.store(x << k, out, offsets=[2 * N])
    asc2.store(x >> k, out, offsets=[3 * N])


@pytest.mark.parametrize("dtype", [np.int16, np.int32], ids=str)
def test_shifts(dtype, rng):
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, N).astype(dtype)
    out = np.zeros((4, N), dtype)
    _launch(shifts, x, out, 5, 3)
    for k, want in enumerate([x << 3, x >> 3, x << 5, x >> 5]):  # numpy's >> is arithmetic for signed ints
        np.testing.assert_array_equal(out[k], want.astype(dtype), err_msg=str(k))


@asc2.jit
def prods(x_ptr: asc.GlobalAddress, a_ptr: asc.GlobalAddress, b_ptr: asc.GlobalAddress,
          rows: asc.ConstExpr[int], cols: asc.ConstExpr[int]):  # fmt: skip
    x = asc2.load(asc2.tensor(x_ptr, [rows, cols]), [rows, cols], offsets=[0, 0])
    asc2.store(asc2.reduce_prod(x, 0, keep_dims=True), asc2.tensor(a_ptr, [1, cols]), offsets=[0, 0])
    asc2.store(x.prod(-1), asc2.tensor(b_ptr, [rows]), offsets=[0])


@pytest.mark.parametrize("dtype,rows,cols", [(np.float32, 13, 24), (np.int32, 5, 64), (np.float16, 4, 32),
                                             (np.int16, 3, 48)], ids=str)  # fmt: skip
def test_reduce_prod(dtype, rows, cols, rng):
    if dtype == np.float32:
        x = rng.uniform(0.5, 1.5, (rows, cols)).astype(dtype) * rng.choice([-1, 1], (rows, cols)).astype(dtype)
    elif dtype == np.float16:  # products exact in float16
        x = rng.choice([-1, 1, 1, 1, 2, 0.5], (rows, cols)).astype(dtype)
    else:
        x = rng.choice([-1, 1, 1, 2], (rows, cols)).astype(dtype)
    a, b = np.zeros((1, cols), dtype), np.zeros(rows, dtype)
    _launch(prods, x, a, b, rows, cols)
    np.testing.assert_allclose(a, np.prod(x, axis=0, keepdims=True), rtol=5e-6)
    np.testing.assert_allclose(b, np.prod(x, axis=1), rtol=5e-6)


@asc2.jit
def atomics(x_ptr: asc.GlobalAddress, add_ptr: asc.GlobalAddress, max_ptr: asc.GlobalAddress,
            min_ptr: asc.GlobalAddress, n: asc.ConstExpr[int]):  # fmt: skip
    x = asc2.load(asc2.tensor(x_ptr, [4, n]), [1, n], offsets=[asc2.block_idx(), 0])
    x = x.reshape(n)
    asc2.atomic_add(x, asc2.tensor(add_ptr, [n]), offsets=[0])
    asc2.atomic_max(x, asc2.tensor(max_ptr, [n]), offsets=[0])
    asc2.atomic_min(x, asc2.tensor(min_ptr, [n]), offsets=[0])


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32], ids=str)
def test_atomics_from_four_blocks(dtype, rng):
    n = 80
    x = rng.integers(-50, 50, (4, n)).astype(dtype)  # integral values: the sums are exact in any order
    start = [rng.integers(-50, 50, n).astype(dtype) for _ in range(3)]
    add, mx, mn = (v.copy() for v in start)
    _launch(atomics, x, add, mx, mn, n, cores=4)
    np.testing.assert_array_equal(add, start[0] + x.sum(axis=0).astype(dtype))
    np.testing.assert_array_equal(mx, np.maximum(start[1], x.max(axis=0)))
    np.testing.assert_array_equal(mn, np.minimum(start[2], x.min(axis=0)))


@asc2.jit
def masked(x_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress, n: int, k: asc.ConstExpr[int]):
    x = asc2.load(asc2.tensor(x_ptr, [N]), [N], offsets=[0])
    out = asc2.tensor(out_ptr, [4 * N])
    with asc2.mask(count=n, other=-1.0):
        a = x * 2.0
    with asc2.mask(count=k, other=7):
        b = x + 1.0
    with asc2.mask(bits=(0, 0x00FF00FF00FF00FF), other=0):
        c = x - 1.0
    with asc2.mask(count=k):  # no other: unspecified, here computed
        d = x * 3.0
    results = (a, b, c, d)
    for i in asc.static_range(4):
        asc2.store(results[i], out, offsets=[i * N])


def test_mask_regions(rng):
    x = rng.normal(0, 1, N).astype(np.float32)
    out = np.zeros(4 * N, np.float32)
    _launch(masked, x, out, 77, 130)
    idx = np.arange(N)
    np.testing.assert_array_equal(out[:N], np.where(idx < 77, x * 2, -1))
    np.testing.assert_array_equal(out[N : 2 * N], np.where(idx < 130, x + 1, 7))
    in_bits = (idx % 64) % 16 < 8  # float32: 64 elements a repeat, bits lo's 0x00FF00FF00FF00FF
    np.testing.assert_array_equal(out[2 * N : 3 * N], np.where(in_bits, x - 1, 0))
    np.testing.assert_array_equal(out[3 * N :], x * 3)


@asc2.jit
def norms(x_ptr: asc.GlobalAddress, g_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress, s_ptr: asc.GlobalAddress,
          eps: float, rows: asc.ConstExpr[int], cols: asc.ConstExpr[int]):  # fmt: skip
    x = asc2.load(asc2.tensor(x_ptr, [rows, cols]), [rows, cols], offsets=[0, 0])
    g = asc2.load(asc2.tensor(g_ptr, [cols]), [cols], offsets=[0])
    asc2.store(asc2.rms_norm(x, g, eps), asc2.tensor(out_ptr, [rows, cols]), offsets=[0, 0])
    v = asc2.load(asc2.tensor(x_ptr, [rows * cols]), [cols], offsets=[0])  # 1-D: the first row
    s = asc2.tensor(s_ptr, [3 + cols])
    asc2.store(asc2.rms_norm(v, g, eps), s, offsets=[3])
    asc2.store(asc2.exp(eps * 1000.0), s, offsets=[0])  # run-time scalars
    asc2.store(asc2.erf(eps * 1000.0), s, offsets=[1])
    asc2.store(asc2.sqrt(eps * 1000.0), s, offsets=[2])


@pytest.mark.parametrize("dtype,rows,cols", [(np.float32, 4, 32), (np.float16, 3, 48)], ids=str)
def test_rms_norm_and_scalar_functions(dtype, rows, cols, rng):
    x = rng.normal(0, 2, (rows, cols)).astype(dtype)
    g = rng.uniform(0.5, 2, cols).astype(dtype)
    out, s = np.zeros_like(x), np.zeros(3 + cols, dtype)
    _launch(norms, x, g, out, s, 1e-3, rows, cols)
    x64 = x.astype(np.float64)
    want = x64 * g / np.sqrt((x64**2).mean(axis=1, keepdims=True) + 1e-3)
    np.testing.assert_allclose(out.astype(np.float64), want, rtol=1e-5 if dtype == np.float32 else 2e-3, atol=1e-5)
    import math

    np.testing.assert_allclose(s[3:].astype(np.float64), want[0], rtol=1e-5 if dtype == np.float32 else 2e-3)
    np.testing.assert_allclose(s[:3], [math.e, math.erf(1.0), 1.0], rtol=2e-6 if dtype == np.float32 else 1e-3)


@asc2.jit
def misuse(x_ptr: asc.GlobalAddress, f_ptr: asc.GlobalAddress, case: asc.ConstExpr[int]):
    x = asc2.load(asc2.tensor(x_ptr, [64]), [64], offsets=[0])  # int32
    f = asc2.load(asc2.tensor(f_ptr, [64]), [64], offsets=[0])  # float32
    if case == 0:
        asc2.sin(x)
    elif case == 1:
        asc2.left_shift(f, 1)
    elif case == 2:
        asc2.left_shift(x, -1)
    elif case == 3:
        asc2.reduce_prod(x)
    elif case == 4:
        asc2.atomic_add(f, asc2.tensor(x_ptr, [64]), offsets=[0])
    elif case == 5:
        asc2.where(x, x, x)
    elif case == 6:
        asc2.less(x, f.to(asc.float16))
    elif case == 7:
        asc2.left_shift(x, 1.5)
    elif case == 8:
        with asc2.mask(count=1, bits=(0, 1)):
            x + 1


@pytest.mark.parametrize("case,message", [
    (0, r"asc2.sin: float16, bfloat16 and float32 tiles only, got int32"),
    (1, r"asc2.left_shift: int16 and int32 tiles only, got float32"),
    (2, r"asc2.left_shift: a shift of -1 for 32-bit elements"),
    (3, r"asc2.reduce_prod: give the dims to reduce"),
    (4, r"asc2.atomic_add: a float32 tile into a int32 tensor"),
    (5, r"asc2.where: the condition is a comparison of tiles"),
    (6, r"asc2.less: dtypes int32 and float16 have no common dtype"),
    (7, r"asc2.left_shift: the shift is a non-negative int or run-time int, got 1.5"),
    (8, r"asc2.mask: give exactly one of count= and bits="),
])  # fmt: skip
def test_errors_name_the_problem(case, message):
    with pytest.raises(asc.CodegenError, match=message):
        _launch(misuse, np.zeros(64, np.int32), np.zeros(64, np.float32), case)
