"""asc.adv.quant (Ascend C AscendQuant) against a numpy model of the documented method: float16 arithmetic
(a float32 source, scale or offset rounded to float16 first), each step rounded to float16, then round half to
even and saturation to int8. Per tensor with run-time scalars, per channel with scale and offset tensors (or a
scalar offset), QuantConfig's compile-time counts; lengths with tails, the caller's small temporary buffer
(several chunks) and the framework's; ties and saturation in the data; the errors; the emitted Ascend C."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.errors import CodegenError, KernelError

from kernels import ascendc_source

N = 2048  # elements of src and dst
C = 256  # elements of the scale and offset tensors


@asc.jit
def quant_kernel(x: asc.GlobalAddress, sc: asc.GlobalAddress, off: asc.GlobalAddress, y: asc.GlobalAddress,
                 count: int, scale: float, offset: float, scale_count: int, tmp_bytes: int,
                 form: asc.ConstExpr[str], config: asc.ConstExpr):  # fmt: skip
    """y[:count] = quant(x[:count]) in one of the forms: "tensor" (scalar scale and offset), "tensor-framework"
    (no temporary buffer), "channel" (scale and offset tensors), "channel-scalar" (scale tensor, scalar offset);
    y past count comes back unchanged."""
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    s_gm = asc.GlobalTensor()
    s_gm.set_global_buffer(sc)
    o_gm = asc.GlobalTensor()
    o_gm.set_global_buffer(off)
    y_gm = asc.GlobalTensor()
    y_gm.set_global_buffer(y)
    pipe = asc.TPipe()
    a_buf = asc.TBuf(asc.TPosition.VECIN)
    s_buf = asc.TBuf(asc.TPosition.VECIN)
    o_buf = asc.TBuf(asc.TPosition.VECIN)
    b_buf = asc.TBuf(asc.TPosition.VECOUT)
    pipe.init_buffer(a_buf, N * 4)
    pipe.init_buffer(s_buf, C * 4)
    pipe.init_buffer(o_buf, C * 4)
    pipe.init_buffer(b_buf, N)
    a = a_buf.get(x.dtype)
    s = s_buf.get(x.dtype)
    o = o_buf.get(x.dtype)
    b = b_buf.get(asc.int8)
    asc.data_copy(a, x_gm, N)
    asc.data_copy(s, s_gm, C)
    asc.data_copy(o, o_gm, C)
    asc.data_copy(b, y_gm, N)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if form == "tensor-framework":
        asc.adv.quant(b, a, scale, offset, count)
    else:
        tmp_buf = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(tmp_buf, tmp_bytes)
        tmp = tmp_buf.get(asc.uint8)
        if form == "tensor":
            asc.adv.quant(b, a, scale, offset, count, tmp, config=config)
        elif form == "channel":
            asc.adv.quant(b, a, s, o, count, tmp, scale_count=scale_count, offset_count=scale_count)
        else:
            asc.adv.quant(b, a, s, offset, count, tmp, scale_count=scale_count, config=config)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(y_gm, b, N)


def run(x, count, scale=1.0, offset=0.0, sc=None, off=None, scale_count=C, tmp_bytes=256, form="tensor",
        config=None):  # fmt: skip
    sc = np.ones(C, x.dtype) if sc is None else sc
    off = np.zeros(C, x.dtype) if off is None else off
    y = np.full(N, 7, np.int8)
    quant_kernel[1, rt.current_stream()](x, sc.copy(), off.copy(), y, count, scale, offset, scale_count, tmp_bytes,
                                         form, config)  # fmt: skip
    return y


def half(v):
    """numpy's float16 of v, each value rounded once to nearest even (via float64: exact for float32 and sums
    of two float16)."""
    return np.asarray(v, np.float64).astype(np.float16)


def model(x, scale, offset):
    """The documented method: float16 operands, float16 product and sum, round half to even, int8 saturation.
    A half result that overflows saturates to ±65504 on the board, which saturates to int8 all the same."""
    t = half(half(x).astype(np.float64) * half(scale).astype(np.float64))
    t = half(t.astype(np.float64) + half(offset).astype(np.float64))
    return np.clip(np.rint(t.astype(np.float64)), -128, 127).astype(np.int8)


def data(dtype, rng):
    """Random values over the int8 range and past it (saturation) and exact half-integers (ties with scale 1,
    offset 0), shuffled."""
    ties = np.arange(-140, 140, dtype=np.float64) + 0.5
    rest = rng.uniform(-300.0, 300.0, N - ties.size)
    return rng.permutation(np.concatenate([ties, rest])).astype(dtype)


DTYPES = [np.float16, np.float32]


@pytest.mark.parametrize("dtype", DTYPES)
def test_per_tensor_matches_the_method_on_ties_saturation_and_tails(dtype):
    rng = np.random.default_rng(1)
    x = data(dtype, rng)
    # 128 bytes of temporary buffer: chunks of 64 float16, so 1000 elements are 15 chunks and a tail of 40
    for count, scale, offset in [(1000, 1.0, 0.0), (N, 0.37, 3.3), (77, -2.5, -0.9)]:
        y = run(x, count, scale, offset, tmp_bytes=128)
        want = model(x[:count], np.float32(scale), np.float32(offset))
        np.testing.assert_array_equal(y[:count], want, err_msg=f"count {count} scale {scale} offset {offset}")
        assert np.all(y[count:] == 7)  # nothing past count is written


def test_ties_round_to_even_and_large_values_saturate():
    x = np.zeros(N, np.float16)
    x[:8] = [0.5, 1.5, 2.5, -0.5, -1.5, 200.0, -200.0, 127.4]
    y = run(x, 8)
    np.testing.assert_array_equal(y[:8], [0, 2, 2, 0, -2, 127, -128, 127])


def test_the_framework_buffer():
    x = data(np.float16, np.random.default_rng(2))
    y = run(x, 1500, 0.75, 1.25, form="tensor-framework")
    np.testing.assert_array_equal(y[:1500], model(x[:1500], 0.75, 1.25))
    assert np.all(y[1500:] == 7)


@pytest.mark.parametrize(
    "dtype, form", [(np.float16, "channel"), (np.float32, "channel"), (np.float16, "channel-scalar")]
)
def test_per_channel_row_by_row(dtype, form):
    rng = np.random.default_rng(3)
    x = data(dtype, rng)
    sc = rng.uniform(-3.0, 3.0, C).astype(dtype)
    off = rng.uniform(-4.0, 4.0, C).astype(dtype)
    # 96 channels of 256 in chunks of 64 float16 (128 bytes): a whole chunk and a tail in every row
    channels, count, offset = 96, 96 * 10, -2.3
    y = run(x, count, 0.0, offset, sc=sc, off=off, scale_count=channels, tmp_bytes=128, form=form)
    offsets = off[:channels] if form == "channel" else np.asarray(offset, dtype)  # Ascend C's `const T offset`
    want = model(x[:count].reshape(-1, channels), sc[:channels], offsets).ravel()
    np.testing.assert_array_equal(y[:count], want)
    assert np.all(y[count:] == 7)


def test_per_channel_with_a_scalar_offset_and_a_config():
    rng = np.random.default_rng(4)
    x = data(np.float32, rng)
    sc = rng.uniform(0.1, 2.0, C).astype(np.float32)
    # the config's counts rule (the arguments are still checked): 4 rows of 64 channels, not 10, in chunks of
    # work_local_size bytes (128: 64 float16)
    config = asc.adv.QuantConfig(256, 0, 64, 128)
    y = run(x, 640, 0.0, -1.75, sc=sc, scale_count=64, tmp_bytes=512, form="channel-scalar", config=config)
    want = model(x[:256].reshape(4, 64), sc[:64], np.float32(-1.75)).ravel()
    np.testing.assert_array_equal(y[:256], want)
    assert np.all(y[256:] == 7)


def test_a_config_fixes_the_count_and_the_chunk():
    x = data(np.float32, np.random.default_rng(5))
    y = run(x, 5, 1.5, 0.25, tmp_bytes=1024, config=asc.adv.QuantConfig(300, 0, 0, 256))
    np.testing.assert_array_equal(y[:300], model(x[:300], 1.5, 0.25))  # 300 elements, not 5
    assert np.all(y[300:] == 7)


def test_errors_at_the_call():
    x = np.zeros(N, np.float16)
    with pytest.raises(KernelError, match=r"adv.quant: the temporary buffer holds fewer than 64 bytes") as e:
        run(x, 100, tmp_bytes=32)
    assert "test_adv_quant.py" in str(e.value)  # the kernel's call, not the library
    with pytest.raises(KernelError, match=r"adv.quant: count must be a multiple of scale_count"):
        run(x, 100, scale_count=64, form="channel")
    with pytest.raises(KernelError, match=r"adv.quant: scale_count must be a multiple of 32"):
        run(x, 96, scale_count=48, form="channel")
    with pytest.raises(KernelError, match=r"adv.quant: count is larger than src"):
        run(x, 2 * N + 1)  # src holds 2N float16 (its buffer is sized for float32)
    with pytest.raises(KernelError, match=r"QuantConfig work_local_size 4096 is larger than the temporary buffer"):
        run(x, 64, config=asc.adv.QuantConfig(64, 0, 0, 4096))


@asc.jit
def bad_quant(x: asc.GlobalAddress, case: asc.ConstExpr[str]):
    a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 256)
    f = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 1024, 256)
    b = asc.LocalTensor(asc.int8, asc.TPosition.VECOUT, 2048, 256)
    h = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 4096, 256)
    if case == "dst":
        asc.adv.quant(h, a, 1.0, 0.0)
    elif case == "src":
        asc.adv.quant(b, b, 1.0, 0.0)
    elif case == "offset tensor":
        asc.adv.quant(b, a, 1.0, a)
    elif case == "scale dtype":
        asc.adv.quant(b, a, f, 0.0)
    elif case == "range":
        asc.adv.quant(b, a, 1e6, 0.0)
    else:
        asc.adv.quant(b, a, 1.0, 0.0, config=asc.adv.QuantConfig(0, 0, 0, -1))


@pytest.mark.parametrize(
    "case, message",
    [
        ("dst", "dst must be an int8 LocalTensor"),
        ("src", "src must be float16 or float32"),
        ("offset tensor", "an offset tensor needs a scale tensor"),
        ("scale dtype", "scale must hold float16 as src does"),
        ("range", "outside float16's range"),
        ("config", "QuantConfig work_local_size must be a uint32"),
    ],
)
def test_bad_arguments_are_compile_errors(case, message):
    with pytest.raises(CodegenError, match=message):
        bad_quant.compile(np.zeros(4, np.float16), case)


def test_the_board_gets_the_library_call_and_the_cpu_proof_the_expansion():
    args = (np.zeros(N, np.float32), np.ones(C, np.float32), np.zeros(C, np.float32), np.zeros(N, np.int8))
    compiled = quant_kernel.compile(*args, 100, 1.0, 0.0, 64, 512, "tensor", asc.adv.QuantConfig(32, 0, 0, 512))
    board = ascendc_source(compiled)
    assert "AscendC::AscendQuantConfig constexpr static asc_quant_cfg0{32, 0, 0, 512};" in board
    assert "AscendC::AscendQuant<float, false, asc_quant_cfg0>(" in board
    assert "AscendC::Muls(" not in board  # the expansion is left out
    cpu = ascendc_source(compiled, expanded=True)
    assert "AscendC::Muls(" in cpu and "// AscendC::AscendQuantConfig" in cpu
    compiled = quant_kernel.compile(*args, 100, 1.0, 0.0, 64, 512, "channel", None)
    assert "AscendC::AscendQuant<float, false>(" in ascendc_source(compiled)


@asc.jit(insert_sync=True)
def quant_dynamic(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, rows: asc.ConstExpr[int],
                  cols: int, tmp_bytes: int, scale: float, offset: float):  # fmt: skip
    """pyasc's dynamic-shape quant: LocalTensorAuto tensors of run-time lengths (the compiler places them when the
    kernel runs), the temporary buffer's too; z gets a constant-length tensor written first and read last, which
    the run-time ones must not overlap."""
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    y_gm = asc.GlobalTensor()
    y_gm.set_global_buffer(y)
    z_gm = asc.GlobalTensor()
    z_gm.set_global_buffer(z)
    k = asc.LocalTensorAuto(asc.float32, 256)
    asc.duplicate(k, 3.0, 256)
    a = asc.LocalTensorAuto(x.dtype, (rows, cols))
    asc.data_copy(a, x_gm, rows * cols)
    b = asc.LocalTensorAuto(asc.int8, (rows, cols))
    tmp = asc.LocalTensorAuto(asc.uint8, tmp_bytes)
    asc.adv.quant(b, a, scale, offset, rows * cols, tmp)
    asc.data_copy(y_gm, b, rows * cols)
    asc.data_copy(z_gm, k, 256)


@pytest.mark.parametrize("dtype", DTYPES)
def test_run_time_shapes(dtype):
    rng = np.random.default_rng(6)
    for cols, tmp_bytes in [(8, 512), (200, 96), (1024, 2048)]:
        x = rng.uniform(-60.0, 60.0, 4 * cols).astype(dtype)
        y, z = np.zeros(4 * cols, np.int8), np.zeros(256, np.float32)
        quant_dynamic[1, rt.current_stream()](x, y, z, 4, cols, tmp_bytes, 2.0, 0.9)
        np.testing.assert_array_equal(y, model(x, np.float32(2.0), np.float32(0.9)), err_msg=f"cols {cols}")
        assert np.all(z == 3.0)


def test_run_time_shapes_past_the_unified_buffer_fail_the_launch():
    x = np.zeros(4 * 30000, np.float32)
    with pytest.raises(KernelError):
        quant_dynamic[1, rt.current_stream()](x, np.zeros(x.size, np.int8), np.zeros(256, np.float32), 4, 30000, 512,
                                              1.0, 0.0)  # fmt: skip


@asc.jit(insert_sync=True)
def dynamic_misuse(x: asc.GlobalAddress, n: int, case: asc.ConstExpr[str]):
    if case == "loop":
        for i in asc.range(2):
            a = asc.LocalTensorAuto(asc.float16, n + i)
            asc.duplicate(a, 1.0, n)
    else:
        pipe = asc.TPipe()
        buf = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(buf, 1024)
        a = asc.LocalTensorAuto(asc.float16, n)
        asc.duplicate(a, 1.0, n)


@pytest.mark.parametrize(
    "case, message",
    [
        ("loop", "run-time length must be created at the kernel's top level"),
        ("pipe", "cannot share a kernel with a TPipe"),
    ],
)
def test_run_time_shapes_at_the_top_level_without_a_pipe(case, message):
    with pytest.raises(CodegenError, match=message):
        dynamic_misuse.compile(np.zeros(4, np.float16), 16, case)
