"""The fixed kernels that recognised loop nests run on: a gather through an index table (the data
movement of im2col, transposes and window extraction), a matmul on the cube, and a row reduction on
the vector unit. Written once here with asc and asc2; specialised by dtype when launched."""

from __future__ import annotations

import functools

import numpy as np

import asc
import asc.lib.host as host
import asc2

# table entries that are not an element index
FILL = -1  # the destination element becomes the fill value (outside the guard, or padding)
SKIP = -2  # the destination element keeps its value (not written by the loop nest)


@asc.jit
def gather(dst: asc.GlobalAddress, src: asc.GlobalAddress, table: asc.GlobalAddress, n: int,
           fill: asc.ConstExpr[float], accumulate: asc.ConstExpr[bool]):  # fmt: skip
    """dst[i] = src[table[i]] (dst[i] += ... with accumulate), fill where table[i] is FILL, unchanged where
    it is SKIP. Each core takes a contiguous range of dst, so no two cores write one element."""
    dst_gm, src_gm, table_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    dst_gm.set_global_buffer(dst)
    src_gm.set_global_buffer(src)
    table_gm.set_global_buffer(table)
    per_core = (n + asc.get_block_num() - 1) // asc.get_block_num()
    start = asc.get_block_idx() * per_core
    for i in range(start, min(start + per_core, n)):
        at = table_gm.get_value(i)
        if at >= 0:
            if accumulate:
                dst_gm.set_value(i, dst_gm.get_value(i) + src_gm.get_value(at))
            else:
                dst_gm.set_value(i, src_gm.get_value(at))
        elif at == -1:
            dst_gm.set_value(i, fill)


@asc2.jit
def gather_windows(dst: asc.GlobalAddress, src: asc.GlobalAddress, offsets: asc.GlobalAddress,
                   starts: asc.GlobalAddress, n: int, src_n: int, tiles: int, fill: asc.ConstExpr[float],
                   accumulate: asc.ConstExpr[bool], keeps: asc.ConstExpr[bool], tile: asc.ConstExpr[int],
                   window: asc.ConstExpr[int], windows: asc.ConstExpr[int]):  # fmt: skip
    """gather's result on the vector unit (pyasc.gather_plan): per tile of `tile` elements, its source windows
    (starts[t, w], -1 unused) copied into one buffer after another, then the fill block and (keeps) the old
    destination tile, and one Gather by the byte offsets. Each core takes every block_num-th tile."""
    dst_gm, src_gm = asc.GlobalTensor(), asc.GlobalTensor()
    offsets_gm, starts_gm = asc.GlobalTensor(), asc.GlobalTensor()
    dst_gm.set_global_buffer(dst)
    src_gm.set_global_buffer(src)
    offsets_gm.set_global_buffer(offsets)
    starts_gm.set_global_buffer(starts)
    size = dst.dtype.sizeof()
    block = 32 // size
    buffer = asc.LocalTensorAuto(dst.dtype, windows * window + block + (tile if keeps else 0))
    picks = asc.LocalTensorAuto(asc.uint32, tile)
    out = asc.LocalTensorAuto(dst.dtype, tile)
    asc.duplicate(buffer[windows * window :], 0.0 if accumulate else fill, block)  # accumulate: SKIP adds 0
    for t in range(asc.get_block_idx(), tiles, asc.get_block_num()):
        for w in asc.static_range(windows):
            start = starts_gm.get_value(t * windows + w)
            if start >= 0:
                count = min(window, src_n - start)
                asc.data_copy_pad(buffer[w * window :], src_gm[start:], asc.DataCopyExtParams(1, count * size, 0, 0))
        asc.data_copy(picks, offsets_gm[t * tile :], tile)
        length = min(tile, n - t * tile)
        if keeps:
            asc.data_copy_pad(buffer[windows * window + block :], dst_gm[t * tile :],
                              asc.DataCopyExtParams(1, length * size, 0, 0))  # fmt: skip
        asc.gather(out, buffer, picks, 0, tile)
        if accumulate:
            old = asc.LocalTensorAuto(dst.dtype, tile)
            asc.data_copy_pad(old, dst_gm[t * tile :], asc.DataCopyExtParams(1, length * size, 0, 0))
            asc.add(out, out, old, length)
        asc.data_copy_pad(dst_gm[t * tile :], out, asc.DataCopyExtParams(1, length * size, 0, 0))


@asc.jit(matmul_cube_only=True)
def matmul(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
           workspace: asc.GlobalAddress, b_transposed: asc.ConstExpr[bool] = False):  # fmt: skip
    """c[M, N] = a[M, K] @ b[K, N], row-major (b stored as b^T, [N, K], with b_transposed); each core one
    (single_core_m x single_core_n) block of c."""
    m_blocks = tiling.m.ceildiv(tiling.single_core_m)
    mi = asc.get_block_idx() % m_blocks
    ni = asc.get_block_idx() // m_blocks
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a + mi * tiling.single_core_m * tiling.k_a)
    if b_transposed:  # N rows of K
        b_gm.set_global_buffer(b + ni * tiling.single_core_n * tiling.k_b)
    else:
        b_gm.set_global_buffer(b + ni * tiling.single_core_n)
    c_gm.set_global_buffer(c + mi * tiling.single_core_m * tiling.n + ni * tiling.single_core_n)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b.dtype, b_transposed),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c.dtype))  # fmt: skip
    asc.adv.register_matmul(asc.TPipe(), workspace, mm, tiling)
    mm.set_tensor_a(a_gm)
    mm.set_tensor_b(b_gm)
    mm.set_tail(min(tiling.single_core_m, tiling.m - mi * tiling.single_core_m),
                min(tiling.single_core_n, tiling.n - ni * tiling.single_core_n))  # fmt: skip
    mm.iterate_all(c_gm)
    mm.end()


@asc2.jit
def reduce_rows(src_ptr: asc.GlobalAddress, dst_ptr: asc.GlobalAddress, cols: int, rows: asc.ConstExpr[int],
                tile: asc.ConstExpr[int], use_max: asc.ConstExpr[bool]):  # fmt: skip
    """dst[c] = max (or sum) over r of src[r, c]; each core takes every block_num-th tile of columns."""
    src, dst = asc2.tensor(src_ptr, [rows, cols]), asc2.tensor(dst_ptr, [1, cols])
    for c0 in range(asc2.block_idx() * tile, cols, asc2.block_num() * tile):
        acc = asc2.load(src, [1, tile], offsets=[0, c0])
        for r in range(1, rows):
            if use_max:
                acc = asc2.maximum(acc, asc2.load(src, [1, tile], offsets=[r, c0]))
            else:
                acc = acc + asc2.load(src, [1, tile], offsets=[r, c0])
        asc2.store(acc, dst, offsets=[0, c0])


@asc2.jit
def reduce_blocks(src: asc.GlobalAddress, dst: asc.GlobalAddress, n: int, use_max: asc.ConstExpr[bool],
                  tile: asc.ConstExpr[int]):  # fmt: skip
    """dst[i] = max (or sum) of the 32-byte block i of src: BlockReduceMax / BlockReduceSum, eight blocks a
    repeat, `tile` blocks a step; each core takes every block_num-th step."""
    size = src.dtype.sizeof()
    per_block = 32 // size
    src_gm, dst_gm = asc.GlobalTensor(), asc.GlobalTensor()
    src_gm.set_global_buffer(src)
    dst_gm.set_global_buffer(dst)
    blocks = asc.LocalTensorAuto(src.dtype, tile * per_block)
    out = asc.LocalTensorAuto(src.dtype, tile)
    asc.duplicate(out, 0.0, tile)  # a last step's results end inside a 32-byte block the copy out reads whole
    for t in range(asc.get_block_idx(), (n + tile - 1) // tile, asc.get_block_num()):
        count = min(tile, n - t * tile)
        asc.data_copy(blocks, src_gm[t * tile * per_block :], count * per_block)
        whole, tail = count // 8, count % 8
        reduce = asc.block_reduce_max if use_max else asc.block_reduce_sum
        if whole > 0:
            reduce(out, blocks, whole, 8 * per_block, 1, 1, 8)
        if tail > 0:  # the last repeat's first `tail` blocks: a mask of their elements
            reduce(out[whole * 8 :], blocks[whole * 8 * per_block :], 1, tail * per_block, 1, 1, 8)
        asc.data_copy_pad(dst_gm[t * tile :], out, asc.DataCopyExtParams(1, count * size, 0, 0))


_HOST_DTYPES = {np.dtype(np.float16): host.DataType.DT_FLOAT16, np.dtype(np.float32): host.DataType.DT_FLOAT}
MATMUL_WORKSPACE = 16 * 1024 * 1024
TILE = 2048  # elements per vector tile: a few arrays, double-buffered, fit the Unified Buffer
BLOCK_TILE = 1024  # blocks per reduce_blocks step: 128 repeats of eight (the repeat count is 8-bit)
GATHER_PER_CORE = 4096  # elements a gather core takes at the least


@functools.lru_cache(maxsize=64)
def matmul_tiling(m: int, n: int, k: int, dtype: np.dtype, b_transposed: bool = False) -> asc.adv.TCubeTiling:
    platform = host.get_ascendc_platform()
    api = host.MultiCoreMatmulTiling(platform)
    api.set_a_type(host.TPosition.GM, host.CubeFormat.ND, _HOST_DTYPES[np.dtype(dtype)], False)
    api.set_b_type(host.TPosition.GM, host.CubeFormat.ND, _HOST_DTYPES[np.dtype(dtype)], b_transposed)
    api.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    api.set_dim(platform.get_core_num_aic())
    api.set_shape(m, n, k)
    api.set_org_shape(m, n, k)
    tiling = asc.adv.TCubeTiling()
    if api.get_tiling(tiling) != 0:
        raise RuntimeError(f"no matmul tiling fits {m} x {n} x {k}")
    return tiling


def vector_cores() -> int:
    return host.get_ascendc_platform().get_core_num_aiv()


def cores_for(parts: int) -> int:
    """Cores for a launch of `parts` independent parts: one each, up to every vector core."""
    return max(1, min(vector_cores(), parts))
