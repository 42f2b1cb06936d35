"""Bad kernels and bad launches: clear Python errors naming the kernel file and line."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.errors import (
    DeadlockError,
    KernelError,
    LaunchArgumentError,
    OutOfBoundsError,
    UnsupportedSyntaxError,
)

HERE = "test_errors.py"


def launch(kernel, *args, cores=1):
    kernel[cores, rt.current_stream()](*args)


def line_of(fn, text):
    """Line number of the first source line of fn containing `text`."""
    import inspect

    lines, start = inspect.getsourcelines(fn.fn)
    for i, line in enumerate(lines):
        if text in line:
            return start + i
    raise AssertionError(text)


@asc.jit
def uses_ascendc_name(x: asc.GlobalAddress, n: int):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    DataCopy(x_gm, x_gm, n)  # noqa: F821


@asc.jit
def uses_ascendc_attribute(x: asc.GlobalAddress, n: int):
    asc.SetFlag(asc.HardEvent.MTE2_V, 0)


def test_ascendc_spelling_gets_a_hint():
    x = np.zeros(8, np.float32)
    with pytest.raises(asc.CodegenError, match=r"did you mean asc\.data_copy\?") as err:
        launch(uses_ascendc_name, x, 8)
    assert f"{HERE}:{line_of(uses_ascendc_name, 'DataCopy(')}" in str(err.value)
    with pytest.raises(asc.CodegenError, match=r"did you mean asc\.set_flag\?") as err:
        launch(uses_ascendc_attribute, x, 8)
    assert f"{HERE}:{line_of(uses_ascendc_attribute, 'SetFlag')}" in str(err.value)


@asc.jit
def has_while(x: asc.GlobalAddress, n: int):
    while n > 0:
        n = n - 1


@asc.jit
def has_lambda(x: asc.GlobalAddress, n: int):
    f = lambda v: v  # noqa: E731, F841


def test_unsupported_syntax_quotes_the_line():
    x = np.zeros(8, np.float32)
    with pytest.raises(UnsupportedSyntaxError, match="while loops are not supported") as err:
        launch(has_while, x, 3)
    assert "while n > 0:" in str(err.value)
    assert f"{HERE}:{line_of(has_while, 'while n')}" in str(err.value)
    with pytest.raises(UnsupportedSyntaxError, match="Lambda"):
        launch(has_lambda, x, 3)


@asc.jit
def huge_local(x: asc.GlobalAddress, n: int):
    big_tile = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)


def test_local_tensor_too_big_for_ub_names_tensor_size_and_limit():
    x = np.zeros(8, np.float32)
    launch(huge_local, x, 196608 // 4)  # exactly fits
    with pytest.raises(OutOfBoundsError) as err:
        launch(huge_local, x, 196608 // 4 + 8)
    text = str(err.value)
    assert "big_tile" in text and "196640 bytes" in text and "196608" in text and "Ascend910B1" in text
    assert f"{HERE}:{line_of(huge_local, 'big_tile =')}" in text


@asc.jit
def misaligned_local(x: asc.GlobalAddress, n: int):
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 16, n)


def test_constant_misaligned_local_address_is_a_compile_error():
    with pytest.raises(asc.CodegenError, match="not 32-byte aligned"):
        launch(misaligned_local, np.zeros(8, np.float32), 8)


@asc.jit
def copy_out_at(x: asc.GlobalAddress, start: int, n: int):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 0, n)
    asc.data_copy(x_gm[start:], t, n)


def test_gm_write_outside_the_buffer_is_refused_and_writes_nothing():
    backing = np.full(128, 7.0, np.float32)
    x = backing[:64]  # the kernel sees 64 floats; the rest is the guard
    # 2 MiB in: past the segment the board's allocator maps for x, where the board faults too
    with pytest.raises(OutOfBoundsError, match=r"argument 'x'.*256 bytes.*past that the board faults too") as err:
        launch(copy_out_at, x, 2 * 1024 * 1024 // 4, 64)
    assert f"{HERE}:{line_of(copy_out_at, 'asc.data_copy')}" in str(err.value)
    assert np.all(backing == 7.0)


@asc.jit
def copy_in_count(x: asc.GlobalAddress, n: int):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(t, x_gm, n)


@asc.jit
def round_trip(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    z_gm = asc.GlobalTensor()
    z_gm.set_global_buffer(z)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    asc.duplicate(t, -1.0, 64)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(t, x_gm, n)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.data_copy(z_gm, t, 64)


@pytest.mark.parametrize("n", [3, 12, 61])
def test_copy_length_not_whole_blocks_warns_and_drops_the_tail(n):
    x = np.arange(1, 65, dtype=np.float32)
    z = np.zeros(64, np.float32)
    whole = n // 8 * 8
    pattern = rf"test_errors.py:\d+:\d+: data_copy.gm_to_local: {n} elements of float32 is {4 * n} bytes, not a whole"
    with pytest.warns(asc.errors.AlignmentWarning, match=pattern + rf".*only the first {4 * whole} bytes"):
        launch(round_trip, x, z, n)
    np.testing.assert_array_equal(z[:whole], x[:whole])  # as on the NPU: whole blocks only
    np.testing.assert_array_equal(z[whole:], -1.0)


def test_copy_longer_than_local_tensor():
    # inside the Unified Buffer the board runs it: a warning; strict mode makes it the error
    with pytest.warns(asc.errors.MemcheckWarning, match="local tensor of 256 bytes"):
        launch(copy_in_count, np.zeros(128, np.float32), 128)
    stream = rt.current_stream()
    stream.set_strict(True)
    try:
        with pytest.raises(OutOfBoundsError, match="has only 64 elements"):
            launch(copy_in_count, np.zeros(128, np.float32), 128)
    finally:
        stream.set_strict(False)


@asc.jit
def waits_forever(x: asc.GlobalAddress, n: int):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)
    asc.data_copy(t, x_gm, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 1)


def test_deadlock_is_reported_not_hung():
    with pytest.raises(DeadlockError) as err:
        launch(waits_forever, np.zeros(64, np.float32), 64, cores=8)
    text = str(err.value)
    assert "wait_flag(HardEvent.MTE2_V, 1)" in text and "block 0" in text
    assert f"{HERE}:{line_of(waits_forever, 'wait_flag')}" in text


@asc.jit
def sets_twice(x: asc.GlobalAddress, n: int):
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)


def test_double_set_flag_is_an_error():
    with pytest.raises(asc.KernelError, match="still set"):
        launch(sets_twice, np.zeros(8, np.float32), 8)


@asc.jit
def event_id_from_arg(x: asc.GlobalAddress, eid: int):
    asc.set_flag(asc.HardEvent.MTE2_V, eid)
    asc.wait_flag(asc.HardEvent.MTE2_V, eid)


def test_event_id_range():
    launch(event_id_from_arg, np.zeros(8, np.float32), 7)
    with pytest.raises(asc.KernelError, match=r"event id 8 is out of range \(0..7\)"):
        launch(event_id_from_arg, np.zeros(8, np.float32), 8)


@asc.jit
def two_params(x: asc.GlobalAddress, n: int):
    pass


def test_launch_argument_errors():
    x = np.zeros(8, np.float32)
    with pytest.raises(LaunchArgumentError, match="missing a required argument: 'n'"):
        launch(two_params, x)
    with pytest.raises(TypeError, match="too many positional arguments"):
        launch(two_params, x, 1, 2)
    with pytest.raises(TypeError, match="argument 'x' is a str"):
        launch(two_params, "x", 1)
    with pytest.raises(TypeError, match="float64"):
        launch(two_params, np.zeros(8), 1)
    with pytest.raises(TypeError, match="C-contiguous"):
        launch(two_params, np.zeros(16, np.float32)[::2], 1)
    with pytest.raises(ValueError, match="core_num must be a positive int"):
        two_params[0, rt.current_stream()](x, 1)
    with pytest.raises(TypeError, match=r"two_params\[core_num, stream\]"):
        two_params(x, 1)


def test_asc_functions_outside_kernels():
    with pytest.raises(asc.CodegenError, match="only be called inside an @asc.jit kernel"):
        asc.get_block_idx()


@asc.jit
def float_count(x: asc.GlobalAddress, n: float):
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)


def test_wrong_operand_type_names_the_line():
    with pytest.raises(asc.CodegenError, match="tile_size must be an integer, got float32") as err:
        launch(float_count, np.zeros(8, np.float32), 1.5)
    assert f"{HERE}:{line_of(float_count, 'LocalTensor(')}" in str(err.value)


@asc.jit
def add_into_gm(x: asc.GlobalAddress, n: int):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)
    asc.add(x_gm, t, t, n)


@asc.jit
def add_on_mismatched_dtypes(x: asc.GlobalAddress, n: int):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)
    b = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 1024, n)
    asc.add(a, a, b, n)


def test_operand_kind_and_dtype_errors():
    x = np.zeros(8, np.float32)
    with pytest.raises(asc.CodegenError, match="dst must be a LocalTensor, got GlobalTensor"):
        launch(add_into_gm, x, 8)
    with pytest.raises(asc.CodegenError, match="same dtype"):
        launch(add_on_mismatched_dtypes, x, 8)


def test_unknown_platform_and_backend():
    import asc.runtime.config as config

    with pytest.raises(ValueError, match="unknown platform 'Ascend999'"):
        config.set_platform("Model", "Ascend999")
    with pytest.raises(ValueError, match="unknown backend 'GPU'"):
        config.set_platform("GPU")


@asc.jit
def never_ends(x: asc.GlobalAddress, n: int):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    i = 0
    for _ in range(2**40):
        i = i + 1


def test_a_loop_that_never_ends_is_stopped_by_the_op_limit():
    stream = rt.current_stream()
    stream.set_max_ops(10_000)
    try:
        with pytest.raises(KernelError, match=r"more than 10000 operations.*max_ops") as err:
            launch(never_ends, np.zeros(8, np.float32), 8)
        assert f"{HERE}:{line_of(never_ends, 'i = i + 1')}" in str(err.value) or (
            f"{HERE}:{line_of(never_ends, 'for _ in')}" in str(err.value)
        )
        with pytest.raises(KernelError, match="max_ops must be >= 0"):
            stream.set_max_ops(-1)
    finally:
        stream.set_max_ops(2**32)


@asc.jit
def returns_a_value(x: asc.GlobalAddress, n: int):
    return n


@asc.jit
def range_past_int64(x: asc.GlobalAddress, n: int):
    for _ in range(2**64):
        pass


def test_a_kernel_that_returns_a_value_is_refused():
    with pytest.raises(asc.CodegenError, match="must not return a value") as err:
        launch(returns_a_value, np.zeros(8, np.float32), 8)
    assert HERE in str(err.value)


def test_a_range_bound_past_int64_is_refused():
    with pytest.raises(asc.CodegenError, match="does not fit in int64") as err:
        launch(range_past_int64, np.zeros(8, np.float32), 8)
    assert f"{HERE}:{line_of(range_past_int64, 'for _ in')}" in str(err.value)


def test_a_launch_grid_of_three_values_is_refused():
    with pytest.raises(ValueError, match="one or two values"):
        returns_a_value[1, rt.current_stream(), 3]


@asc.jit
def copies_from_far_away(x: asc.GlobalAddress, z: asc.GlobalAddress, start: int):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    z_gm = asc.GlobalTensor()
    z_gm.set_global_buffer(z, 8)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 8)
    asc.data_copy(t, x_gm[start:], 8)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.data_copy(z_gm, t, 8)


@pytest.mark.parametrize("start", [2**62, 2**61 + 3, 2**63 - 1])
def test_an_offset_past_any_memory_is_out_of_bounds(start):
    """The address arithmetic wraps as defined (the fuzzer found it overflowing); the access check rejects it."""
    x, z = np.zeros(8, np.float32), np.zeros(8, np.float32)
    start_dtype = np.int64(start)
    with pytest.raises(OutOfBoundsError, match="data_copy.gm_to_local") as err:
        launch(copies_from_far_away, x, z, start_dtype)
    assert f"{HERE}:{line_of(copies_from_far_away, 'x_gm[start:]')}" in str(err.value)
    assert not z.any()
