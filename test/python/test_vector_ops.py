"""Every vector instruction, count mode and mask/repeat mode, against numpy.

The reference below follows the documented rules independently of the Model:
count mode touches elements [0, count); mask mode touches, for repeat r, block
b and element e, dst[(r * rep + b * blk) * 32 / size + e] when bit
b * (32 / size) + e of the mask is set. Elements not touched keep their value.
"""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt

UB_TENSOR_BYTES = 65536  # each of dst, src0, src1 gets a third of the Unified Buffer

F16, F32, I16, U16, I32, U32 = np.float16, np.float32, np.int16, np.uint16, np.int32, np.uint32
ARITH, FLOAT, BITS, SHIFT = (F16, F32, I16, I32), (F16, F32), (I16, U16), (I16, U16, I32, U32)


def wrap(f):
    def call(*a):
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            return f(*a)

    return call


def fused(f):
    """Half-precision results computed in float32 and rounded once, as documented."""
    return lambda a, b, d: f(*(v.astype(np.float32) if v.dtype == F16 else v for v in (a, b, d)))


# name: (family, dtypes, reference(a, b_or_scalar, old_dst), input kind)
OPS = {
    "add": ("binary", ARITH, lambda a, b, d: a + b, "any"),
    "sub": ("binary", ARITH, lambda a, b, d: a - b, "any"),
    "mul": ("binary", ARITH, lambda a, b, d: a * b, "any"),
    "div": ("binary", FLOAT, lambda a, b, d: a / b, "nonzero"),
    "max": ("binary", ARITH, lambda a, b, d: np.maximum(a, b), "any"),
    "min": ("binary", ARITH, lambda a, b, d: np.minimum(a, b), "any"),
    "bitwise_and": ("binary", BITS, lambda a, b, d: a & b, "any"),
    "bitwise_or": ("binary", BITS, lambda a, b, d: a | b, "any"),
    "add_relu": ("binary", (F16, F32, I16), lambda a, b, d: np.maximum(a + b, 0).astype(a.dtype), "any"),
    "sub_relu": ("binary", (F16, F32, I16), lambda a, b, d: np.maximum(a - b, 0).astype(a.dtype), "any"),
    "mul_add_dst": ("binary", FLOAT, fused(lambda a, b, d: a * b + d), "any"),
    "fused_mul_add": ("binary", FLOAT, fused(lambda a, b, d: a * d + b), "any"),
    "fused_mul_add_relu": ("binary", FLOAT, fused(lambda a, b, d: np.maximum(a * d + b, 0)), "any"),
    "exp": ("unary", FLOAT, lambda a, b, d: np.exp(a), "small"),
    "ln": ("unary", FLOAT, lambda a, b, d: np.log(a), "positive"),
    "abs": ("unary", FLOAT, lambda a, b, d: np.abs(a), "any"),
    "sqrt": ("unary", FLOAT, lambda a, b, d: np.sqrt(a), "positive"),
    "rsqrt": ("unary", FLOAT, lambda a, b, d: 1 / np.sqrt(a), "positive"),
    "reciprocal": ("unary", FLOAT, lambda a, b, d: 1 / a, "nonzero"),
    "relu": ("unary", (F16, F32, I32), lambda a, b, d: np.maximum(a, 0).astype(a.dtype), "any"),
    "bitwise_not": ("unary", BITS, lambda a, b, d: ~a, "any"),
    "copy": ("unary", (F16, F32, I16, U16, I32, U32), lambda a, b, d: a, "any"),
    "adds": ("scalar", ARITH, lambda a, s, d: a + s, "any"),
    "muls": ("scalar", ARITH, lambda a, s, d: a * s, "any"),
    "maxs": ("scalar", ARITH, lambda a, s, d: np.maximum(a, s), "any"),
    "mins": ("scalar", ARITH, lambda a, s, d: np.minimum(a, s), "any"),
    "leaky_relu": ("scalar", FLOAT, lambda a, s, d: np.where(a >= 0, a, a * s), "any"),
    "shift_left": ("scalar", SHIFT, lambda a, s, d: a << s, "any"),
    "shift_right": ("scalar", SHIFT, lambda a, s, d: a >> s, "any"),
    "axpy": ("scalar", FLOAT, fused(lambda a, s, d: a * s + d), "any"),
    "duplicate": ("fill", (F16, F32, I16, U16, I32, U32), lambda a, s, d: s, "any"),
}
# Transcendental lanes may differ from numpy by an ulp or so.
APPROX = {"exp", "ln", "rsqrt", "reciprocal"}


def test_every_vector_row_is_tested_with_its_dtypes():
    """OPS covers every vector instruction of the op table, with the dtypes its row accepts."""
    from asc.language.core.dtype import ALL_DTYPES
    from asc.tools.instruction_table import describe

    rows = {op["name"]: op for op in describe() if op["family"] and not op["name"].endswith(".mask")}
    assert set(OPS) == set(rows), "a vector row without a case in OPS, or a case without a row"
    for name, (_, dtypes, _, _) in OPS.items():
        accepted = {d.name for d in ALL_DTYPES if rows[name]["dtypes"] & (1 << d.code)}
        assert {np.dtype(d).name for d in dtypes} == accepted, name


def make_kernel(name, family):
    op = getattr(asc, name)
    unary_params = asc.CopyRepeatParams if name == "copy" else asc.UnaryRepeatParams  # same field order

    @asc.jit
    def kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, scalar, count: int, mask0: int,
               mask1: int, repeats: int, blk: int, rep: int, MODE: asc.ConstExpr[str]):  # fmt: skip
        n = UB_TENSOR_BYTES // x.dtype.sizeof()
        x_gm = asc.GlobalTensor()
        y_gm = asc.GlobalTensor()
        z_gm = asc.GlobalTensor()
        x_gm.set_global_buffer(x, n)
        y_gm.set_global_buffer(y, n)
        z_gm.set_global_buffer(z, n)
        a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
        b = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, UB_TENSOR_BYTES, n)
        c = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 2 * UB_TENSOR_BYTES, n)
        asc.data_copy(a, x_gm, n)
        asc.data_copy(b, y_gm, n)
        asc.data_copy(c, z_gm, n)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        if MODE == "count":
            if family == "binary":
                op(c, a, b, count)
            elif family == "unary":
                op(c, a, count)
            elif family == "fill":
                op(c, scalar, count)
            else:
                op(c, a, scalar, count)
        else:
            mask = [mask0, mask1] if MODE == "bits" else mask0
            if family == "binary":
                op(c, a, b, mask, repeats, asc.BinaryRepeatParams(blk, blk, blk, rep, rep, rep))
            elif family == "unary":
                op(c, a, mask, repeats, unary_params(blk, blk, rep, rep))
            elif family == "fill":
                op(c, scalar, mask, repeats, blk, rep)
            else:
                op(c, a, scalar, mask, repeats, asc.UnaryRepeatParams(blk, blk, rep, rep))
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(z_gm, c, n)

    return kernel


KERNELS = {}


def kernel_for(name):
    if name not in KERNELS:
        KERNELS[name] = make_kernel(name, OPS[name][0])
    return KERNELS[name]


def inputs(rng, dtype, kind):
    n = UB_TENSOR_BYTES // np.dtype(dtype).itemsize
    if np.dtype(dtype).kind == "f":
        lo, hi = {"any": (-100, 100), "small": (-5, 5), "positive": (0.01, 100), "nonzero": (0.5, 100)}[kind]
        x, y = rng.uniform(lo, hi, n), rng.uniform(lo, hi, n)
        if kind == "nonzero":
            x, y = x * rng.choice([-1, 1], n), y * rng.choice([-1, 1], n)
        return x.astype(dtype), y.astype(dtype)
    info = np.iinfo(dtype)
    return (rng.integers(info.min, info.max, n, endpoint=True).astype(dtype),
            rng.integers(info.min, info.max, n, endpoint=True).astype(dtype))  # fmt: skip


def scalar_for(name, dtype, rng):
    if name.startswith("shift"):
        return int(rng.integers(0, 8 * np.dtype(dtype).itemsize))
    if np.dtype(dtype).kind == "f":
        return float(np.dtype(dtype).type(rng.uniform(-3, 3)))
    return int(rng.integers(-100, 100)) if np.dtype(dtype).kind == "i" else int(rng.integers(0, 100))


def reference(name, x, y, z, scalar, where):
    """Apply the instruction at the element indices `where` (dst index, src0 index, src1 index) of flat arrays."""
    family, _, f, _ = OPS[name]
    d_idx, a_idx, b_idx = where
    out = z.copy()
    a, d = x[a_idx], z[d_idx]
    b = y[b_idx] if family == "binary" else np.array(scalar).astype(x.dtype) if family in ("scalar", "fill") else a
    if name.startswith("shift"):
        b = scalar
    result = wrap(f)(a, b, d)
    out[d_idx] = np.asarray(result).astype(x.dtype)
    return out


def check(name, dtype, z, want):
    if name in APPROX or (dtype == F16 and name in ("mul_add_dst", "fused_mul_add")):
        np.testing.assert_allclose(z.astype(np.float64), want.astype(np.float64), rtol=2e-3 if dtype == F16 else 1e-6)
    else:
        np.testing.assert_array_equal(z, want)


CASES = [(name, dtype) for name, (_, dtypes, _, _) in OPS.items() for dtype in dtypes]


def case_id(case):
    return f"{case[0]}-{np.dtype(case[1]).name}"


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
@pytest.mark.parametrize("count", [1, 15, 200, 1000])
def test_count_mode(case, count, rng):
    name, dtype = case
    x, y = inputs(rng, dtype, OPS[name][3])
    z = (np.arange(x.size) % 97).astype(dtype)
    scalar = scalar_for(name, dtype, rng)
    kernel_for(name)[1, rt.current_stream()](x, y, z, scalar, count, 0, 0, 0, 1, 8, "count")
    idx = np.arange(count)
    want = reference(name, x, y, (np.arange(x.size) % 97).astype(dtype), scalar, (idx, idx, idx))
    check(name, dtype, z, want)


def mask_indices(dtype, mask_bits, repeats, blk, rep):
    size = np.dtype(dtype).itemsize
    per_block = 32 // size
    idx = []
    for r in range(repeats):
        for b in range(8):
            for e in range(per_block):
                i = b * per_block + e
                if mask_bits[i]:
                    idx.append(((r * rep + b * blk) * 32) // size + e)
    return np.array(idx, dtype=np.int64)


MASK_CASES = [
    # (mode, mask, repeats, block stride, repeat stride)
    ("continuous", "full", 4, 1, 8),
    ("continuous", "partial", 3, 1, 8),
    ("bits", "random", 5, 1, 8),
    ("continuous", "full", 255, 1, 8),
    ("bits", "random", 7, 2, 16),
    ("continuous", "partial", 9, 1, 4),
]


# Overlapping repeats (repeat stride < 8) only for unary and fill ops: with
# several operands a later repeat would read what an earlier one wrote.
MASK_PARAMS = [
    pytest.param(case, m, id=f"{case_id(case)}-{m[0]}-{m[1]}-r{m[2]}-b{m[3]}-s{m[4]}")
    for case in CASES
    for m in MASK_CASES
    if m[4] >= 8 or OPS[case[0]][0] in ("unary", "fill")
]


@pytest.mark.parametrize("case,mask_case", MASK_PARAMS)
def test_mask_mode(case, mask_case, rng):
    name, dtype = case
    mode, kind, repeats, blk, rep = mask_case
    x, y = inputs(rng, dtype, OPS[name][3])
    per_repeat = 256 // np.dtype(dtype).itemsize
    if mode == "continuous":
        count = per_repeat if kind == "full" else int(rng.integers(1, per_repeat))
        bits = np.arange(per_repeat) < count
        mask0, mask1 = count, 0
    else:
        bits = rng.random(per_repeat) < 0.6
        words = [int("".join("1" if b else "0" for b in reversed(bits[i : i + 64])) or "0", 2) for i in (0, 64)]
        mask0, mask1 = words[0], words[1] if per_repeat > 64 else 0
        mask0, mask1 = (w - 2**64 if w >= 2**63 else w for w in (mask0, mask1))
    z0 = (np.arange(x.size) % 89).astype(dtype)
    z = z0.copy()
    scalar = scalar_for(name, dtype, rng)
    kernel_for(name)[1, rt.current_stream()](x, y, z, scalar, 0, mask0, mask1, repeats, blk, rep,
                                             "bits" if mode == "bits" else "continuous")  # fmt: skip
    idx = mask_indices(dtype, bits, repeats, blk, rep)
    if rep < 8:  # a unary op on overlapping repeats: the last repeat to write an element wins
        want = z0.copy()
        for r in range(repeats):
            part = mask_indices(dtype, bits, 1, blk, rep) + (r * rep * 32) // np.dtype(dtype).itemsize
            want = reference(name, x, y, want, scalar, (part, part, part))
    else:
        want = reference(name, x, y, z0, scalar, (idx, idx, idx))
    check(name, dtype, z, want)


def test_mask_mode_errors():
    name, dtype = "add", F32
    x, y = inputs(np.random.default_rng(0), dtype, "any")
    z = np.zeros_like(x)
    with pytest.raises(asc.errors.KernelError, match="repeat_times 256 is outside 0..255"):
        kernel_for(name)[1, rt.current_stream()](x, y, z, 0.0, 0, 64, 0, 256, 1, 8, "continuous")
    # the sources' 130304 bytes stay inside the Unified Buffer (a warning); the destination's run past it
    with pytest.raises(asc.errors.OutOfBoundsError, match=r"writes bytes \[0, 130304\) of a tensor of 65536 bytes"):
        kernel_for(name)[1, rt.current_stream()](x, y, z, 0.0, 0, 64, 0, 255, 1, 16, "continuous")
    with pytest.raises(asc.errors.KernelError, match="destination block stride of 0 is undefined"):
        kernel_for(name)[1, rt.current_stream()](x, y, z, 0.0, 0, 64, 0, 2, 0, 8, "continuous")


def test_half_results_saturate():
    x = np.full(UB_TENSOR_BYTES // 2, 60000, F16)
    z = np.zeros_like(x)
    kernel_for("add")[1, rt.current_stream()](x, x, z, 0.0, 64, 0, 0, 0, 1, 8, "count")
    assert np.all(z[:64] == F16(65504))  # Atlas A2 saturates half results by default: not inf


@asc.jit
def in_place(x: asc.GlobalAddress, y: asc.GlobalAddress, n: int, MODE: asc.ConstExpr[str]):
    """dst is the same tensor as src0, which Ascend C allows (100% overlap). MODE "set_mask": pyasc's count form
    of the binary and scalar instructions also takes is_set_mask (which it ignores)."""
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
    if MODE == "add":
        asc.add(a, a, b, n)
    elif MODE == "mul":
        asc.mul(a, a, b, n)
    else:
        asc.add(a, a, b, n, True)
        asc.adds(a, a, 1.0, n, is_set_mask=True)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(x_gm, a, n)


@pytest.mark.parametrize("is_add", [True, False])
def test_in_place_dst_equals_src(is_add, rng):
    x, y = rng.random(256, dtype=np.float32), rng.random(256, dtype=np.float32)
    expected = x + y if is_add else x * y
    in_place[1, rt.current_stream()](x, y, 256, "add" if is_add else "mul")
    np.testing.assert_array_equal(x, expected)


BF16 = pytest.importorskip("ml_dtypes").bfloat16


@pytest.mark.parametrize("op,dtype", [("div", np.int32), ("add", np.int8), ("max", np.uint16), ("mul", BF16)])
def test_unsupported_dtype_is_a_compile_error(op, dtype):
    x = np.zeros(64, dtype)
    with pytest.raises(asc.CodegenError, match=f"dtype {np.dtype(dtype).name} is not supported") as err:
        kernel_for(op)[1, rt.current_stream()](x, x, x.copy(), 0, 64, 0, 0, 0, 1, 8, "count")
    assert "test_vector_ops.py" in str(err.value)


def test_count_form_takes_is_set_mask(rng):
    x, y = rng.random(256, dtype=np.float32), rng.random(256, dtype=np.float32)
    expected = x + y + np.float32(1)
    in_place[1, rt.current_stream()](x, y, 256, "set_mask")
    np.testing.assert_array_equal(x, expected)
