"""Reductions against numpy references that follow the documented order:
a binary tree of neighbours within each 256-byte repeat, repeats in order."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt

N = 4096


def tree_sum(values):
    v = [np.float32(x) for x in values]
    if not v:
        return np.float32(0)
    while len(v) > 1:
        v = [v[i] + v[i + 1] if i + 1 < len(v) else v[i] for i in range(0, len(v), 2)]
    return v[0]


def reduce_sum_ref(x, count):
    per_repeat = 256 // x.itemsize
    total = np.float32(0)
    for start in range(0, count, per_repeat):
        total = np.float32(total + tree_sum(x[start : min(count, start + per_repeat)].astype(np.float32)))
    return total


@asc.jit
def reduce_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, count: int, OP: asc.ConstExpr[str],
                  INDEX: asc.ConstExpr[bool]):  # fmt: skip
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, N)
    z_gm.set_global_buffer(z)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, N)
    tmp = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, 16384, N)
    c = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 32768, 32 // x.dtype.sizeof())
    asc.data_copy(a, x_gm, N)
    asc.duplicate(c, 0.0, 32 // x.dtype.sizeof())  # the whole block goes out, not just the results
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if OP == "sum":
        asc.reduce_sum(c, a, tmp, count)
    elif OP == "max":
        asc.reduce_max(c, a, tmp, count, INDEX)
    else:
        asc.reduce_min(c, a, tmp, count, cal_index=INDEX)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, c, 32 // x.dtype.sizeof())


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("count", [1, 7, 64, 200, 4096])
def test_reduce_sum(dtype, count, rng):
    x = rng.uniform(-4, 4, N).astype(dtype)
    z = np.zeros(32 // x.itemsize, dtype)
    reduce_kernel[1, rt.current_stream()](x, z, count, "sum", False)
    assert z[0] == np.asarray(reduce_sum_ref(x, count)).astype(dtype)


@pytest.mark.parametrize("dtype,index_type", [(np.float32, np.uint32), (np.float16, np.uint16)])
@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("count", [1, 100, 4096])
def test_reduce_max_min_with_index(dtype, index_type, op, count, rng):
    x = rng.integers(-50, 50, N).astype(dtype)  # repeated values: the first index must win
    z = np.zeros(32 // x.itemsize, dtype)
    reduce_kernel[1, rt.current_stream()](x, z, count, op, True)
    pick = np.argmax if op == "max" else np.argmin
    i = pick(x[:count])
    assert z[0] == x[i]
    assert z[1:2].view(index_type)[0] == i


@asc.jit
def whole_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, mask0: int, mask1: int, repeats: int, dst_rep: int,
                 src_rep: int, OP: asc.ConstExpr[str], BITS: asc.ConstExpr[bool],
                 ORDER: asc.ConstExpr[int]):  # fmt: skip
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, N)
    z_gm.set_global_buffer(z, N)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, N)
    c = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 16384, N)
    asc.data_copy(a, x_gm, N)
    asc.data_copy(c, z_gm, N)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    mask = [mask0, mask1] if BITS else mask0
    if OP == "sum":
        asc.whole_reduce_sum(c, a, mask, repeats, dst_rep, 1, src_rep)
    elif OP == "max":
        asc.whole_reduce_max(c, a, mask, repeats, dst_rep, 1, src_rep, order=asc.ReduceOrder(ORDER))
    else:
        asc.whole_reduce_min(c, a, mask, repeats, dst_rep, 1, src_rep, order=asc.ReduceOrder(ORDER))
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, c, N)


OP_ORDERS = [("sum", 0)] + [(op, order) for op in ("max", "min") for order in range(4)]  # order: max/min only


@pytest.mark.parametrize("dtype,index_type", [(np.float32, np.uint32), (np.float16, np.uint16)])
@pytest.mark.parametrize("op,order", OP_ORDERS)
@pytest.mark.parametrize("bits", [False, True])
def test_whole_reduce(dtype, index_type, op, order, bits, rng):
    per_repeat = 256 // np.dtype(dtype).itemsize
    repeats, dst_rep, src_rep = 6, 3, 8
    x = rng.integers(-30, 30, N).astype(dtype)
    sentinel = np.full(N, 7, dtype)
    z = sentinel.copy()
    if bits:
        on = rng.random(per_repeat) < 0.5
        words = [sum(1 << i for i in range(64) if i + base < per_repeat and on[i + base]) for base in (0, 64)]
        mask0, mask1 = (w - 2**64 if w >= 2**63 else w for w in words)
    else:
        m = int(rng.integers(1, per_repeat))
        on = np.arange(per_repeat) < m
        mask0, mask1 = m, 0
    whole_kernel[1, rt.current_stream()](x, z, mask0, mask1, repeats, dst_rep, src_rep, op, bits, order)
    unit = 1 if op == "sum" or order == 2 else (2 if order in (0, 1) else 4 // np.dtype(dtype).itemsize)
    want = sentinel.copy()
    for r in range(repeats):
        lanes = x[r * per_repeat : (r + 1) * per_repeat]
        out = r * dst_rep * unit
        if op == "sum":
            want[out] = np.asarray(tree_sum(np.where(on, lanes, 0).astype(np.float32))).astype(dtype)
            continue
        idx = np.flatnonzero(on)
        pick = idx[np.argmax(lanes[idx])] if op == "max" else idx[np.argmin(lanes[idx])]
        value, index = lanes[pick], index_type(pick)
        if order == 0:
            want[out], want[out + 1 : out + 2] = value, np.array([index]).view(dtype)
        elif order == 1:
            want[out : out + 1], want[out + 1] = np.array([index]).view(dtype), value
        elif order == 2:
            want[out] = value
        else:
            want[out : out + unit] = np.array([pick], np.uint32).view(dtype)
    np.testing.assert_array_equal(z.view(index_type), want.view(index_type))


@asc.jit
def grouped_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, mask: int, repeats: int, dst_rep: int,
                   OP: asc.ConstExpr[str]):  # fmt: skip
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, N)
    z_gm.set_global_buffer(z, N)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, N)
    c = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 16384, N)
    asc.data_copy(a, x_gm, N)
    asc.data_copy(c, z_gm, N)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if OP == "block_sum":
        asc.block_reduce_sum(c, a, repeats, mask, dst_rep, 1, 8)
    elif OP == "block_max":
        asc.block_reduce_max(c, a, repeats, mask, dst_rep, 1, 8)
    elif OP == "block_min":
        asc.block_reduce_min(c, a, repeats, mask, dst_rep, 1, 8)
    elif OP == "pair_sum":
        asc.pair_reduce_sum(c, a, repeats, mask, dst_rep, 1, 8)
    else:
        asc.repeat_reduce_sum(c, a, repeats, mask, 1, 1, dst_rep, 8)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, c, N)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("op", ["block_sum", "block_max", "block_min", "pair_sum", "repeat_sum"])
@pytest.mark.parametrize("mask_kind", ["full", "partial"])
def test_grouped_reductions(dtype, op, mask_kind, rng):
    size = np.dtype(dtype).itemsize
    per_repeat, per_block = 256 // size, 32 // size
    mask = per_repeat if mask_kind == "full" else int(rng.integers(1, per_repeat))
    repeats, dst_rep = 5, 2
    x = rng.integers(-20, 20, N).astype(dtype)
    z = np.full(N, 99, dtype)
    grouped_kernel[1, rt.current_stream()](x, z, mask, repeats, dst_rep, op)
    want = np.full(N, 99, dtype)
    group = {"pair_sum": 2, "repeat_sum": per_repeat}.get(op, per_block)
    unit = {"pair_sum": 128 // size, "repeat_sum": 1}.get(op, 8)
    for r in range(repeats):
        lanes = x[r * per_repeat : (r + 1) * per_repeat]
        for g in range(per_repeat // group):
            idx = [i for i in range(g * group, (g + 1) * group) if i < mask]
            if not idx:
                continue
            vals = lanes[idx].astype(np.float32)
            value = vals.max() if op == "block_max" else vals.min() if op == "block_min" else tree_sum(vals)
            want[r * dst_rep * unit + g] = dtype(value)
    np.testing.assert_array_equal(z, want)
