"""Several Python threads launching at once — on the shared current stream
and on streams of their own, some asynchronous — each checking its results.
(The GIL is released during a launch, so the library really runs them at
once.)"""

import threading

import numpy as np

import asc
import asc.lib.runtime as rt


@asc.jit
def axpy(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, a: float, n: int):
    x_gm, y_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    offset = asc.get_block_idx() * n
    x_gm.set_global_buffer(x + offset, n)
    y_gm.set_global_buffer(y + offset, n)
    z_gm.set_global_buffer(z + offset, n)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)
    u = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, n * 4, n)
    asc.data_copy(t, x_gm, n)
    asc.data_copy(u, y_gm, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.muls(t, t, a, n)
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    asc.add(t, t, u, n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, t, n)


def worker(index: int, stream_kind: str, errors: list) -> None:
    try:
        rng = np.random.default_rng(index)
        stream = rt.current_stream() if stream_kind == "shared" else rt.create_stream(stream_kind == "async")
        for round_ in range(25):
            blocks, n = 1 + (index + round_) % 6, 256
            x, y = rng.random(blocks * n, dtype=np.float32), rng.random(blocks * n, dtype=np.float32)
            z = np.zeros_like(x)
            a = float(index + round_)
            axpy[blocks, stream](x, y, z, a, n)
            stream.synchronize()
            np.testing.assert_allclose(z, np.float32(a) * x + y, rtol=1e-6)
        if stream_kind != "shared":
            stream.destroy()
    except Exception as e:  # reported by the test, with the thread that saw it
        errors.append((index, stream_kind, repr(e)))


def test_threads_launch_at_once():
    errors: list = []
    kinds = ["shared", "shared", "own", "own", "async", "async"]
    threads = [threading.Thread(target=worker, args=(i, kind, errors)) for i, kind in enumerate(kinds)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads)
    assert errors == []
