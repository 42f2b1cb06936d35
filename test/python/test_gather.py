"""brcb, gather and gather_mask against numpy references of the documented rules.

* brcb: repeat r takes src[8r .. 8r+7]; element j fills the 32-byte block at
  (r * dst_rep_stride + j * dst_blk_stride) blocks of dst.
* gather: dst[i] = src[(src_base + src_offset[i]) / size]; in mask form repeat
  r writes 256 bytes at r * dst_rep_stride blocks using offsets [rN, rN + N).
* gather_mask: the src0 elements whose pattern bit is set, packed from dst[0];
  it returns how many it kept.
"""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt

N_BYTES = 8192
SENTINEL = 111


@asc.jit
def layout_kernel(x: asc.GlobalAddress, o: asc.GlobalAddress, z: asc.GlobalAddress, kept: asc.GlobalAddress,
                  a0: int, a1: int, a2: int, a3: int, a4: int, OP: asc.ConstExpr[str]):  # fmt: skip
    n = N_BYTES // x.dtype.sizeof()
    n_o = N_BYTES // o.dtype.sizeof()
    x_gm = asc.GlobalTensor()
    o_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    kept_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    o_gm.set_global_buffer(o, n_o)
    z_gm.set_global_buffer(z, n)
    kept_gm.set_global_buffer(kept, 1)
    src = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    other = asc.LocalTensor(o.dtype, asc.TPosition.VECIN, N_BYTES, n_o)
    dst = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 2 * N_BYTES, n)
    asc.data_copy(src, x_gm, n)
    asc.data_copy(other, o_gm, n_o)
    asc.data_copy(dst, z_gm, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if OP == "brcb":
        asc.brcb(dst, src, a0, asc.BrcbRepeatParams(a1, a2))
    elif OP == "gather_count":
        asc.gather(dst, src, other, a0, a1)
    elif OP == "gather_mask_form":
        asc.gather(dst, src, other, a0, [a1, a2], a3, a4)
    elif OP == "gather_mask_tensor":
        count = asc.gather_mask(dst, src, other, a0 == 1, a1, asc.GatherMaskParams(1, a2, a3, a4))
        kept_gm.set_value(0, count)
    elif OP == "gather_mask_builtin":
        count = asc.gather_mask(dst, src, a4, a0 == 1, a1, asc.GatherMaskParams(1, a2, a3, 0))
        kept_gm.set_value(0, count)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, dst, n)


DTYPES = [np.float16, np.int16, np.uint16, np.float32, np.int32, np.uint32]


def data(rng, dtype):
    n = N_BYTES // np.dtype(dtype).itemsize
    if np.dtype(dtype).kind == "f":
        return rng.uniform(-100, 100, n).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, endpoint=True).astype(dtype)


def launch(x, o, op, *args):
    z = np.full(x.size, SENTINEL, x.dtype)
    kept = np.zeros(1, np.uint64)
    args = [int(a) for a in args] + [0] * (5 - len(args))
    layout_kernel[1, rt.current_stream()](x, o, z, kept, *args, op)
    return z, int(kept[0])


def as_signed64(word):
    return word - 2**64 if word >= 2**63 else word


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("repeats,blk,rep", [(1, 1, 8), (3, 1, 8), (4, 2, 16), (2, 1, 9), (16, 1, 8)])
def test_brcb(dtype, repeats, blk, rep, rng):
    x = data(rng, dtype)
    z, _ = launch(x, np.zeros(N_BYTES // 4, np.uint32), "brcb", repeats, blk, rep)
    per_block = 32 // np.dtype(dtype).itemsize
    want = np.full(x.size, SENTINEL, dtype)
    for r in range(repeats):
        for j in range(8):
            start = (r * rep + j * blk) * per_block
            want[start : start + per_block] = x[r * 8 + j]
    np.testing.assert_array_equal(z, want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("count", [1, 37, 128, 1000])
def test_gather_count(dtype, count, rng):
    size = np.dtype(dtype).itemsize
    x = data(rng, dtype)
    n = x.size
    base_elems = int(rng.integers(0, 64))
    index = rng.integers(0, n - base_elems, count)
    offsets = np.zeros(N_BYTES // 4, np.uint32)
    offsets[:count] = index * size
    z, _ = launch(x, offsets, "gather_count", base_elems * size, count)
    want = np.full(n, SENTINEL, dtype)
    want[:count] = x[base_elems + index]
    np.testing.assert_array_equal(z, want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("repeats,rep", [(1, 8), (3, 8), (2, 12)])
def test_gather_mask_form(dtype, repeats, rep, rng):
    size = np.dtype(dtype).itemsize
    per_repeat = 256 // size
    x = data(rng, dtype)
    index = rng.integers(0, x.size, repeats * per_repeat)
    offsets = np.zeros(N_BYTES // 4, np.uint32)
    offsets[: index.size] = index * size
    bits = rng.random(per_repeat) < 0.7
    words = [int("".join("1" if b else "0" for b in reversed(bits[i : i + 64])) or "0", 2) for i in (0, 64)]
    if per_repeat == 64:
        words[1] = 0
    z, _ = launch(x, offsets, "gather_mask_form", 0, as_signed64(words[0]), as_signed64(words[1]), repeats, rep)
    want = np.full(x.size, SENTINEL, dtype)
    for r in range(repeats):
        for i in np.flatnonzero(bits):
            want[r * rep * (32 // size) + i] = x[index[r * per_repeat + i]]
    np.testing.assert_array_equal(z, want)


def pattern_tensor(bits_per_repeat, dtype, src1_rep):
    """The pattern bytes: repeat r's bits start r * src1_rep * 32 bytes in (bit i of byte k is element 8k + i)."""
    raw = np.zeros(N_BYTES, np.uint8)
    for r, bits in enumerate(bits_per_repeat):
        packed = np.packbits(bits.astype(np.uint8), bitorder="little")
        start = r * src1_rep * 32
        raw[start : start + packed.size] |= packed
    return raw.view(np.uint16 if np.dtype(dtype).itemsize == 2 else np.uint32)


def expected_kept(x, dtype, bits_per_repeat, per_repeat, src0_rep):
    per_block = 32 // np.dtype(dtype).itemsize
    out = []
    for r, bits in enumerate(bits_per_repeat):
        idx = r * src0_rep * per_block + np.flatnonzero(bits[:per_repeat])
        out.extend(x[idx])
    return np.array(out, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduce_mode,mask,repeats,src0_rep,src1_rep", [
    (False, 0, 1, 8, 0), (False, 0, 3, 8, 1), (False, 0, 2, 16, 0), (True, 70, 2, 4, 1), (True, 13, 5, 1, 2),
])  # fmt: skip
def test_gather_mask_tensor_pattern(dtype, reduce_mode, mask, repeats, src0_rep, src1_rep, rng):
    per_repeat = mask if reduce_mode else 256 // np.dtype(dtype).itemsize
    x = data(rng, dtype)
    bits = [rng.random(per_repeat) < 0.5 for _ in range(repeats if src1_rep else 1)]
    bits_per_repeat = bits if src1_rep else bits * repeats
    pattern = pattern_tensor(bits, dtype, src1_rep)
    z, kept = launch(x, pattern, "gather_mask_tensor", int(reduce_mode), mask, repeats, src0_rep, src1_rep)
    want = expected_kept(x, dtype, bits_per_repeat, per_repeat, src0_rep)
    assert kept == want.size
    np.testing.assert_array_equal(z[: want.size], want)
    assert np.all(z[want.size :] == dtype(SENTINEL))  # nothing past the kept elements


BUILTIN = {1: lambda i: i % 2 == 0, 2: lambda i: i % 2 == 1, 3: lambda i: i % 4 == 0, 4: lambda i: i % 4 == 1,
           5: lambda i: i % 4 == 2, 6: lambda i: i % 4 == 3, 7: lambda i: True}  # fmt: skip


@pytest.mark.parametrize("dtype", [np.float16, np.uint32])
@pytest.mark.parametrize("pattern", list(BUILTIN))
@pytest.mark.parametrize("reduce_mode,mask,repeats", [(False, 0, 2), (True, 100, 3)])
def test_gather_mask_builtin_pattern(dtype, pattern, reduce_mode, mask, repeats, rng):
    per_repeat = mask if reduce_mode else 256 // np.dtype(dtype).itemsize
    x = data(rng, dtype)
    bits = np.array([BUILTIN[pattern](i) for i in range(per_repeat)])
    z, kept = launch(x, np.zeros(N_BYTES // 4, np.uint32), "gather_mask_builtin", int(reduce_mode), mask, repeats,
                     8, pattern)  # fmt: skip
    want = expected_kept(x, dtype, [bits] * repeats, per_repeat, 8)
    assert kept == want.size
    np.testing.assert_array_equal(z[: want.size], want)


def test_gather_errors(rng):
    x = data(rng, np.float32)
    offsets = np.zeros(N_BYTES // 4, np.uint32)
    offsets[3] = 6  # not a multiple of 4 bytes
    with pytest.raises(asc.errors.MisalignedError, match=r"src_offset\[3\] = 6 bytes is not a multiple") as err:
        launch(x, offsets, "gather_count", 0, 8)
    assert "test_gather.py" in str(err.value)
    offsets[3] = N_BYTES  # one past the end of src
    with pytest.raises(asc.errors.OutOfBoundsError, match=r"gather reads bytes \[8192, 8196\)"):
        launch(x, offsets, "gather_count", 0, 8)
    with pytest.raises(asc.errors.KernelError, match="built-in pattern 9 is not one of 1..7"):
        launch(x, offsets, "gather_mask_builtin", 0, 0, 1, 8, 9)
    with pytest.raises(asc.CodegenError, match="src1_pattern must be a LocalTensor of uint32 for float32 data"):
        launch(x, np.zeros(N_BYTES // 2, np.uint16), "gather_mask_tensor", 0, 0, 1, 8, 0)


def test_gather_mask_overflowing_dst_is_out_of_bounds(rng):
    # all 2048 floats kept from two overlapping reads of 8 KB each: more than dst's 2048 elements
    x = data(rng, np.float32)
    with pytest.raises(asc.errors.OutOfBoundsError, match="gather_mask.pattern writes bytes"):
        launch(x, np.zeros(N_BYTES // 4, np.uint32), "gather_mask_builtin", 1, 2048, 2, 0, 7)


@asc.jit
def scatters(x: asc.GlobalAddress):
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 64)
    o = asc.LocalTensor(asc.uint32, asc.TPosition.VECCALC, 256, 64)
    asc.duplicate(t, 1.0, 64)
    asc.duplicate(o.reinterpret_cast(asc.float32), 0.0, 64)  # every offset 0
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    asc.scatter(t, t, o, 0, 64)


def test_scatter_compiles_with_a_warning_and_fails_on_atlas_a2():
    # CANN's compiler warns that A2/A3 do not support it; the board cannot run it, so neither does the Model
    with pytest.warns(asc.errors.PlatformWarning, match="scatter .Ascend C Scatter. is not supported on Atlas A2/A3"):
        with pytest.raises(asc.errors.KernelError, match="Ascend910B1 .Atlas A2/A3. has no Scatter instruction") as e:
            scatters[1, rt.current_stream()](np.zeros(8, np.float32))
    assert "test_gather.py" in str(e.value)
