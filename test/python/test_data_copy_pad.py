"""data_copy_pad: rows of any byte length, GM -> UB with padding and back."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt

ROW_ELEMS = 8  # float32 elements per 32-byte block


@asc.jit
def pad_round_trip(x: asc.GlobalAddress, z: asc.GlobalAddress, u: asc.GlobalAddress, rows: int, length: int,
                   gm_gap: int, left: int, right: int, fill: float):  # fmt: skip
    """x (rows of `length` floats, gm_gap bytes apart) -> UB rows padded with `fill` -> z (rows packed),
    and the padded UB image itself -> u."""
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    u_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    z_gm.set_global_buffer(z)
    u_gm.set_global_buffer(u)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 4096)
    asc.data_copy_pad(a, x_gm, asc.DataCopyExtParams(rows, length * 4, gm_gap, 0, 0),
                      asc.DataCopyPadExtParams(asc.float32, True, left, right, fill))  # fmt: skip
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    row_blocks = ((left + right) * 4 + length * 4 + 31) // 32
    asc.data_copy(u_gm, a, rows * row_blocks * 8)
    asc.data_copy_pad(z_gm, a, asc.DataCopyExtParams(rows, (left + length + right) * 4, 0, 0, 0))


@pytest.mark.parametrize("rows,length,gm_gap,left,right", [(1, 5, 0, 0, 0), (4, 11, 12, 0, 0), (3, 7, 4, 2, 3),
                                                          (6, 16, 0, 1, 0)])  # fmt: skip
def test_pad_in_and_out(rows, length, gm_gap, left, right, rng):
    x = rng.random(4096, dtype=np.float32)
    z = np.full(4096, -1.0, np.float32)
    row_blocks = ((left + right) * 4 + length * 4 + 31) // 32
    u = np.zeros(rows * row_blocks * ROW_ELEMS, np.float32)
    pad_round_trip[1, rt.current_stream()](x, z, u, rows, length, gm_gap, left, right, 9.5)
    pitch = length + gm_gap // 4
    src_rows = np.stack([x[r * pitch : r * pitch + length] for r in range(rows)])
    image = u.reshape(rows, row_blocks * ROW_ELEMS)
    np.testing.assert_array_equal(image[:, left : left + length], src_rows)
    assert np.all(image[:, :left] == 9.5) and np.all(image[:, left + length :] == 9.5)
    # out: the padded rows packed end to end in GM, nothing past them written
    width = left + length + right
    np.testing.assert_array_equal(z[: rows * width].reshape(rows, width), image[:, :width])
    assert np.all(z[rows * width :] == -1.0)
