"""Messages that should be better (issue 19): recursion in device functions,
integers that do not fit a launch argument or block_dim, block_dim of the
wrong type, a stream that is not a stream, a kernel file whose name is not
valid UTF-8, persistent-cache entries that are not regular files or are too
large."""

import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.codegen.function import MAX_RECURSION
from asc.errors import LaunchArgumentError
from asc.runtime import disk_cache

N = 64


@asc.jit
def forever(t: asc.LocalTensor, n: int):
    forever(t, n)


@asc.jit
def recurse(z: asc.GlobalAddress, n: int):
    t = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 0, n)
    forever(t, n)


@asc.jit
def down(t: asc.LocalTensor, n: int, depth: asc.ConstExpr[int]):
    if depth > 0:
        asc.adds(t, t, 1.0, n)
        down(t, n, depth - 1)


@asc.jit
def count_down(z: asc.GlobalAddress, n: int, depth: asc.ConstExpr[int]):
    z_gm = asc.GlobalTensor()
    z_gm.set_global_buffer(z, n)
    t = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 0, n)
    asc.duplicate(t, 0.0, n)
    down(t, n, depth)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, t, n)


def test_recursion_in_a_device_function_names_the_function_and_line():
    with pytest.raises(asc.CodegenError, match=r"device function 'forever' .* calls itself more than \d+ deep") as e:
        recurse[1, rt.current_stream()](np.zeros(N, np.float32), N)
    assert not isinstance(e.value.__cause__, RecursionError)
    assert f"test_messages.py:{forever.source.line + 2}" in str(e.value)  # the recursive call's line


def test_recursion_that_ends_at_compile_time_still_compiles():
    z = np.zeros(N, np.float32)
    count_down[1, rt.current_stream()](z, N, MAX_RECURSION - 1)
    assert (z == MAX_RECURSION - 1).all()


@asc.jit
def twice(t: asc.LocalTensor, n: int, depth: asc.ConstExpr[int]):
    if depth == 0:
        asc.adds(t, t, 1.0, n)
    else:
        twice(t, n, depth - 1)
        twice(t, n, depth - 1)


@asc.jit
def doubling(z: asc.GlobalAddress, n: int, depth: asc.ConstExpr[int]):
    z_gm = asc.GlobalTensor()
    z_gm.set_global_buffer(z, n)
    t = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 0, n)
    asc.duplicate(t, 0.0, n)
    twice(t, n, depth)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, t, n)


def test_exponential_inlining_stops_at_the_size_limit_naming_the_kernel(monkeypatch):
    """Calls nested in calls multiply: 2^depth inlined copies. Past the kernel size limit (ASC_MAX_KERNEL_OPS,
    lowered here so the test is quick; the default is 100000) the compile stops with an error naming the kernel
    and the line that crossed it, instead of running for minutes."""
    z = np.zeros(N, np.float32)
    doubling[1, rt.current_stream()](z, N, 6)  # 64 copies: under any limit
    assert (z == 64).all()
    monkeypatch.setenv("ASC_MAX_KERNEL_OPS", "1000")
    with pytest.raises(asc.CodegenError, match=r"kernel 'doubling' has more than 1000 operations as built") as e:
        doubling[1, rt.current_stream()](z, N, 11)  # 2048 copies
    assert f"test_messages.py:{twice.source.line + 3}" in str(e.value)  # the inlined op that crossed it
    monkeypatch.setenv("ASC_MAX_KERNEL_OPS", "many")
    with pytest.raises(asc.CodegenError, match="ASC_MAX_KERNEL_OPS must be a whole number"):
        doubling[1, rt.current_stream()](z, N, 5)


@asc.jit
def fill_int(z: asc.GlobalAddress, n: int, value: int):
    z_gm = asc.GlobalTensor()
    z_gm.set_global_buffer(z, n)
    t = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 0, n)
    asc.duplicate(t, value, n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, t, n)


@pytest.mark.parametrize(
    "value, message",
    [
        (
            2**64,
            r"is 18446744073709551616, which does not fit its dtype int64 "
            r"\(-9223372036854775808\.\.9223372036854775807\)",
        ),
        (-(2**63) - 1, r"is -9223372036854775809, which does not fit its dtype int64"),
    ],  # fmt: skip
)
def test_an_integer_that_does_not_fit_its_argument_names_it_and_the_range(value, message):
    z = np.zeros(N, np.int32)
    launch = fill_int[1, rt.current_stream()]
    launch(z, N, 5)
    launch(z, N, 5)  # a plan exists: the fast path hands the value to the slow path, which names it
    for _ in range(2):
        with pytest.raises(LaunchArgumentError, match=rf"fill_int\(\): argument 'value' {message}"):
            launch(z, N, value)
    assert (z == 5).all()


def test_a_uint64_argument_keeps_its_bits():
    z = np.zeros(N, np.int32)
    fill_int[1, rt.current_stream()](z, N, np.uint64(2**64 - 1))  # was an OverflowError
    assert (z == -1).all()


@pytest.mark.parametrize("core_num", [2**32 + 1, 2**64, 65536, 0, -1, 1.0, True])
def test_block_dim_is_checked_the_same_way_every_time(core_num):
    z = np.zeros(N, np.int32)
    fill_int[1, rt.current_stream()](z, N, 5)  # a launcher for 1 exists (1.0 and True hash as 1 does)
    for _ in range(2):
        with pytest.raises(ValueError, match=r"must be a positive int, 1\.\.65535 \(the block_dim range\), got "):
            fill_int[core_num, rt.current_stream()](z, N, 5)


@pytest.mark.parametrize("stream", ["stream", 0, object()])
def test_a_stream_that_is_not_a_stream_is_a_type_error(stream):
    with pytest.raises(TypeError, match="stream must be an asc stream .* got "):
        fill_int[1, stream](np.zeros(N, np.int32), N, 5)


def test_a_kernel_file_whose_name_is_not_utf8_compiles(tmp_path):
    directory = os.fsencode(tmp_path)
    name = os.path.join(directory, b"kernel_\xff\xfe.py")
    with open(name, "w") as f:
        f.write(
            textwrap.dedent(
                """
                import asc

                @asc.jit
                def fill(z: asc.GlobalAddress, n: int):
                    z_gm = asc.GlobalTensor()
                    z_gm.set_global_buffer(z, n)
                    t = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 0, n)
                    asc.duplicate(t, 7.0, n)
                    asc.set_flag(asc.HardEvent.V_MTE3, 0)
                    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
                    asc.data_copy(z_gm, t, n)
                """
            )
        )
    spec = importlib.util.spec_from_file_location("kernel_not_utf8", os.fsdecode(name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    z = np.zeros(N, np.float32)
    module.fill[1, rt.current_stream()](z, N)
    assert (z == 7.0).all()


KERNEL = textwrap.dedent(
    """
    import json
    import numpy as np
    import asc
    import asc.lib.runtime as rt
    from asc.runtime import disk_cache

    @asc.jit
    def fill(z: asc.GlobalAddress, n: int):
        z_gm = asc.GlobalTensor()
        z_gm.set_global_buffer(z, n)
        t = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 0, n)
        asc.duplicate(t, 3.0, n)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(z_gm, t, n)

    z = np.zeros(64, np.float32)
    fill[1, rt.current_stream()](z, 64)
    assert (z == 3.0).all()
    print(json.dumps({**disk_cache.stats, **disk_cache.skipped}))
    """
)


def run_cached(tmp_path):
    script = tmp_path / "kernel.py"
    script.write_text(KERNEL)
    env = {**os.environ, "PYASC_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "directory", "too_large"])
def test_cache_entries_that_are_not_regular_files_or_too_large_are_skipped(tmp_path, kind):
    first = run_cached(tmp_path)
    assert first["stored"] == 1
    (entry,) = (tmp_path / "cache").rglob("*.asck")
    entry.unlink()
    if kind == "fifo":  # opening it for reading would wait for a writer for ever
        os.mkfifo(entry)
    elif kind == "dev_zero":  # reading it would never end
        entry.symlink_to("/dev/zero")
    elif kind == "directory":
        entry.mkdir()
    else:
        with open(entry, "wb") as f:
            f.truncate(disk_cache.MAX_ENTRY_BYTES + 1)
    stats = run_cached(tmp_path)  # within the timeout, and right
    assert stats["hits"] == 0 and stats["misses"] == 1
    if kind == "too_large":
        assert stats["discarded"] == 1
    else:
        assert stats["not_regular"] == 1


class Small(asc.Struct):
    count = asc.Field(asc.int16, 0, "count")


@asc.jit
def fill_count(z: asc.GlobalAddress, n: int, small: Small):
    z_gm = asc.GlobalTensor()
    z_gm.set_global_buffer(z, n)
    t = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 0, n)
    asc.duplicate(t, small.count, n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, t, n)


def test_a_struct_field_outside_its_dtype_is_refused_also_on_a_cached_launch():
    z = np.zeros(N, np.int32)
    launch = fill_count[1, rt.current_stream()]
    launch(z, N, Small(count=7))
    launch(z, N, Small(count=7))  # a plan exists
    assert (z == 7).all()
    with pytest.raises(LaunchArgumentError, match=r"argument 'small.count' is 70000, which does not fit its dtype "
                                                  r"int16 \(-32768\.\.32767\)"):  # fmt: skip
        launch(z, N, Small(count=70000))
    assert (z == 7).all()
