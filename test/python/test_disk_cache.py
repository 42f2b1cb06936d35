"""The persistent compile cache across processes: a second process rebuilds
the kernel from the cache without compiling it, a changed source or constant
misses, and a damaged entry is discarded and rebuilt — results are right in
every case."""

import json
import os
import subprocess
import sys
import textwrap

KERNEL = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import asc
    import asc.lib.runtime as rt
    from asc.runtime import disk_cache

    SCALE = {scale}

    @asc.jit
    def scale(x: asc.GlobalAddress, y: asc.GlobalAddress, n: int):
        x_gm, y_gm = asc.GlobalTensor(), asc.GlobalTensor()
        x_gm.set_global_buffer(x)
        y_gm.set_global_buffer(y)
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)
        asc.data_copy(t, x_gm, n)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        asc.muls(t, t, SCALE, n)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(y_gm, t, n)

    x = np.arange(64, dtype=np.float32)
    y = np.zeros_like(x)
    scale[1, rt.current_stream()](x, y, 64)
    assert np.array_equal(y, x * SCALE), y
    print(json.dumps(disk_cache.stats))
    """
)


def run(tmp_path, scale):
    script = tmp_path / "kernel.py"
    script.write_text(KERNEL.format(scale=scale))
    env = {**os.environ, "PYASC_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def entries(tmp_path):
    return sorted((tmp_path / "cache").rglob("*.asck"))


def test_a_second_process_uses_the_cache(tmp_path):
    first = run(tmp_path, 3)
    assert first == {"hits": 0, "misses": 1, "stored": 1, "discarded": 0}
    assert len(entries(tmp_path)) == 1
    second = run(tmp_path, 3)
    assert second == {"hits": 1, "misses": 0, "stored": 0, "discarded": 0}


def test_a_changed_constant_misses_and_computes_the_new_result(tmp_path):
    run(tmp_path, 3)
    changed = run(tmp_path, 5)  # the script asserts y == x * 5
    assert changed["misses"] == 1 and changed["hits"] == 0
    assert len(entries(tmp_path)) == 2


def test_a_damaged_entry_is_discarded_and_rebuilt(tmp_path):
    run(tmp_path, 3)
    (entry,) = entries(tmp_path)
    for damage in (lambda b: b[:-7], lambda b: b[:4] + bytes([b[4] ^ 0xFF]) + b[5:], lambda b: b"garbage"):
        entry.write_bytes(damage(entry.read_bytes()))
        stats = run(tmp_path, 3)
        assert stats["hits"] == 0 and stats["discarded"] == 1 and stats["stored"] == 1
        assert run(tmp_path, 3)["hits"] == 1


def test_an_empty_cache_dir_turns_it_off(tmp_path):
    script = tmp_path / "kernel.py"
    script.write_text(KERNEL.format(scale=2))
    env = {**os.environ, "PYASC_CACHE_DIR": ""}
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {"hits": 0, "misses": 0, "stored": 0, "discarded": 0}
