"""Contractions with a batch counter (a counter in both operands and the output) and float16 outputs: one cube
launch runs every product, each on its share of the cube cores, against numpy's einsum; what the cube cannot
write falls back to scalar code with the warning."""

import warnings

import numpy as np
import pytest

import pyasc


@pyasc.operator("BatchMatmul")
def bmm(a, b, c):
    B, M, K = a.shape
    N = b.shape[2]
    c.resize((B, M, N))
    for p in range(B):
        for m in range(M):
            for n in range(N):
                s = 0
                for k in range(K):
                    s += a[p, m, k] * b[p, k, n]
                c[p, m, n] = s


@pyasc.operator("BatchMatmulShuffled")
def bmm_shuffled(a, b, c):  # the batch counter in the middle of the output and last in b
    B, M, K = a.shape
    N = b.shape[1]
    for m in range(M):
        for p in range(B):
            for n in range(N):
                s = 0
                for k in range(K):
                    s += a[p, m, k] * b[k, n, p]
                c[m, p, n] = s


@pyasc.operator("TwoBatchCounters")
def two_batches(a, b, c):  # a batch of batches: heads x groups
    G, H, M, K = a.shape
    N = b.shape[3]
    for g in range(G):
        for h in range(H):
            for m in range(M):
                for n in range(N):
                    s = 0
                    for k in range(K):
                        s += a[g, h, m, k] * b[g, h, k, n]
                    c[g, h, m, n] = s


@pyasc.operator("BatchMatmulAdded")
def bmm_added(a, b, c):  # no zero fill: each product added to what c holds
    B, M, K = a.shape
    N = b.shape[2]
    for p in range(B):
        for m in range(M):
            for n in range(N):
                s = 0
                for k in range(K):
                    s += a[p, m, k] * b[p, k, n]
                c[p, m, n] += s


def slow_warnings(call):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        call()
    return [str(w.message) for w in record if issubclass(w.category, pyasc.SlowLoopWarning)]


TOLERANCE = {np.float32: 1e-5, np.float16: 2e-3}


@pytest.mark.parametrize("dtype,out_dtype", [(np.float32, np.float32), (np.float16, np.float32),
                                             (np.float16, np.float16)])  # fmt: skip
@pytest.mark.parametrize("batch,m,k,n", [(3, 20, 37, 50), (4, 64, 32, 48), (1, 16, 16, 16), (7, 5, 130, 3)])
def test_a_batch_of_products_runs_on_the_cube(dtype, out_dtype, batch, m, k, n, rng):
    a = rng.uniform(-1, 1, (batch, m, k)).astype(dtype)
    b = rng.uniform(-1, 1, (batch, k, n)).astype(dtype)
    c = np.zeros((batch, m, n), out_dtype)
    (step,) = bmm.explain(a, b, c)
    assert "on the cube" in step and (batch == 1 or f"{batch} products of" in step)
    assert not slow_warnings(lambda: bmm(a, b, c))
    want = np.einsum("pmk,pkn->pmn", a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(c, want, rtol=TOLERANCE[out_dtype], atol=TOLERANCE[out_dtype] * k**0.5)


def test_aligned_products_use_the_callers_arrays_without_gathers(rng):
    a = rng.uniform(-1, 1, (4, 64, 32)).astype(np.float16)
    b = rng.uniform(-1, 1, (4, 32, 48)).astype(np.float16)
    c = np.zeros((4, 64, 48), np.float32)
    (step,) = bmm.explain(a, b, c)
    assert "gathering" not in step and "scattering" not in step
    bmm(a, b, c)
    np.testing.assert_allclose(c, np.einsum("pmk,pkn->pmn", a.astype(np.float64), b.astype(np.float64)), atol=1e-4)


def test_the_batch_counter_anywhere_in_the_indices(rng):
    a = rng.uniform(-1, 1, (3, 20, 37)).astype(np.float32)
    b = rng.uniform(-1, 1, (37, 50, 3)).astype(np.float32)
    c = np.full((20, 3, 50), np.nan, np.float32)
    assert "3 products of" in bmm_shuffled.explain(a, b, c)[0]
    bmm_shuffled(a, b, c)
    np.testing.assert_allclose(c, np.einsum("pmk,knp->mpn", a, b), rtol=1e-5, atol=1e-5)


def test_two_batch_counters_make_their_product_of_products(rng):
    a = rng.uniform(-1, 1, (2, 3, 16, 24)).astype(np.float16)
    b = rng.uniform(-1, 1, (2, 3, 24, 8)).astype(np.float16)
    c = np.zeros((2, 3, 16, 8), np.float32)
    assert "6 products of" in two_batches.explain(a, b, c)[0]
    two_batches(a, b, c)
    np.testing.assert_allclose(c, np.einsum("ghmk,ghkn->ghmn", a.astype(np.float64), b.astype(np.float64)), atol=1e-4)


def test_products_added_to_the_output(rng):
    a = rng.uniform(-1, 1, (3, 20, 30)).astype(np.float32)
    b = rng.uniform(-1, 1, (3, 30, 10)).astype(np.float32)
    c = rng.uniform(-1, 1, (3, 20, 10)).astype(np.float32)
    want = c + np.einsum("pmk,pkn->pmn", a, b)
    assert "on the cube" in bmm_added.explain(a, b, c)[0]
    bmm_added(a, b, c)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype,out_dtype,why", [
    (np.float32, np.float16, "float16 output of float32"),
    (np.int32, np.int32, "two float16, two float32 or two int8"),
    (np.int8, np.float32, "the cube writes int32 from them"),
])  # fmt: skip
def test_what_the_cube_cannot_write_runs_as_scalar_code_and_says_why(dtype, out_dtype, why, rng):
    a = rng.integers(-3, 4, (2, 4, 5)).astype(dtype)
    b = rng.integers(-3, 4, (2, 5, 3)).astype(dtype)
    c = np.zeros((2, 4, 3), out_dtype)
    (message,) = slow_warnings(lambda: bmm(a, b, c))
    assert why in message
    want = np.einsum("pmk,pkn->pmn", a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(c, want, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("batch,m,k,n", [(2, 20, 37, 50), (3, 64, 64, 48), (1, 16, 48, 16)])
def test_int8_operands_into_int32_exactly(batch, m, k, n, rng):
    a = rng.integers(-128, 128, (batch, m, k)).astype(np.int8)
    b = rng.integers(-128, 128, (batch, k, n)).astype(np.int8)
    c = np.zeros((batch, m, n), np.int32)
    assert "on the cube" in bmm.explain(a, b, c)[0]
    assert not slow_warnings(lambda: bmm(a, b, c))
    np.testing.assert_array_equal(c, np.einsum("pmk,pkn->pmn", a.astype(np.int64), b.astype(np.int64)))
    before = rng.integers(-(2**20), 2**20, c.shape).astype(np.int32)
    added = before.copy()
    assert not slow_warnings(lambda: bmm_added(a, b, added))
    np.testing.assert_array_equal(added, before + np.einsum("pmk,pkn->pmn", a.astype(np.int64), b.astype(np.int64)))


def test_a_float16_output_added_to_runs_as_scalar_code(rng):
    a = rng.uniform(-1, 1, (2, 4, 5)).astype(np.float16)
    b = rng.uniform(-1, 1, (2, 5, 3)).astype(np.float16)
    c = np.ones((2, 4, 3), np.float16)
    (message,) = slow_warnings(lambda: bmm_added(a, b, c))
    assert "float16 output" in message
    want = 1 + np.einsum("pmk,pkn->pmn", a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(c, want, rtol=5e-3, atol=5e-3)
