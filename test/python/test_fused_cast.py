"""Conversions fused with arithmetic and the deq-scale register (add_relu_cast, sub_relu_cast, mul_cast,
add_deq_relu, cast_deq, set_deq_scale) and the gather additions (gatherb, get_gather_mask_remain_count,
bilinear_interpolation): the Model's results against numpy references written from the Ascend C docs' rules
(src/ir/ops_vector.cpp and src/ir/ops_gather.cpp cite them), in count and mask/repeat mode with strides and
tails, every documented dtype pair, and the errors."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt

N_BYTES = 8192
SENTINEL = 0x5A  # every byte of dst before the instruction

# (op, src dtype, dst dtype): the Atlas A2 pairs of each instruction's page
PAIRS = [
    ("add_relu_cast", np.float32, np.float16),
    ("add_relu_cast", np.float16, np.int8),
    ("add_relu_cast", np.int16, np.int8),
    ("sub_relu_cast", np.float32, np.float16),
    ("sub_relu_cast", np.float16, np.int8),
    ("sub_relu_cast", np.int16, np.int8),
    ("mul_cast", np.float16, np.int8),
    ("mul_cast", np.float16, np.uint8),
    ("add_deq_relu", np.int32, np.float16),
]
DEQ_SCALE = 0.3  # rounded to half by set_deq_scale(scale)


@asc.jit
def fused_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, scale: float,
                 a0: int, a1: int, a2: int, a3: int, a4: int, a5: int, a6: int, a7: int, a8: int,
                 OP: asc.ConstExpr[str], FORM: asc.ConstExpr[str]):  # fmt: skip
    n_x = N_BYTES // x.dtype.sizeof()
    n_z = N_BYTES // z.dtype.sizeof()
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, n_x)
    y_gm.set_global_buffer(y, n_x)
    z_gm.set_global_buffer(z, n_z)
    s0 = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n_x)
    s1 = asc.LocalTensor(y.dtype, asc.TPosition.VECIN, N_BYTES, n_x)
    d = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 2 * N_BYTES, n_z)
    asc.data_copy(s0, x_gm, n_x)
    asc.data_copy(s1, y_gm, n_x)
    asc.data_copy(d, z_gm, n_z)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if OP == "add_deq_relu":  # "add_deq_relu_unset": the instruction without set_deq_scale
        asc.set_deq_scale(scale)
    params = asc.BinaryRepeatParams(a2, a3, a4, a5, a6, a7)
    if FORM == "count":
        if OP == "add_relu_cast":
            asc.add_relu_cast(d, s0, s1, a0)
        elif OP == "sub_relu_cast":
            asc.sub_relu_cast(d, s0, s1, count=a0)
        elif OP == "mul_cast":
            asc.mul_cast(d, s0, s1, a0)
        else:
            asc.add_deq_relu(d, s0, s1, a0)
    elif FORM == "mask":
        if OP == "add_relu_cast":
            asc.add_relu_cast(d, s0, s1, a0, a1, params)
        elif OP == "sub_relu_cast":
            asc.sub_relu_cast(d, s0, s1, mask=a0, repeat_times=a1, repeat_params=params)
        elif OP == "mul_cast":
            asc.mul_cast(d, s0, s1, a0, a1, params)
        else:
            asc.add_deq_relu(d, s0, s1, a0, a1, params)
    elif FORM == "counter":  # the mask register in counter mode: a0 elements, repeats as needed
        asc.set_mask_count()
        asc.set_vector_mask(a0, dtype=asc.float32, mode=asc.MaskMode.COUNTER)
        if OP == "add_relu_cast":
            asc.add_relu_cast(d, s0, s1, asc.MASK_PLACEHOLDER, 1, params, is_set_mask=False)
        else:
            asc.add_deq_relu(d, s0, s1, asc.MASK_PLACEHOLDER, 1, params, is_set_mask=False)
        asc.set_mask_norm()
        asc.reset_mask()
    else:  # a bit mask [low, high]
        if OP == "add_relu_cast":
            asc.add_relu_cast(d, s0, s1, [a0, a8], a1, params)
        elif OP == "sub_relu_cast":
            asc.sub_relu_cast(d, s0, s1, [a0, a8], a1, params)
        elif OP == "mul_cast":
            asc.mul_cast(d, s0, s1, [a0, a8], a1, params)
        else:
            asc.add_deq_relu(d, s0, s1, mask=[a0, a8], repeat_times=a1, repeat_params=params)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, d, n_z)


def as_signed64(word):
    return word - 2**64 if word >= 2**63 else word


def values(rng, dtype, n):
    if np.dtype(dtype) == np.int32:
        v = rng.integers(-(2**31), 2**31 - 1, n, endpoint=True, dtype=np.int64).astype(np.int32)
        v[:64] = rng.integers(-3000, 3000, 64)  # sums the half scale keeps finite
        return v
    if np.dtype(dtype) == np.int16:
        return rng.integers(-(2**15), 2**15 - 1, n, endpoint=True).astype(np.int16)
    v = rng.uniform(-200, 200, n)
    v[:32] = np.arange(-16, 16) + 0.5  # ties of the integer conversion
    v[32:40] = rng.uniform(-1e5, 1e5, 8)  # saturation
    with np.errstate(over="ignore"):
        return v.astype(dtype)


def half_saturating(x):
    x = np.asarray(x, np.float32)
    with np.errstate(over="ignore"):
        h = x.astype(np.float16)
    h[np.isinf(h) & np.isfinite(x)] = np.where(x > 0, 65504, -65504)[np.isinf(h) & np.isfinite(x)]
    return h


def to_dst(r, dst):
    """CAST_NONE of the Model: to nearest (ties to even), saturating; NaN -> 0 for integers."""
    if np.dtype(dst) == np.float16:
        return half_saturating(r)
    info = np.iinfo(dst)
    r = np.nan_to_num(np.asarray(r, np.float64), nan=0.0)
    return np.clip(np.rint(r), info.min, info.max).astype(dst)


def lane(op, a, b, dst, scale=DEQ_SCALE):
    """The reference of one instruction on aligned element arrays."""
    with np.errstate(over="ignore", invalid="ignore"):
        if op == "add_deq_relu":
            s = (a.astype(np.int64) + b).astype(np.int32)  # int32 lanes wrap
            f = s.astype(np.float32) * np.float32(np.float16(scale))
            return half_saturating(np.where(f > 0, f, np.float32(0)))
        if a.dtype == np.int16:
            s = (a.astype(np.int32) + (b if op == "add_relu_cast" else -b.astype(np.int32))).astype(np.int16)
        elif op == "mul_cast":
            s = (a.astype(np.float32) * b.astype(np.float32)).astype(np.float16)
        elif a.dtype == np.float16:
            f = a.astype(np.float32) + (b if op == "add_relu_cast" else -b).astype(np.float32)
            s = f.astype(np.float16)
        else:
            s = a + b if op == "add_relu_cast" else a - b
        if op != "mul_cast":
            s = np.where(s > 0, s, 0).astype(s.dtype)  # relu; NaN -> 0
        return to_dst(s, dst)


def launch(op, x, y, dst, form, *args, scale=DEQ_SCALE):
    z = np.full(N_BYTES, SENTINEL, np.uint8).view(dst)
    args = [int(a) for a in args] + [0] * (9 - len(args))
    fused_kernel[1, rt.current_stream()](x, y, z, scale, *args, op, form)
    return z


@pytest.mark.parametrize("op,src,dst", PAIRS, ids=[f"{p[0]}-{np.dtype(p[1])}-{np.dtype(p[2])}" for p in PAIRS])
@pytest.mark.parametrize("count", [1, 37, 256, 1000])
def test_count_mode(op, src, dst, count, rng):
    n = N_BYTES // np.dtype(src).itemsize
    x, y = values(rng, src, n), values(rng, src, n)
    z = launch(op, x, y, dst, "count", count)
    want = np.full(z.nbytes, SENTINEL, np.uint8).view(dst)
    want[:count] = lane(op, x[:count], y[:count], dst)
    np.testing.assert_array_equal(z.view(np.uint8), want.view(np.uint8))  # and the tail untouched


def mask_reference(op, x, y, dst, bits, repeats, blk, rep):
    """dst after a mask-mode call: a repeat holds 256 bytes of the wider dtype; element e of an operand is in
    its block e // (32 / size); blk/rep: (dst, src0, src1) strides in blocks."""
    in_size, out_size = x.itemsize, np.dtype(dst).itemsize
    per_repeat = 256 // max(in_size, out_size)
    z = np.full(N_BYTES, SENTINEL, np.uint8).view(dst)

    def index(r, e, size, b, p):
        per_block = 32 // size
        return (r * p + (e // per_block) * b) * per_block + e % per_block

    for r in range(repeats):
        es = [e for e in range(per_repeat) if (bits >> e) & 1]
        i0 = [index(r, e, in_size, blk[1], rep[1]) for e in es]
        i1 = [index(r, e, in_size, blk[2], rep[2]) for e in es]
        o = [index(r, e, out_size, blk[0], rep[0]) for e in es]
        z[o] = lane(op, x[i0], y[i1], dst)
    return z


MASK_CASES = [  # repeats, (dst, src0, src1) block strides, repeat strides
    (1, (1, 1, 1), (8, 8, 8)),
    (3, (1, 1, 1), (8, 8, 8)),
    (2, (2, 1, 2), (16, 9, 20)),
    (2, (1, 2, 1), (4, 16, 8)),
]


@pytest.mark.parametrize("op,src,dst", PAIRS, ids=[f"{p[0]}-{np.dtype(p[1])}-{np.dtype(p[2])}" for p in PAIRS])
@pytest.mark.parametrize("case", range(len(MASK_CASES)))
def test_mask_mode(op, src, dst, case, rng):
    repeats, blk, rep = MASK_CASES[case]
    n = N_BYTES // np.dtype(src).itemsize
    x, y = values(rng, src, n), values(rng, src, n)
    per_repeat = 256 // max(np.dtype(src).itemsize, np.dtype(dst).itemsize)
    # a continuous mask with a tail, then a bit mask
    length = per_repeat - 5 if case % 2 else per_repeat
    z = launch(op, x, y, dst, "mask", length, repeats, *blk, *rep)
    want = mask_reference(op, x, y, dst, (1 << length) - 1, repeats, blk, rep)
    np.testing.assert_array_equal(z.view(np.uint8), want.view(np.uint8))
    bits = int(rng.integers(0, 2**63)) | (1 << 63) | (int(rng.integers(0, 2**63)) << 64)
    bits &= (1 << per_repeat) - 1
    low, high = bits & (2**64 - 1), bits >> 64
    z = launch(op, x, y, dst, "bits", as_signed64(low), repeats, *blk, *rep, as_signed64(high))
    want = mask_reference(op, x, y, dst, bits, repeats, blk, rep)
    np.testing.assert_array_equal(z.view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("op,src", [("add_relu_cast", np.float32), ("add_deq_relu", np.int32)])
@pytest.mark.parametrize("count", [64, 100, 300])
def test_counter_mode_with_the_mask_register(op, src, count, rng):
    # is_set_mask=False in counter mode: ceil(count / 64) repeats of 64 elements, the last one partial;
    # contiguous strides (a repeat: 8 source blocks, 4 float16 destination blocks)
    n = N_BYTES // np.dtype(src).itemsize
    x, y = values(rng, src, n), values(rng, src, n)
    z = launch(op, x, y, np.float16, "counter", count, 0, 1, 1, 1, 4, 8, 8)
    want = np.full(N_BYTES, SENTINEL, np.uint8).view(np.float16)
    want[:count] = lane(op, x[:count], y[:count], np.float16)
    np.testing.assert_array_equal(z.view(np.uint16), want.view(np.uint16))


# ---- cast_deq and set_deq_scale -------------------------------------------------------------------------------

VDEQ_SCALES = tuple(0.25 * (i + 1) for i in range(16))
VDEQ_OFFSETS = tuple(i * 7 - 50 for i in range(16))
SIGNED = (True,) * 16
UNSIGNED = (False,) * 16


@asc.jit
def deq_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, w: asc.GlobalAddress, scale: float, offset: int,
               sign: int, a0: int, a1: int, a2: int, a3: int, a4: int, a5: int, a6: int,
               FORM: asc.ConstExpr[str], SET: asc.ConstExpr[str], VEC: asc.ConstExpr[bool],
               HALF: asc.ConstExpr[bool]):  # fmt: skip
    n_x = N_BYTES // x.dtype.sizeof()
    n_z = N_BYTES // z.dtype.sizeof()
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    w_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, n_x)
    z_gm.set_global_buffer(z, n_z)
    w_gm.set_global_buffer(w, 16)
    s = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n_x)
    d = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, N_BYTES, n_z)
    vdeq = asc.LocalTensor(asc.uint64, asc.TPosition.VECCALC, 2 * N_BYTES, 16)
    asc.data_copy(s, x_gm, n_x)
    asc.data_copy(d, z_gm, n_z)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if SET == "half":
        asc.set_deq_scale(scale)
    elif SET == "quant":
        asc.set_deq_scale(scale, offset, sign == 1)
    elif SET == "vector_signed":
        asc.set_deq_scale(vdeq, asc.VdeqInfo(VDEQ_SCALES, VDEQ_OFFSETS, SIGNED))
    elif SET == "vector_unsigned":
        asc.set_deq_scale(vdeq_info=asc.VdeqInfo(VDEQ_SCALES, VDEQ_OFFSETS, UNSIGNED), vdeq=vdeq)
    if FORM == "count":
        asc.cast_deq(d, s, a0, is_vec_deq=VEC, half_block=HALF)
    elif FORM == "mask":
        asc.cast_deq(d, s, a0, a1, asc.UnaryRepeatParams(a2, a3, a4, a5), is_vec_deq=VEC, half_block=HALF)
    else:
        asc.cast_deq(d, s, mask=[a0, a6], repeat_times=a1, repeat_params=asc.UnaryRepeatParams(a2, a3, a4, a5),
                     is_vec_deq=VEC, half_block=HALF)  # fmt: skip
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, d, n_z)
    if SET == "vector_signed" or SET == "vector_unsigned":
        asc.data_copy(w_gm, vdeq, 16)


def deq_launch(x, dst, form, set_form, vec, half, *args, scale=0.5, offset=3, sign=1):
    z = np.full(N_BYTES, SENTINEL, np.uint8).view(dst)
    w = np.zeros(16, np.uint64)
    args = [int(a) for a in args] + [0] * (7 - len(args))
    deq_kernel[1, rt.current_stream()](x, z, w, scale, offset, sign, *args, form, set_form, vec, half)
    return z, w


def offset9(v):
    low = v & 0x1FF
    return low - 512 if low >= 256 else low


def deq_int16(x, scales, offsets, signed):
    """src * scale rounded to an integer, clamped to the 9-bit range, + offset, saturated to 8 bits."""
    q = np.clip(np.rint(x.astype(np.float32) * np.asarray(scales, np.float32)), -256, 255) + np.asarray(offsets)
    return np.clip(q, -128, 127).astype(np.int8) if signed else np.clip(q, 0, 255).astype(np.uint8)


def deq_positions(count_or_es, half_block, r=0, blk=1, rep=0):
    """Destination byte of source element e: the same block index, its lower (half_block) or upper 16 bytes."""
    e = np.asarray(count_or_es)
    return (r * rep + (e // 16) * blk) * 32 + (0 if half_block else 16) + e % 16


@pytest.mark.parametrize("dst", [np.int8, np.uint8])
@pytest.mark.parametrize("vec", [False, True])
@pytest.mark.parametrize("half", [True, False])
@pytest.mark.parametrize("count", [16, 200, 1024])
def test_cast_deq_int16_count(dst, vec, half, count, rng):
    x = rng.integers(-400, 400, N_BYTES // 2).astype(np.int16)
    signed = dst == np.int8
    scale, offset = 0.37, 300  # offset: its low 9 bits, -212
    if vec:
        set_form = "vector_signed" if signed else "vector_unsigned"
        scales = np.array(VDEQ_SCALES, np.float32)[np.arange(count) % 16]
        offsets = np.array([offset9(o) for o in VDEQ_OFFSETS])[np.arange(count) % 16]
    else:
        set_form = "quant"
        scales, offsets = np.float32(scale), offset9(offset)
    z, w = deq_launch(x, dst, "count", set_form, vec, half, count, scale=scale, offset=offset, sign=int(signed))
    want = np.full(z.nbytes, SENTINEL, np.uint8)
    want[deq_positions(np.arange(count), half)] = deq_int16(x[:count], scales, offsets, signed).view(np.uint8)
    np.testing.assert_array_equal(z.view(np.uint8), want)
    if vec:  # vdeq's 16 words: the scale's float bits, the 9-bit offset at bit 37, the sign mode at bit 46
        bits = np.array(VDEQ_SCALES, np.float32).view(np.uint32).astype(np.uint64)
        words = bits | (np.array([o & 0x1FF for o in VDEQ_OFFSETS], np.uint64) << np.uint64(37))
        words |= np.uint64(int(signed)) << np.uint64(46)
        np.testing.assert_array_equal(w, words)


@pytest.mark.parametrize("vec", [False, True])
@pytest.mark.parametrize("form", ["mask", "bits"])
@pytest.mark.parametrize("half", [True, False])
@pytest.mark.parametrize(
    "repeats,dst_blk,src_blk,dst_rep,src_rep", [(1, 1, 1, 8, 8), (3, 1, 1, 8, 8), (2, 2, 1, 16, 9)]
)
def test_cast_deq_int16_mask(vec, form, half, repeats, dst_blk, src_blk, dst_rep, src_rep, rng):
    x = rng.integers(-400, 400, N_BYTES // 2).astype(np.int16)
    bits = (1 << 100) - 1 if form == "mask" else int(rng.integers(1, 2**63)) | (int(rng.integers(0, 2**63)) << 64)
    low, high = bits & (2**64 - 1), bits >> 64
    mask = 100 if form == "mask" else as_signed64(low)
    set_form = "vector_signed" if vec else "quant"
    z, _ = deq_launch(x, np.int8, form, set_form, vec, half, mask, repeats, dst_blk, src_blk, dst_rep, src_rep,
                      as_signed64(high), scale=1.5, offset=-7, sign=1)  # fmt: skip
    want = np.full(z.nbytes, SENTINEL, np.uint8)
    for r in range(repeats):
        es = np.array([e for e in range(128) if (bits >> e) & 1])
        src_at = (r * src_rep + (es // 16) * src_blk) * 16 + es % 16
        if vec:
            scales = np.array(VDEQ_SCALES, np.float32)[es % 16]
            offsets = np.array([offset9(o) for o in VDEQ_OFFSETS])[es % 16]
        else:
            scales, offsets = np.float32(1.5), -7
        want[deq_positions(es, half, r, dst_blk, dst_rep)] = deq_int16(x[src_at], scales, offsets, True).view(np.uint8)
    np.testing.assert_array_equal(z.view(np.uint8), want)


@pytest.mark.parametrize("count", [8, 100, 2048])
def test_cast_deq_int32_to_half(count, rng):
    x = rng.integers(-100000, 100000, N_BYTES // 4).astype(np.int32)
    x[:4] = [2**31 - 1, -(2**31), 0, 7]
    z, _ = deq_launch(x, np.float16, "count", "half", True, True, count, scale=0.01)
    want = np.full(z.nbytes, SENTINEL, np.uint8).view(np.float16)
    want[:count] = half_saturating(x[:count].astype(np.float32) * np.float32(np.float16(0.01)))
    np.testing.assert_array_equal(z.view(np.uint16), want.view(np.uint16))
    # mask mode: a repeat holds 64 int32 sources and writes 4 destination blocks
    z, _ = deq_launch(x, np.float16, "mask", "half", False, True, 50, 2, 1, 1, 4, 8, scale=0.01)
    want = np.full(z.nbytes, SENTINEL, np.uint8).view(np.float16)
    for r in range(2):
        want[r * 64 : r * 64 + 50] = half_saturating(
            x[r * 64 : r * 64 + 50].astype(np.float32) * np.float32(np.float16(0.01))
        )
    np.testing.assert_array_equal(z.view(np.uint16), want.view(np.uint16))


def test_deq_scale_errors(rng):
    x16 = rng.integers(-100, 100, N_BYTES // 2).astype(np.int16)
    with pytest.raises(asc.errors.KernelError, match="is_vec_deq=False reads a scale, offset and sign mode .* holds "
                       "nothing: set_deq_scale has not run"):  # fmt: skip
        deq_launch(x16, np.int8, "count", "none", False, True, 16)
    with pytest.raises(asc.errors.KernelError, match="is_vec_deq=True reads 16 groups .* holds a scale, offset"):
        deq_launch(x16, np.int8, "count", "quant", True, True, 16)
    with pytest.raises(asc.errors.KernelError, match="cast_deq from int32 reads a half scale"):
        deq_launch(x16.view(np.int32), np.float16, "count", "quant", True, True, 16)
    with pytest.raises(asc.errors.KernelError, match="dst holds uint8 but the sign mode of DEQSCALE is True"):
        deq_launch(x16, np.uint8, "count", "quant", False, True, 16, sign=1)
    with pytest.raises(asc.errors.KernelError, match="dst holds int8 but the sign mode of DEQSCALE group 0 is False"):
        deq_launch(x16, np.int8, "count", "vector_unsigned", True, True, 16)
    with pytest.raises(asc.CodegenError, match=r"converts int16 -> int8, int16 -> uint8, int32 -> float16 \(got "
                       r"int16 -> float16\)"):  # fmt: skip
        deq_launch(x16, np.float16, "count", "half", True, True, 16)
    x32 = rng.integers(-100, 100, N_BYTES // 4).astype(np.int32)
    with pytest.raises(asc.errors.KernelError, match="add_deq_relu reads a half scale .* holds nothing"):
        launch("add_deq_relu_unset", x32, x32, np.float16, "count", 8)


# ---- bad input of the fused binary ones ---------------------------------------------------------------------------


@asc.jit
def bad_fused(WHAT: asc.ConstExpr[str]):
    f32 = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 256)
    f16 = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 1024, 256)
    i8 = asc.LocalTensor(asc.int8, asc.TPosition.VECCALC, 2048, 256)
    u64 = asc.LocalTensor(asc.uint64, asc.TPosition.VECCALC, 4096, 16)
    if WHAT == "pair":
        asc.add_relu_cast(i8, f32, f32, 64)
    elif WHAT == "mixed_sources":
        asc.sub_relu_cast(f16, f32, f16, 64)
    elif WHAT == "mul_float":
        asc.mul_cast(f16, f32, f32, 64, 1, asc.BinaryRepeatParams())
    elif WHAT == "deq_pair":
        asc.add_deq_relu(f16, f32, f32, 64)
    elif WHAT == "params":
        asc.add_relu_cast(f16, f32, f32, 64, 1, asc.UnaryRepeatParams())
    elif WHAT == "flag":
        asc.cast_deq(i8, f16, 64, is_vec_deq=1)
    elif WHAT == "set_args":
        asc.set_deq_scale(1.0, 2)
    elif WHAT == "set_scale":
        asc.set_deq_scale(f16)
    elif WHAT == "vdeq_len":
        asc.set_deq_scale(u64, asc.VdeqInfo([1.0] * 15, [0] * 16, [True] * 16))
    elif WHAT == "vdeq_dtype":
        asc.set_deq_scale(f16, asc.VdeqInfo())
    elif WHAT == "offset":
        asc.set_deq_scale(1.0, 40000, True)


@pytest.mark.parametrize(
    "what,message",
    [
        ("pair", r"add_relu_cast.*converts float32 -> float16, float16 -> int8, int16 -> int8 \(got float32 -> int8\)"),
        ("mixed_sources", "src0 holds float32 but src1 holds float16"),
        ("mul_float", r"mul_cast.mask.*converts float16 -> int8, float16 -> uint8 \(got float32 -> float16\)"),
        ("deq_pair", r"converts int32 -> float16 \(got float32 -> float16\)"),
        ("params", "repeat_params must be an asc.BinaryRepeatParams"),
        ("flag", "is_vec_deq must be a Python bool"),
        ("set_args", r"takes \(scale\), \(scale, offset, sign_mode\) or \(vdeq, vdeq_info\)"),
        ("set_scale", "set_deq_scale: the tensor form takes vdeq and vdeq_info"),
        ("vdeq_len", "VdeqInfo.scale has 15 entries, not 16"),
        ("vdeq_dtype", "vdeq must be a LocalTensor of uint64"),
        ("offset", "offset 40000 does not fit an int16"),
    ],
)
def test_bad_input(what, message):
    with pytest.raises(asc.CodegenError, match=message):
        bad_fused[1, rt.current_stream()](what)


# ---- gatherb, get_gather_mask_remain_count, bilinear_interpolation -----------------------------------------------


@asc.jit
def gather_kernel(x: asc.GlobalAddress, o: asc.GlobalAddress, s: asc.GlobalAddress, z: asc.GlobalAddress,
                  kept: asc.GlobalAddress, a0: int, a1: int, a2: int, a3: int, a4: int, a5: int, a6: int,
                  OP: asc.ConstExpr[str]):  # fmt: skip
    n = N_BYTES // x.dtype.sizeof()
    x_gm = asc.GlobalTensor()
    o_gm = asc.GlobalTensor()
    s_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    kept_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    o_gm.set_global_buffer(o, N_BYTES // 4)
    s_gm.set_global_buffer(s, n)
    z_gm.set_global_buffer(z, n)
    kept_gm.set_global_buffer(kept, 3)
    src = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    offsets = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, N_BYTES, N_BYTES // 4)
    src1 = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 2 * N_BYTES, n)
    dst = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 3 * N_BYTES, n)
    tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 4 * N_BYTES, 1024)
    asc.data_copy(src, x_gm, n)
    asc.data_copy(offsets, o_gm, N_BYTES // 4)
    asc.data_copy(src1, s_gm, n)
    asc.data_copy(dst, z_gm, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if OP == "gatherb":
        asc.gatherb(dst, src, offsets, a0, asc.GatherRepeatParams(a1, a2))
    elif OP == "remain":
        kept_gm.set_value(0, asc.get_gather_mask_remain_count())
        count = asc.gather_mask(dst, src, a0, False, 0, asc.GatherMaskParams(1, a1, 8, 0))
        kept_gm.set_value(1, count)
        kept_gm.set_value(2, asc.get_gather_mask_remain_count())
    elif OP == "bilinear":
        asc.bilinear_interpolation(dst, src, offsets, src1, a0, a1, a2 == 1, a3, a4, a5, tmp)
    else:  # bilinear with a bit mask
        asc.bilinear_interpolation(dst, src, offsets, src1, [a0, a6], a1, a2 == 1, a3, a4, a5, tmp)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, dst, n)


def gather_launch(op, x, offsets, src1, *args):
    z = np.full(x.nbytes, SENTINEL, np.uint8).view(x.dtype)
    kept = np.zeros(3, np.uint64)
    args = [int(a) for a in args] + [0] * (7 - len(args))
    full = np.zeros(N_BYTES // 4, np.uint32)
    full[: offsets.size] = offsets
    gather_kernel[1, rt.current_stream()](x, full, src1, z, kept, *args, op)
    return z, kept


@pytest.mark.parametrize("dtype", [np.uint16, np.int16, np.float16, np.uint32, np.int32, np.float32])
@pytest.mark.parametrize("repeats,blk,rep", [(1, 1, 8), (3, 1, 8), (2, 2, 16), (2, 0, 9)])
def test_gatherb(dtype, repeats, blk, rep, rng):
    n = N_BYTES // np.dtype(dtype).itemsize
    x = rng.integers(0, 1000, n).astype(dtype)
    offsets = rng.integers(0, N_BYTES // 32, repeats * 8).astype(np.uint32) * 32
    z, _ = gather_launch("gatherb", x, offsets, x, repeats, blk, rep)
    per_block = 32 // np.dtype(dtype).itemsize
    want = np.full(N_BYTES, SENTINEL, np.uint8).view(dtype)
    for r in range(repeats):
        for b in range(8):  # later blocks overwrite earlier ones at the same place (a block stride of 0)
            at = (r * rep + b * blk) * per_block
            want[at : at + per_block] = x.view(np.uint8)[offsets[r * 8 + b] : offsets[r * 8 + b] + 32].view(dtype)
    np.testing.assert_array_equal(z, want)


@pytest.mark.parametrize("pattern,repeats", [(1, 1), (2, 3), (5, 2), (7, 4)])
def test_get_gather_mask_remain_count(pattern, repeats, rng):
    x = rng.integers(0, 100, N_BYTES // 4).astype(np.uint32)
    _, kept = gather_launch("remain", x, np.zeros(8, np.uint32), x, pattern, repeats)
    per_repeat = {1: 32, 2: 32, 5: 16, 7: 64}[pattern]  # of the 64 32-bit elements of a repeat
    assert kept[0] == 0  # before any gather_mask
    assert kept[1] == kept[2] == per_repeat * repeats


def bilinear_reference(x, offsets, src1, bits, h_repeat, per_block_w, blk, v_offset, v_repeat):
    z = np.full(N_BYTES, SENTINEL, np.uint8).view(np.float16).copy()
    for v in range(v_repeat):
        for h in range(h_repeat):
            k = v * h_repeat + h
            for b in range(8):
                block = x.view(np.uint8)[offsets[k * 8 + b] : offsets[k * 8 + b] + 32].view(np.float16)
                w = src1[k * 8 + b] if per_block_w else src1[k]
                for e in range(16):
                    if not (bits >> (b * 16 + e)) & 1:
                        continue
                    at = v * v_offset + b * blk * 16 + e
                    p = half_saturating(np.float32(block[e]) * np.float32(w))[()]
                    z[at] = p if h == 0 else half_saturating(np.float32(z[at]) + np.float32(p))[()]
    return z


@pytest.mark.parametrize("repeat_mode", [False, True])
@pytest.mark.parametrize(
    "h_repeat,v_repeat,blk,v_offset", [(1, 1, 1, 128), (2, 2, 1, 128), (3, 2, 2, 256), (2, 3, 1, 160)]
)
@pytest.mark.parametrize("form", ["mask", "bits"])
def test_bilinear_interpolation(repeat_mode, h_repeat, v_repeat, blk, v_offset, form, rng):
    x = rng.uniform(-10, 10, N_BYTES // 2).astype(np.float16)
    src1 = rng.uniform(-2, 2, N_BYTES // 2).astype(np.float16)
    offsets = rng.integers(0, N_BYTES // 32, h_repeat * v_repeat * 8).astype(np.uint32) * 32
    if form == "mask":
        bits, args = (1 << 100) - 1, (100,)
    else:
        bits = int(rng.integers(1, 2**63)) | (int(rng.integers(0, 2**63)) << 64)
        args = (as_signed64(bits & (2**64 - 1)),)
    high = as_signed64(bits >> 64) if form == "bits" else 0
    op = "bilinear" if form == "mask" else "bilinear_bits"
    z, _ = gather_launch(op, x, offsets, src1, *args, h_repeat, int(repeat_mode), blk, v_offset, v_repeat, high)
    want = bilinear_reference(x, offsets, src1, bits, h_repeat, repeat_mode, blk, v_offset, v_repeat)
    np.testing.assert_array_equal(z.view(np.uint16), want.view(np.uint16))


def test_gather_additions_errors(rng):
    x = rng.integers(0, 100, N_BYTES // 2).astype(np.uint16)
    offsets = np.zeros(8, np.uint32)
    offsets[5] = 40
    with pytest.raises(asc.errors.MisalignedError, match=r"gatherb: offset\[5\] = 40 bytes is not a multiple of 32"):
        gather_launch("gatherb", x, offsets, x, 1, 1, 8)
    with pytest.raises(asc.errors.KernelError, match=r"repeat_times 300 must be 0..255 \(0 copies nothing\)"):
        gather_launch("gatherb", x, np.zeros(8, np.uint32), x, 300, 1, 8)
    with pytest.raises(asc.errors.KernelError, match="dst_rep_stride 5000 0..4095"):
        gather_launch("gatherb", x, np.zeros(8, np.uint32), x, 1, 1, 5000)
    h = x.view(np.float16)
    with pytest.raises(asc.errors.KernelError, match="v_r_offset 100 must be 128..65534"):
        gather_launch("bilinear", h, np.zeros(16, np.uint32), h, 128, 1, 0, 1, 100, 1)
    with pytest.raises(asc.errors.MisalignedError, match="v_r_offset 136 elements is 272 bytes"):
        gather_launch("bilinear", h, np.zeros(16, np.uint32), h, 128, 1, 0, 1, 136, 1)
    with pytest.raises(asc.errors.MisalignedError, match=r"src0_offset\[5\] = 40 bytes"):
        gather_launch("bilinear", h, offsets, h, 128, 1, 0, 1, 128, 1)
    with pytest.raises(asc.CodegenError, match="dst must hold float16"):
        gather_launch("bilinear", x.view(np.int16), np.zeros(8, np.uint32), x.view(np.int16), 128, 1, 0, 1, 128, 1)
    with pytest.raises(asc.CodegenError, match="offset must be a LocalTensor of uint32"):
        bad_gather[1, rt.current_stream()]("offset")
    with pytest.raises(asc.CodegenError, match="repeat_params must be an asc.GatherRepeatParams"):
        bad_gather[1, rt.current_stream()]("params")


@asc.jit
def bad_gather(WHAT: asc.ConstExpr[str]):
    a = asc.LocalTensor(asc.uint16, asc.TPosition.VECCALC, 0, 256)
    o = asc.LocalTensor(asc.uint16, asc.TPosition.VECCALC, 1024, 256)
    if WHAT == "offset":
        asc.gatherb(a, a, o, 1, asc.GatherRepeatParams(1, 8))
    else:
        asc.gatherb(a, a, o, 1, asc.BinaryRepeatParams())
