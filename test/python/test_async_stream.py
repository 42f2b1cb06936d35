"""Asynchronous streams: launches are checked at the call and queued; the
stream runs them in order; synchronize() makes the results visible and
reports what they printed, warned and failed with; the arrays of queued
launches stay alive until then."""

import gc
import weakref

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.errors import LaunchArgumentError, OutOfBoundsError, SyncWarning

N = 1024


@asc.jit
def add(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    x_gm, y_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    y_gm.set_global_buffer(y, n)
    z_gm.set_global_buffer(z, n)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, n * 4, n)
    asc.data_copy(a, x_gm, n)
    asc.data_copy(b, y_gm, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.add(a, a, b, n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, a, n)


@asc.jit
def chatty(x: asc.GlobalAddress, tag: int):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, 8)
    asc.printf("launch %d\n", tag)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 8)
    asc.data_copy(a, x_gm, 8)
    asc.set_flag(asc.HardEvent.MTE2_V, 1)  # never waited for: a synccheck warning


@pytest.fixture
def stream():
    s = rt.create_stream(asynchronous=True)
    yield s
    s.destroy()


def test_queued_launches_run_in_order_and_are_visible_after_synchronize(stream, rng):
    x, y = rng.random(N, dtype=np.float32), rng.random(N, dtype=np.float32)
    z, w = np.zeros_like(x), np.zeros_like(x)
    for _ in range(10):
        add[1, stream](x, y, z, N)  # z = x + y
        add[1, stream](z, y, w, N)  # w = z + y: reads what the launch before wrote
    stream.synchronize()
    np.testing.assert_array_equal(w, (x + y) + y)
    assert stream.pending == []


def test_arrays_of_queued_launches_stay_alive_until_synchronize(stream, rng):
    z = np.zeros(N, np.float32)

    def launch():
        x, y = rng.random(N, dtype=np.float32), rng.random(N, dtype=np.float32)
        add[1, stream](x, y, z, N)
        return weakref.ref(x), x + y

    alive, expected = launch()
    gc.collect()
    assert alive() is not None  # the caller dropped it; the queued launch has not
    stream.synchronize()
    np.testing.assert_array_equal(z, expected)
    gc.collect()
    assert alive() is None


def test_argument_errors_are_raised_at_the_call(stream):
    x = np.zeros(N, np.float32)
    with pytest.raises(LaunchArgumentError):
        add[1, stream](x, x, N)
    with pytest.raises(LaunchArgumentError, match="C-contiguous"):
        add[1, stream](x[::2], x[::2], x[::2], N // 2)
    stream.synchronize()  # nothing was queued, nothing to report


def test_kernel_failures_are_raised_by_synchronize_and_later_launches_do_not_run(stream, rng):
    x, y = rng.random(N, dtype=np.float32), rng.random(N, dtype=np.float32)
    short, z = np.zeros(N // 2, np.float32), np.zeros(N, np.float32)
    stream.set_strict(True)  # the board would write on into the allocator's segment: strict makes it the fault
    add[1, stream](x, y, short, N)  # writes past `short`
    add[1, stream](x, y, z, N)
    with pytest.raises(OutOfBoundsError, match="asynchronous launch failed") as err:
        stream.synchronize()
    stream.set_strict(False)
    assert "1 later launch on this stream did not run" in str(err.value)
    assert not z.any()
    stream.synchronize()  # reported once
    add[1, stream](x, y, z, N)
    stream.synchronize()
    np.testing.assert_array_equal(z, x + y)


def test_output_and_warnings_of_queued_launches_come_at_synchronize(stream, capsys):
    x = np.zeros(8, np.float32)
    with pytest.warns(SyncWarning, match="never waited for"):
        for tag in range(20):  # many, so that some are still queued when synchronize() is called
            chatty[1, stream](x, tag)
        assert capsys.readouterr().out == ""
        stream.synchronize()
    assert capsys.readouterr().out.splitlines() == [f"[Block 0/1] launch {tag}" for tag in range(20)]


def test_turning_asynchronous_off_synchronizes(stream, rng):
    x, y = rng.random(N, dtype=np.float32), rng.random(N, dtype=np.float32)
    z = np.zeros_like(x)
    add[1, stream](x, y, z, N)
    stream.set_asynchronous(False)
    np.testing.assert_array_equal(z, x + y)
    z[:] = 0
    add[1, stream](x, y, z, N)  # runs before it returns
    np.testing.assert_array_equal(z, x + y)
