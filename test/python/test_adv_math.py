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
