"""The launch fast path (launch_plan.py): cached launches bind each call's
own arrays and values, re-specialise when something the kernel depends on
changes, and report bad arguments, kernel errors and warnings exactly as the
first (slow-path) launch does."""

import inspect
import pickle
import threading
import warnings
from unittest.mock import patch

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.runtime.launcher import Launcher, LaunchOptions

SCALE = 2


@asc.jit
def scaled_add(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    x_gm, y_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    y_gm.set_global_buffer(y)
    z_gm.set_global_buffer(z)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    b = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, n * x.dtype.sizeof(), n)
    asc.data_copy(a, x_gm, n)
    asc.data_copy(b, y_gm, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.muls(a, a, SCALE, n)
    asc.add(b, a, b, n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, b, n)


def run(x, y, n=64):
    z = np.zeros_like(x) if isinstance(x, np.ndarray) else x.new_zeros(x.shape)
    scaled_add[1, rt.current_stream()](x, y, z, n)
    return z


def test_each_cached_launch_binds_its_own_arrays(rng):
    for _ in range(5):
        x, y = rng.random(64, dtype=np.float32), rng.random(64, dtype=np.float32)
        np.testing.assert_allclose(run(x, y), SCALE * x + y, rtol=1e-6)
    assert len(scaled_add._plans) == 1


def test_a_new_dtype_gets_its_own_plan(rng):
    x, y = rng.random(64).astype(np.float16), rng.random(64).astype(np.float16)
    np.testing.assert_allclose(run(x, y).astype(np.float32), (SCALE * x + y).astype(np.float32), rtol=2e-3)
    x32, y32 = x.astype(np.float32), y.astype(np.float32)
    np.testing.assert_allclose(run(x32, y32), SCALE * x32 + y32, rtol=1e-6)


def test_changing_a_module_constant_recompiles(rng):
    global SCALE
    x, y = rng.random(64, dtype=np.float32), rng.random(64, dtype=np.float32)
    run(x, y)
    old = SCALE
    try:
        SCALE = 5
        np.testing.assert_allclose(run(x, y), 5 * x + y, rtol=1e-6)
    finally:
        SCALE = old
    np.testing.assert_allclose(run(x, y), old * x + y, rtol=1e-6)


OFFSET = 1.0


def offset():  # a plain helper the kernel calls while compiling
    return OFFSET


@asc.jit
def shifted(x: asc.GlobalAddress, y: asc.GlobalAddress, n: int):
    x_gm, y_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    y_gm.set_global_buffer(y)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    asc.data_copy(a, x_gm, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.adds(a, a, offset(), n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(y_gm, a, n)


def test_changing_a_constant_a_helper_reads_recompiles(rng):
    global OFFSET
    x, y = rng.random(64, dtype=np.float32), np.zeros(64, np.float32)
    launch = shifted[1, rt.current_stream()]
    launch(x, y, 64)
    launch(x, y, 64)  # the fast path
    np.testing.assert_array_equal(y, x + 1)
    try:
        OFFSET = 7.0
        launch(x, y, 64)
        np.testing.assert_array_equal(y, x + 7)
    finally:
        OFFSET = 1.0
    launch(x, y, 64)
    np.testing.assert_array_equal(y, x + 1)


def test_bad_arguments_on_a_cached_launch_get_the_slow_paths_error(rng):
    x, y = rng.random(64, dtype=np.float32), rng.random(64, dtype=np.float32)
    run(x, y)
    strided = rng.random(128, dtype=np.float32)[::2]
    with pytest.raises(asc.errors.LaunchArgumentError, match="argument 'x' must be C-contiguous"):
        run(strided, y)
    with pytest.raises(asc.errors.LaunchArgumentError, match="argument 'y' is a str"):
        run(x, "y")


def test_kernel_errors_on_a_cached_launch_are_raised(rng):
    x, y = rng.random(64, dtype=np.float32), rng.random(64, dtype=np.float32)
    run(x, y)
    short = rng.random(16, dtype=np.float32)
    stream = rt.current_stream()
    stream.set_strict(True)  # the board reads on into its allocator's segment (test_board_memory.py)
    try:
        with pytest.raises(asc.errors.OutOfBoundsError, match="data_copy"):
            run(short, y)
    finally:
        stream.set_strict(False)


@asc.jit
def store(out: asc.GlobalAddress, v: int):
    """out[0] = v: a kernel specialised by its int argument's width."""
    o = asc.GlobalTensor()
    o.set_global_buffer(out)
    o.set_value(0, v)


def test_a_python_int_past_int32_respecialises(rng):
    out = np.zeros(8, np.int64)
    store[1, rt.current_stream()](out, 7)
    store[1, rt.current_stream()](out, 9)
    assert out[0] == 9
    store[1, rt.current_stream()](out, 2**40)  # an int32 plan would wrap this to 0
    assert out[0] == 2**40
    store[1, rt.current_stream()](out, -5)
    assert out[0] == -5
    assert len(store._plans) == 2


def test_warnings_are_raised_on_cached_launches(rng):
    @asc.jit
    def unwaited(x: asc.GlobalAddress):
        asc.set_flag(asc.HardEvent.MTE2_V, 0)

    x = np.zeros(8, np.float32)
    for _ in range(3):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            unwaited[1, rt.current_stream()](x)
        assert any("never waited for" in str(w.message) for w in caught)


def test_torch_tensors_take_the_fast_path_too(rng):
    torch = pytest.importorskip("torch")
    for _ in range(3):
        x, y = torch.rand(64), torch.rand(64)
        np.testing.assert_allclose(run(x, y).numpy(), (SCALE * x + y).numpy(), rtol=1e-6)
    with pytest.raises(asc.errors.LaunchArgumentError, match="must be contiguous"):
        run(torch.rand(128)[::2], torch.rand(64))


def test_the_same_arrays_launched_again_are_bound_again_when_they_change(rng):
    """A plan skips re-reading the address of an array it bound last time (held by a weak reference); that must
    never use memory the array no longer has. numpy refuses to resize an array in place while a weak reference
    to it exists, so its memory cannot move; a freed array's weak reference is dead."""
    x, y, z = (rng.random(64, dtype=np.float32) for _ in range(3))
    launch = scaled_add[1, rt.current_stream()]
    launch(x, y, z, 64)
    np.testing.assert_allclose(z, SCALE * x + y, rtol=1e-6)
    x[:] = rng.random(64, dtype=np.float32)  # new contents, same memory
    launch(x, y, z, 64)
    np.testing.assert_allclose(z, SCALE * x + y, rtol=1e-6)
    with pytest.raises(ValueError, match="cannot resize"):
        z.resize(4096, refcheck=False)
    z = np.resize(z, 4096)  # a resized copy is another array
    z[:] = -1
    launch(x, y, z, 64)
    np.testing.assert_allclose(z[:64], SCALE * x + y, rtol=1e-6)
    assert np.all(z[64:] == -1)
    for _ in range(20):  # arrays freed and made again (often at the same address)
        del x
        x = rng.random(64, dtype=np.float32)
        out = np.zeros(64, np.float32)
        launch(x, y, out, 64)
        np.testing.assert_allclose(out, SCALE * x + y, rtol=1e-6)
    # A view shares memory but is its own object: bound by its own address.
    big = rng.random(128, dtype=np.float32)
    launch(big[64:], y, z, 64)
    np.testing.assert_allclose(z[:64], SCALE * big[64:] + y, rtol=1e-6)


def test_the_inline_int_key_keeps_int32_bounds_bools_and_numpy_scalars_apart():
    # The key function tests Python ints against the int32 range inline (launch_plan.make_key_function): the
    # bounds themselves stay int32, one past them needs int64, and a bool or a numpy scalar is no int there.
    out = np.zeros(8, np.int64)
    launch = store[1, rt.current_stream()]
    for v in (1, 2**31 - 1, -(2**31), 2**31, -(2**31) - 1, 3, np.int64(2**33), True, np.int32(-4), 2**31 - 1):
        launch(out, v)
        assert out[0] == int(v), v
    kinds = {k[-1] for k in store._plans}
    assert len(kinds) >= 4  # int32, int64, numpy int64, bool (numpy int32 may share a plan with one of them)


def test_a_byte_swapped_array_never_takes_a_native_plan(rng):
    x, y = rng.random(64, dtype=np.float32), rng.random(64, dtype=np.float32)
    run(x, y)  # a float32 plan exists now
    with pytest.raises(asc.errors.LaunchArgumentError, match="dtype >f4"):
        run(x.astype(">f4"), y.astype(">f4"))
    np.testing.assert_allclose(run(x, y), SCALE * x + y, rtol=1e-6)  # and the plan still works


def test_a_cached_launch_with_a_longer_array_binds_its_size(rng):
    # The plan's memo of an array is by identity and size: a different array of another length is bound anew,
    # and the sanitizer still sees the caller's real sizes (a too short z is reported, as on a first launch).
    x, y = rng.random(128, dtype=np.float32), rng.random(128, dtype=np.float32)
    np.testing.assert_allclose(run(x[:64].copy(), y[:64].copy()), SCALE * x[:64] + y[:64], rtol=1e-6)
    np.testing.assert_allclose(run(x, y, 128), SCALE * x + y, rtol=1e-6)
    z = np.zeros(32, np.float32)
    with pytest.warns(asc.errors.MemcheckWarning, match="past its 128 bytes"):
        scaled_add[1, rt.current_stream()](x, y, z, 128)


# -- the launcher's own fast launch (kernel[core_num, stream] tries the plan it ran last first) ---------------------


@asc.jit
def copy(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """z[:n] = x[:n]: n elements of x's dtype."""
    x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    z_gm.set_global_buffer(z)
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    asc.data_copy(t, x_gm, n)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.data_copy(z_gm, t, n)


@asc.jit
def store_float(out: asc.GlobalAddress, v: float):
    o = asc.GlobalTensor()
    o.set_global_buffer(out)
    o.set_value(0, v)


def warm(launch, *args):
    """Two launches: the first compiles and makes the plan, the second finds it, and the launcher keeps it."""
    launch(*args)
    launch(*args)


def test_a_launcher_tries_the_plan_it_ran_last_first(rng):
    x, y, z = (rng.random(64, dtype=np.float32) for _ in range(3))
    launch = scaled_add[1, rt.current_stream()]
    warm(launch, x, y, z, 64)
    key_function = scaled_add._launch_key
    scaled_add._launch_key = None  # the usual path would fail to find the plan, and make a key function again
    try:
        x2 = rng.random(64, dtype=np.float32)
        launch(x2, y, z, 64)
        np.testing.assert_allclose(z, SCALE * x2 + y, rtol=1e-6)
        assert scaled_add._launch_key is None
    finally:
        scaled_add._launch_key = key_function


def test_a_launcher_reused_after_an_in_place_dtype_change_respecialises():
    x, z = np.arange(64, dtype=np.float32), np.zeros(64, np.float32)
    launch = copy[1, rt.current_stream()]
    warm(launch, x, z, 64)
    np.testing.assert_array_equal(z, x)
    x.dtype = z.dtype = np.float16  # the same arrays (same memory, same size): 128 halves each now
    z[:] = -1
    launch(x, z, 64)  # 64 halves, the first half of z's bytes (the float32 plan would copy all of them)
    np.testing.assert_array_equal(z[:64], x[:64])
    assert (z[64:] == -1).all()
    x.dtype = z.dtype = np.float32
    z[:] = 0
    launch(x, z, 64)
    launch(x, z, 64)
    np.testing.assert_array_equal(z, np.arange(64, dtype=np.float32))
    assert {k[-2] for k in copy._plans} == {np.dtype(np.float16), np.dtype(np.float32)}


def test_an_array_with_an_equal_dtype_object_takes_the_same_plan():
    # An unpickled array's dtype is equal to numpy's float32 but another object: the key finds the same plan.
    x, z = np.arange(64, dtype=np.float32), np.zeros(64, np.float32)
    launch = copy[1, rt.current_stream()]
    warm(launch, x, z, 64)
    plans = dict(copy._plans)
    x2 = pickle.loads(pickle.dumps(x + 1))
    assert x2.dtype == x.dtype and x2.dtype is not x.dtype
    for _ in range(2):
        launch(x2, z, 64)
        np.testing.assert_array_equal(z, x + 1)
    assert copy._plans == plans


def test_a_module_constant_rebound_to_an_equal_value_of_another_type_recompiles(rng):
    global SCALE
    x, y, z = (rng.random(64, dtype=np.float32) for _ in range(3))
    launch = scaled_add[1, rt.current_stream()]
    warm(launch, x, y, z, 64)
    compiled = len(scaled_add._cache)
    old = SCALE
    try:
        SCALE = float(old)  # == the int, but keyed apart from it (1, 1.0 and True apart)
        warm(launch, x, y, z, 64)
        np.testing.assert_allclose(z, SCALE * x + y, rtol=1e-6)
        assert len(scaled_add._cache) == compiled + 1
        SCALE = int(str(old))  # another int object, equal to the first: the same kernel again
        warm(launch, x, y, z, 64)
        assert len(scaled_add._cache) == compiled + 1
    finally:
        SCALE = old


def test_equal_ints_and_signed_zeros_are_bound_as_they_are():
    out = np.zeros(8, np.int64)
    launch = store[1, rt.current_stream()]
    warm(launch, out, 7)
    big = int("1234567")  # a new int object each time, the same value
    for _ in range(3):
        out[0] = 0
        launch(out, int("1234567"))
        assert out[0] == big
    launch(out, 8)
    assert out[0] == 8
    f = np.zeros(8, np.float32)
    launch_f = store_float[1, rt.current_stream()]
    warm(launch_f, f, 0.0)
    assert f[0] == 0 and not np.signbit(f[0])
    launch_f(f, -0.0)  # == 0.0, but another value
    assert np.signbit(f[0])
    launch_f(f, 2.5)
    assert f[0] == 2.5


def test_patching_launcher_run_after_the_launcher_kept_a_plan_is_seen():
    x, z = np.arange(64, dtype=np.float32), np.zeros(64, np.float32)
    launch = copy[1, rt.current_stream()]
    warm(launch, x, z, 64)
    z[:] = 0
    with patch("asc.runtime.launcher.Launcher.run", return_value=None) as run:
        launch(x, z, 64)
    assert run.call_count == 1 and (z == 0).all()
    with patch("asc.runtime.jit.JITFunction._run_launcher", return_value=None) as run_launcher:
        launch(x, z, 64)
    assert run_launcher.call_count == 1 and (z == 0).all()
    with patch("asc.runtime.jit.JITFunction._run_compiler", side_effect=lambda kernel, options: kernel) as compiler:
        launch(x, z, 64)
    assert compiler.call_count == 1
    np.testing.assert_array_equal(z, x)
    z[:] = 0
    launch(x, z, 64)  # unpatched: the launcher's own launch again
    np.testing.assert_array_equal(z, x)


def test_replacing_the_launcher_class_after_the_launcher_kept_a_plan_is_seen():
    # patch("asc.runtime.jit.Launcher"): the launch goes through the replacement, which here runs nothing
    x, z = np.arange(64, dtype=np.float32), np.zeros(64, np.float32)
    launch = copy[1, rt.current_stream()]
    warm(launch, x, z, 64)
    z[:] = 0
    with patch("asc.runtime.jit.Launcher") as replaced:
        launch(x, z, 64)
    assert replaced.call_count == 1 and replaced.return_value.run.call_count == 1 and (z == 0).all()
    launch(x, z, 64)  # the class restored: the launcher's own launch again
    np.testing.assert_array_equal(z, x)


def test_dry_run_set_after_the_launcher_kept_a_plan_is_seen(monkeypatch):
    x, z = np.arange(64, dtype=np.float32), np.zeros(64, np.float32)
    launch = copy[1, rt.current_stream()]
    warm(launch, x, z, 64)
    z[:] = 0
    monkeypatch.setenv("DRY_RUN", "1")
    launch(x, z, 64)
    assert (z == 0).all()
    monkeypatch.delenv("DRY_RUN")
    launch(x, z, 64)
    np.testing.assert_array_equal(z, x)


def test_a_plan_dropped_with_its_key_function_is_not_tried_again():
    # When what the kernel reads changes, _remember_plan drops every plan (their keys miss the new names): a
    # launcher's kept plan goes with them, and the next launch makes a plan under the new key function.
    kernel = asc.jit(copy.fn)  # plans of its own
    x, z = np.arange(64, dtype=np.float32), np.zeros(64, np.float32)
    launch = kernel[1, rt.current_stream()]
    warm(launch, x, z, 64)
    kernel._slots_where = [(0, "a name the key function no longer reads")]
    launch(x.astype(np.float16), np.zeros(64, np.float16), 64)  # a new plan: every other plan dropped
    assert len(kernel._plans) == 1
    launch(x, z, 64)
    assert len(kernel._plans) == 2  # found again by the slow path, not run as the dropped plan
    np.testing.assert_array_equal(z, x)


def test_warnings_of_a_launchers_own_launch_name_the_callers_line():
    @asc.jit
    def unwaited(x: asc.GlobalAddress):
        asc.set_flag(asc.HardEvent.MTE2_V, 0)

    x = np.zeros(8, np.float32)
    launch = unwaited[1, rt.current_stream()]
    for _ in range(4):  # the first launch (the slow path's, compiling), the usual fast path's, the launcher's own
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            line = inspect.currentframe().f_lineno + 1
            launch(x)
        assert [(w.filename, w.lineno) for w in caught] == [(__file__, line)]


def test_warnings_of_a_launch_through_pyascs_launcher_name_the_callers_line():
    @asc.jit
    def unwaited_too(x: asc.GlobalAddress):
        asc.set_flag(asc.HardEvent.MTE2_V, 0)

    x = np.zeros(8, np.float32)
    kernel, values = unwaited_too.specialise((x,), {})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = inspect.currentframe().f_lineno + 1
        Launcher(LaunchOptions(1, rt.current_stream())).run(kernel, "unwaited_too", tuple(values))
    assert [(w.filename, w.lineno) for w in caught] == [(__file__, line)]


def test_a_launcher_kept_plan_on_an_asynchronous_stream_queues_each_launch(rng):
    stream = rt.create_stream(asynchronous=True)
    try:
        launch = scaled_add[1, stream]
        xs, ys, zs = ([rng.random(64, dtype=np.float32) for _ in range(5)] for _ in range(3))
        for x, y, z in zip(xs, ys, zs):
            launch(x, y, z, 64)
        assert len(stream.pending) == 5
        stream.synchronize()
        for x, y, z in zip(xs, ys, zs):
            np.testing.assert_allclose(z, SCALE * x + y, rtol=1e-6)
    finally:
        stream.destroy()


def test_threads_sharing_a_launcher_bind_their_own_arguments():
    # One launcher, four threads at once (the GIL is released while a launch runs): each thread's launches
    # must bind that thread's arrays, never write another's argument block.
    launch = scaled_add[1, rt.current_stream()]
    warm(launch, *(np.ones(64, np.float32) for _ in range(3)), 64)
    errors: list = []
    start = threading.Barrier(4)

    def work(seed):
        rng = np.random.default_rng(seed)
        start.wait()
        try:
            for _ in range(40):
                x, y = rng.random(64, dtype=np.float32), rng.random(64, dtype=np.float32)
                z = np.zeros(64, np.float32)
                launch(x, y, z, 64)
                np.testing.assert_allclose(z, SCALE * x + y, rtol=1e-6)
        except Exception as e:
            errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert errors == []


def test_a_launcher_keeps_two_plans_for_arguments_launched_in_turn():
    kernel = asc.jit(copy.fn)  # plans of its own
    x32, x16 = np.arange(64, dtype=np.float32), np.arange(64, dtype=np.float16)
    z32, z16 = np.zeros(64, np.float32), np.zeros(64, np.float16)
    launch = kernel[1, rt.current_stream()]
    for _ in range(2):
        launch(x32, z32, 64)
        launch(x16, z16, 64)
    kernel._launch_key = None  # the usual path would fail to find either plan, and make a key function again
    for _ in range(3):
        z32[:] = z16[:] = 0
        launch(x32, z32, 64)
        launch(x16, z16, 64)
        np.testing.assert_array_equal(z32, x32)
        np.testing.assert_array_equal(z16, x16)
    assert kernel._launch_key is None


def test_profiling_runs_record_a_launchers_own_launches():
    from asc.lib.runtime import profile

    class Session:
        def __init__(self):
            self.names = []

        def record(self, name, kernel_type, stats):
            self.names.append((name, stats.blocks))

    x, z = np.arange(64, dtype=np.float32), np.zeros(64, np.float32)
    launch = copy[1, rt.current_stream()]
    warm(launch, x, z, 64)
    session = Session()
    profile.sessions.append(session)
    try:
        for _ in range(3):
            launch(x, z, 64)
    finally:
        profile.sessions.remove(session)
    assert session.names == [("copy", 1)] * 3


@asc.jit
def say(x: asc.GlobalAddress, tag: int):
    asc.printf("tag %d\n", tag)


def test_printf_output_of_a_launchers_own_launches_is_printed(capsys):
    x = np.zeros(8, np.float32)
    launch = say[1, rt.current_stream()]
    for tag in (1, 2, 3, 3, 4):
        launch(x, tag)
    assert capsys.readouterr().out == "".join(f"[Block 0/1] tag {tag}\n" for tag in (1, 2, 3, 3, 4))


@asc.jit
def block_marks(out: asc.GlobalAddress):
    """out[8 * b] = b + 1 for each block b; with set_flag never waited for, which warns."""
    o = asc.GlobalTensor()
    o.set_global_buffer(out)
    o.set_value(asc.get_block_idx() * 8, asc.get_block_idx() + 1)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)


def test_a_plan_launched_on_other_grids_and_streams_launches_each_as_asked():
    """One plan serves every launcher of the kernel (the plan is keyed by the arguments): its launch request
    is rewritten where the block count, the stream or its synchronous stats differ from its last launch."""
    out = np.zeros(8 * 8, np.int32)
    other = rt.create_stream(asynchronous=True)
    try:
        for blocks, stream in [(8, other), (8, other), (3, None), (3, None), (8, other), (5, None), (5, None)]:
            out[:] = 0
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                block_marks[blocks, stream or rt.current_stream()](out)
                if stream is not None:
                    stream.synchronize()
            expected = np.zeros_like(out)
            expected[: 8 * blocks : 8] = np.arange(1, blocks + 1)
            np.testing.assert_array_equal(out, expected)
            # each launch's own stats reached the launcher, synchronous or not
            assert sum("never waited for" in str(w.message) for w in caught) >= 1
        assert len(block_marks._plans) == 1
    finally:
        other.destroy()
