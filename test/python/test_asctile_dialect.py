"""asc2's operators keep asc2's meanings once asctile is imported: ``//`` is floor division in an asc2 kernel
(int16, int32 over their whole range, floats, a scalar on either side, a zero divisor giving 0 as NumPy's
integer floor_divide does) and asctile's true division in an asctile kernel; and asctile adds nothing to
asc2's classes (the methods it shares with asc2 — rank, & | ^ ~, **, abs, .to(location), @ reflected — are
asc2's own: asc2.bitwise, asc2.pow, here against numpy in an asc2 kernel)."""

import subprocess
import sys

import numpy as np
import pytest

import asc
import asc.experimental.asctile as asctile  # noqa: F401 - imported first, as a program using both would
import asc.lib.runtime as rt
import asc2
from asc.errors import CodegenError

N = 256


@asc2.jit
def floordiv(a_ptr: asc.GlobalAddress, b_ptr: asc.GlobalAddress, out_ptr: asc.GlobalAddress, s: int,
             n: asc.ConstExpr[int]):  # fmt: skip
    a = asc2.load(asc2.tensor(a_ptr, [n]), [n], offsets=[0])
    b = asc2.load(asc2.tensor(b_ptr, [n]), [n], offsets=[0])
    out = asc2.tensor(out_ptr, [4 * n])
    asc2.store(a // b, out, offsets=[0])
    asc2.store(a // 7, out, offsets=[n])
    asc2.store(-100 // b, out, offsets=[2 * n])
    asc2.store(asc2.floor_divide(a, s), out, offsets=[3 * n])  # a run-time scalar


def _floordiv_expected(a, b, s):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.concatenate([a // b, a // a.dtype.type(7), a.dtype.type(-100) // b, a // a.dtype.type(s)])


@pytest.mark.parametrize("dtype", [np.int32, np.int16])
def test_asc2_floor_division_of_ints_after_importing_asctile(dtype):
    rng = np.random.default_rng(3)
    info = np.iinfo(dtype)
    a = rng.integers(info.min + 1, info.max, N, dtype=dtype)
    b = rng.integers(-300, 300, N).astype(dtype)
    if dtype == np.int32:  # divisors of every size, quotients near the float32 rounding edges too
        b[:64] = rng.integers(info.min + 1, info.max, 64, dtype=dtype)
        a[64:96] = b[64:96] * rng.integers(-1000, 1000, 32) + rng.integers(-1, 2, 32)  # near-exact quotients
        a[96:100] = [info.max, info.min + 1, 1 << 30, -(1 << 30)]
        b[96:100] = [1, -1, 3, 3]
        # the second float step lands one off here (the remainder's float rounds to the divisor's); the integer
        # comparison of the remainder with the divisor fixes it
        a[108:112] = [-1, 2, -438386385, -3]
        b[108:112] = [1535039678, -1824329699, 54798298, 2135500412]
    b[100:104] = 0  # NumPy's integer floor_divide gives 0
    a[104:108] = [-7, 7, -7, 7]
    b[104:108] = [2, -2, -2, 2]
    out = np.zeros(4 * N, dtype)
    floordiv[1, rt.current_stream()](a, b, out, -13, N)
    np.testing.assert_array_equal(out, _floordiv_expected(a, b, -13))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_asc2_floor_division_of_floats(dtype):
    rng = np.random.default_rng(4)
    a = (rng.normal(size=N) * 50).astype(dtype)
    b = rng.choice([-4.0, -2.5, -0.5, 0.25, 1.0, 3.0, 8.0], N).astype(dtype)  # exact quotients' floors
    b[b == 0] = 1
    out = np.zeros(4 * N, dtype)
    floordiv[1, rt.current_stream()](a, b, out, -13, N)
    expected = _floordiv_expected(a, b, -13)
    np.testing.assert_array_equal(out[:N], np.floor(a / b))
    np.testing.assert_array_equal(out[N:], np.floor(expected[N:]))


@asctile.jit
def asctile_floordiv(a_ptr: asctile.GlobalAddress, b_ptr: asctile.GlobalAddress, out_ptr: asctile.GlobalAddress,
                     n: asctile.ConstExpr[int]):  # fmt: skip
    a = asctile.copy_in(asctile.global_tensor(a_ptr, [n]), [0], [n])
    b = asctile.copy_in(asctile.global_tensor(b_ptr, [n]), [0], [n])
    out = asctile.global_tensor(out_ptr, [2 * n])
    asctile.copy_out(a // b, out, [0])  # asctile's // is its /
    asctile.copy_out(3.0 // b, out, [n])


def test_asctile_floor_division_is_true_division_in_asctile_kernels_only():
    rng = np.random.default_rng(5)
    a = rng.normal(size=N).astype(np.float32) * 10
    b = rng.uniform(0.5, 4, N).astype(np.float32)
    out = np.zeros(2 * N, np.float32)
    asctile_floordiv[1, rt.current_stream()](a, b, out, N)
    np.testing.assert_allclose(out, np.concatenate([a / b, 3.0 / b]), rtol=1e-6)
    # the same operands in an asc2 kernel floor (asc2's meaning stayed)
    out4 = np.zeros(4 * N, np.float32)
    floordiv[1, rt.current_stream()](a, b, out4, 3, N)
    np.testing.assert_array_equal(out4[:N], np.floor(a / b))


_SNAPSHOT = """
import asc2, asc2.ops, asc2.memory, asc2.split
classes = (asc2.Tile, asc2.split.SplitTile, asc2.ops.Mask, asc2.memory.Tensor)
before = [dict(vars(c)) for c in classes]
import asc.experimental.asctile
changed = [f"{c.__name__}.{k}" for c, b in zip(classes, before) for k in set(b) | set(vars(c))
           if b.get(k) is not vars(c).get(k)]
print(",".join(sorted(changed)))
"""


def test_importing_asctile_changes_no_asc2_class():
    done = subprocess.run([sys.executable, "-c", _SNAPSHOT], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


@asc2.jit
def shared_methods(i_ptr: asc.GlobalAddress, j_ptr: asc.GlobalAddress, x_ptr: asc.GlobalAddress,
                   out_ptr: asc.GlobalAddress, fout_ptr: asc.GlobalAddress, n: asc.ConstExpr[int]):  # fmt: skip
    i = asc2.load(asc2.tensor(i_ptr, [n]), [n], offsets=[0])
    j = asc2.load(asc2.tensor(j_ptr, [n]), [n], offsets=[0])
    x = asc2.load(asc2.tensor(x_ptr, [n]), [n], offsets=[0])
    out = asc2.tensor(out_ptr, [6 * n])
    asc2.store(i & j, out, offsets=[0])
    asc2.store(i | 0x0F0F, out, offsets=[n])
    asc2.store(i ^ j, out, offsets=[2 * n])
    asc2.store(~i, out, offsets=[3 * n])
    asc2.store(asc2.where((i > 0) & ~(j > 0), 1, 0), out, offsets=[4 * n])
    asc2.store(asc2.full([n], i.rank, asc.int32), out, offsets=[5 * n])
    fout = asc2.tensor(fout_ptr, [2 * n])
    asc2.store(abs(x) ** 2.0, fout, offsets=[0])
    asc2.store(2.0**x, fout, offsets=[n])


def test_asc2_shared_methods_against_numpy():
    rng = np.random.default_rng(6)
    i, j = rng.integers(-(1 << 30), 1 << 30, (2, N), dtype=np.int32)
    x = rng.uniform(-3, 3, N).astype(np.float32)
    out, fout = np.zeros(6 * N, np.int32), np.zeros(2 * N, np.float32)
    shared_methods[1, rt.current_stream()](i, j, x, out, fout, N)
    expected = [i & j, i | 0x0F0F, i ^ j, ~i, ((i > 0) & ~(j > 0)).astype(np.int32), np.full(N, 1, np.int32)]
    np.testing.assert_array_equal(out, np.concatenate(expected))
    np.testing.assert_allclose(fout, np.concatenate([np.abs(x) ** 2, 2.0**x]), rtol=2e-5)


@asc2.jit
def bad_floordiv(x_ptr: asc.GlobalAddress, n: asc.ConstExpr[int]):
    x = asc2.load(asc2.tensor(x_ptr, [n]), [n], offsets=[0])
    asc2.store(x // 2, asc2.tensor(x_ptr, [n]), offsets=[0])


def test_floor_division_errors():
    with pytest.raises(CodegenError, match=r"asc2\.floor_divide: float16, float32, bfloat16, int16, int32 tiles only"):
        bad_floordiv[1, rt.current_stream()](np.zeros(N, np.int8), N)
