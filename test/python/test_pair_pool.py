"""2 x 2 pooling at stride 2 without padding (the tutorial's max_pool2d) on the structured path: strided DMAs of
row pairs, vector folds and GatherMask's even / odd patterns, no index table (pyasc.steps.PairPoolStep,
kernels.pool_pairs), against numpy; every other window shape keeps the gather path."""

import numpy as np
import pyasc_ops as ops
import pytest

import pyasc

STRUCTURED = "2 x 2 at stride 2"


def pool_2x2(x, use_max=True):
    *lead, h, w = x.shape
    windows = x[..., : h // 2 * 2, : w // 2 * 2].reshape(*lead, h // 2, 2, w // 2, 2)
    return windows.max(axis=(-3, -1)) if use_max else windows.sum(axis=(-3, -1), dtype=np.float64)


@pyasc.operator("SumPool2x2")
def sum_pool(x, out):
    N, C, H, W = x.shape
    out.resize((N, C, H // 2, W // 2))
    for n in range(N):
        for c in range(C):
            for oh in range(H // 2):
                for ow in range(W // 2):
                    s = 0
                    for kw in range(2):  # the window's counters in the other order
                        for kh in range(2):
                            s += x[n, c, 2 * oh + kh, 2 * ow + kw]
                    out[n, c, oh, ow] = s


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize(
    "shape",
    [(1, 64, 224, 224), (2, 3, 7, 10), (1, 1, 2, 2), (1, 5, 130, 9), (3, 2, 200, 300), (1, 1, 3, 2050)],
)
def test_max_pool_matches_numpy(shape, dtype, rng):
    x = rng.standard_normal(shape).astype(dtype)
    assert STRUCTURED in ops.max_pool2d.explain(x, kernel_size=2, stride=2, padding=0)[0]
    out = ops.max_pool2d(x, kernel_size=2, stride=2, padding=0)
    np.testing.assert_array_equal(out, pool_2x2(x))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_sum_pool_in_either_counter_order(dtype, rng):
    x = rng.standard_normal((2, 3, 10, 34)).astype(dtype)
    assert STRUCTURED in sum_pool.explain(x)[0]
    out = sum_pool(x)
    tolerance = 1e-6 if dtype == np.float32 else 2e-3
    np.testing.assert_allclose(out, pool_2x2(x, use_max=False), rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("k,stride,padding", [(2, 2, 1), (3, 2, 0), (2, 1, 0)])
def test_other_windows_keep_the_gather_path(k, stride, padding, rng):
    x = rng.standard_normal((1, 2, 9, 12)).astype(np.float32)
    (step,) = ops.max_pool2d.explain(x, kernel_size=k, stride=stride, padding=padding)
    assert "window max" in step and STRUCTURED not in step


def test_a_max_from_another_initial_value_keeps_the_gather_path(rng):
    x = rng.standard_normal((3, 30)).astype(np.float32)
    (step,) = ops.relu_max_pool.explain(x, k=3)
    assert STRUCTURED not in step
