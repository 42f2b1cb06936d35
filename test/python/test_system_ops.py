"""The scalar unit's system queries and controls: the 50 MHz system counter read against the Model's own
timing, the architecture version, the data block size, the program counter, the task ratio of each kernel
type, trap, data_sync_barrier's waits, init_soc_state, the atomic-write register read back, the HCCL context
slots; pyasc's call shapes and the errors of bad arguments."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
import asc.runtime.config as config
from asc.runtime.config import KernelType

CLOCK_GHZ = 1.85  # Ascend910B1, the tests' platform
TICKS_PER_CYCLE = 0.05 / CLOCK_GHZ  # the system counter runs at 50 MHz

ELEMENTS = 8192
ROUNDS = 48


@asc.jit
def timed_adds(out: asc.GlobalAddress, barrier: int, rounds: int):
    """`rounds` vector adds over ELEMENTS float32s; out[0] the counter's ticks between before and after them
    (with a pipe_barrier(PIPE_ALL) before the second read when `barrier`), out[1] the ticks of a read right
    after another."""
    out_gm = asc.GlobalTensor()
    out_gm.set_global_buffer(out)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, ELEMENTS)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, ELEMENTS * 4, ELEMENTS)
    asc.duplicate(a, 1.0, ELEMENTS)
    asc.duplicate(b, 2.0, ELEMENTS)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)  # the scalar unit waits for the duplicates
    start = asc.get_system_cycle()
    for _ in range(rounds):
        asc.add(a, a, b, ELEMENTS)
    if barrier:
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    end = asc.get_system_cycle()
    again = asc.get_system_cycle()
    out_gm.set_value(0, end - start)
    out_gm.set_value(1, again - end)


def test_the_system_counter_ticks_at_50_mhz_of_the_models_clock():
    out = np.zeros(2, np.int64)
    timed_adds[1, rt.current_stream()](out, 1, 0)
    duplicates = rt.last_launch_stats().busy_cycles["V"]  # before `start`
    timed_adds[1, rt.current_stream()](out, 1, ROUNDS)
    adds = rt.last_launch_stats().busy_cycles["V"] - duplicates
    assert out[0] > 50  # the work is long enough for the counter to tell
    assert abs(out[0] - adds * TICKS_PER_CYCLE) <= 2
    assert 0 <= out[1] <= 1  # two reads in a row: the scalar unit's own cycles only


def test_the_counter_reads_the_scalar_units_time():
    # without the barrier the scalar unit reads the counter as soon as it has issued the adds
    waited, issued = np.zeros(2, np.int64), np.zeros(2, np.int64)
    timed_adds[1, rt.current_stream()](waited, 1, ROUNDS)
    timed_adds[1, rt.current_stream()](issued, 0, ROUNDS)
    assert issued[0] < waited[0] / 4


@asc.jit
def queries(out: asc.GlobalAddress, version_in: int):
    out_gm = asc.GlobalTensor()
    out_gm.set_global_buffer(out)
    out_gm.set_value(0, asc.get_arch_version(core_version=version_in))
    out_gm.set_value(1, asc.get_data_block_size_in_bytes())
    out_gm.set_value(2, asc.get_task_ratio())


def test_architecture_block_size_and_task_ratio():
    out = np.zeros(3, np.int64)
    queries[1, rt.current_stream()](out, 0)
    assert out[0] == 0x220  # dav-c220: read in hex, as Ascend C's page says
    assert out[1] == 32
    assert out[2] == 1


def test_ascend_950_reports_its_architecture():
    config.set_platform(config.Backend.Model, config.Platform.Ascend950PR_9599)
    try:
        out = np.zeros(3, np.int64)
        queries[1, rt.current_stream()](out, 0)
    finally:
        config.set_platform(config.Backend.Model)
    assert out[0] == 0x310  # dav-c310 (no published value: the estimate src/sim/system_ops.cpp states)


@asc.jit
def program_counters(out: asc.GlobalAddress):
    out_gm = asc.GlobalTensor()
    out_gm.set_global_buffer(out)
    first = asc.get_program_counter()
    asc.pipe_barrier(0)  # pyasc passes the pipe as an int
    second = asc.get_program_counter()
    out_gm.set_value(0, first)
    out_gm.set_value(1, second)


def test_the_program_counter_grows_along_the_program():
    out = np.zeros(2, np.int64)
    program_counters[1, rt.current_stream()](out)
    assert 0 <= out[0] < out[1] and out[0] % 4 == 0 and out[1] % 4 == 0


@asc.jit(kernel_type=KernelType.MIX_AIC_1_2)
def ratio_per_core(out: asc.GlobalAddress):
    out_gm = asc.GlobalTensor()
    out_gm.set_global_buffer(out)
    if asc.ascend_is_aic():
        out_gm.set_value(16 + asc.get_block_idx(), asc.get_task_ratio())
    else:
        out_gm.set_value(asc.get_block_idx(), asc.get_task_ratio())


def test_task_ratio_of_a_mix_kernel():
    out = np.zeros(32, np.int64)
    ratio_per_core[3, rt.current_stream()](out)
    np.testing.assert_array_equal(out[:6], 2)  # two vector cores per AI Core
    np.testing.assert_array_equal(out[16:19], 1)  # one cube core
    assert not out[6:16].any() and not out[19:].any()


@asc.jit
def trap_when(x: asc.GlobalAddress, fire: int):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    x_gm.set_value(0, 7)
    if fire:
        asc.trap()
    x_gm.set_value(1, 8)


def test_trap_stops_the_kernel_naming_the_line():
    x = np.zeros(2, np.int32)
    trap_when[1, rt.current_stream()](x, 0)
    np.testing.assert_array_equal(x, [7, 8])
    with pytest.raises(asc.errors.KernelError, match=r"trap: block 0 stopped at asc.trap\(\)") as e:
        trap_when[1, rt.current_stream()](np.zeros(2, np.int32), 1)
    assert "test_system_ops.py" in str(e.value)


@asc.jit
def barrier_after_copy(x: asc.GlobalAddress, out: asc.GlobalAddress, mem: asc.ConstExpr):
    x_gm, out_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    out_gm.set_global_buffer(out)
    buf = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, ELEMENTS)
    start = asc.get_system_cycle()
    asc.data_copy(buf, x_gm, ELEMENTS)
    asc.data_sync_barrier(mem)
    out_gm.set_value(0, asc.get_system_cycle() - start)


@pytest.mark.parametrize("mem", [asc.MemDsbT.ALL, asc.MemDsbT.DDR, asc.MemDsbT.UB])
def test_data_sync_barrier_waits_for_the_copy(mem):
    out = np.zeros(1, np.int64)
    barrier_after_copy[1, rt.current_stream()](np.ones(ELEMENTS, np.float32), out, mem)
    copy = rt.last_launch_stats().busy_cycles["MTE2"]
    assert copy * TICKS_PER_CYCLE > 10
    assert abs(out[0] - copy * TICKS_PER_CYCLE) <= 2


@asc.jit
def atomic_config(out: asc.GlobalAddress):
    out_gm = asc.GlobalTensor()
    out_gm.set_global_buffer(out)
    kind, op = asc.get_store_atomic_config()
    out_gm.set_value(0, kind)
    out_gm.set_value(1, op)
    asc.set_store_atomic_config(asc.AtomicDtype.ATOMIC_F16, asc.AtomicOp.ATOMIC_SUM)
    kind, op = asc.get_store_atomic_config()
    out_gm.set_value(2, kind)
    out_gm.set_value(3, op)
    asc.set_atomic_add(asc.int32)
    kind, op = asc.get_store_atomic_config()
    out_gm.set_value(4, kind)
    out_gm.set_value(5, op)
    asc.set_atomic_max(asc.float32)
    kind, op = asc.get_store_atomic_config()
    out_gm.set_value(6, kind)
    out_gm.set_value(7, op)
    asc.set_atomic_min(asc.bfloat16)
    kind, op = asc.get_store_atomic_config()
    out_gm.set_value(8, kind)
    out_gm.set_value(9, op)
    asc.init_soc_state()  # atomics off again
    kind, op = asc.get_store_atomic_config()
    out_gm.set_value(10, kind)
    out_gm.set_value(11, op)


def test_the_atomic_register_reads_back_and_init_soc_state_clears_it():
    out = np.full(12, -1, np.int16)
    atomic_config[1, rt.current_stream()](out)
    # (type, op): none; half sum; int32 sum; float max; bfloat16 min; none
    np.testing.assert_array_equal(out, [0, 0, 2, 0, 4, 0, 1, 1, 6, 2, 0, 0])


@asc.jit(insert_sync=True)
def masked_after_reset(x: asc.GlobalAddress, z: asc.GlobalAddress):
    x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    z_gm.set_global_buffer(z)
    buf = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    out = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 256, 64)
    asc.data_copy(buf, x_gm, 64)
    asc.duplicate(out, 0.0, 64)
    asc.set_vector_mask(0, 0xF, dtype=asc.float32, mode=asc.MaskMode.NORMAL)  # the first 4 lanes
    asc.init_soc_state()  # every lane again
    asc.adds(out, buf, 1.0, asc.MASK_PLACEHOLDER, 1, asc.UnaryRepeatParams(), is_set_mask=False)
    asc.data_copy(z_gm, out, 64)


def test_init_soc_state_restores_the_full_mask():
    x = np.arange(64, dtype=np.float32)
    z = np.zeros(64, np.float32)
    masked_after_reset[1, rt.current_stream()](x, z)
    np.testing.assert_array_equal(z, x + 1)


@asc.jit
def through_hccl_context(x: asc.GlobalAddress, out: asc.GlobalAddress, n: int):
    out_gm = asc.GlobalTensor()
    out_gm.set_global_buffer(out)
    asc.set_hccl_context(1, x)
    ctx = asc.GlobalTensor()
    ctx.set_global_buffer(asc.get_hccl_context(1))
    for i in range(n):
        out_gm.set_value(i, ctx.get_value(i))


def test_hccl_context_holds_the_address_set():
    x = np.arange(16, dtype=np.uint8) * 3
    out = np.zeros(16, np.uint8)
    through_hccl_context[1, rt.current_stream()](x, out, 16)
    np.testing.assert_array_equal(out, x)


@asc.jit
def context_never_set(out: asc.GlobalAddress):
    out_gm = asc.GlobalTensor()
    out_gm.set_global_buffer(asc.get_hccl_context(0))
    out_gm.set_value(0, 1)


def test_a_context_never_set_is_an_error_not_a_stray_pointer():
    with pytest.raises(asc.errors.KernelError, match=r"get_hccl_context\(0\): no context .* runs no HCCL"):
        context_never_set[1, rt.current_stream()](np.zeros(4, np.uint8))


@pytest.mark.parametrize(
    "body, message",
    [
        (lambda: asc.data_sync_barrier(asc.MemDsbT.SEQ), "MemDsbT.SEQ is reserved"),
        (lambda: asc.data_sync_barrier(0), "expected an asc.MemDsbT"),
        (lambda: asc.get_hccl_context(2), "index must be 0 or 1"),
        (lambda: asc.get_hccl_context(asc.get_block_idx()), "compile-time 0 or 1"),
        (lambda: asc.pipe_barrier(42), r"pipe must be an asc.PipeID \(or its int value\)"),
        (lambda: asc.get_arch_version(1.5), "core_version must be an integer"),
    ],
)
def test_bad_arguments_are_named(body, message):
    @asc.jit
    def kernel(x: asc.GlobalAddress):
        body()

    with pytest.raises(asc.CodegenError, match=message):
        kernel[1, rt.current_stream()](np.zeros(4, np.int32))


@asc.jit
def watched(x: asc.GlobalAddress, kind: asc.ConstExpr):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    buf = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)  # UB bytes [0, 256)
    params = asc.CheckLocalMemoryIAParam(
        enable_bit=2, start_addr=4, end_addr=8, is_mte_write=kind == "mte", is_vector_read=kind == "vector",
        is_enable=kind != "off",
    )  # fmt: skip
    asc.check_local_memory_ia(params)  # bytes [128, 256)
    asc.data_copy(buf, x_gm, 64)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.adds(buf[32:], buf[32:], 1.0, 8)  # reads and writes bytes [128, 160)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(x_gm, buf, 64)


@pytest.mark.parametrize(
    "kind, message",
    [
        ("mte", r"data_copy.gm_to_local \(MTE write\) touches Unified Buffer bytes \[128, 256\) that watch register 2"),
        ("vector", r"adds \(vector read\) touches Unified Buffer bytes \[128, 160\)"),
    ],
)
def test_a_watched_unified_buffer_range_raises_on_the_kinds_chosen(kind, message):
    with pytest.raises(asc.errors.KernelError, match=message) as e:
        watched[1, rt.current_stream()](np.zeros(64, np.float32), kind)
    assert "test_system_ops.py" in str(e.value)


def test_a_watch_register_turned_off_lets_everything_through():
    x = np.arange(64, dtype=np.float32)
    watched[1, rt.current_stream()](x, "off")
    np.testing.assert_array_equal(x, np.arange(64) + (np.arange(64) // 32 == 1) * (np.arange(64) % 32 < 8))
