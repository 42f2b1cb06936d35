"""asc.adv's element-wise math functions against numpy: every function on float32 and float16, lengths with
tails, the caller's temporary buffer (small enough to force several chunks) and the framework's; the error
bound each function keeps (docs/adv.md states them); a temporary buffer too small is an error at the user's
line; the emitted Ascend C is the library call for the board and the expansion for the CPU proof."""

import numpy as np
import pytest

import asc
from asc.errors import KernelError

from kernels import ADV_N, adv_unary, ascendc_source, run_adv_unary

# name -> (numpy function, input range, bound in float32, bound in float16). A bound is on
# |result - exact| / max(1, |exact|), the exact value computed in float64 from the rounded input.
FUNCTIONS = {
    "sinh": (np.sinh, (-5.0, 5.0), 1e-6, 2e-3),
}


@pytest.mark.parametrize("fn", sorted(FUNCTIONS))
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("count, tmp_bytes", [(ADV_N, 0), (1000, 4096), (3 * 64 + 5, 1024)])
def test_matches_numpy_within_its_bound(fn, dtype, count, tmp_bytes):
    ref, (lo, hi), bound32, bound16 = FUNCTIONS[fn]
    x = np.random.default_rng(0).uniform(lo, hi, ADV_N).astype(dtype)
    y = run_adv_unary(getattr(asc.adv, fn), x, count, tmp_bytes)
    exact = ref(x[:count].astype(np.float64))
    error = np.abs(y[:count].astype(np.float64) - exact) / np.maximum(1.0, np.abs(exact))
    assert error.max() <= (bound32 if dtype == np.float32 else bound16), f"worst at x = {x[np.argmax(error)]}"
    assert np.all(y[count:] == 7)  # nothing past count is written


def test_a_temporary_buffer_too_small_is_an_error_at_the_call():
    with pytest.raises(KernelError, match=r"adv.sinh: the temporary buffer holds fewer than \d+ bytes") as e:
        run_adv_unary(asc.adv.sinh, np.zeros(ADV_N, np.float32), 256, 256)
    assert "kernels.py" in str(e.value)  # the harness's call of the function, not the library


def test_the_board_gets_the_library_call_and_the_cpu_proof_the_expansion():
    compiled = adv_unary.compile(np.zeros(ADV_N, np.float16), np.zeros(ADV_N, np.float16), 100, asc.adv.sinh, 1024)
    board = ascendc_source(compiled)
    assert "AscendC::Sinh<half, false>(" in board
    assert "AscendC::Exp(" not in board  # the expansion is left out
    cpu = ascendc_source(compiled, expanded=True)
    assert "AscendC::Exp(" in cpu and "// AscendC::Sinh<half, false>(" in cpu
