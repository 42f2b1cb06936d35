"""The mask/repeat forms of cast, compare, compare_scalar, select and the
reduce_* instructions, and the compare register, against numpy references of
the documented rules. Element e of repeat r of an operand with element size s
is at byte (r * rep_stride + (e // (32 / s)) * blk_stride) * 32 + (e % (32 / s)) * s."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt

N_BYTES = 16384
SENTINEL = 7


def at(r, e, size, blk, rep):
    per_block = 32 // size
    return ((r * rep + (e // per_block) * blk) * 32) // size + e % per_block


def mask_bits(rng, per_repeat, kind):
    """(mask0, mask1, selected booleans) for a continuous or bit mask."""
    if kind == "full":
        return per_repeat, 0, np.ones(per_repeat, bool)
    if kind == "partial":
        n = int(rng.integers(1, per_repeat))
        return n, 0, np.arange(per_repeat) < n
    bits = rng.random(per_repeat) < 0.6
    words = [int("".join("1" if b else "0" for b in reversed(bits[i : i + 64])) or "0", 2) for i in (0, 64)]
    words = [w - 2**64 if w >= 2**63 else w for w in words]
    return words[0], (words[1] if per_repeat > 64 else 0), bits


@asc.jit
def forms(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, scalar: float, mask0: int, mask1: int,
          repeats: int, b0: int, b1: int, b2: int, r0: int, r1: int, r2: int, OP: asc.ConstExpr[str],
          MODE: asc.ConstExpr[int], BITS: asc.ConstExpr[bool], EXTRA: asc.ConstExpr[int]):  # fmt: skip
    nx = N_BYTES // x.dtype.sizeof()
    ny = N_BYTES // y.dtype.sizeof()
    nz = N_BYTES // z.dtype.sizeof()
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, nx)
    y_gm.set_global_buffer(y, ny)
    z_gm.set_global_buffer(z, nz)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, nx)
    b = asc.LocalTensor(y.dtype, asc.TPosition.VECIN, N_BYTES, ny)
    c = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 2 * N_BYTES, nz)
    tmp = asc.LocalTensor(z.dtype, asc.TPosition.VECCALC, 3 * N_BYTES, 1024)
    asc.data_copy(a, x_gm, nx)
    asc.data_copy(b, y_gm, ny)
    asc.data_copy(c, z_gm, nz)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    mask = [mask0, mask1] if BITS else mask0
    if OP == "cast":
        asc.cast(c, a, asc.RoundMode(MODE), mask, repeats, asc.UnaryRepeatParams(b0, b1, r0, r1))
    elif OP == "compare":
        asc.compare(c, a, b, asc.CMPMODE(MODE), mask, repeats, asc.BinaryRepeatParams(b0, b1, b2, r0, r1, r2))
    elif OP == "compare_scalar":
        asc.compare_scalar(c, a, scalar, asc.CMPMODE(MODE), mask, repeats, asc.UnaryRepeatParams(b0, b1, r0, r1))
    elif OP == "select":  # y holds the selection bits (uint8), x both sources: src1 = a shifted by EXTRA
        src1 = a[EXTRA:]
        params = asc.BinaryRepeatParams(b0, b1, b2, r0, r1, r2)
        if MODE == 1:
            asc.select(c, b, a, scalar, asc.SelMode(MODE), mask, repeats, params)
        else:
            asc.select(c, b, a, src1, asc.SelMode(MODE), mask, repeats, params)
    elif OP == "select_register":  # CMPMASK from y, the mask register from set_vector_mask
        asc.set_cmp_mask(b)
        if BITS:
            asc.set_vector_mask(mask1, mask0, dtype=x.dtype, mode=asc.MaskMode.NORMAL)
        else:
            asc.set_vector_mask(mask0, dtype=x.dtype, mode=asc.MaskMode.NORMAL)
        asc.select(c, a, a[EXTRA:], repeat_times=repeats, repeat_params=asc.BinaryRepeatParams(b0, b1, b2, r0, r1, r2),
                   sel_mode=asc.SelMode.VSEL_CMPMASK_SPR)  # fmt: skip
    elif OP == "select_scalar_register":  # y holds the selection bits; the scalar reaches CMPMASK two ways
        if EXTRA == 0:  # set_cmp_mask of a tensor holding it
            asc.duplicate(tmp, scalar, 256 // tmp.dtype.sizeof())
            asc.set_cmp_mask(tmp)
        else:  # left there by a scalar select (into tmp)
            asc.select(tmp, b, a, scalar, asc.SelMode.VSEL_TENSOR_SCALAR_MODE, 256 // tmp.dtype.sizeof())
        if BITS:
            asc.set_vector_mask(mask1, mask0, dtype=x.dtype, mode=asc.MaskMode.NORMAL)
        else:
            asc.set_vector_mask(mask0, dtype=x.dtype, mode=asc.MaskMode.NORMAL)
        asc.select(c, b, a, repeat_times=repeats, repeat_params=asc.BinaryRepeatParams(b0, b1, b2, r0, r1, r2))
    elif OP == "compare_register":  # CMPMASK starts as y's first 16 bytes; z gets it back
        asc.set_cmp_mask(b)
        asc.compare(a, a[EXTRA:], asc.CMPMODE(MODE), mask, asc.BinaryRepeatParams(1, b0, b1, 8, r0, r1))
        asc.get_cmp_mask(c)
    elif OP == "reduce_sum":
        asc.reduce_sum(c, a, tmp, mask, repeats, r0)
    elif OP == "reduce_max":
        asc.reduce_max(c, a, tmp, mask, repeats, r0, EXTRA == 1)
    elif OP == "reduce_min":
        asc.reduce_min(c, a, tmp, mask, repeats, r0, cal_index=EXTRA == 1)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, c, nz)


def run(op, x, y, z, *, scalar=0.0, mask0=0, mask1=0, repeats=1, b=(1, 1, 1), r=(8, 8, 8), mode=0, bits=False,
        extra=0):  # fmt: skip
    forms[1, rt.current_stream()](x, y, z, scalar, mask0, mask1, repeats, *b, *r, op, mode, bits, extra)


def values(rng, dtype, n_bytes=N_BYTES, lo=-100, hi=100):
    n = n_bytes // np.dtype(dtype).itemsize
    if np.dtype(dtype).kind == "f":
        return rng.uniform(lo, hi, n).astype(dtype)
    return rng.integers(lo, hi, n).astype(dtype)


ROUND = {1: np.rint, 2: np.floor, 3: np.ceil, 5: np.trunc}
CASTS = [  # (src, dst, RoundMode value)
    (np.float16, np.float32, 0), (np.float32, np.float16, 1), (np.float32, np.int32, 2), (np.float32, np.int32, 3),
    (np.int32, np.float32, 1), (np.float16, np.int32, 5), (np.int16, np.float16, 1),
]  # fmt: skip


@pytest.mark.parametrize("src,dst,mode", CASTS, ids=[f"{np.dtype(s).name}-{np.dtype(d).name}-{m}" for s, d, m in CASTS])
@pytest.mark.parametrize("kind,repeats,contiguous", [("full", 3, True), ("partial", 2, True), ("bits", 4, False)])
def test_cast_mask_form(src, dst, mode, kind, repeats, contiguous, rng):
    s_size, d_size = np.dtype(src).itemsize, np.dtype(dst).itemsize
    per_repeat = 256 // max(s_size, d_size)
    mask0, mask1, sel = mask_bits(rng, per_repeat, kind)
    # contiguous: each operand's repeat stride is its repeat's size in blocks; else spread blocks out
    blk = (1, 1) if contiguous else (2, 1)
    rep = (per_repeat * d_size // 32 * blk[0], per_repeat * s_size // 32 * blk[1])
    x = values(rng, src)
    z = np.full(N_BYTES // d_size, SENTINEL, dst)
    run("cast", x, np.zeros(N_BYTES // 4, np.float32), z, mask0=mask0, mask1=mask1, repeats=repeats, b=(*blk, 1),
        r=(*rep, 8), mode=mode, bits=kind == "bits")  # fmt: skip
    want = np.full_like(z, SENTINEL)
    for r in range(repeats):
        for e in np.flatnonzero(sel):
            v = x[at(r, e, s_size, blk[1], rep[1])]
            v = ROUND[mode](v.astype(np.float64)) if np.dtype(dst).kind == "i" else v
            want[at(r, e, d_size, blk[0], rep[0])] = np.asarray(v).astype(dst)
    np.testing.assert_array_equal(z, want)


CMP = {0: np.less, 1: np.greater, 2: np.equal, 3: np.less_equal, 4: np.greater_equal, 5: np.not_equal}


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("cmp", list(CMP))
@pytest.mark.parametrize("repeats,blk,rep", [(1, 1, 8), (3, 1, 8), (2, 2, 16)])
def test_compare_mask_form_compares_every_element(dtype, cmp, repeats, blk, rep, rng):
    size = np.dtype(dtype).itemsize
    per_repeat = 256 // size
    x = values(rng, dtype, lo=-3, hi=3).round()  # small integers: equal values happen
    y = values(rng, dtype, lo=-3, hi=3).round()
    for scalar_form in (False, True):
        z = np.full(N_BYTES, 0xA5, np.uint8)
        s = 1.0
        # the mask is reserved on Atlas A2: a partial mask still compares everything
        if scalar_form:
            run("compare_scalar", x, y, z, scalar=s, mask0=3, repeats=repeats, b=(1, blk, 1), r=(8, rep, 8), mode=cmp)
        else:
            run("compare", x, y, z, mask0=3, repeats=repeats, b=(1, blk, blk), r=(8, rep, rep), mode=cmp)
        bits = np.zeros(repeats * per_repeat, bool)
        for r in range(repeats):
            for e in range(per_repeat):
                other = s if scalar_form else y[at(r, e, size, blk, rep)]
                bits[r * per_repeat + e] = CMP[cmp](x[at(r, e, size, blk, rep)], other)
        packed = np.packbits(bits, bitorder="little")
        np.testing.assert_array_equal(z[: packed.size], packed)
        assert np.all(z[packed.size :] == 0xA5)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("sel_mode", [0, 1, 2])
@pytest.mark.parametrize("kind,repeats,blk,rep", [("full", 2, 1, 8), ("bits", 3, 1, 8), ("partial", 2, 2, 16)])
def test_select_mask_form(dtype, sel_mode, kind, repeats, blk, rep, rng):
    size = np.dtype(dtype).itemsize
    per_repeat = 256 // size
    shift = 8 * 32 // size  # src1 = src0 shifted by 8 blocks
    mask0, mask1, sel = mask_bits(rng, per_repeat, kind)
    x = values(rng, dtype)
    selection = rng.integers(0, 256, N_BYTES).astype(np.uint8)
    z = np.full(N_BYTES // size, SENTINEL, dtype)
    scalar = 2.5
    run("select", x, selection, z, scalar=scalar, mask0=mask0, mask1=mask1, repeats=repeats, b=(blk, blk, blk),
        r=(rep, rep, rep), mode=sel_mode, bits=kind == "bits", extra=shift)  # fmt: skip
    bit = np.unpackbits(selection, bitorder="little").astype(bool)
    want = np.full_like(z, SENTINEL)
    for r in range(repeats):
        for e in np.flatnonzero(sel):
            take0 = bit[e] if sel_mode == 0 else bit[r * per_repeat + e]
            i = at(r, e, size, blk, rep)
            want[i] = x[i] if take0 else (dtype(scalar) if sel_mode == 1 else x[i + shift])
    np.testing.assert_array_equal(z, want)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("cmp", [0, 2, 4])
@pytest.mark.parametrize("kind", ["full", "partial", "bits"])
def test_compare_register_keeps_unselected_bits(dtype, cmp, kind, rng):
    size = np.dtype(dtype).itemsize
    per_repeat = 256 // size
    shift = 8 * 32 // size
    mask0, mask1, sel = mask_bits(rng, per_repeat, kind)
    x = values(rng, dtype, lo=-2, hi=2).round()
    before = rng.integers(0, 256, N_BYTES).astype(np.uint8)
    z = np.zeros(N_BYTES, np.uint8)
    run("compare_register", x, before, z, mask0=mask0, mask1=mask1, b=(1, 1, 1), r=(8, 8, 8), mode=cmp,
        bits=kind == "bits", extra=shift)  # fmt: skip
    bits = np.unpackbits(before[:16], bitorder="little").astype(bool)
    for e in np.flatnonzero(sel):
        bits[e] = CMP[cmp](x[e], x[e + shift])
    np.testing.assert_array_equal(z[:16], np.packbits(bits, bitorder="little"))


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("kind,repeats", [("full", 2), ("partial", 3), ("bits", 1)])
def test_select_register_form_uses_cmpmask_and_the_mask_register(dtype, kind, repeats, rng):
    size = np.dtype(dtype).itemsize
    per_repeat = 256 // size
    shift = 8 * 32 // size
    mask0, mask1, sel = mask_bits(rng, per_repeat, kind)
    x = values(rng, dtype)
    cmpmask = rng.integers(0, 256, N_BYTES).astype(np.uint8)
    z = np.full(N_BYTES // size, SENTINEL, dtype)
    run("select_register", x, cmpmask, z, mask0=mask0, mask1=mask1, repeats=repeats, b=(1, 1, 1), r=(8, 8, 8),
        bits=kind == "bits", extra=shift)  # fmt: skip
    bit = np.unpackbits(cmpmask[:16], bitorder="little").astype(bool)
    want = np.full_like(z, SENTINEL)
    for r in range(repeats):
        for e in np.flatnonzero(sel):
            i = r * per_repeat + e
            want[i] = x[i] if bit[e] else x[i + shift]
    np.testing.assert_array_equal(z, want)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("kind,repeats,blk,rep", [("full", 2, 1, 8), ("partial", 3, 1, 8), ("bits", 2, 2, 16)])
@pytest.mark.parametrize("via_select", [False, True])
def test_select_scalar_register_form_takes_the_scalar_from_cmpmask(dtype, kind, repeats, blk, rep, via_select, rng):
    """select(dst, sel_mask, src0, repeat_times, repeat_params): VSEL_TENSOR_SCALAR_MODE, repeat r by sel_mask's
    bits [rN, rN + N), the scalar CMPMASK's low bytes (set_cmp_mask, or a scalar select before)."""
    size = np.dtype(dtype).itemsize
    per_repeat = 256 // size
    mask0, mask1, sel = mask_bits(rng, per_repeat, kind)
    x = values(rng, dtype)
    selection = rng.integers(0, 256, N_BYTES).astype(np.uint8)
    z = np.full(N_BYTES // size, SENTINEL, dtype)
    scalar = -3.5
    run("select_scalar_register", x, selection, z, scalar=scalar, mask0=mask0, mask1=mask1, repeats=repeats,
        b=(blk, blk, 1), r=(rep, rep, 8), bits=kind == "bits", extra=int(via_select))  # fmt: skip
    bit = np.unpackbits(selection, bitorder="little").astype(bool)
    want = np.full_like(z, SENTINEL)
    for r in range(repeats):
        for e in np.flatnonzero(sel):
            i = at(r, e, size, blk, rep)
            want[i] = x[i] if bit[r * per_repeat + e] else dtype(scalar)
    np.testing.assert_array_equal(z, want)


def test_select_scalar_register_form_needs_integer_bits():
    x = np.zeros(N_BYTES // 4, np.float32)
    with pytest.raises(asc.errors.CodegenError, match="sel_mask holds bits: use an integer dtype"):
        run("select_scalar_register", x, x.copy(), x.copy(), repeats=1)


def tree(v):
    v = list(v)
    while len(v) > 1:
        v = [v[i] + v[i + 1] if i + 1 < len(v) else v[i] for i in range(0, len(v), 2)]
    return v[0] if v else np.float32(0)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("op", ["reduce_sum", "reduce_max", "reduce_min"])
@pytest.mark.parametrize("kind,repeats,rep", [("full", 1, 8), ("partial", 4, 8), ("bits", 3, 16), ("full", 9, 8)])
def test_reduce_mask_form(dtype, op, kind, repeats, rep, rng):
    size = np.dtype(dtype).itemsize
    per_repeat, per_block = 256 // size, 32 // size
    mask0, mask1, sel = mask_bits(rng, per_repeat, kind)
    x = values(rng, dtype, lo=-10, hi=10)
    for index in (0, 1) if op != "reduce_sum" else (0,):
        z = np.full(N_BYTES // size, SENTINEL, dtype)
        run(op, x, np.zeros(N_BYTES // 4, np.float32), z, mask0=mask0, mask1=mask1, repeats=repeats, r=(rep, 8, 8),
            bits=kind == "bits", extra=index)  # fmt: skip
        starts = [r * rep * per_block for r in range(repeats)]
        lanes = [(x[s + e], s + e) for s in starts for e in np.flatnonzero(sel)]
        if op == "reduce_sum":
            sums = [tree(np.where(sel, x[r * rep * per_block : r * rep * per_block + per_repeat], 0).astype(np.float32))
                    for r in range(repeats)]  # fmt: skip
            np.testing.assert_allclose(float(z[0]), float(tree(np.array(sums, np.float32))), rtol=2e-3)
            continue
        pick = max if op == "reduce_max" else min
        value, where = pick(lanes, key=lambda t: (t[0], -t[1]) if op == "reduce_max" else (t[0], t[1]))
        assert z[0] == value
        if index:
            assert int(z[1:2].view(np.uint16 if size == 2 else np.uint32)[0]) == where
        else:
            assert z[1] == dtype(SENTINEL)


@asc.jit
def whole_sum_from_register(x: asc.GlobalAddress, z: asc.GlobalAddress, length: int):
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, 256)
    z_gm.set_global_buffer(z, 8)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
    c = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 1024, 8)
    asc.data_copy(a, x_gm, 256)
    asc.duplicate(c, 0.0, 8)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.set_vector_mask(length, dtype=asc.float32, mode=asc.MaskMode.NORMAL)
    asc.whole_reduce_sum(c, a, asc.MASK_PLACEHOLDER, 4, 1, 1, 8, is_set_mask=False)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, c, 8)


def test_whole_reduce_with_the_mask_register(rng):
    x = rng.integers(-10, 10, 256).astype(np.float32)
    z = np.zeros(N_BYTES // 4, np.float32)
    whole_sum_from_register[1, rt.current_stream()](x, z, 5)
    np.testing.assert_array_equal(z[:4], x.reshape(4, 64)[:, :5].sum(axis=1))
    np.testing.assert_array_equal(z[4:], 0)
