"""asctile's cv_strategy against numpy: inside the context a matmul's product copied into the Unified Buffer is
split over the two vector sub-blocks while the code keeps its whole shape (asc2/halves.py). Cases: pyasc-dev's
two documented examples (SplitByM: the product plus a whole addend, reduced, expanded and broadcast, stored;
SplitByN: used inside and after the context, joined into L1 for a second matmul); whole operands that broadcast
along the split axis or contribute their halves; softmax, reshape, ravel and squeeze; several blocks; and the
errors (a reduction over the split axis, an operation not split, the wrong option or split)."""

import numpy as np
import pytest

import asc.experimental.asctile as asctile
import asc.runtime.config as config
from asc.errors import CodegenError

D = asctile.DistribMode
UB, L0A, L0B, L1 = (asctile.TensorLocation.UB, asctile.TensorLocation.L0A, asctile.TensorLocation.L0B,
                    asctile.TensorLocation.L1)  # fmt: skip


@pytest.fixture(autouse=True)
def ascend_950():
    config.set_platform(config.Backend.Model, config.Platform.Ascend950PR_9599)
    yield
    config.set_platform(config.Backend.Model, config.Platform.Ascend910B1)


def product(a, b):
    return a.astype(np.float32) @ b.astype(np.float32)


@asctile.jit(cv_ratio=2)
def reduced_rows(a_ptr, b_ptr, add_ptr, out_ptr, M: asctile.ConstExpr[int], K: asctile.ConstExpr[int],
                 N: asctile.ConstExpr[int]):  # fmt: skip
    """pyasc-dev's first example, per block: out = broadcast(sum((A B + addend) * 3, 1)) to [M, 128]."""
    i = asctile.block_idx()
    a = asctile.copy_in(asctile.global_tensor(a_ptr, [M * asctile.block_num(), K]), [i * M, 0], [M, K], L0A)
    b = asctile.copy_in(asctile.global_tensor(b_ptr, [K, N]), [0, 0], [K, N], L0B)
    addend = asctile.copy_in(asctile.global_tensor(add_ptr, [M * asctile.block_num(), N]), [i * M, 0], [M, N])
    with asctile.cv_strategy(D.SplitByM):
        mm = asctile.copy(asctile.matmul(a, b), location="UB")
        elwise = (mm + addend) * 3
        red = elwise.sum(1)
        rs = red.expand_dims(1)
        br = rs.broadcast_to(M, 128)
        asctile.copy_out(br, asctile.global_tensor(out_ptr, [M * asctile.block_num(), 128]), [i * M, 0])


@pytest.mark.parametrize("blocks", [1, 3])
def test_a_split_product_reduced_and_broadcast_as_whole_shapes(blocks, rng):
    M, K, N = 32, 32, 64
    a = rng.uniform(-1, 1, (blocks * M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    add = rng.uniform(-1, 1, (blocks * M, N)).astype(np.float32)
    out = np.zeros((blocks * M, 128), np.float32)
    reduced_rows[blocks](a, b, add, out, M, K, N)
    want = ((product(a, b) + add) * 3).sum(1, keepdims=True) * np.ones((1, 128), np.float32)
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-3)


@asctile.jit(cv_ratio=2)
def used_after(a_ptr, b_ptr, w_ptr, out_ptr, out2_ptr, M: asctile.ConstExpr[int], K: asctile.ConstExpr[int],
               N: asctile.ConstExpr[int]):  # fmt: skip
    """pyasc-dev's second example: C = 3 A B split by N, stored, and after the context joined into L1 (as
    float16) for out2 = C W."""
    a = asctile.copy_in(asctile.global_tensor(a_ptr, [M, K]), [0, 0], [M, K], L0A)
    b = asctile.copy_in(asctile.global_tensor(b_ptr, [K, N]), [0, 0], [K, N], L0B)
    with asctile.cv_strategy(D.SplitByN):
        c_l0 = asctile.matmul(a, b)
        c_ub = c_l0.to("UB") * 3.0
        asctile.copy_out(c_ub, asctile.global_tensor(out_ptr, [M, N]), [0, 0])
    c_l1 = asctile.copy(c_ub.to(asctile.float16), location=L1)
    w = asctile.copy_in(asctile.global_tensor(w_ptr, [N, 32]), [0, 0], [N, 32], L0B)
    acc = asctile.matmul(asctile.copy(c_l1, location="L0A"), w)
    asctile.copy_out(acc, asctile.global_tensor(out2_ptr, [M, 32]), [0, 0])


def test_halves_used_after_the_context_join_in_l1(rng):
    M, K, N = 32, 32, 64
    a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    w = rng.uniform(-1, 1, (N, 32)).astype(np.float16)
    out, out2 = np.zeros((M, N), np.float32), np.zeros((M, 32), np.float32)
    used_after[1](a, b, w, out, out2, M, K, N)
    c = product(a, b) * 3
    np.testing.assert_allclose(out, c, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out2, product(c.astype(np.float16), w), rtol=1e-3, atol=1e-3)


@asctile.jit(cv_ratio=2)
def with_operands(a_ptr, b_ptr, row_ptr, col_ptr, out_ptr, M: asctile.ConstExpr[int], K: asctile.ConstExpr[int],
                  N: asctile.ConstExpr[int], SPLIT: asctile.ConstExpr[int]):  # fmt: skip
    """out = softmax(A B * row + col) over each row (SPLIT 2, by M) or A B * row + col (SPLIT 3, by N): a [1, N]
    row and an [M, 1] column, one of them reaching the split axis with its whole size."""
    a = asctile.copy_in(asctile.global_tensor(a_ptr, [M, K]), [0, 0], [M, K], L0A)
    b = asctile.copy_in(asctile.global_tensor(b_ptr, [K, N]), [0, 0], [K, N], L0B)
    row = asctile.copy_in(asctile.global_tensor(row_ptr, [1, N]), [0, 0], [1, N])
    col = asctile.copy_in(asctile.global_tensor(col_ptr, [M]), [0], [M]).expand_dims(1)
    with asctile.cv_strategy(D(SPLIT)):
        y = asctile.copy(asctile.matmul(a, b), location="UB") * row + col
        if SPLIT == 2:
            y = asctile.softmax(y)
        asctile.copy_out(y, asctile.global_tensor(out_ptr, [M, N]), [0, 0])


@pytest.mark.parametrize("split", [D.SplitByM, D.SplitByN])
def test_whole_operands_broadcast_or_give_their_halves(split, rng):
    M, K, N = 32, 32, 64
    a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    row = rng.uniform(-1, 1, (1, N)).astype(np.float32)
    col = rng.uniform(-1, 1, M).astype(np.float32)
    out = np.zeros((M, N), np.float32)
    with_operands[1](a, b, row, col, out, M, K, N, int(split))
    y = product(a, b) * row + col[:, None]
    if split == D.SplitByM:
        e = np.exp(y - y.max(1, keepdims=True))
        y = e / e.sum(1, keepdims=True)
    np.testing.assert_allclose(out, y, rtol=1e-4, atol=1e-5)


@asctile.jit(cv_ratio=2)
def reshaped(a_ptr, b_ptr, out_ptr, M: asctile.ConstExpr[int], K: asctile.ConstExpr[int], N: asctile.ConstExpr[int]):
    """The row maxima of A B (split by M), made a column [M, 1] and squeezed back, as [M // 16, 16] (reshape)
    plus 1, raveled and stored as [M]."""
    a = asctile.copy_in(asctile.global_tensor(a_ptr, [M, K]), [0, 0], [M, K], L0A)
    b = asctile.copy_in(asctile.global_tensor(b_ptr, [K, N]), [0, 0], [K, N], L0B)
    with asctile.cv_strategy(D.SplitByM):
        m = asctile.copy(asctile.matmul(a, b), location="UB").max(1)  # [M]
        grid = m.expand_dims(1).squeeze(1).reshape(M // 16, 16) + 1.0
        asctile.copy_out(grid.ravel(), asctile.global_tensor(out_ptr, [M]), [0])


def test_reshape_ravel_and_squeeze_keep_the_split(rng):
    M, K, N = 64, 32, 32
    a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    out = np.zeros(M, np.float32)
    reshaped[1](a, b, out, M, K, N)
    np.testing.assert_allclose(out, product(a, b).max(1) + 1, rtol=1e-5, atol=1e-5)


@asctile.jit(cv_ratio=2)
def misuse(a_ptr, out_ptr, CASE: asctile.ConstExpr[int]):
    a = asctile.copy_in(asctile.global_tensor(a_ptr, [32, 32]), [0, 0], [32, 32], L0A)
    b = asctile.copy_in(asctile.global_tensor(a_ptr, [32, 32]), [0, 0], [32, 32], L0B)
    out = asctile.global_tensor(out_ptr, [32, 32])
    split = D.SplitByN if CASE in (1, 5) else D.SplitByM
    with asctile.cv_strategy(split if CASE != 3 else D.FullVec0):
        y = asctile.copy(asctile.matmul(a, b), location="UB")
        if CASE == 0:
            asctile.copy_out(y.sum(0, keep_dims=True).broadcast_to(32, 32), out, [0, 0])
        elif CASE == 1:
            asctile.copy_out(y.sum(1, keep_dims=True).broadcast_to(32, 32), out, [0, 0])
        elif CASE == 2:
            asctile.copy_out(asctile.transpose(y), out, [0, 0])
        elif CASE == 4:
            with asctile.cv_strategy(D.SplitByM):
                pass
        elif CASE == 5:
            asctile.copy_out(y.reshape(64, 16), asctile.global_tensor(out_ptr, [64, 16]), [0, 0])


@pytest.mark.parametrize("case,match", [
    (0, "reduces the axis its tile is split along \\(axis 0"),
    (1, "reduces the axis its tile is split along \\(axis 1"),
    (2, "asctile.transpose: not eligible for splitting over the vector sub-blocks"),
    (3, "splitting by axis must be requested, got FullVec0"),
    (4, "cv_strategy contexts do not nest"),
    (5, "\\[64, 16\\] changes the axis Tile\\(\\[32, 32\\], float32, halves by axis 1\\) is split along"),
])  # fmt: skip
def test_errors(case, match):
    a, out = np.zeros((32, 32), np.float16), np.zeros((32, 32), np.float32)
    with pytest.raises(CodegenError, match=match) as e:
        misuse[1](a, out, case)
    assert "test_cv_strategy.py" in str(e.value)


@asctile.jit
def one_sub_block(a_ptr):
    with asctile.cv_strategy(D.SplitByM):
        pass


def test_cv_strategy_needs_two_sub_blocks():
    with pytest.raises(CodegenError, match="needs two of them per cube core: compile with cv_ratio=2"):
        one_sub_block[1](np.zeros(16, np.float32))
