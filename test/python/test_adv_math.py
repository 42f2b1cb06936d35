"""The adv library's machinery (library.py, math.py's chunked element-wise template), on sinh: a temporary
buffer too small is an error at the user's line; the emitted Ascend C is the library call for the board and the
expansion for the CPU proof. Each family's numerics are in its own file (test_adv_trigonometric.py, ...)."""

import numpy as np
import pytest

import asc
from asc.errors import KernelError

from kernels import ADV_N, adv_unary, ascendc_source, run_adv_unary


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


@pytest.mark.parametrize(
    "fn, dtype",
    [("sin", np.float32), ("atan", np.float16), ("erf", np.float32), ("round", np.float16)],
)
def test_the_hosts_minimum_temporary_buffer_is_the_devices(fn, dtype):
    """asc.lib.host's get_<fn>_max_min_tmp_size reports what the expansion needs: its minimum runs (and
    computes), 32 bytes fewer fails at the call; its maximum is the whole input's."""
    import asc.lib.host as host

    sizer = getattr(host, f"get_{fn}_max_min_tmp_size")
    size = np.dtype(dtype).itemsize
    high, low = sizer([ADV_N], size)
    assert high == low * ADV_N // 64  # whole 64-element repeats: one at least, all of them at most
    x = np.random.default_rng(1).uniform(-0.9, 0.9, ADV_N).astype(dtype)
    y = run_adv_unary(getattr(asc.adv, fn), x, 1000, low)
    want = {"sin": np.sin, "atan": np.arctan, "erf": None, "round": np.round}[fn]
    if want is not None:
        assert np.allclose(y[:1000], want(x[:1000].astype(np.float64)), atol=1e-3)
    with pytest.raises(KernelError, match=rf"adv\.{fn}: the temporary buffer holds fewer than {low} bytes"):
        run_adv_unary(getattr(asc.adv, fn), x, 1000, low - 32)
