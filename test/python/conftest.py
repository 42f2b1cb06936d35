import atexit
import os
import shutil
import tempfile

import numpy as np
import pytest

# Kernels compiled by the tests are cached in a directory of this run's own, not the user's home,
# removed when the run ends (subprocesses inherit the variable and share the directory).
if "PYASC_CACHE_DIR" not in os.environ:
    _cache_dir = tempfile.mkdtemp(prefix="asc-test-cache-")
    os.environ["PYASC_CACHE_DIR"] = _cache_dir
    atexit.register(shutil.rmtree, _cache_dir, ignore_errors=True)

import asc.runtime.config as config

if os.environ.get("ASC_ROUNDTRIP"):  # the emitter's round trip (roundtrip.py): every Model launch, also on the CPU
    import roundtrip

    roundtrip.install(os.environ["ASC_ROUNDTRIP"])


@pytest.fixture(autouse=True)
def round_trip_scope(request):
    """The round trip's CPU runs skip timing_only tests: their full-size kernels take minutes on the CPU shim,
    and the same kernel paths round-trip in smaller tests (the report lists them as not covered)."""
    if not os.environ.get("ASC_ROUNDTRIP") or not request.node.get_closest_marker("timing_only"):
        yield
        return
    with roundtrip.paused("a timing_only test: its kernel paths round-trip in smaller tests"):
        yield


@pytest.fixture(autouse=True)
def model_backend():
    """Every test runs on the Model backend, Ascend910B1, unless it changes it."""
    config.set_platform(config.Backend.Model, config.Platform.Ascend910B1)
    yield
    config.set_platform(config.Backend.Model, config.Platform.Ascend910B1)


@pytest.fixture
def rng():
    return np.random.default_rng(seed=20261130)


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "timing_only: checks the Model's clock only on full-size kernels whose paths "
        "smaller tests cover; left out of the sanitizer run and of the round trip's CPU runs",
    )
    # A correct kernel gets no synccheck warning: any that appears fails the test
    # (tests that expect one use pytest.warns or catch_warnings).
    config.addinivalue_line("filterwarnings", "error::asc.errors.SyncWarning")
    config.addinivalue_line("filterwarnings", "error::asc.errors.AlignmentWarning")


def pytest_collection_modifyitems(config, items):
    """ASC_TEST_SAMPLE=n (the sanitizer builds' run, scripts/hardening.sh): of each parametrised test, its first
    case and every n-th after it; the numeric families' generated cases stay covered in kind, at a fraction of
    the time an instrumented library takes. Tests marked timing_only (the calibration against boards: full-size
    kernels whose paths smaller tests cover) are left out of that run."""
    every = int(os.environ.get("ASC_TEST_SAMPLE", "0") or 0)
    if every <= 1:
        return
    seen: dict[str, int] = {}
    kept, dropped = [], []
    for item in items:
        if item.get_closest_marker("timing_only"):  # the clock's figures do not depend on the instrumentation
            dropped.append(item)
            continue
        if getattr(item, "callspec", None) is None:
            kept.append(item)
            continue
        key = f"{item.path}::{item.originalname}"
        n = seen.get(key, 0)
        seen[key] = n + 1
        (kept if n % every == 0 else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
