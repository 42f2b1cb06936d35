"""The Model's sanitizer: each deliberately broken kernel gets its own report,
naming the right lines; correct kernels get none."""

import inspect
import re
import warnings

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.errors import (
    DeadlockError,
    GmWriteConflictError,
    InitcheckWarning,
    KernelError,
    MisalignedError,
    RaceError,
    SyncWarning,
    UninitializedReadError,
)

N = 256


def line_of(kernel, text, nth=0):
    lines, start = inspect.getsourcelines(kernel.fn)
    hits = [start + i for i, line in enumerate(lines) if text in line]
    return hits[nth]


def at(kernel, text, nth=0):
    return f"test_sanitizer.py:{line_of(kernel, text, nth)}"


@asc.jit
def add_with(x: asc.GlobalAddress, z: asc.GlobalAddress, DROP: asc.ConstExpr[str]):
    """z = x + x, with one of its three waits deleted (DROP names it)."""
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, N)
    z_gm.set_global_buffer(z, N)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, N)
    c = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, N * 4, N)
    asc.data_copy(a, x_gm, N)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    if DROP != "MTE2_V":
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.add(c, a, a, N)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    if DROP != "V_MTE3":
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, c, N)


def run(kernel, *args, cores=1):
    kernel[cores, rt.current_stream()](*args)


def test_correct_kernel_has_no_report(rng):
    x = rng.random(N, dtype=np.float32)
    z = np.zeros_like(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run(add_with, x, z, "")
    np.testing.assert_array_equal(z, x + x)
    assert rt.last_launch_stats().warnings == ()


def test_deleted_mte2_v_wait_is_a_read_after_write_race():
    x = np.ones(N, np.float32)
    with pytest.raises(RaceError) as err:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyncWarning)  # the unwaited set is reported too, as a warning
            run(add_with, x, np.zeros_like(x), "MTE2_V")
    text = str(err.value)
    assert "read-after-write" in text and "bytes [0, 1024)" in text
    assert at(add_with, "asc.add(") in text  # the reading instruction
    assert at(add_with, "asc.data_copy(a") in text  # the writer it races with
    assert "HardEvent.MTE2_V" in text  # how to fix it


def test_deleted_v_mte3_wait_is_a_race():
    x = np.ones(N, np.float32)
    with pytest.raises(RaceError) as err:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyncWarning)
            run(add_with, x, np.zeros_like(x), "V_MTE3")
    text = str(err.value)
    assert at(add_with, "asc.data_copy(z_gm") in text and at(add_with, "asc.add(") in text
    assert "HardEvent.V_MTE3" in text


@asc.jit
def double_buffered(x: asc.GlobalAddress, z: asc.GlobalAddress, TILE: asc.ConstExpr[int], DROP: asc.ConstExpr[bool]):
    """examples/add.py's loop shape (two buffers), optionally without its MTE3_MTE2 wait."""
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    z_gm.set_global_buffer(z)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, TILE * 2)
    c = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, TILE * 8, TILE * 2)
    for i in range(8):
        b = i % 2
        asc.data_copy(a[b * TILE :], x_gm[i * TILE :], TILE)
        asc.set_flag(asc.HardEvent.MTE2_V, b)
        asc.wait_flag(asc.HardEvent.MTE2_V, b)
        asc.add(c[b * TILE :], a[b * TILE :], a[b * TILE :], TILE)
        asc.set_flag(asc.HardEvent.V_MTE3, b)
        asc.wait_flag(asc.HardEvent.V_MTE3, b)
        asc.data_copy(z_gm[i * TILE :], c[b * TILE :], TILE)
        if not DROP:
            asc.set_flag(asc.HardEvent.MTE3_MTE2, b)
            asc.wait_flag(asc.HardEvent.MTE3_MTE2, b)


def test_deleted_mte3_mte2_wait_in_double_buffered_loop(rng):
    x = rng.random(8 * 64, dtype=np.float32)
    z = np.zeros_like(x)
    run(double_buffered, x, z, 64, False)
    np.testing.assert_array_equal(z, x + x)
    with pytest.raises(RaceError) as err:
        run(double_buffered, x, z, 64, True)
    text = str(err.value)
    assert "write-after-read" in text  # iteration i+2's copy-in overwrites what iteration i still reads
    assert at(double_buffered, "asc.data_copy(a[") in text and at(double_buffered, "asc.add(") in text


@asc.jit
def unpaired_set(x: asc.GlobalAddress, z: asc.GlobalAddress):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, N)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, N)
    asc.data_copy(a, x_gm, N)
    asc.set_flag(asc.HardEvent.MTE2_V, 3)


def test_unpaired_set_flag_is_a_warning():
    x = np.ones(N, np.float32)
    with pytest.warns(SyncWarning, match=r"set_flag\(HardEvent\.MTE2_V, 3\) at .* is never waited for") as rec:
        run(unpaired_set, x, x)
    assert at(unpaired_set, "asc.set_flag") in str(rec[0].message)
    assert len(rt.last_launch_stats().warnings) == 1


@asc.jit
def wait_never_fires(x: asc.GlobalAddress):
    asc.wait_flag(asc.HardEvent.V_MTE3, 2)


def test_wait_that_never_fires_is_a_deadlock():
    with pytest.raises(DeadlockError, match=r"wait_flag\(HardEvent\.V_MTE3, 2\)") as err:
        run(wait_never_fires, np.zeros(8, np.float32))
    assert at(wait_never_fires, "wait_flag") in str(err.value)


@asc.jit
def reads_uninitialised(x: asc.GlobalAddress, z: asc.GlobalAddress):
    z_gm = asc.GlobalTensor()
    z_gm.set_global_buffer(z, N)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, N)
    c = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, N * 4, N)
    asc.add(c, a, a, N)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, c, N)


def test_values_computed_from_unwritten_bytes_reaching_gm_are_an_initcheck_error():
    """The add runs (the board computes garbage from stale bytes); copying its garbage to GM is the error, naming
    the copy and the add that computed it."""
    z = np.zeros(N, np.float32)
    with pytest.raises(UninitializedReadError, match=r"data_copy.local_to_gm reads Unified Buffer bytes \[1024, "
                       r"2048\) that hold no defined value: add at ") as err:  # fmt: skip
        run(reads_uninitialised, np.zeros(N, np.float32), z)
    assert at(reads_uninitialised, "asc.add(") in str(err.value)  # the add that computed them
    assert at(reads_uninitialised, "asc.data_copy(") in str(err.value)  # the copy that reads them
    assert not z.any()  # nothing reached GM


def test_strict_mode_makes_the_unwritten_read_itself_the_error():
    stream = rt.current_stream()
    stream.set_strict(True)
    try:
        with pytest.raises(UninitializedReadError, match=r"initcheck: add reads Unified Buffer bytes \[0, 1024\)"):
            run(reads_uninitialised, np.zeros(N, np.float32), np.zeros(N, np.float32))
    finally:
        stream.set_strict(False)


@asc.jit
def half_tile_bit_mask(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress,
                       low: asc.ConstExpr[int], high: asc.ConstExpr[int]):  # fmt: skip
    x_gm, y_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x, 64)
    y_gm.set_global_buffer(y, 64)
    z_gm.set_global_buffer(z, 64)
    a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 64)  # 64 float16: half a repeat
    b = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 128, 64)
    c = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 256, 64)
    asc.data_copy(a, x_gm, count=64)
    asc.data_copy(b, y_gm, count=64)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.add(c, a, b, mask=[low, high], repeat_times=1, repeat_params=asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, c, count=64)


M64 = 2**64 - 1


@pytest.mark.parametrize(
    "low, high, read, unwritten",
    [
        (M64, 0, None, None),  # lanes 0..63: the 64 elements copied in
        # 128 lanes: b's second half is c's bytes, which nothing wrote; the lanes copied out do not depend on them
        (M64, M64, "add.mask at .* reads Unified Buffer bytes [256, 384)", None),
        # lane 64 only: it reads the block after b's elements; c's lanes 0..63 stay unwritten for the copy out
        (0, 1, "add.mask at .* reads Unified Buffer bytes [256, 288)",
         "data_copy.local_to_gm reads Unified Buffer bytes [256, 288) that nothing wrote"),
        (1, 0, None, "data_copy.local_to_gm reads Unified Buffer bytes [288, 384)"),  # lane 0 only: c's others unset
    ],
)  # fmt: skip
def test_bit_mask_reads_only_the_blocks_of_selected_lanes(low, high, read, unwritten, rng):
    # mask[0] is the low 64 bits (lanes 0..63), mask[1] the high (lanes 64..127, 16-bit dtypes only); an
    # instruction reads the 32-byte blocks that hold a selected lane, so [M, M] on a 64-element float16 tile
    # reads 128 lanes -- 128 bytes past the copied-in data -- as pyasc's test_vadd_bits does for float16/int16.
    x = rng.random(64).astype(np.float16)
    y = rng.random(64).astype(np.float16)
    z = np.zeros(64, np.float16)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if unwritten is None:
            run(half_tile_bit_mask, x, y, z, low, high)
            np.testing.assert_array_equal(z, x + y)
        else:
            with pytest.raises(UninitializedReadError, match="initcheck: " + re.escape(unwritten)):
                run(half_tile_bit_mask, x, y, z, low, high)
    reads = [str(w.message) for w in caught if issubclass(w.category, InitcheckWarning)]
    if read is None or unwritten is not None:  # a failed launch reports its error, not its warnings
        assert not reads
    else:
        assert len(reads) == 1 and re.search(re.escape(read).replace(r"\.\*", ".*"), reads[0]), reads


@asc.jit
def misaligned_copy(x: asc.GlobalAddress, n: int):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(a[4:], x_gm, n)  # 16 bytes into the tensor: not 32-byte aligned


def test_misaligned_data_copy():
    with pytest.raises(MisalignedError, match="address 16 in the Unified Buffer is not 32-byte aligned") as err:
        run(misaligned_copy, np.zeros(64, np.float32), 8)
    assert at(misaligned_copy, "asc.data_copy") in str(err.value)


@asc.jit
def every_block_writes_slot_zero(x: asc.GlobalAddress, z: asc.GlobalAddress, OWN_ROW: asc.ConstExpr[bool]):
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    if OWN_ROW:  # each block writes its own row of x: different bytes
        x_gm.set_global_buffer(x + asc.get_block_idx() * 8, 8)
    else:  # every block writes the same bytes
        x_gm.set_global_buffer(x, 8)
    z_gm.set_global_buffer(z, 8)  # forgot the per-block offset
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 8)
    asc.data_copy(a, x_gm, 8)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.data_copy(z_gm, a, 8)


def test_two_blocks_writing_the_same_gm_bytes():
    x = np.arange(32, dtype=np.float32)
    run(every_block_writes_slot_zero, x, np.zeros(8, np.float32), True, cores=1)
    with pytest.raises(GmWriteConflictError, match=r"blocks 0 and 1 both write GM bytes \[0, 32\) of argument 'z'"):
        run(every_block_writes_slot_zero, x, np.zeros(8, np.float32), True, cores=4)


def test_blocks_writing_identical_bytes_do_not_conflict():
    # the order of identical writes cannot change the result (pyasc's test_matmul relies on it): a warning,
    # since the work is repeated; strict mode makes it the conflict error
    z = np.zeros(8, np.float32)
    pattern = r"blocks 0 and 1 both write the same bytes to GM \[0, 32\) of argument 'z'.*the work is repeated"
    with pytest.warns(asc.errors.MemcheckWarning, match=pattern) as record:
        run(every_block_writes_slot_zero, np.arange(32, dtype=np.float32), z, False, cores=4)
    assert len([w for w in record if "both write the same bytes" in str(w.message)]) == 1  # once per launch
    np.testing.assert_array_equal(z, np.arange(8))
    stream = rt.current_stream()
    stream.set_strict(True)
    try:
        with pytest.raises(GmWriteConflictError, match="both write the same bytes"):
            run(every_block_writes_slot_zero, np.arange(32, dtype=np.float32), z, False, cores=4)
    finally:
        stream.set_strict(False)


@asc.jit
def bad_event_id(x: asc.GlobalAddress, eid: int):
    asc.set_flag(asc.HardEvent.MTE2_V, eid)
    asc.wait_flag(asc.HardEvent.MTE2_V, eid)


def test_out_of_range_event_id():
    with pytest.raises(KernelError, match=r"event id 9 is out of range \(0..7\)") as err:
        run(bad_event_id, np.zeros(8, np.float32), 9)
    assert at(bad_event_id, "asc.set_flag") in str(err.value)


def test_sanitizer_can_be_turned_off():
    x = np.ones(N, np.float32)
    stream = rt.current_stream()
    stream.set_sanitize(False)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            run(reads_uninitialised, x, np.zeros_like(x))  # no initcheck, no race, no warning
    finally:
        stream.set_sanitize(True)
    with pytest.raises(UninitializedReadError):
        run(reads_uninitialised, x, np.zeros_like(x))


def test_asc_sanitize_env_turns_it_off(tmp_path):
    import subprocess
    import sys

    script = tmp_path / "k.py"
    script.write_text(
        "import numpy as np, asc, asc.lib.runtime as rt\n"
        "@asc.jit\n"
        "def k(x: asc.GlobalAddress):\n"
        "    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 8)\n"
        "    c = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 64, 8)\n"
        "    asc.add(c, a, a, 8)\n"
        "k[1, rt.current_stream()](np.zeros(8, np.float32))\n"
        "print('ran')\n"
    )
    env = dict(__import__("os").environ, ASC_SANITIZE="0")
    off = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert off.returncode == 0 and "ran" in off.stdout, off.stderr
    env["ASC_SANITIZE"] = "1"
    on = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert on.returncode == 0 and "InitcheckWarning" in on.stderr, on.stderr  # the read of unwritten bytes


# ---- long kernels: the race checker's shadow map is swept of settled history ----------------


@asc.jit
def long_loop(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int, FAULT: asc.ConstExpr[int], AT: int):
    """z = x + x over `tiles` 64-element tiles, double-buffered; iteration AT has a fault (FAULT: 0 none,
    1 its V_MTE3 wait missing, 2 it reads a buffer nothing wrote)."""
    x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    z_gm.set_global_buffer(z)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 128)
    c = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 512, 128)
    never = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 4096, 64)
    for i in range(tiles):
        b = i % 2
        asc.data_copy(a[b * 64 :], x_gm[i * 64 :], 64)
        asc.set_flag(asc.HardEvent.MTE2_V, b)
        asc.wait_flag(asc.HardEvent.MTE2_V, b)
        if FAULT == 2 and i == AT:
            asc.add(c[b * 64 :], never, a[b * 64 :], 64)
        else:
            asc.add(c[b * 64 :], a[b * 64 :], a[b * 64 :], 64)
        asc.set_flag(asc.HardEvent.V_MTE3, b)
        if FAULT != 1 or i != AT:
            asc.wait_flag(asc.HardEvent.V_MTE3, b)
        asc.data_copy(z_gm[i * 64 :], c[b * 64 :], 64)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, b)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, b)


@pytest.mark.parametrize("at_tile", [3, 700, 1499])
def test_races_late_in_long_kernels_are_still_found(rng, at_tile):
    tiles = 1500  # thousands of GM ranges: the shadow map is swept many times
    x = rng.random(tiles * 64, dtype=np.float32)
    z = np.zeros_like(x)
    run(long_loop, x, z, tiles, 0, 0)
    np.testing.assert_array_equal(z, x + x)
    with pytest.raises(RaceError) as err:
        run(long_loop, x, z, tiles, 1, at_tile)
    assert "read-after-write" in str(err.value) and at(long_loop, "asc.data_copy(z_gm[") in str(err.value)
    with pytest.raises(UninitializedReadError, match=r"data_copy.local_to_gm reads .* that hold no defined value"):
        run(long_loop, x, z, tiles, 2, at_tile)


@asc.jit
def writes_row_and_next_row(x: asc.GlobalAddress, a: asc.GlobalAddress, b: asc.GlobalAddress):
    x_gm, a_gm, b_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x + asc.get_block_idx() * 8, 8)
    a_gm.set_global_buffer(a + asc.get_block_idx() * 8, 8)  # block i: row i of a
    b_gm.set_global_buffer(b + asc.get_block_idx() * 8 + 8, 8)  # block i: row i + 1 of b
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 8)
    asc.data_copy(t, x_gm, 8)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.data_copy(a_gm, t, 8)
    asc.data_copy(b_gm, t, 8)


def test_one_buffer_passed_as_two_outputs_is_checked_as_one_memory():
    # Two buffers: no block writes another's bytes.
    x = np.arange(32, dtype=np.float32)
    run(writes_row_and_next_row, x, np.zeros(48, np.float32), np.zeros(48, np.float32), cores=4)
    # One buffer as both: block 0 writes row 1 through b while block 1 writes it through a (conflicts were
    # tracked per argument, so this passed).
    z = np.zeros(48, np.float32)
    with pytest.raises(GmWriteConflictError, match=r"blocks \d and \d both write GM bytes .*the same memory as"):
        run(writes_row_and_next_row, x, z, z, cores=4)
    # Overlapping views of one buffer likewise.
    z = np.zeros(56, np.float32)
    with pytest.raises(GmWriteConflictError, match=r"the same memory as argument"):
        run(writes_row_and_next_row, x, z[:48], z[8:], cores=4)


S = 64  # float32 elements per block


@asc.jit
def copies_then_reads(
    x: asc.GlobalAddress,
    y: asc.GlobalAddress,
    z: asc.GlobalAddress,
    NEXT: asc.ConstExpr[bool],
    SYNC_ALL: asc.ConstExpr[bool],
):
    """Each of 2 blocks copies its slice of y into its slice of x, then copies a slice of x into its slice of z:
    the next block's (which that block writes: a race unless a sync_all orders them) or its own."""
    i = asc.get_block_idx()
    y_gm, x_own, x_src, z_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    y_gm.set_global_buffer(y + i * S, S)
    x_own.set_global_buffer(x + i * S, S)
    if NEXT:
        x_src.set_global_buffer(x + (i + 1) % 2 * S, S)
    else:
        x_src.set_global_buffer(x + i * S, S)
    z_gm.set_global_buffer(z + i * S, S)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, S)
    asc.data_copy(a, y_gm, S)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.data_copy(x_own, a, S)
    asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
    asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)
    if SYNC_ALL:
        asc.sync_all()
    asc.data_copy(a, x_src, S)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.data_copy(z_gm, a, S)


def test_reading_what_another_block_writes_is_a_racecheck_warning(rng):
    y = rng.random(2 * S, dtype=np.float32)
    x, z = np.zeros_like(y), np.zeros_like(y)
    with pytest.warns(SyncWarning, match="racecheck: block 1 reads GM bytes") as rec:
        run(copies_then_reads, x, y, z, True, False, cores=2)
    races = [str(w.message) for w in rec if "racecheck" in str(w.message)]
    assert len(races) == 1  # both blocks race through the same two ops: reported once
    assert at(copies_then_reads, "asc.data_copy(a, x_src") in races[0]
    assert at(copies_then_reads, "asc.data_copy(x_own") in races[0]
    assert "in the same launch, unordered" in races[0]


@pytest.mark.parametrize(("next_slice", "sync_all"), [(False, False), (True, True)])
def test_own_slices_or_a_sync_all_give_no_racecheck_warning(rng, next_slice, sync_all):
    y = rng.random(2 * S, dtype=np.float32)
    x, z = np.zeros_like(y), np.zeros_like(y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run(copies_then_reads, x, y, z, next_slice, sync_all, cores=2)
    np.testing.assert_array_equal(z, np.roll(y, -S) if next_slice else y)
