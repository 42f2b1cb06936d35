"""Whole-array statements with numpy's broadcasting and basic slicing (`out[i, :]`, `x[:, ::2]`, `b[None, :]`,
`x.T`), against numpy running the same statements: reads of views are gathered on the vector unit, writes to a
slice scattered into it, and a statement that reads the part it writes sees the old values."""

import warnings

import numpy as np
import pytest

import pyasc
from pyasc import OperatorError


@pyasc.operator("RowBias")
def row_bias(x, bias, out):
    out[:] = x + bias


@pyasc.operator("ColumnScale")
def column_scale(x, scale, out):
    out[:] = x * scale[:, None]


@pyasc.operator("Outer")
def outer(a, b, out):
    out[:] = a[:, None] * b[None, :] + 1.0


@pyasc.operator("Parts")
def parts(x, out):
    out[0, :] = x[1, :] * 2
    out[1:, :] += 1
    out[:, ::2] = np.maximum(out[:, ::2], x[:, ::2])
    out[..., -1] = 0


@pyasc.operator("Shift")
def shift(x):
    x[1:] = x[:-1]


@pyasc.operator("Transposed")
def transposed(x, out):
    out[:] = x.T - x.T[0]


@pyasc.operator("Batches")
def batches(x, mean, out):
    out[:] = (x - mean[:, None, :]) * (x - mean[:, None, :])


@pyasc.operator("OmittedBroadcast")
def omitted_broadcast(col, row, out):
    out[:] = col + row


def run_both(op, *arrays):
    """The operator on copies of `arrays` and the same function body on numpy arrays."""
    mine = [a.copy() for a in arrays]
    theirs = [a.copy() for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("error", pyasc.SlowLoopWarning)
        op(*mine)
    op.fn(*theirs)
    return mine, theirs


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_broadcast_operands(dtype, rng):
    x = rng.integers(-50, 50, (37, 300)).astype(dtype)
    bias = rng.integers(-50, 50, 300).astype(dtype)
    out = np.zeros_like(x)
    row_bias(x, bias, out)
    np.testing.assert_array_equal(out, x + bias)
    scale = rng.integers(-3, 4, 37).astype(dtype)
    column_scale(x, scale, out)
    np.testing.assert_array_equal(out, x * scale[:, None])
    assert "gathering 'scale'" in column_scale.explain(x, scale, out)[0]


def test_an_outer_product_of_two_broadcasts(rng):
    a, b = rng.uniform(-1, 1, 33).astype(np.float32), rng.uniform(-1, 1, 70).astype(np.float32)
    out = np.zeros((33, 70), np.float32)
    outer(a, b, out)
    np.testing.assert_allclose(out, a[:, None] * b[None, :] + 1.0, rtol=1e-6)


@pytest.mark.parametrize("shape", [(5, 7), (64, 129), (3, 2)])
def test_parts_written_and_read_as_numpy_does(shape, rng):
    x = rng.uniform(-1, 1, shape).astype(np.float32)
    out = rng.uniform(-1, 1, shape).astype(np.float32)
    (mine_x, mine), (_, theirs) = run_both(parts, x, out)
    np.testing.assert_allclose(mine, theirs, rtol=1e-6)
    np.testing.assert_array_equal(mine_x, x)  # an input is never written
    steps = parts.explain(x, out)
    assert f"into a ({shape[1]},) slice of 'out'" in steps[0] and "gathering 'x'" in steps[0]


def test_a_statement_reading_what_it_overwrites_sees_the_old_values():
    x = np.arange(5000, dtype=np.float32)
    (mine,), (theirs,) = run_both(shift, x)
    np.testing.assert_array_equal(mine, theirs)
    assert mine[0] == 0 and mine[1] == 0 and mine[-1] == 4998


def test_transposed_and_sliced_reads(rng):
    x = rng.uniform(-1, 1, (40, 24)).astype(np.float32)
    out = np.zeros((24, 40), np.float32)
    transposed(x, out)
    np.testing.assert_allclose(out, x.T - x.T[0], rtol=1e-6)


def test_three_dimensional_broadcasts(rng):
    x = rng.uniform(-1, 1, (4, 9, 33)).astype(np.float16)
    mean = rng.uniform(-1, 1, (4, 33)).astype(np.float16)
    out = np.zeros_like(x)
    batches(x, mean, out)
    want = (x - mean[:, None, :]) * (x - mean[:, None, :])
    np.testing.assert_allclose(out.astype(np.float32), want.astype(np.float32), rtol=2e-3, atol=2e-3)


def test_an_omitted_output_takes_the_broadcast_shape(rng):
    col, row = rng.uniform(-1, 1, (6, 1)).astype(np.float32), rng.uniform(-1, 1, (1, 11)).astype(np.float32)
    out = omitted_broadcast(col, row)
    assert out.shape == (6, 11)
    np.testing.assert_allclose(out, col + row, rtol=1e-6)


def test_a_partial_zero_fill_is_not_taken_for_a_whole_one(rng):
    @pyasc.operator("RowZeroThenMatmul")
    def row_zero_then_matmul(a, b, c):
        c[0, :] = 0
        for m in range(a.shape[0]):
            for n in range(b.shape[1]):
                s = 0
                for k in range(a.shape[1]):
                    s += a[m, k] * b[k, n]
                c[m, n] += s

    a = rng.uniform(-1, 1, (16, 16)).astype(np.float32)
    b = rng.uniform(-1, 1, (16, 16)).astype(np.float32)
    c = rng.uniform(-1, 1, (16, 16)).astype(np.float32)
    want = c.copy()
    want[0, :] = 0
    want += a @ b
    row_zero_then_matmul(a, b, c)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5)


def test_shapes_that_do_not_broadcast_name_the_line(rng):
    @pyasc.operator("BadBroadcast")
    def bad(x, y, out):
        out[:] = x + y

    with pytest.raises(OperatorError, match=r"shape \(3,\), which does not broadcast to 'out''s \(4, 5\)") as e:
        bad(np.ones((4, 5), np.float32), np.ones(3, np.float32), np.zeros((4, 5), np.float32))
    assert e.value.line == bad.fn.__code__.co_firstlineno + 2


def test_an_index_array_is_refused_with_the_line():
    @pyasc.operator("FancyIndex")
    def fancy(x, out):
        out[:] = x[[0, 2]]

    with pytest.raises(OperatorError, match="indexed by one integer per axis") as e:
        fancy(np.ones((4, 5), np.float32), np.zeros((2, 5), np.float32))
    assert e.value.line == fancy.fn.__code__.co_firstlineno + 2


@pyasc.operator("Reversed")
def reversed_rows(x, out):
    out[:] = x[::-1, ::2] + x[-1, ::2]


@pyasc.operator("EllipsisNone")
def ellipsis_none(x, v, out):
    out[..., 1:] = x[..., :-1] * v[None, ..., None][0, 2:]


def test_negative_steps_negative_indices_ellipsis_and_none(rng):
    x = rng.uniform(-1, 1, (6, 10)).astype(np.float32)
    out = np.zeros((6, 5), np.float32)
    (mine_x, mine), (_, theirs) = run_both(reversed_rows, x, out)
    np.testing.assert_allclose(mine, theirs, rtol=1e-6)
    v = rng.uniform(-1, 1, 8).astype(np.float32)
    out2 = rng.uniform(-1, 1, (6, 10)).astype(np.float32)
    (_, _, mine2), (_, _, theirs2) = run_both(ellipsis_none, x, v, out2)
    np.testing.assert_allclose(mine2, theirs2, rtol=1e-6)
