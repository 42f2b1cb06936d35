"""The Add Hello World kernel end to end, on 1, 8 and 48 cores, numpy and torch."""

import numpy as np
import pytest

import asc.lib.runtime as rt

from kernels import BUFFER_NUM, TILE_NUM, vadd_manual_sync


@pytest.mark.parametrize("cores", [1, 8, 48])
def test_vadd_matches_numpy(cores, rng):
    block_length = TILE_NUM * BUFFER_NUM * 64
    x = rng.random(cores * block_length, dtype=np.float32)
    y = rng.random(cores * block_length, dtype=np.float32)
    z = np.full_like(x, np.nan)
    vadd_manual_sync[cores, rt.current_stream()](x, y, z, block_length)
    np.testing.assert_array_equal(z, x + y)


def test_vadd_float16(rng):
    block_length = TILE_NUM * BUFFER_NUM * 32
    x = (rng.random(4 * block_length) * 100).astype(np.float16)
    y = (rng.random(4 * block_length) * 100).astype(np.float16)
    z = np.zeros_like(x)
    vadd_manual_sync[4, rt.current_stream()](x, y, z, block_length)
    np.testing.assert_array_equal(z, x + y)


def test_vadd_torch_tensors():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    block_length = TILE_NUM * BUFFER_NUM * 16
    x = torch.rand(8 * block_length, dtype=torch.float32)
    y = torch.rand(8 * block_length, dtype=torch.float32)
    z = torch.zeros_like(x)
    vadd_manual_sync[8, rt.current_stream()](x, y, z, block_length)
    assert torch.equal(z, x + y)


def test_blocks_outside_the_launch_leave_gm_alone(rng):
    """4 blocks cover the first half; the second half must keep its contents."""
    block_length = TILE_NUM * BUFFER_NUM * 8
    x = rng.random(8 * block_length, dtype=np.float32)
    y = rng.random(8 * block_length, dtype=np.float32)
    z = np.full_like(x, -1.0)
    vadd_manual_sync[4, rt.current_stream()](x, y, z, block_length)
    half = 4 * block_length
    np.testing.assert_array_equal(z[:half], (x + y)[:half])
    assert np.all(z[half:] == -1.0)


def test_compiled_once_per_specialisation(rng):
    block_length = TILE_NUM * BUFFER_NUM * 16  # whole 32-byte blocks for float16 too
    x = rng.random(2 * block_length, dtype=np.float32)
    before = len(vadd_manual_sync._cache)
    for _ in range(3):
        vadd_manual_sync[2, rt.current_stream()](x, x, np.zeros_like(x), block_length)
    x16 = x.astype(np.float16)
    vadd_manual_sync[2, rt.current_stream()](x16, x16, np.zeros_like(x16), block_length)
    assert len(vadd_manual_sync._cache) - before <= 2
    dtypes = {key[2][2] for key in vadd_manual_sync._cache}
    assert len(dtypes) >= 2  # float32 and float16 each got their own kernel
