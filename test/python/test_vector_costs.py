"""Each vector instruction's cost by API and dtype, against Huawei's autofuse cost table (hicann/ge commit
74573e24c43f, .../api_perf_register/v1/perf_param_v1.cpp, kParamV1Info: cycles = k x elements + b per API and
dtype). The Model keeps the add sample's calibration for add (src/target/platform.cpp) and prices every other API
by its ratio to add in that table, so what is checked here is the published ratios: the cost of one more 256-byte
repeat (the slope, heads cancelled) of an API against add's, and the head of an API against add's."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt

# kParamV1Info's k (cycles an element) for the rows checked, float16 and float32.
K = {
    ("add", 2): 0.0103, ("add", 4): 0.0206,
    ("mul", 2): 0.0110, ("mul", 4): 0.0206,
    ("div", 2): 0.0460, ("div", 4): 0.0454,
    ("exp", 2): 0.0311, ("exp", 4): 0.0307,
    ("sqrt", 2): 0.0312, ("sqrt", 4): 0.0313,
    ("abs", 2): 0.0077, ("abs", 4): 0.0147,
    ("adds", 2): 0.0071, ("adds", 4): 0.0141,
    ("cast16to32", 4): 0.0147, ("cast32to16", 4): 0.0087,
}  # fmt: skip
# and b (the head, cycles) where a head is checked
B = {("add", 4): 23.2225, ("exp", 4): 28.0376, ("div", 4): 29.0892}
ADD_HEAD, ADD_REPEAT = 22, 1  # the add sample's calibration (platform.cpp): cycles a head, a 256-byte repeat
DTYPES = {2: asc.float16, 4: asc.float32}


@asc.jit
def vector_loop(z: asc.GlobalAddress, N: asc.ConstExpr[int], OP: asc.ConstExpr[str], WIDTH: asc.ConstExpr[int]):
    """OP on N elements of WIDTH-byte dtype, ten times, the operands where no two share a UB bank group (as in the
    add sample's case 6)."""
    dt = asc.float16 if WIDTH == 2 else asc.float32
    a = asc.LocalTensor(dt, asc.TPosition.VECCALC, 0, N)
    b = asc.LocalTensor(dt, asc.TPosition.VECCALC, 65536 + 256, N)
    c = asc.LocalTensor(dt, asc.TPosition.VECCALC, 131072, N)
    half = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 65536 + 256, N)
    asc.duplicate(a, 2.0, N)  # defined inputs (the sanitizer's initcheck); OP "none" measures this part alone
    asc.duplicate(b, 0.5, N)
    asc.duplicate(half, 0.5, N)
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    for _ in range(10):
        if OP == "add":
            asc.add(c, a, b, N)
        elif OP == "mul":
            asc.mul(c, a, b, N)
        elif OP == "div":
            asc.div(c, a, b, N)
        elif OP == "exp":
            asc.exp(c, a, N)
        elif OP == "sqrt":
            asc.sqrt(c, a, N)
        elif OP == "abs":
            asc.abs(c, a, N)
        elif OP == "adds":
            asc.adds(c, a, 1.0, N)
        elif OP == "cast16to32":
            asc.cast(c, half, asc.RoundMode.CAST_NONE, N)
        elif OP == "cast32to16":
            asc.cast(half, a, asc.RoundMode.CAST_NONE, N)
        asc.pipe_barrier(asc.PipeID.PIPE_V)


def vector_cycles(op: str, width: int, n: int) -> float:
    """One instruction's V-pipe cycles, averaged over the kernel's ten (the inputs' set-up subtracted)."""

    def busy(name: str) -> int:
        vector_loop[1, rt.current_stream()](np.zeros(8, np.float32), n, name, width)
        assert not rt.last_launch_stats().warnings
        return rt.last_launch_stats().busy_cycles["V"]

    return (busy(op) - busy("none")) / 10


def slope(op: str, width: int) -> float:
    """Cycles a 256-byte repeat: the difference between 64 and 16 repeats, so the head cancels."""
    per_repeat = 256 // width
    return (vector_cycles(op, width, 64 * per_repeat) - vector_cycles(op, width, 16 * per_repeat)) / 48


@pytest.mark.parametrize("op,width", [key for key in K if key[0] != "add"], ids=lambda v: str(v))
def test_an_apis_cost_a_repeat_against_adds_is_the_tables_ratio(op, width):
    # a cast's repeat holds 256 bytes of its wider operand (float32): 64 elements, as add's float32 repeat
    elements = 256 // width
    expected = K[(op, width)] * elements / (K[("add", 2)] * 128) * ADD_REPEAT
    measured = slope(op, width)
    assert measured == pytest.approx(expected, rel=0.05), f"{op} {width * 8}-bit: {measured:.3f} a repeat"


def test_add_keeps_the_calibration_at_both_widths():
    # the table's add costs the same a repeat at float16 and float32 (0.0103 x 128 ~ 0.0206 x 64)
    assert slope("add", 2) == pytest.approx(ADD_REPEAT, rel=0.02)
    assert slope("add", 4) == pytest.approx(ADD_REPEAT, rel=0.02)


@pytest.mark.parametrize("op", ["exp", "div"])
def test_an_apis_head_against_adds_is_the_tables_ratio(op):
    per_repeat = 64
    repeats = 16
    head = vector_cycles(op, 4, repeats * per_repeat) - repeats * slope(op, 4)
    add_head = vector_cycles("add", 4, repeats * per_repeat) - repeats * slope("add", 4)
    assert add_head == pytest.approx(ADD_HEAD, abs=1.5)
    assert head / add_head == pytest.approx(B[(op, 4)] / B[("add", 4)], rel=0.08)


def test_a_slow_api_costs_more_than_a_fast_one_of_the_same_size():
    # the table's order, which the old rule of thumb (div, exp and sqrt 4x add, the rest 1x) got wrong for float32
    assert slope("div", 4) > slope("exp", 4) > slope("add", 4) > slope("adds", 4)
    assert slope("exp", 4) < 2.5 * slope("add", 4)
