import numpy as np
import pytest

import asc.runtime.config as config


@pytest.fixture(autouse=True)
def model_backend():
    """Every test runs on the Model backend, Ascend910B1, unless it changes it."""
    config.set_platform(config.Backend.Model, config.Platform.Ascend910B1)
    yield
    config.set_platform(config.Backend.Model, config.Platform.Ascend910B1)


@pytest.fixture
def rng():
    return np.random.default_rng(seed=20261130)
