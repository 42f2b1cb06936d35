"""cast in every supported (src, dst) pair and round mode, against a numpy
reference that rounds by the documented rules."""

import ml_dtypes
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt

BF16 = ml_dtypes.bfloat16
M = asc.RoundMode
NONE_ONLY = [M.CAST_NONE]
ROUNDING = [M.CAST_RINT, M.CAST_FLOOR, M.CAST_CEIL, M.CAST_ROUND, M.CAST_TRUNC]
PAIRS = {  # (src, dst): modes, as the Ascend C Cast table lists them for Atlas A2
    (np.int8, np.float16): NONE_ONLY,
    (np.uint8, np.float16): NONE_ONLY,
    (np.int16, np.float32): NONE_ONLY,
    (np.float16, np.float32): NONE_ONLY,
    (BF16, np.float32): NONE_ONLY,
    (np.int32, np.int16): NONE_ONLY,
    (np.int32, np.int64): NONE_ONLY,
    (np.int64, np.int32): NONE_ONLY,
    (np.int16, np.float16): NONE_ONLY + ROUNDING,
    (np.float16, np.int8): NONE_ONLY + ROUNDING,
    (np.float16, np.uint8): NONE_ONLY + ROUNDING,
    (np.int32, np.float32): NONE_ONLY + ROUNDING,
    (np.float16, np.int16): ROUNDING,
    (np.float16, np.int32): ROUNDING,
    (BF16, np.int32): ROUNDING,
    (np.float32, np.int16): ROUNDING,
    (np.float32, np.int32): ROUNDING,
    (np.float32, BF16): ROUNDING,
    (np.float32, np.float32): ROUNDING,
    (np.float32, np.int64): ROUNDING,
    (np.int64, np.float32): ROUNDING,
    (np.float32, np.float16): NONE_ONLY + ROUNDING + [M.CAST_ODD],
}
N = 512  # elements; every dtype's N elements are whole 32-byte blocks


@asc.jit
def cast_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, MODE: asc.ConstExpr[int]):
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, N)
    z_gm.set_global_buffer(z, N)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, N)
    c = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 8192, N)
    asc.data_copy(a, x_gm, N)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.cast(c, a, asc.RoundMode(MODE), N)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, c, N)


def source_values(src, rng):
    if np.dtype(src).kind in "iu":
        info = np.iinfo(src)
        return rng.integers(info.min, info.max, N, endpoint=True, dtype=np.int64).astype(src)
    v = rng.uniform(-300, 300, N)
    v[:64] = np.arange(-32, 32) + 0.5  # exact ties
    v[64:96] = rng.uniform(-1e6, 1e6, 32)  # saturation for narrow integers
    v[96] = np.nan
    with np.errstate(over="ignore"):  # float16 sources see +-inf there: saturation again
        return v.astype(src)


def round_integral(x, mode):
    if mode == M.CAST_FLOOR:
        return np.floor(x)
    if mode == M.CAST_CEIL:
        return np.ceil(x)
    if mode == M.CAST_ROUND:
        return np.sign(x) * np.floor(np.abs(x) + 0.5)
    if mode == M.CAST_TRUNC:
        return np.trunc(x)
    return np.rint(x)


def bits_step(v, up):
    """The next representable value of a float array (numpy float16/32 or bfloat16) toward +-inf."""
    width = {2: np.uint16, 4: np.uint32}[v.dtype.itemsize]
    b = v.view(width).astype(np.int64)
    sign = 1 << (8 * v.dtype.itemsize - 1)
    negative = (b & sign) != 0
    magnitude_zero = (b & (sign - 1)) == 0
    out = np.where(negative != up, b + 1, b - 1)
    out = np.where(magnitude_zero, 1 if up else sign | 1, out)
    return out.astype(width).view(v.dtype)


def to_float(x, dst, mode):
    x = x.astype(np.float64)
    nearest = x.astype(dst)
    if mode in (M.CAST_NONE, M.CAST_RINT):
        return nearest
    v = nearest.astype(np.float64)
    below = np.where(v <= x, nearest, bits_step(nearest, False))
    above = np.where(v >= x, nearest, bits_step(nearest, True))
    lo, hi = below.astype(np.float64), above.astype(np.float64)
    exact = v == x
    if mode == M.CAST_FLOOR:
        out = below
    elif mode == M.CAST_CEIL:
        out = above
    elif mode == M.CAST_TRUNC:
        out = np.where(x > 0, below, above)
    elif mode == M.CAST_ROUND:
        with np.errstate(invalid="ignore"):
            tie = x - lo == hi - x
        out = np.where(tie, np.where(x > 0, above, below), nearest)
    else:  # CAST_ODD
        width = {2: np.uint16, 4: np.uint32}[below.dtype.itemsize]
        out = np.where(below.view(width) & 1, below, above)
    return np.where(exact | np.isnan(x), nearest, out).astype(dst)


def reference(x, src, dst, mode):
    wide = x.astype(np.float64) if np.dtype(src).kind not in "iu" else x.astype(np.int64).astype(np.float64)
    if np.dtype(dst).kind in "iu":
        info = np.iinfo(dst)
        r = round_integral(wide, mode)
        r = np.where(np.isnan(r), 0, np.clip(r, info.min, info.max))
        return r.astype(dst)
    if src == dst:  # float -> float: round to an integral value
        return round_integral(wide, mode).astype(dst)
    if np.dtype(src).kind in "iu" and src == np.int64:
        wide = x.astype(np.longdouble)
        nearest = wide.astype(dst)
        if mode in (M.CAST_NONE, M.CAST_RINT):
            return nearest
    out = to_float(wide, dst, mode)
    if dst == np.float16:  # half results saturate on Atlas A2
        out = np.where(np.isinf(out) & np.isfinite(wide), np.sign(wide) * 65504, out).astype(dst)
    return out


CASES = [(src, dst, mode) for (src, dst), modes in PAIRS.items() for mode in modes]


@pytest.mark.parametrize("src,dst,mode", CASES,
                         ids=[f"{np.dtype(s).name}-{np.dtype(d).name}-{m.name}" for s, d, m in CASES])  # fmt: skip
def test_cast(src, dst, mode, rng):
    x = source_values(src, rng)
    z = np.zeros(N, dst)
    cast_kernel[1, rt.current_stream()](x, z, int(mode))
    with np.errstate(over="ignore", invalid="ignore"):
        want = reference(x, src, dst, mode)
    np.testing.assert_array_equal(z.view(np.uint8), np.asarray(want, dtype=dst).view(np.uint8))


@pytest.mark.parametrize("src,dst,mode", [(np.float32, np.int32, M.CAST_NONE), (np.float16, np.float32, M.CAST_RINT),
                                          (np.float32, np.int8, M.CAST_RINT)])  # fmt: skip
def test_unsupported_casts_are_compile_errors(src, dst, mode):
    with pytest.raises(asc.CodegenError, match="not supported on Atlas A2|does not accept"):
        cast_kernel[1, rt.current_stream()](np.zeros(N, src), np.zeros(N, dst), int(mode))
