"""Run-time scalar arithmetic, loops, branches, mutable variables and device
functions, observed through which slots of z a kernel marks."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt

from probe import buffers, mark, marked, views


def wrap32(v):
    return (v + 2**31) % 2**32 - 2**31


INT_OPS = {
    "add": lambda a, b: wrap32(a + b),
    "sub": lambda a, b: wrap32(a - b),
    "mul": lambda a, b: wrap32(a * b),
    "floordiv": lambda a, b: wrap32(a // b),  # Python semantics: towards -inf
    "mod": lambda a, b: wrap32(a % b),  # Python semantics: the divisor's sign
    "and": lambda a, b: a & b,
    "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b,
    "min": min,
    "max": max,
    "lt": lambda a, b: int(a < b),
    "ge": lambda a, b: int(a >= b),
}


@asc.jit
def int_probe(
    ones: asc.GlobalAddress,
    z: asc.GlobalAddress,
    a: int,
    b: int,
    expected: int,
    OP: asc.ConstExpr[str],
):
    ones_gm, z_gm = views(ones, z)
    if OP == "add":
        r = a + b
    elif OP == "sub":
        r = a - b
    elif OP == "mul":
        r = a * b
    elif OP == "floordiv":
        r = a // b
    elif OP == "mod":
        r = a % b
    elif OP == "and":
        r = a & b
    elif OP == "or":
        r = a | b
    elif OP == "xor":
        r = a ^ b
    elif OP == "min":
        r = min(a, b)
    elif OP == "max":
        r = max(a, b)
    elif OP == "lt":
        r = int(a < b)
    else:
        r = int(a >= b)
    if r == expected:
        mark(ones_gm, z_gm, 0)
    else:
        mark(ones_gm, z_gm, 1)


PAIRS = [
    (7, 2),
    (-7, 2),
    (7, -2),
    (-7, -2),
    (2**31 - 1, 1),
    (-(2**31), -1),
    (123456, 789),
    (0, 5),
]


@pytest.mark.parametrize("op", sorted(INT_OPS))
@pytest.mark.parametrize("a,b", PAIRS)
def test_int32_scalar_ops_follow_python_with_int32_wrap(op, a, b):
    expected = INT_OPS[op](a, b)
    ones, z = buffers(2)
    int_probe[1, rt.current_stream()](ones, z, a, b, expected, op)
    assert marked(z) == [True, False], f"{a} {op} {b} != {expected}"
    ones, z = buffers(2)
    int_probe[1, rt.current_stream()](ones, z, a, b, wrap32(expected + 1), op)
    assert marked(z) == [False, True]


@asc.jit
def float_probe(ones: asc.GlobalAddress, z: asc.GlobalAddress, a: float, b: float, expected: float):
    ones_gm, z_gm = views(ones, z)
    r = (a * b + a) / b - 0.5
    if r == expected:
        mark(ones_gm, z_gm, 0)


def test_float32_scalar_arithmetic_rounds_like_float32(rng):
    for a, b in rng.uniform(-10, 10, (20, 2)).astype(np.float32):
        expected = (a * b + a) / b - np.float32(0.5)
        ones, z = buffers(1)
        float_probe[1, rt.current_stream()](ones, z, float(a), float(b), float(expected))
        assert marked(z) == [True], (a, b, expected)


@asc.jit
def loops(ones: asc.GlobalAddress, z: asc.GlobalAddress, n: int, start: int, step: int):
    ones_gm, z_gm = views(ones, z)
    total = 0
    count = 0
    for i in range(start, n, step):
        total += i
        if i % 3 == 0:
            count += 1
        else:
            count += 10
        for j in range(2):
            total = total + j
    slot = 0
    for _k in range(4):
        slot = slot + 1
    mark(ones_gm, z_gm, slot - 4)  # slot 0: the fixed-bound loop ran 4 times
    if total == reference_total(n, start, step):
        mark(ones_gm, z_gm, 1)
    if count == reference_count(n, start, step):
        mark(ones_gm, z_gm, 2)


@asc.jit
def reference_total(n, start, step):
    t = 0
    for i in range(start, n, step):
        t = t + i + 1
    return t


@asc.jit
def reference_count(n, start, step):
    c = 0
    for i in range(start, n, step):
        if i % 3 == 0:
            c = c + 1
        if i % 3 != 0:
            c = c + 10
    return c


@pytest.mark.parametrize("n,start,step", [(10, 0, 1), (17, 3, 4), (-5, 5, -2), (0, 0, 1), (3, 7, 1)])
def test_loops_branches_and_device_functions(n, start, step):
    ones, z = buffers(3)
    loops[1, rt.current_stream()](ones, z, n, start, step)
    assert marked(z) == [True, True, True]


@asc.jit
def per_block(ones: asc.GlobalAddress, z: asc.GlobalAddress, expected_blocks: int):
    ones_gm, z_gm = views(ones, z)
    if asc.get_block_num() == expected_blocks:
        mark(ones_gm, z_gm, asc.get_block_idx())


@pytest.mark.parametrize("cores", [1, 3, 8, 48])
def test_block_idx_and_block_num(cores):
    ones, z = buffers(48)
    per_block[cores, rt.current_stream()](ones, z, cores)
    assert marked(z) == [i < cores for i in range(48)]


LIMIT = 2


@asc.jit
def reads_module_constant(ones: asc.GlobalAddress, z: asc.GlobalAddress):
    ones_gm, z_gm = views(ones, z)
    mark(ones_gm, z_gm, LIMIT)


def test_changing_a_module_constant_recompiles():
    global LIMIT
    ones, z = buffers(4)
    reads_module_constant[1, rt.current_stream()](ones, z)
    LIMIT = 3
    try:
        reads_module_constant[1, rt.current_stream()](ones, z)
    finally:
        LIMIT = 2
    assert marked(z) == [False, False, True, True]


@asc.jit
def wait_before_set(x: asc.GlobalAddress, y: asc.GlobalAddress, n: int):
    """wait_flag is issued to V before set_flag is issued to MTE2: legal, since
    only the V pipe waits while MTE2 goes on."""
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    y_gm.set_global_buffer(y, n)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 1024, n)
    asc.data_copy(a, x_gm, n)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.add(b, a, a, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(y_gm, b, n)


def test_wait_issued_before_set_on_another_pipe(rng):
    x = rng.random(64, dtype=np.float32)
    y = np.zeros_like(x)
    wait_before_set[1, rt.current_stream()](x, y, 64)
    np.testing.assert_array_equal(y, x + x)


def test_ir_text_shows_ops_pipes_and_lines():
    ones, z = buffers(1)
    text = per_block.ir(ones, z, 1)
    assert "kernel @per_block" in text
    assert "get_block_num" in text and "if %" in text
    assert "data_copy.gm_to_local" in text and "[MTE2]" in text and "MTE2_MTE3" in text
    assert "test_scalars_and_control_flow.py:" in text and "probe.py:" in text


@asc.jit
def gm_scalar_access(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """z[i] = x[n - 1 - i] + 1, one element at a time through the scalar unit."""
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    z_gm.set_global_buffer(z, n)
    for i in range(n):
        z_gm.set_value(i, x_gm.get_value(n - 1 - i) + 1)


def test_global_tensor_get_and_set_value(rng):
    x = rng.integers(-1000, 1000, 37).astype(np.int32)
    z = np.zeros_like(x)
    gm_scalar_access[1, rt.current_stream()](x, z, 37)
    np.testing.assert_array_equal(z, x[::-1] + 1)


@asc.jit
def gm_scalar_then_copy(x: asc.GlobalAddress, z: asc.GlobalAddress, SYNC: asc.ConstExpr[bool]):
    """The scalar unit writes GM, then MTE2 reads the same bytes: needs S_MTE2 (auto_sync does not order GM)."""
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, 8)
    z_gm.set_global_buffer(z, 8)
    x_gm.set_value(0, 42.0)
    if SYNC:
        asc.set_flag(asc.HardEvent.S_MTE2, 0)
        asc.wait_flag(asc.HardEvent.S_MTE2, 0)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 8)
    asc.data_copy(t, x_gm, 8)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.data_copy(z_gm, t, 8)


def test_gm_scalar_write_before_copy_in_needs_a_flag():
    from asc.errors import RaceError

    x = np.ones(8, np.float32)
    z = np.zeros_like(x)
    gm_scalar_then_copy[1, rt.current_stream()](x, z, True)
    assert z[0] == 42.0 and np.all(z[1:] == 1.0)
    with pytest.raises(RaceError, match=r"argument 'x' GM bytes \[0, 4\).*S_MTE2"):
        gm_scalar_then_copy[1, rt.current_stream()](x, z, False)


@asc.jit
def loop_past_int32(z: asc.GlobalAddress, START: asc.ConstExpr[int]):
    """z[k] = i for the 5 values i of range(START, START + 10, 2): a constant bound past int32 gives an int64 loop."""
    z_gm = asc.GlobalTensor()
    z_gm.set_global_buffer(z, 5)
    for i in range(START, START + 10, 2):
        z_gm.set_value((i - START) // 2, i)


@pytest.mark.parametrize("start", [2**31 - 4, 2**40 + 1, -(2**35)])
def test_a_constant_range_bound_past_int32_loops_in_int64(start):
    z = np.zeros(5, np.int64)
    loop_past_int32[1, rt.current_stream()](z, start)
    np.testing.assert_array_equal(z, np.arange(start, start + 10, 2))
