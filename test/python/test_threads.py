"""Several Python threads launching at once — on the shared current stream
and on streams of their own, some asynchronous — each checking its results.
(The GIL is released during a launch, so the library really runs them at
once.)"""

import collections
import io
import sys
import threading
import warnings

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


N_SHARED = 256


@asc.jit
def busy(n: int):
    """Work that makes a launch last long enough for the other thread's launch to queue behind it."""
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 8192, N_SHARED)
    asc.duplicate(t, 0.0, N_SHARED)
    for _ in range(n):
        asc.adds(t, t, 1.0, N_SHARED)


@asc.jit
def tagged_print(x: asc.GlobalAddress, tag: int, n: int):
    busy(n)
    asc.printf("tag %d\n", tag)


@asc.jit
def unwaited_flag(x: asc.GlobalAddress, n: int):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, N_SHARED)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, N_SHARED)
    asc.data_copy(a, x_gm, N_SHARED)
    asc.set_flag(asc.HardEvent.MTE2_V, 3)  # never waited for: a SyncWarning of every launch
    busy(n)


class _PerThreadText(io.TextIOBase):
    """sys.stdout for the test: what each thread writes, apart."""

    def __init__(self):
        self.by_thread: dict[int, list[str]] = collections.defaultdict(list)

    def write(self, text: str) -> int:
        self.by_thread[threading.get_ident()].append(text)
        return len(text)


def test_threads_sharing_a_stream_get_their_own_output_and_warnings(monkeypatch):
    """Two threads launch on the one current stream at once, one kernel printing, one warning: each gets its own
    launches' printf text and warnings, every time, and nothing of the other's."""
    rounds = 60
    out = _PerThreadText()
    monkeypatch.setattr(sys, "stdout", out)
    seen: dict[int, list[str]] = collections.defaultdict(list)

    def record(message, category, filename, lineno, file=None, line=None):
        seen[threading.get_ident()].append(f"{category.__name__}: {message}")

    x = np.ones(N_SHARED, np.float32)
    idents: dict[str, int] = {}
    errors: list = []
    # Both start together: they run at once, and their idents differ (an exited thread's ident is reused).
    start = threading.Barrier(2)

    def printer():
        idents["printer"] = threading.get_ident()
        start.wait()
        try:
            for i in range(rounds):
                tagged_print[1](x, 1000 + i, 300)
        except Exception as e:
            errors.append(repr(e))

    def warner():
        idents["warner"] = threading.get_ident()
        start.wait()
        try:
            for _ in range(rounds):
                unwaited_flag[1](x, 300)
                if "never waited for" not in " ".join(rt.last_launch_stats().warnings):
                    errors.append("warner: its launch's stats lack its warning")
        except Exception as e:
            errors.append(repr(e))

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = record
        threads = [threading.Thread(target=printer), threading.Thread(target=warner)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
    assert errors == []
    assert idents["printer"] != idents["warner"]
    printed = "".join(out.by_thread[idents["printer"]])
    assert printed == "".join(f"[Block 0/1] tag {1000 + i}\n" for i in range(rounds))
    assert out.by_thread.get(idents["warner"], []) == []
    assert seen.get(idents["printer"], []) == []
    warned = seen[idents["warner"]]
    assert len(warned) == rounds and all("SyncWarning" in w and "never waited for" in w for w in warned)
