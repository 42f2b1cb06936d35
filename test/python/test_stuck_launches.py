"""Launches that would keep the process stuck (issue 19): an endless loop stops at the time budget, Ctrl-C stops a
running launch with KeyboardInterrupt and leaves the package usable, and an interpreter that exits with launches
still queued on an asynchronous stream exits cleanly. Each runs in a subprocess."""

import os
import subprocess
import sys
import textwrap
import time

PYTHONPATH = os.path.join(os.path.dirname(__file__), "..", "..", "python")

PRELUDE = textwrap.dedent(
    """
    import os, signal, threading, time
    import numpy as np
    import asc
    import asc.lib.runtime as rt

    @asc.jit
    def spin(x: asc.GlobalAddress, n: int):
        x_gm = asc.GlobalTensor()
        x_gm.set_global_buffer(x, 8)
        for i in range(n):
            for j in range(n):
                asc.printf("")

    @asc.jit
    def fill(x: asc.GlobalAddress, n: int):
        x_gm = asc.GlobalTensor()
        x_gm.set_global_buffer(x, 8)
        for i in range(n):
            x_gm.set_value(i, 1.0)
    """
)


def run(body: str, env=None, timeout=60, tmp_path=None):
    full_env = dict(os.environ, PYTHONPATH=os.path.abspath(PYTHONPATH), **(env or {}))
    script = tmp_path / "script.py"  # kernels are compiled from their source file
    script.write_text(PRELUDE + textwrap.dedent(body))
    start = time.monotonic()
    p = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=timeout,
    )
    return p, time.monotonic() - start


def test_sigint_stops_a_running_launch_with_keyboard_interrupt_and_the_next_launch_works(tmp_path):
    p, _ = run(
        """
        x = np.zeros(8, dtype=np.float32)
        threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        start = time.monotonic()
        try:
            spin[1](x, 2**31 - 1)
            print("not interrupted")
        except KeyboardInterrupt:
            print(f"interrupted after {time.monotonic() - start:.1f} s")
        fill[1](x, 8)
        print("next launch", x.tolist() == [1.0] * 8)
        """,
        tmp_path=tmp_path,
    )
    assert p.returncode == 0, p.stderr
    lines = p.stdout.split("\n")
    assert lines[0].startswith("interrupted after"), p.stdout + p.stderr
    assert float(lines[0].split()[2]) < 2.0
    assert "next launch True" in p.stdout


def test_an_endless_loop_stops_at_the_time_budget(tmp_path):
    p, elapsed = run(
        """
        x = np.zeros(8, dtype=np.float32)
        try:
            spin[1](x, 2**31 - 1)
        except Exception as e:
            print(type(e).__name__, e)
        """,
        env={"ASC_TIMEOUT_S": "1", "ASC_MAX_OPS": "0"},
        tmp_path=tmp_path,
    )
    assert p.returncode == 0, p.stderr
    assert "kernel 'spin' ran longer than its time budget of 1 s" in p.stdout, p.stdout
    assert elapsed < 20


def test_exiting_with_launches_still_queued_exits_cleanly(tmp_path):
    p, _ = run(
        """
        s = rt.create_stream(asynchronous=True)
        x = np.zeros(8, dtype=np.float32)
        for _ in range(50):
            spin[4, s](x, 300)
        fill[1, s](x, 8)
        print("queued")
        """,
        tmp_path=tmp_path,
    )
    assert p.returncode == 0, (p.returncode, p.stderr)
    assert "queued" in p.stdout


def test_a_forked_child_gets_a_clear_error_from_the_parents_stream_and_can_make_its_own(tmp_path):
    p, elapsed = run(
        """
        import sys
        s = rt.create_stream(asynchronous=True)
        x = np.zeros(8, dtype=np.float32)
        fill[4, s](x, 8)  # the queue's thread and the simulator's pool are running in the parent
        s.synchronize()
        fill[4](x, 8)
        pid = os.fork()
        if pid == 0:
            code = 3
            try:
                fill[1, s](x, 8)
                s.synchronize()
                print("child: no error", flush=True)
            except Exception as e:
                print("child:", e, flush=True)
                y = np.zeros(8, dtype=np.float32)
                fill[4, rt.create_stream()](y, 8)  # a stream of its own, on a thread pool of its own
                code = 0 if y.tolist() == [1.0] * 8 else 4
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        print("child exit", os.waitstatus_to_exitcode(status))
        """,
        tmp_path=tmp_path,
        timeout=60,
    )
    assert p.returncode == 0, p.stderr
    assert "created before fork()" in p.stdout, p.stdout + p.stderr
    assert "child exit 0" in p.stdout, p.stdout + p.stderr
