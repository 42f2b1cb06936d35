"""asc.adv's element-wise math functions against numpy: every function on float32 and float16, lengths with
tails, the caller's temporary buffer (small enough to force several chunks) and the framework's; the error
bound each function keeps (docs/adv.md states them); a temporary buffer too small is an error at the user's
line; the emitted Ascend C is the library call for the board and the expansion for the CPU proof."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.errors import KernelError

from kernels import ascendc_source

N = 4096  # the tensors' length: counts up to it

# name -> (numpy function, input range, bound in float32, bound in float16). A bound is on
# |result - exact| / max(1, |exact|), the exact value computed in float64 from the rounded input.
FUNCTIONS = {
    "sinh": (np.sinh, (-5.0, 5.0), 1e-6, 2e-3),
}


@asc.jit
def unary(x: asc.GlobalAddress, y: asc.GlobalAddress, count: int, fn: asc.ConstExpr,
          tmp_bytes: asc.ConstExpr[int]):  # fmt: skip
    """y[:count] = fn(x[:count]) (fn an asc.adv function), with a temporary buffer of tmp_bytes (the
    framework's when 0)."""
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    y_gm = asc.GlobalTensor()
    y_gm.set_global_buffer(y)
    pipe = asc.TPipe()  # the framework's temporary buffer is the Unified Buffer after the pipe's buffers
    a_buf = asc.TBuf(asc.TPosition.VECIN)
    b_buf = asc.TBuf(asc.TPosition.VECOUT)
    pipe.init_buffer(a_buf, N * 4)
    pipe.init_buffer(b_buf, N * 4)
    a = a_buf.get(x.dtype)
    b = b_buf.get(x.dtype)
    asc.data_copy(a, x_gm, N)
    asc.data_copy(b, y_gm, N)  # what is past count must come back unchanged
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if tmp_bytes:
        tmp_buf = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(tmp_buf, tmp_bytes)
        fn(b, a, count, tmp_buf.get(asc.uint8))
    else:
        fn(b, a, count=count)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(y_gm, b, N)


def run(fn: str, dtype, count: int, tmp_bytes: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    ref, (lo, hi), _, _ = FUNCTIONS[fn]
    x = np.random.default_rng(seed).uniform(lo, hi, N).astype(dtype)
    y = np.full(N, 7, dtype)
    unary[1, rt.current_stream()](x, y, count, getattr(asc.adv, fn), tmp_bytes)
    return x, y


@pytest.mark.parametrize("fn", sorted(FUNCTIONS))
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("count, tmp_bytes", [(N, 0), (1000, 4096), (3 * 64 + 5, 1024)])
def test_matches_numpy_within_its_bound(fn, dtype, count, tmp_bytes):
    ref, _, bound32, bound16 = FUNCTIONS[fn]
    x, y = run(fn, dtype, count, tmp_bytes)
    exact = ref(x[:count].astype(np.float64))
    error = np.abs(y[:count].astype(np.float64) - exact) / np.maximum(1.0, np.abs(exact))
    assert error.max() <= (bound32 if dtype == np.float32 else bound16), f"worst at x = {x[np.argmax(error)]}"
    assert np.all(y[count:] == 7)  # nothing past count is written


def test_a_temporary_buffer_too_small_is_an_error_at_the_call():
    with pytest.raises(KernelError, match=r"adv.sinh: the temporary buffer holds fewer than \d+ bytes") as e:
        run("sinh", np.float32, 256, 256)
    assert "test_adv_math.py" in str(e.value)


def test_the_board_gets_the_library_call_and_the_cpu_proof_the_expansion():
    compiled = unary.compile(np.zeros(N, np.float16), np.zeros(N, np.float16), 100, asc.adv.sinh, 1024)
    board = ascendc_source(compiled)
    assert "AscendC::Sinh<half, false>(" in board
    assert "AscendC::Exp(" not in board  # the expansion is left out
    cpu = ascendc_source(compiled, expanded=True)
    assert "AscendC::Exp(" in cpu and "// AscendC::Sinh<half, false>(" in cpu
