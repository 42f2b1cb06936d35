"""The vector mask register: set_vector_mask in normal and counter mode,
set_mask_count / set_mask_norm, reset_mask, and instructions called with
is_set_mask=False, against a numpy reference of the documented rules."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt

N_BYTES = 16384


@asc.jit
def masked_add(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, length: int, high: int, low: int,
               repeats: int, rep: int, SETUP: asc.ConstExpr[str]):  # fmt: skip
    n = N_BYTES // x.dtype.sizeof()
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    y_gm.set_global_buffer(y, n)
    z_gm.set_global_buffer(z, n)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    b = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, N_BYTES, n)
    c = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 2 * N_BYTES, n)
    asc.data_copy(a, x_gm, n)
    asc.data_copy(b, y_gm, n)
    asc.data_copy(c, z_gm, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    params = asc.BinaryRepeatParams(1, 1, 1, rep, rep, rep)
    if SETUP == "counter":
        asc.set_mask_count()
        asc.set_vector_mask(length, dtype=x.dtype, mode=asc.MaskMode.COUNTER)
        asc.add(c, a, b, asc.MASK_PLACEHOLDER, 1, params, is_set_mask=False)
        asc.set_mask_norm()
        asc.reset_mask()
    elif SETUP == "length":
        asc.set_vector_mask(length, dtype=x.dtype, mode=asc.MaskMode.NORMAL)
        asc.add(c, a, b, asc.MASK_PLACEHOLDER, repeats, params, is_set_mask=False)
    elif SETUP == "bits":
        asc.set_vector_mask(high, low, dtype=x.dtype, mode=asc.MaskMode.NORMAL)
        asc.add(c, a, b, asc.MASK_PLACEHOLDER, repeats, params, is_set_mask=False)
    elif SETUP == "reset":
        asc.set_vector_mask(length, dtype=x.dtype, mode=asc.MaskMode.NORMAL)
        asc.reset_mask()
        asc.add(c, a, b, asc.MASK_PLACEHOLDER, repeats, params, is_set_mask=False)
    elif SETUP == "inherited":  # a mask-mode call leaves its mask in the register
        asc.add(c, a, b, length, 1, params)
        asc.sub(c, a, b, asc.MASK_PLACEHOLDER, repeats, params, is_set_mask=False)
    elif SETUP == "count_resets":  # a count-mode call leaves the register full
        asc.set_vector_mask(length, dtype=x.dtype, mode=asc.MaskMode.NORMAL)
        asc.add(c, a, b, 0)
        asc.add(c, a, b, asc.MASK_PLACEHOLDER, repeats, params, is_set_mask=False)
    else:  # "counter_with_set_mask": an error
        asc.set_mask_count()
        asc.add(c, a, b, 64, 1, params)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, c, n)


def run(dtype, setup, rng, length=0, high=0, low=0, repeats=1, rep=8):
    n = N_BYTES // np.dtype(dtype).itemsize
    x = rng.uniform(-10, 10, n).astype(dtype)
    y = rng.uniform(-10, 10, n).astype(dtype)
    z = np.full(n, 7, dtype)
    masked_add[1, rt.current_stream()](x, y, z, length, high, low, repeats, rep, setup)
    return x, y, z


def selected(per_repeat, repeats, rep, elems_per_block, masks):
    """Flat indices selected: masks[r] is the boolean mask of repeat r."""
    out = []
    for r in range(repeats):
        for i in np.flatnonzero(masks[r]):
            out.append(r * rep * elems_per_block + i)
    return np.array(out, dtype=np.int64)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("count,rep", [(1, 8), (100, 8), (128, 8), (1000, 8), (3000, 10), (4000, 8)])
def test_counter_mode_runs_count_elements_in_computed_repeats(dtype, count, rep, rng):
    per_repeat = 256 // np.dtype(dtype).itemsize
    n = N_BYTES // np.dtype(dtype).itemsize
    repeats = -(-count // per_repeat)
    if (repeats - 1) * rep * (32 // np.dtype(dtype).itemsize) + per_repeat > n:
        pytest.skip("does not fit the test tensors")
    x, y, z = run(dtype, "counter", rng, length=count, rep=rep)
    masks = [np.arange(per_repeat) < min(per_repeat, count - r * per_repeat) for r in range(repeats)]
    idx = selected(per_repeat, repeats, rep, 32 // np.dtype(dtype).itemsize, masks)
    want = np.full(n, 7, dtype)
    want[idx] = x[idx] + y[idx]
    np.testing.assert_array_equal(z, want)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_normal_mode_register_length_and_bits(dtype, rng):
    per_repeat = 256 // np.dtype(dtype).itemsize
    n = N_BYTES // np.dtype(dtype).itemsize
    length = int(rng.integers(1, per_repeat))
    x, y, z = run(dtype, "length", rng, length=length, repeats=3)
    idx = selected(per_repeat, 3, 8, 32 // np.dtype(dtype).itemsize, [np.arange(per_repeat) < length] * 3)
    want = np.full(n, 7, dtype)
    want[idx] = x[idx] + y[idx]
    np.testing.assert_array_equal(z, want)

    bits = rng.random(per_repeat) < 0.5
    words = [int("".join("1" if b else "0" for b in reversed(bits[i : i + 64])) or "0", 2) for i in (0, 64)]
    high = words[1] if per_repeat > 64 else 0
    high, low = (w - 2**64 if w >= 2**63 else w for w in (high, words[0]))  # the same bits as int64 arguments
    x, y, z = run(dtype, "bits", rng, high=high, low=low, repeats=2)
    idx = selected(per_repeat, 2, 8, 32 // np.dtype(dtype).itemsize, [bits] * 2)
    want = np.full(n, 7, dtype)
    want[idx] = x[idx] + y[idx]
    np.testing.assert_array_equal(z, want)


@pytest.mark.parametrize("setup,length", [("reset", 5), ("count_resets", 5), ("length", 64), ("length", 1000)])
def test_full_register_selects_every_element(setup, length, rng):
    # reset_mask, a count-mode call, and a continuous length of a repeat or more all select the whole repeat
    x, y, z = run(np.float32, setup, rng, length=length, repeats=2)
    want = np.full(z.size, 7, np.float32)
    want[:128] = x[:128] + y[:128]
    np.testing.assert_array_equal(z, want)


def test_mask_mode_call_leaves_its_mask_in_the_register(rng):
    x, y, z = run(np.float32, "inherited", rng, length=10, repeats=2)
    want = np.full(z.size, 7, np.float32)
    want[:10] = x[:10] - y[:10]  # sub overwrote add's 10 elements of repeat 0
    want[64:74] = x[64:74] - y[64:74]
    np.testing.assert_array_equal(z, want)


def test_errors(rng):
    with pytest.raises(asc.errors.KernelError, match="counter mode") as err:
        run(np.float32, "counter_with_set_mask", rng)
    assert "test_vector_mask.py" in str(err.value)
    with pytest.raises(asc.errors.KernelError, match="continuous mask of -1 elements is negative"):
        run(np.float32, "length", rng, length=-1)
    with pytest.raises(asc.CodegenError, match="mode must be asc.MaskMode"):

        @asc.jit
        def bad_mode():
            asc.set_vector_mask(8, dtype=asc.float32, mode=3)

        bad_mode[1, rt.current_stream()]()
