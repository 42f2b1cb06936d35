"""Backends and platforms."""

import numpy as np
import pytest

import asc.lib.runtime as rt
import asc.runtime.config as config
from asc.errors import BackendUnavailableError

from kernels import BUFFER_NUM, TILE_NUM, vadd_manual_sync


@pytest.mark.parametrize("platform", list(config.Platform))
def test_every_platform_runs_the_model(platform, rng):
    config.set_platform("Model", platform.value)
    assert rt.current_platform() == platform.value
    block_length = TILE_NUM * BUFFER_NUM * 8
    x = rng.random(2 * block_length, dtype=np.float32)
    z = np.zeros_like(x)
    vadd_manual_sync[2, rt.current_stream()](x, x, z, block_length)
    np.testing.assert_array_equal(z, x + x)


def test_npu_without_cann_is_a_clear_error():
    with pytest.raises(BackendUnavailableError, match="libascendcl.so"):
        config.set_platform(config.Backend.NPU, config.Platform.Ascend910B1)
    config.set_platform(config.Backend.Model)  # the Model keeps working
    assert rt.is_model() and rt.is_available()


def test_default_platform_is_910b1():
    config.set_platform("Model")
    assert rt.current_platform() == "Ascend910B1"
