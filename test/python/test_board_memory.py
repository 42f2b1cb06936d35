"""Memory like the board's (docs/model-backend.md): a GM argument is its allocation, padded as the runtime's
allocator pads it, inside the segment the caching allocator maps for it, and a local tensor is a view of one
flat Unified Buffer. What the board runs, the Model runs with an asc.errors.MemcheckWarning; strict mode
(Stream.set_strict, ASC_STRICT=1) makes each an error."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.errors import GmWriteConflictError, MemcheckWarning, OutOfBoundsError

TILE = 64  # float32 elements per block: 256 bytes
SENTINEL = -99.0


@asc.jit
def add_one_per_tile(x: asc.GlobalAddress, z: asc.GlobalAddress):
    """z = x + 1, one whole tile per block: the last block of a size that is not a multiple of TILE copies past
    the end of x and z, as pyasc's generalization tests do."""
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + asc.get_block_idx() * TILE, TILE)
    z_gm.set_global_buffer(z + asc.get_block_idx() * TILE, TILE)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, TILE)
    c = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, TILE * 4, TILE)
    asc.data_copy(a, x_gm, TILE)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.adds(c, a, 1.0, TILE)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, c, TILE)


def guarded(n, fill, extra=2 * TILE):
    """An array of n float32 inside a larger backing buffer: the elements after it are its neighbours."""
    backing = np.full(n + extra, fill, np.float32)
    return backing, backing[:n]


def launch(kernel, cores, *args):
    kernel[cores, rt.current_stream()](*args)


def test_last_block_copying_past_the_end_runs_inside_the_padding_and_warns(rng):
    n = 250  # 1000 bytes: 4 blocks of 256 bytes, the last one 24 bytes into the padding (1000 -> 1056)
    x_backing, x = guarded(n, 77.0)
    x[:] = rng.random(n, dtype=np.float32)
    z_backing, z = guarded(n, SENTINEL)
    x_before = x_backing.copy()
    with pytest.warns(MemcheckWarning, match="padding") as record:
        launch(add_one_per_tile, 4, x, z)
    texts = [str(w.message) for w in record if issubclass(w.category, MemcheckWarning)]
    assert len(texts) == 2, texts  # once per (op, argument): the read of x, the write of z
    assert any("reads GM bytes [1000, 1024) of argument 'x', past its 1000 bytes" in t for t in texts), texts
    assert any("writes GM bytes [1000, 1024) of argument 'z'" in t and "apart from your buffer" in t for t in texts)
    assert all("rounds it up to 1056" in t and "test_board_memory.py:" in t for t in texts), texts
    np.testing.assert_array_equal(z, x + np.float32(1.0))
    assert np.all(z_backing[n:] == SENTINEL), "the Model wrote past the end of z"
    np.testing.assert_array_equal(x_backing, x_before)


def test_strict_mode_makes_the_padding_an_error():
    x = np.zeros(250, np.float32)
    z_backing, z = guarded(250, SENTINEL)
    stream = rt.current_stream()
    stream.set_strict(True)
    try:
        with pytest.raises(OutOfBoundsError, match=r"argument 'x', which has only 1000 bytes \(strict mode"):
            launch(add_one_per_tile, 4, x, z)
    finally:
        stream.set_strict(False)
    assert np.all(z_backing[250:] == SENTINEL)


def test_past_the_allocation_reads_the_allocators_segment_and_warns(rng):
    x = rng.random(200, dtype=np.float32)  # 800 bytes, allocation 832; the last block reads up to 1024
    z_backing, z = guarded(200, SENTINEL)
    with pytest.warns(MemcheckWarning) as record:
        launch(add_one_per_tile, 4, x, z)
    texts = [str(w.message) for w in record if issubclass(w.category, MemcheckWarning)]
    assert any(
        "reads GM bytes [800, 1024) of argument 'x', past its 800 bytes and its 832-byte allocation into the rest of "
        "the caching allocator's 2097152-byte segment"
        in t
        and "belong to other tensors or are free" in t
        for t in texts
    ), texts
    np.testing.assert_array_equal(z, x + np.float32(1.0))
    assert np.all(z_backing[200:] == SENTINEL)


FAR = (2 * 1024 * 1024 - 128) // 4  # float32 elements: a tile from here ends 128 bytes past the segment


@asc.jit
def copy_far(x: asc.GlobalAddress, z: asc.GlobalAddress):
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, TILE)
    z_gm.set_global_buffer(z + FAR, TILE)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, TILE)
    asc.data_copy(a, x_gm, TILE)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.data_copy(z_gm, a, TILE)


def test_past_the_allocators_segment_stays_out_of_bounds():
    x = np.ones(TILE, np.float32)
    z_backing, z = guarded(200, SENTINEL)
    with pytest.raises(OutOfBoundsError, match=r"argument 'z', which has only 800 bytes \(its allocation") as e:
        launch(copy_far, 1, x, z)
    assert "ends at 2097152: past that the board faults too" in str(e.value)
    assert np.all(z_backing == SENTINEL)


@asc.jit
def copy_64(x: asc.GlobalAddress, z: asc.GlobalAddress):
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, TILE)
    z_gm.set_global_buffer(z, TILE)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, TILE)
    asc.data_copy(a, x_gm, TILE)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.data_copy(z_gm, a, TILE)


def test_padding_reads_the_poison_pattern():
    x = np.arange(60, dtype=np.float32)  # 240 bytes: the copy of 64 reads 16 bytes of padding
    z = np.zeros(TILE, np.float32)
    with pytest.warns(MemcheckWarning, match=r"reads GM bytes \[240, 256\) of argument 'x'.*0xFF"):
        launch(copy_64, 1, x, z)
    np.testing.assert_array_equal(z[:60], x)
    assert np.all(z[60:].view(np.uint32) == 0xFFFFFFFF)  # NaN as float32


@asc.jit
def adds_past_the_tensor(x: asc.GlobalAddress, z: asc.GlobalAddress):
    """adds over 64 elements of tensors declared with 32: the board computes all 64 (one flat Unified Buffer)."""
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, TILE)
    z_gm.set_global_buffer(z, TILE)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, TILE)
    c = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, TILE * 4, TILE)
    a_short = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, TILE // 2)
    c_short = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, TILE * 4, TILE // 2)
    asc.data_copy(a, x_gm, TILE)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.adds(c_short, a_short, 1.0, TILE)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, c, TILE)


def test_vector_op_past_its_local_tensor_inside_the_ub_runs_and_warns(rng):
    x = rng.random(TILE, dtype=np.float32)
    z = np.zeros(TILE, np.float32)
    with pytest.warns(MemcheckWarning, match=r"local tensor of 128 bytes \(past its end, still inside the Unified"):
        launch(adds_past_the_tensor, 1, x, z)
    np.testing.assert_array_equal(z, x + np.float32(1.0))
    stream = rt.current_stream()
    stream.set_strict(True)
    try:
        with pytest.raises(OutOfBoundsError, match="strict mode"):
            launch(adds_past_the_tensor, 1, x, z)
    finally:
        stream.set_strict(False)


def test_blocks_writing_identical_bytes_warn_and_conflict_when_strict():
    x = np.arange(TILE, dtype=np.float32)
    z = np.zeros(TILE, np.float32)
    with pytest.warns(MemcheckWarning, match=r"blocks 0 and 1 both write the same bytes to GM \[0, 256\)"):
        launch(copy_64, 2, x, z)
    np.testing.assert_array_equal(z, x)
    stream = rt.current_stream()
    stream.set_strict(True)
    try:
        with pytest.raises(GmWriteConflictError, match="both write the same bytes"):
            launch(copy_64, 2, x, z)
    finally:
        stream.set_strict(False)


def test_memcheck_warnings_of_queued_launches_come_at_synchronize():
    stream = rt.create_stream(asynchronous=True)
    try:
        x = np.arange(60, dtype=np.float32)
        z = np.zeros(TILE, np.float32)
        copy_64[1, stream](x, z)
        with pytest.warns(MemcheckWarning, match=r"asynchronous launches: memcheck: .*reads GM bytes \[240, 256\)"):
            stream.synchronize()
        np.testing.assert_array_equal(z[:60], x)
    finally:
        stream.destroy()
