"""The pyasc operator API against numpy: whole-array statements (every dtype, tails, omitted outputs),
the tutorials' conv2d, matmul and max-pool loops (recognised as contractions and window reductions),
loop nests that fall back to scalar code (with the warning naming their line), the tensor helpers,
compile/batch/register, and the errors for bad input."""

import os
import subprocess
import sys
import warnings

import numpy as np
import pyasc_ops as ops
import pytest

import asc.lib.runtime as rt
import pyasc
from asc.errors import BackendUnavailableError, OutOfBoundsError

OPS_FILE = os.path.basename(ops.__file__)


def F32(n):  # noqa: N802 - reads as a dtype
    return np.ones(n, np.float32)


def conv_reference(x, w, stride, padding):
    padded = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    windows = np.lib.stride_tricks.sliding_window_view(padded, w.shape[2:], axis=(2, 3))[:, :, ::stride, ::stride]
    return np.einsum("nchwij,kcij->nkhw", windows, w.astype(np.float64))


def pool_reference(x, k, stride, padding):
    padded = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)), constant_values=-np.inf)
    windows = np.lib.stride_tricks.sliding_window_view(padded, (k, k), axis=(2, 3))[:, :, ::stride, ::stride]
    return windows.max(axis=(4, 5))


# -- whole-array statements --------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(1,), (7,), (2048,), (2049,), (3, 1000), (1024, 1024)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_whole_array_statement_matches_numpy(shape, dtype, rng):
    x = rng.standard_normal(shape).astype(dtype)
    w = rng.standard_normal(shape).astype(dtype)
    out = np.full(shape, 99, dtype)
    alpha = float(rng.uniform(-2, 2))
    assert ops.my_op(x, w, out, alpha=alpha) is out
    want = x + np.asarray(alpha, dtype) * w
    tol = 1e-6 if dtype == np.float32 else 2e-3
    np.testing.assert_allclose(out, want, rtol=tol, atol=tol)


def test_int32_arrays_add_exactly(rng):
    x = rng.integers(-1000, 1000, 3001, dtype=np.int32)
    w = rng.integers(-1000, 1000, 3001, dtype=np.int32)
    np.testing.assert_array_equal(ops.my_op(x, w, alpha=3), x + 3 * w)


def test_an_omitted_output_takes_the_expression_shape_and_is_returned(rng):
    x = rng.standard_normal((33, 65)).astype(np.float32)
    w = rng.standard_normal((33, 65)).astype(np.float32)
    out = ops.my_op(x, w, alpha=0.5)
    assert out.shape == x.shape and out.dtype == np.float32
    np.testing.assert_allclose(out, x + 0.5 * w, rtol=1e-6)


def test_math_functions_and_temporaries(rng):
    x = rng.standard_normal(5000).astype(np.float32)
    y = rng.standard_normal(5000).astype(np.float32)
    out = ops.mixed(x, y, scale=1.5)
    t = np.maximum(x * np.float32(1.5), y) - np.float32(1.5)
    want = np.exp(-abs(t)) / (1 + np.sqrt(y * y)) + np.minimum(t, 0.25)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("value", [0.0, -2.5, 7])
def test_fill(value):
    out = np.ones((5, 999), np.float32)
    ops.fill(out, value=value)
    np.testing.assert_array_equal(out, np.float32(value))


def test_pyasc_tensors_go_in_and_come_out(rng):
    x = pyasc.tensor(rng.standard_normal((10, 20)).astype(np.float32))
    w = pyasc.from_numpy(rng.standard_normal((10, 20)).astype(np.float32))
    out = pyasc.empty((10, 20), dtype=np.float32)
    result = ops.my_op(x, w, out)
    assert result is out and isinstance(result, pyasc.Tensor)
    np.testing.assert_allclose(out.numpy(), x.numpy() + w.numpy(), rtol=1e-6)


def test_torch_cpu_tensors_go_in_and_come_out(rng):
    torch = pytest.importorskip("torch")
    x = torch.from_numpy(rng.standard_normal((6, 50)).astype(np.float32))
    w = torch.from_numpy(rng.standard_normal((6, 50)).astype(np.float32))
    out = torch.empty(6, 50)
    assert ops.my_op(x, w, out, alpha=2.0) is out
    torch.testing.assert_close(out, x + 2 * w)
    with pytest.raises(TypeError, match="'input' is float64"):
        ops.my_op(x.double(), w.double())
    with pytest.raises(TypeError, match="torch.bfloat16, which numpy cannot hold"):
        ops.my_op(x.bfloat16(), w.bfloat16())


# -- the tutorials' loop nests -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "n,c,h,w,k,kh,stride,padding",
    [(1, 3, 20, 20, 8, 5, 2, 2), (2, 4, 9, 11, 5, 3, 1, 1), (1, 1, 7, 7, 1, 7, 1, 0), (1, 2, 16, 16, 17, 2, 2, 0)],
)
def test_conv2d_matches_numpy(n, c, h, w, k, kh, stride, padding, rng):
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    weight = rng.standard_normal((k, c, kh, kh)).astype(np.float32)
    assert "on the cube" in " ".join(ops.conv2d.explain(x, weight, stride=stride, padding=padding))
    out = ops.conv2d(x, weight, stride=stride, padding=padding)
    np.testing.assert_allclose(out, conv_reference(x, weight, stride, padding), rtol=1e-4, atol=1e-4)


def test_conv2d_into_a_given_output(rng):
    x = rng.standard_normal((1, 3, 12, 12)).astype(np.float32)
    weight = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    out = np.full((1, 4, 6, 6), 5.0, np.float32)  # the body zeroes it first
    ops.conv2d(x, weight, out, stride=2, padding=1)
    np.testing.assert_allclose(out, conv_reference(x, weight, 2, 1), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("m,k,n", [(64, 32, 48), (40, 24, 33), (1, 1, 1), (130, 257, 70)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_matmul_matches_numpy(m, k, n, dtype, rng):
    a = rng.uniform(-1, 1, (m, k)).astype(dtype)
    b = rng.uniform(-1, 1, (k, n)).astype(dtype)
    c = np.empty((m, n), np.float32)
    ops.matmul(a, b, c)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-4)


def test_a_row_major_matmul_runs_on_the_caller_arrays_without_gathers(rng):
    a = rng.standard_normal((64, 32)).astype(np.float32)
    b = rng.standard_normal((32, 48)).astype(np.float32)
    (step,) = ops.matmul.explain(a, b, np.empty((64, 48), np.float32))
    assert "gathering" not in step and "[64 x 32] @ [32 x 48]" in step


@pytest.mark.parametrize("ta,tb", [(True, False), (False, True), (True, True)])
def test_matmul_transposes(ta, tb, rng):
    a = rng.standard_normal((24, 40)).astype(np.float32)
    b = rng.standard_normal((40, 16)).astype(np.float32)
    c = ops.matmul(a.T.copy() if ta else a, b.T.copy() if tb else b, transpose_a=ta, transpose_b=tb)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


def test_matmul_adds_to_an_output_it_does_not_zero(rng):
    a = rng.standard_normal((20, 30)).astype(np.float32)
    b = rng.standard_normal((30, 10)).astype(np.float32)
    c = rng.standard_normal((20, 10)).astype(np.float32)
    want = c + a @ b
    assert "on the cube" in ops.matmul_acc.explain(a, b, c)[0]
    ops.matmul_acc(a, b, c)
    np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    "shape,k,stride,padding", [((1, 4, 9, 9), 3, 2, 1), ((2, 3, 8, 8), 2, 2, 0), ((1, 2, 10, 7), 3, 1, 1)]
)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_max_pool_matches_numpy(shape, k, stride, padding, dtype, rng):
    x = rng.standard_normal(shape).astype(dtype)
    assert "window max" in ops.max_pool2d.explain(x, kernel_size=k, stride=stride, padding=padding)[0]
    out = ops.max_pool2d(x, kernel_size=k, stride=stride, padding=padding)
    np.testing.assert_array_equal(out, pool_reference(x, k, stride, padding))


def test_a_max_that_starts_above_minus_infinity(rng):
    x = rng.standard_normal((3, 30)).astype(np.float32)
    out = ops.relu_max_pool(x, k=3)
    np.testing.assert_array_equal(out, np.maximum(x.reshape(3, 10, 3).max(axis=2), 0))


def test_a_window_sum_written_in_another_order(rng):
    x = rng.standard_normal((8, 5)).astype(np.float32)
    out = ops.sum_pool_transposed(x, k=2)
    np.testing.assert_allclose(out, x.reshape(4, 2, 5).sum(axis=1).T, rtol=1e-6)


# -- the scalar fallback -----------------------------------------------------------------------------
def _fallback_warnings(record):
    return [w for w in record if issubclass(w.category, pyasc.SlowLoopWarning)]


def test_an_unrecognised_nest_runs_as_scalar_code_and_warns_with_its_line(rng):
    x = rng.standard_normal((4, 9)).astype(np.float32)
    out = np.zeros_like(x)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        ops.cumsum(x, out)
    (warning,) = _fallback_warnings(record)
    assert os.path.basename(warning.filename) == OPS_FILE
    assert warning.lineno == ops.cumsum.fn.__code__.co_firstlineno + 3  # the `for i` line (after the decorator)
    assert "scalar code" in str(warning.message) and "slow" in str(warning.message)
    np.testing.assert_allclose(out, np.cumsum(x, axis=1), rtol=1e-5, atol=1e-6)


def test_if_else_in_a_loop(rng):
    x = rng.standard_normal(100).astype(np.float32)
    out = np.zeros_like(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pyasc.SlowLoopWarning)
        ops.leaky_relu(x, out, slope=0.25)
    np.testing.assert_allclose(out, np.where(x > 0, x, np.float32(0.25) * x), rtol=1e-6)


def test_a_nest_that_reads_its_own_output_runs_as_written(rng):
    x = rng.uniform(0.5, 1.5, 6).astype(np.float32)
    out = np.ones(6, np.float32)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        ops.in_place_recurrence(x, out)
    assert "also reads" in str(_fallback_warnings(record)[0].message)
    want = np.ones(6)
    for i in range(6):
        want[i] = want.sum() * x[i]
    np.testing.assert_allclose(out, want, rtol=1e-5)


def test_a_scalar_nest_writing_two_outputs_returns_both(rng):
    x = rng.standard_normal(50).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pyasc.SlowLoopWarning)
        low, high = ops.two_outputs(x, np.empty_like(x), np.empty_like(x))
    np.testing.assert_array_equal(low, np.minimum(x, 0))
    np.testing.assert_array_equal(high, np.maximum(x, 0))


# -- tensors, registry, compile, batch ------------------------------------------------------------------
def test_tensor_helpers():
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = pyasc.tensor(base)
    assert isinstance(t, pyasc.Tensor) and np.shares_memory(t, base) and pyasc.tensor(t) is t
    assert type(t.numpy()) is np.ndarray and np.shares_memory(t.numpy(), base)
    t[0, 1] = 42
    assert base[0, 1] == 42 and t[0, 1] == 42
    z = pyasc.tensor(shape=(2, 3), dtype=np.float16)
    assert z.shape == (2, 3) and z.dtype == np.float16 and not z.any()
    e = pyasc.empty((1, 64, 5, 5), dtype=np.float16)
    assert e.shape == (1, 64, 5, 5) and e.dtype == np.float16
    assert np.shares_memory(pyasc.from_numpy(base), base)
    with pytest.raises(TypeError, match="data or shape"):
        pyasc.tensor()


def test_register_and_lookup_by_name():
    def double(x, out):
        out[:] = x * 2

    op = pyasc.register(double)
    assert pyasc.lookup("double") is op and pyasc.register(op) is op
    assert pyasc.lookup("Conv2d") is ops.conv2d
    with pytest.raises(KeyError, match="NoSuchOp"):
        pyasc.lookup("NoSuchOp")


AOT_SCRIPT = """
import sys, numpy as np, pyasc
from asc.runtime import disk_cache
sys.path.insert(0, {here!r})
import pyasc_ops
x = np.ones((3, 5, 5, 5), np.float32)
w = np.ones((2, 5, 3, 3), np.float32)
if sys.argv[1] == "compile":
    op = pyasc.compile("Conv2d", backend="model", opt_level=2, example=(x, w), padding=1)
    assert op is pyasc_ops.conv2d and op.opt_level == 2
else:
    out = pyasc_ops.conv2d(x, w, padding=1)
    assert out[0, 0, 2, 2] == 45 and out[0, 0, 0, 0] == 20, out[0, 0]
print(disk_cache.stats["stored"], disk_cache.stats["hits"])
"""


def test_compile_ahead_of_time_stores_the_kernels_for_the_next_process(tmp_path):
    script = tmp_path / "aot.py"
    script.write_text(AOT_SCRIPT.format(here=os.path.dirname(__file__)))
    env = dict(os.environ, PYASC_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("ASC_ROUNDTRIP", None)
    runs = [subprocess.run([sys.executable, str(script), mode], capture_output=True, text=True, env=env, timeout=300)
            for mode in ("compile", "call")]  # fmt: skip
    for run in runs:
        assert run.returncode == 0, run.stderr
    stored, _ = map(int, runs[0].stdout.split())
    stored_again, hits = map(int, runs[1].stdout.split())
    assert stored == 3  # the zero fill, the gather (operands and scatter alike) and the matmul
    assert stored_again == 0 and hits == stored  # the call compiled nothing


def test_opt_level_1_compiles_the_tutorial_loops_as_written(rng):
    literal = pyasc.register(ops.conv2d.fn, name="LiteralConv2d")  # its own opt_level
    x = rng.standard_normal((1, 2, 6, 6)).astype(np.float32)
    w = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        pyasc.compile("LiteralConv2d", opt_level=1, example=(x, w), stride=2, padding=1)
        out = literal(x, w, stride=2, padding=1)
    assert "scalar code" in " ".join(literal.explain(x, w, stride=2, padding=1))
    (warning,) = _fallback_warnings(record)  # once, when it compiled
    assert "opt_level 1" in str(warning.message) and warning.filename.endswith("operators.py")
    np.testing.assert_allclose(out, conv_reference(x, w, 2, 1), rtol=1e-4, atol=1e-4)
    pyasc.compile(literal, opt_level=3)  # the calls so far, recompiled with recognition
    assert "on the cube" in " ".join(literal.explain(x, w, stride=2, padding=1))


def test_compile_needs_shapes_and_valid_options():
    @pyasc.operator("NeverCalled")
    def never_called(x, out):
        out[:] = x

    with pytest.raises(ValueError, match="call the operator once or pass example"):
        pyasc.compile("NeverCalled")
    with pytest.raises(ValueError, match="opt_level"):
        pyasc.compile(never_called, opt_level=5)
    with pytest.raises(ValueError, match="unknown backend"):
        pyasc.compile(never_called, backend="gpu")


def test_compile_for_the_npu_without_cann_fails_clearly_and_keeps_the_model(rng):
    x = rng.standard_normal(10).astype(np.float32)
    ops.my_op(x, x)
    with pytest.raises(BackendUnavailableError):
        pyasc.compile("MyOp", backend="npu", opt_level=3)
    assert rt.is_model()
    np.testing.assert_allclose(ops.my_op(x, x), 2 * x)


def test_batch_runs_each_call_in_order(rng):
    pairs = [(rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)) for n in (5, 70, 3)]
    outputs = pyasc.batch(pairs, func=ops.my_op)
    assert len(outputs) == 3
    for (x, w), out in zip(pairs, outputs):
        np.testing.assert_allclose(out, x + w, rtol=1e-6)
    by_name = pyasc.batch([{"input": pairs[0][0], "weight": pairs[0][1], "alpha": 2.0}], "MyOp")
    np.testing.assert_allclose(by_name[0], pairs[0][0] + 2 * pairs[0][1], rtol=1e-6)


# -- bad input ---------------------------------------------------------------------------------------
def test_float64_is_refused_with_the_fix():
    x = np.ones(4)
    with pytest.raises(TypeError, match=r"'input' is float64.*astype\(np.float32\)"):
        ops.my_op(x, x)


def test_the_users_own_exception_comes_out():
    with pytest.raises(ValueError, match=r"A's K \(3\) != B's K \(4\)"):
        ops.matmul(np.ones((2, 3), np.float32), np.ones((4, 5), np.float32))


def test_an_output_of_the_wrong_shape_names_the_resize_line():
    with pytest.raises(pyasc.OperatorError, match=r"cannot resize 'c' from \(2, 2\) to \(2, 5\)") as e:
        ops.matmul(np.ones((2, 3), np.float32), np.ones((3, 5), np.float32), np.empty((2, 2), np.float32))
    assert e.value.file.endswith("operators.py")


def test_an_out_of_bounds_index_names_the_loop(rng):
    x = rng.standard_normal(10).astype(np.float32)
    out = np.zeros(10, np.float32)
    with pytest.raises(pyasc.OperatorError, match=r"'x' is indexed out of bounds \(shape \(10,\)\)") as e:
        ops.shifted_copy(x, out, shift=1)
    assert e.value.file.endswith(OPS_FILE) and e.value.line == ops.shifted_copy.fn.__code__.co_firstlineno + 2
    assert not out.any()  # nothing ran
    short = np.zeros(9, np.float32)
    ops.shifted_copy(x, short, shift=1)
    np.testing.assert_array_equal(short, x[1:])


def test_a_fault_in_a_scalar_nest_names_the_users_loop():
    x = np.ones((4, 9), np.float32)
    out = np.zeros((2, 9), np.float32)  # two rows short: strict, past its 72 bytes is the fault
    stream = rt.current_stream()
    stream.set_strict(True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", pyasc.SlowLoopWarning)
            with pytest.raises(OutOfBoundsError, match=r"operator 'Cumsum': .*writes GM bytes \[72, 76\)") as e:
                ops.cumsum(x, out)
    finally:
        stream.set_strict(False)
    assert e.value.file.endswith(OPS_FILE) and e.value.line == ops.cumsum.fn.__code__.co_firstlineno + 3
    np.testing.assert_array_equal(out, np.cumsum(x, axis=1)[:2])  # the rows inside were written, then it stopped


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda: ops.while_loop(F32(3), F32(3)), "unsupported statement in an operator: While"),
        (lambda: ops.mismatch(F32(3), F32(4)), r"the shapes \(3,\), \(4,\) do not broadcast together"),
        (lambda: ops.no_shape(F32(3)), "shape of 'out' is not known yet"),
        (lambda: ops.mismatch(F32(3), np.ones(3, np.float16), F32(3)), "take one dtype"),
    ],
)  # fmt: skip
def test_bad_bodies_name_the_problem_and_the_line(call, message):
    with pytest.raises(pyasc.OperatorError, match=message) as e:
        call()
    assert e.value.file.endswith(OPS_FILE) and e.value.line > 0


def test_a_statement_the_tile_compiler_refuses_names_its_line():
    x = np.arange(8, dtype=np.int32)
    with pytest.raises(pyasc.OperatorError, match="a generated kernel failed to compile: .*float") as e:
        ops.exp(x)
    assert e.value.file.endswith(OPS_FILE) and e.value.line == ops.exp.fn.__code__.co_firstlineno + 2
    np.testing.assert_allclose(ops.exp(x.astype(np.float32)), np.exp(x), rtol=1e-6)


def test_bad_calls():
    x = np.ones(3, np.float32)
    with pytest.raises(TypeError, match="unexpected keyword argument 'beta'"):
        ops.my_op(x, x, beta=1)
    with pytest.raises(TypeError, match="pass attributes by keyword"):
        ops.my_op(x, x, x, 2.0)
    with pytest.raises(TypeError, match="must be a numpy array, pyasc tensor or torch CPU tensor"):
        ops.my_op(x, [1, 2, 3])
