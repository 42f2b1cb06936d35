"""The fixed kernels that recognised loop nests run on: a gather through an index table (the data
movement of im2col, transposes and window extraction), a matmul on the cube, and a row reduction on
the vector unit. Written once here with asc and asc2; specialised by dtype when launched."""

from __future__ import annotations

import functools

import numpy as np

import asc
import asc.lib.host as host
import asc2
from asc.runtime.config import KernelType

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
    """c[p, M, N] = a[p, M, K] @ b[p, K, N] for each product p, row-major (b stored as b^T, [p, N, K], with
    b_transposed); each core one (single_core_m x single_core_n) block of one product: the launch has
    matmul_blocks(tiling) cores a product."""
    m_blocks = tiling.m.ceildiv(tiling.single_core_m)
    per_product = m_blocks * tiling.n.ceildiv(tiling.single_core_n)
    p = asc.get_block_idx() // per_product
    mi = asc.get_block_idx() % per_product % m_blocks
    ni = asc.get_block_idx() % per_product // m_blocks
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a + p * tiling.m * tiling.k_a + mi * tiling.single_core_m * tiling.k_a)
    if b_transposed:  # N rows of K
        b_gm.set_global_buffer(b + p * tiling.n * tiling.k_b + ni * tiling.single_core_n * tiling.k_b)
    else:
        b_gm.set_global_buffer(b + p * tiling.k_b * tiling.n + ni * tiling.single_core_n)
    c_gm.set_global_buffer(c + (p * tiling.m + mi * tiling.single_core_m) * tiling.n + ni * tiling.single_core_n)
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


@asc2.jit
def pool_pairs(src: asc.GlobalAddress, dst: asc.GlobalAddress, planes: int, out_h: int, h: int,
               width: asc.ConstExpr[int], use_max: asc.ConstExpr[bool], rows: asc.ConstExpr[int]):  # fmt: skip
    """2 x 2 pooling, stride 2, no padding, without an index table. A step takes `rows` output rows of one
    plane (h input rows of `width`, out_h output rows): one strided DMA brings their upper input rows and one
    their lower ones, a vector max (or add) folds the two, GatherMask's built-in patterns take the even and
    the odd columns of every row at once, one more max (or add) folds those, and one DMA writes the rows out.
    Each core takes every block_num-th step."""
    size = src.dtype.sizeof()
    out_w = width // 2
    row_bytes = (width * size + 31) // 32 * 32  # a row's room in UB after DataCopyPad
    stride = (width * size + 63) // 64 * 64 // size  # the rows' pitch in UB: half a row on a 32-byte block too
    folded_len = (rows * stride * size + 255) // 256 * 256 // size  # whole 256-byte repeats for GatherMask
    src_gm, dst_gm = asc.GlobalTensor(), asc.GlobalTensor()
    src_gm.set_global_buffer(src)
    dst_gm.set_global_buffer(dst)
    upper = asc.LocalTensorAuto(src.dtype, rows * stride)
    lower = asc.LocalTensorAuto(src.dtype, rows * stride)
    folded = asc.LocalTensorAuto(src.dtype, folded_len)
    even = asc.LocalTensorAuto(src.dtype, folded_len // 2)
    odd = asc.LocalTensorAuto(src.dtype, folded_len // 2)
    out = asc.LocalTensorAuto(src.dtype, rows * stride // 2)
    # the columns past each row, and the rows past a short step: defined once, never copied out
    asc.duplicate(upper, 0.0, rows * stride)
    asc.duplicate(lower, 0.0, rows * stride)
    asc.duplicate(folded, 0.0, folded_len)
    gap = (stride * size - row_bytes) // 32  # UB blocks between two rows
    half_gap = (stride * size // 2 - (out_w * size + 31) // 32 * 32) // 32
    steps_a_plane = (out_h + rows - 1) // rows
    fold = asc.max if use_max else asc.add
    for step in range(asc.get_block_idx(), planes * steps_a_plane, asc.get_block_num()):
        plane = step // steps_a_plane
        first = step % steps_a_plane * rows
        count = min(rows, out_h - first)
        at = (plane * h + 2 * first) * width
        fetch = asc.DataCopyExtParams(count, width * size, width * size, gap, 0)  # every other input row
        asc.data_copy_pad(upper, src_gm[at:], fetch)
        asc.data_copy_pad(lower, src_gm[at + width :], fetch)
        fold(folded, upper, lower, count * stride)
        repeats = (count * stride * size + 255) // 256
        asc.gather_mask(even, folded, 1, False, 0, asc.GatherMaskParams(1, repeats, 8, 0))
        asc.gather_mask(odd, folded, 2, False, 0, asc.GatherMaskParams(1, repeats, 8, 0))
        fold(out, even, odd, count * stride // 2)
        written = asc.DataCopyExtParams(count, out_w * size, half_gap, 0, 0)
        asc.data_copy_pad(dst_gm[(plane * out_h + first) * out_w :], out, written)


def pool_rows(width: int, itemsize: int) -> int:
    """Output rows a pool_pairs step takes: as many as keep each vector instruction within 32 KiB (128
    repeats) and the six buffers within the UB; 0 if one row is too wide."""
    stride = -(-width * itemsize // 64) * 64
    return min(64, (32 * 1024) // stride)


_HOST_DTYPES = {
    np.dtype(np.float16): host.DataType.DT_FLOAT16,
    np.dtype(np.float32): host.DataType.DT_FLOAT,
    np.dtype(np.int8): host.DataType.DT_INT8,
    np.dtype(np.int32): host.DataType.DT_INT32,
}
MATMUL_WORKSPACE = 16 * 1024 * 1024
TILE = 2048  # elements per vector tile: a few arrays, double-buffered, fit the Unified Buffer
BLOCK_TILE = 1024  # blocks per reduce_blocks step: 128 repeats of eight (the repeat count is 8-bit)
GATHER_PER_CORE = 4096  # elements a gather core takes at the least


def matmul_blocks(tiling: asc.adv.TCubeTiling) -> int:
    """The cores kernels.matmul takes for one product of this tiling."""
    return -(-tiling.m // tiling.single_core_m) * -(-tiling.n // tiling.single_core_n)


@functools.lru_cache(maxsize=64)
def matmul_tiling(m: int, n: int, k: int, dtype: np.dtype, b_transposed: bool = False, out: np.dtype = np.float32,
                  products: int = 1) -> asc.adv.TCubeTiling:  # fmt: skip
    """Huawei's multi-core tiling of one [m, k] @ [k, n] product with its share of the cube cores (`products`
    of them run at once in one launch)."""
    platform = host.get_ascendc_platform()
    api = host.MultiCoreMatmulTiling(platform)
    api.set_a_type(host.TPosition.GM, host.CubeFormat.ND, _HOST_DTYPES[np.dtype(dtype)], False)
    api.set_b_type(host.TPosition.GM, host.CubeFormat.ND, _HOST_DTYPES[np.dtype(dtype)], b_transposed)
    api.set_c_type(host.TPosition.GM, host.CubeFormat.ND, _HOST_DTYPES[np.dtype(out)])
    api.set_dim(max(1, platform.get_core_num_aic() // products))
    api.set_shape(m, n, k)
    api.set_org_shape(m, n, k)
    tiling = asc.adv.TCubeTiling()
    if api.get_tiling(tiling) != 0:
        raise RuntimeError(f"no matmul tiling fits {m} x {n} x {k}")
    return tiling


def vector_cores() -> int:
    return host.get_ascendc_platform().get_core_num_aiv()


def cube_cores() -> int:
    return host.get_ascendc_platform().get_core_num_aic()


def cores_for(parts: int) -> int:
    """Cores for a launch of `parts` independent parts: one each, up to every vector core."""
    return max(1, min(vector_cores(), parts))


# -- a convolution through the cube's img2col load (pyasc.conv) -----------------------------------------
# The layout kernels move tiles GM -> UB -> Gather -> GM with two of each tile buffer: the flags below let the next
# tile's copy in and the last one's copy out run beside this one's Gather. Each use of half p waits for its two
# flags and sets them again, so any run of tiles keeps them balanced, whichever half it starts with.
@asc.jit
def _halves_open():
    """Both halves of the tile buffers free: one V_MTE2 (tile_in) and one MTE3_V (tile_out) flag each."""
    E = asc.HardEvent
    asc.set_flag(E.V_MTE2, 0)
    asc.set_flag(E.V_MTE2, 1)
    asc.set_flag(E.MTE3_V, 0)
    asc.set_flag(E.MTE3_V, 1)


@asc.jit
def _halves_close():
    """The flags _halves_open set taken back, every pipe done (what follows may reuse the buffers)."""
    E = asc.HardEvent
    asc.wait_flag(E.V_MTE2, 0)
    asc.wait_flag(E.V_MTE2, 1)
    asc.wait_flag(E.MTE3_V, 0)
    asc.wait_flag(E.MTE3_V, 1)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@asc.jit
def _transpose_part(dst_gm, src_gm, picks, tile_in, tile_out, first: int, step: int, batches: int, inner: int,
                    rows: int, rows_limit: int, cols: int, src_outer: int, src_row: int, dst_batch: int, dst_row: int,
                    tr: asc.ConstExpr[int], tc: asc.ConstExpr[int], pitch: asc.ConstExpr[int]):  # fmt: skip
    """transpose_tiles' tiles from `first` on, every `step`-th, in halves of tile_in (tr * pitch each) and tile_out
    (tr * tc), between _halves_open and _halves_close."""
    E = asc.HardEvent
    size = dst_gm.dtype.sizeof()
    row_tiles = (rows + tr - 1) // tr
    col_tiles = (cols + tc - 1) // tc
    i = 0
    for t in range(first, batches * row_tiles * col_tiles, step):
        b = t // (row_tiles * col_tiles)
        r0 = (t // col_tiles) % row_tiles * tr
        c0 = t % col_tiles * tc
        part = b % inner
        valid = min(rows, rows_limit - part * rows)
        nw = min(tr, rows - r0)  # rows written: a channel group's missing channels as zeros
        nr = min(nw, valid - r0)  # rows read
        nc = min(tc, cols - c0)
        h = i % 2
        asc.wait_flag(E.V_MTE2, h)
        if nr < tr or nc < tc:  # missing rows (channels) read as 0; a tail tile's unread part is defined
            asc.duplicate(tile_in[h * tr * pitch :], 0.0, tr * pitch)
            asc.set_flag(E.V_MTE2, 2)
            asc.wait_flag(E.V_MTE2, 2)
        at = (b // inner) * src_outer + (part * rows + r0) * src_row + c0
        gap_in = pitch * size // 32 - (nc * size + 31) // 32
        asc.data_copy_pad(tile_in[h * tr * pitch :], src_gm[at:],
                          asc.DataCopyExtParams(nr, nc * size, (src_row - nc) * size, gap_in, 0))  # fmt: skip
        asc.set_flag(E.MTE2_V, h)
        asc.wait_flag(E.MTE2_V, h)
        asc.wait_flag(E.MTE3_V, h)
        asc.gather(tile_out[h * tr * tc :], tile_in[h * tr * pitch :], picks, 0, tr * tc)
        asc.set_flag(E.V_MTE2, h)
        asc.set_flag(E.V_MTE3, h)
        asc.wait_flag(E.V_MTE3, h)
        gap_out = tr * size // 32 - (nw * size + 31) // 32
        asc.data_copy_pad(dst_gm[b * dst_batch + c0 * dst_row + r0 :], tile_out[h * tr * tc :],
                          asc.DataCopyExtParams(nc, nw * size, gap_out, (dst_row - nw) * size, 0))  # fmt: skip
        asc.set_flag(E.MTE3_V, h)
        i += 1


@asc.jit
def _transposes(dst_gm, src_gm, dst2_gm, src2_gm, offsets_gm, me: int, cores: int, batches: int, inner: int, rows: int,
                rows_limit: int, cols: int, src_outer: int, src_row: int, dst_batch: int, dst_row: int, batches2: int,
                inner2: int, rows_limit2: int, cols2: int, src_outer2: int, src_row2: int, dst_batch2: int, tiles1: int,
                tr: asc.ConstExpr[int], tc: asc.ConstExpr[int], pair: asc.ConstExpr[bool]):  # fmt: skip
    """transpose_tiles' work for core `me` of `cores` on UB bytes from 0 (the tile buffers and the Gather's
    offsets), and with `pair` transpose_tiles_pair's second transpose after it."""
    size = dst_gm.dtype.sizeof()
    pitch = (tc * size + 31) // 32 * 32 // size  # a tile row in the UB: whole blocks
    tile_in = asc.LocalTensor(dst_gm.dtype, asc.TPosition.VECCALC, 0, 2 * tr * pitch)
    picks = asc.LocalTensor(asc.uint32, asc.TPosition.VECCALC, 2 * tr * pitch * size + 128, tr * tc)
    tile_out = asc.LocalTensor(dst_gm.dtype, asc.TPosition.VECCALC, 2 * tr * pitch * size + 4 * tr * tc + 256,
                               2 * tr * tc)  # fmt: skip
    asc.data_copy(picks, offsets_gm, tr * tc)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    _halves_open()
    _transpose_part(dst_gm, src_gm, picks, tile_in, tile_out, me, cores, batches, inner, rows, rows_limit, cols,
                    src_outer, src_row, dst_batch, dst_row, tr, tc, pitch)  # fmt: skip
    if pair:
        _transpose_part(dst2_gm, src2_gm, picks, tile_in, tile_out, (me + cores - tiles1 % cores) % cores, cores,
                        batches2, inner2, rows, rows_limit2, cols2, src_outer2, src_row2, dst_batch2, dst_row, tr, tc,
                        pitch)  # fmt: skip
    _halves_close()


@asc.jit
def transpose_tiles(dst: asc.GlobalAddress, src: asc.GlobalAddress, offsets: asc.GlobalAddress, batches: int,
                    inner: int, rows: int, rows_limit: int, cols: int, src_outer: int, src_row: int, dst_batch: int,
                    dst_row: int, tr: asc.ConstExpr[int], tc: asc.ConstExpr[int]):  # fmt: skip
    """dst[b][j][i] = src[b][i][j] for i < rows, j < cols, per batch b: the 2-D transposes of the convolution's
    layouts (NCHW -> NC1HWC0 with rows = C0 channels, and the cube's pixel-major result -> NCHW). Batch b reads
    from (b // inner) * src_outer + (b % inner) * rows * src_row, of which the first min(rows, rows_limit - (b %
    inner) * rows) rows exist (the rest of the tr rows, a channel group's missing channels, are 0); dst rows are
    dst_row elements apart, batches dst_batch. Per tile of tr x tc: one strided DMA in (rows tc elements long,
    each on its 32-byte block), one Gather by the constant byte offsets (tile element (j, i) from (i, j)), one
    strided DMA out, double-buffered. Each core takes every block_num-th tile."""
    src_gm, dst_gm, offsets_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    src_gm.set_global_buffer(src)
    dst_gm.set_global_buffer(dst)
    offsets_gm.set_global_buffer(offsets)
    _transposes(dst_gm, src_gm, dst_gm, src_gm, offsets_gm, asc.get_block_idx(), asc.get_block_num(), batches, inner,
                rows, rows_limit, cols, src_outer, src_row, dst_batch, dst_row, 0, 1, 0, 0, 0, 0, 0, 0, tr, tc,
                False)  # fmt: skip


@asc.jit
def transpose_tiles_pair(dst: asc.GlobalAddress, src: asc.GlobalAddress, dst2: asc.GlobalAddress,
                         src2: asc.GlobalAddress, offsets: asc.GlobalAddress, batches: int, inner: int, rows: int,
                         rows_limit: int, cols: int, src_outer: int, src_row: int, dst_batch: int, dst_row: int,
                         batches2: int, inner2: int, rows_limit2: int, cols2: int, src_outer2: int, src_row2: int,
                         dst_batch2: int, tiles1: int, tr: asc.ConstExpr[int], tc: asc.ConstExpr[int]):  # fmt: skip
    """Two transpose_tiles of the same tile shape in one launch (the feature map's and the weights' layouts):
    the second's tiles continue the first's round of the cores (tiles1 of them), rows and dst_row the same."""
    src_gm, dst_gm, offsets_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    src2_gm, dst2_gm = asc.GlobalTensor(), asc.GlobalTensor()
    src_gm.set_global_buffer(src)
    dst_gm.set_global_buffer(dst)
    src2_gm.set_global_buffer(src2)
    dst2_gm.set_global_buffer(dst2)
    offsets_gm.set_global_buffer(offsets)
    _transposes(dst_gm, src_gm, dst2_gm, src2_gm, offsets_gm, asc.get_block_idx(), asc.get_block_num(), batches, inner,
                rows, rows_limit, cols, src_outer, src_row, dst_batch, dst_row, batches2, inner2, rows_limit2, cols2,
                src_outer2, src_row2, dst_batch2, tiles1, tr, tc, True)  # fmt: skip


LAYOUT_ENTRIES = 4096  # the most elements a layout tile has: its Gather's count, its tables' entries
LAYOUT_TABLE_BYTES = 65536  # a layout's tables, all of them in the UB at once
LAYOUT_IN_BYTES = 32768  # a layout tile's source runs in the UB (two of them); its last 32 bytes hold zeros


@asc.jit
def _layout_part(dst_gm, src_gm, tiles_gm, tables, tile_in, tile_out, first: int, last: int, entries: int, pitch: int,
                 half_in: asc.ConstExpr[int]):  # fmt: skip
    """Tiles first..last - 1 of a layout by tables (rows of tiles_gm, 8 int32 each: source element, runs, run
    length, source run stride, destination element, elements written, table, 0): the runs go into a half of tile_in
    `pitch` elements apart, one Gather by the table's byte offsets (padding entries point at the half's zero block)
    makes the tile in a half of tile_out, one DMA writes it. Between _halves_open and _halves_close."""
    size = dst_gm.dtype.sizeof()
    E = asc.HardEvent
    i = 0
    for t in range(first, last):
        src_at = tiles_gm.get_value(t * 8)
        runs = tiles_gm.get_value(t * 8 + 1)
        run = tiles_gm.get_value(t * 8 + 2)
        stride = tiles_gm.get_value(t * 8 + 3)
        dst_at = tiles_gm.get_value(t * 8 + 4)
        count = tiles_gm.get_value(t * 8 + 5)
        table = tiles_gm.get_value(t * 8 + 6)
        p = i % 2
        gap = max(0, pitch * size // 32 - (run * size + 31) // 32)  # one run (the weights): no gap
        asc.wait_flag(E.V_MTE2, p)
        asc.data_copy_pad(tile_in[p * half_in :], src_gm[src_at:],
                          asc.DataCopyExtParams(runs, run * size, (stride - run) * size, gap, 0))  # fmt: skip
        asc.set_flag(E.MTE2_V, p)
        asc.wait_flag(E.MTE2_V, p)
        asc.wait_flag(E.MTE3_V, p)
        asc.gather(tile_out[p * LAYOUT_ENTRIES :], tile_in[p * half_in :], tables[table * entries :], 0, entries)
        asc.set_flag(E.V_MTE2, p)
        asc.set_flag(E.V_MTE3, p)
        asc.wait_flag(E.V_MTE3, p)
        asc.data_copy_pad(dst_gm[dst_at:], tile_out[p * LAYOUT_ENTRIES :],
                          asc.DataCopyExtParams(1, count * size, 0, 0, 0))  # fmt: skip
        asc.set_flag(E.MTE3_V, p)
        i += 1


@asc.jit
def _layouts_by_tables(x5_gm, x_gm, wt_gm, w_gm, tables_gm, tiles_gm, me: int, cores: int, x_tiles: int,
                       w_tiles: int, entries: int, pitch: int, tables_len: int):  # fmt: skip
    """A folded convolution's two layouts (pyasc.conv.FoldedLayout) on UB bytes 0..160 KiB: its tables (tables_len
    entries) copied in once; the feature map's tiles, the first x_tiles rows of tiles_gm, in one contiguous range a
    core; then the weights' tiles, the ranges in reverse core order."""
    size = x_gm.dtype.sizeof()
    half_in = LAYOUT_IN_BYTES // size
    tile_in = asc.LocalTensor(x_gm.dtype, asc.TPosition.VECCALC, 0, 2 * half_in)
    tables = asc.LocalTensor(asc.uint32, asc.TPosition.VECCALC, 2 * LAYOUT_IN_BYTES + 128, LAYOUT_TABLE_BYTES // 4)
    tile_out = asc.LocalTensor(x_gm.dtype, asc.TPosition.VECCALC, 2 * LAYOUT_IN_BYTES + LAYOUT_TABLE_BYTES + 256,
                               2 * LAYOUT_ENTRIES)  # fmt: skip
    asc.duplicate(tile_in, 0.0, 2 * half_in)  # each half's zero block, and no undefined reads
    asc.data_copy(tables, tables_gm, tables_len)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    _halves_open()
    _layout_part(x5_gm, x_gm, tiles_gm, tables, tile_in, tile_out, x_tiles * me // cores, x_tiles * (me + 1) // cores,
                 entries, pitch, half_in)  # fmt: skip
    back = cores - 1 - me
    _layout_part(wt_gm, w_gm, tiles_gm, tables, tile_in, tile_out, x_tiles + w_tiles * back // cores,
                 x_tiles + w_tiles * (back + 1) // cores, entries, pitch, half_in)  # fmt: skip
    _halves_close()


@asc.jit
def layouts_by_tables(x5: asc.GlobalAddress, x: asc.GlobalAddress, wt: asc.GlobalAddress, w: asc.GlobalAddress,
                      tables: asc.GlobalAddress, tiles: asc.GlobalAddress, x_tiles: int, w_tiles: int, entries: int,
                      pitch: int, tables_len: int):  # fmt: skip
    """The feature map NCHW -> the folded convolution's NC1HWC0 and the weights -> its [o][c1][kh][c0] in one
    launch (pyasc.conv.FoldedLayout says what the tables and tiles hold)."""
    x5_gm, x_gm, wt_gm, w_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    tables_gm, tiles_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x5_gm.set_global_buffer(x5)
    x_gm.set_global_buffer(x)
    wt_gm.set_global_buffer(wt)
    w_gm.set_global_buffer(w)
    tables_gm.set_global_buffer(tables)
    tiles_gm.set_global_buffer(tiles)
    _layouts_by_tables(x5_gm, x_gm, wt_gm, w_gm, tables_gm, tiles_gm, asc.get_block_idx(), asc.get_block_num(),
                       x_tiles, w_tiles, entries, pitch, tables_len)  # fmt: skip


@functools.lru_cache(maxsize=16)
def transpose_offsets(tr: int, tc: int, itemsize: int) -> np.ndarray:
    """transpose_tiles' Gather offsets: output tile element (j, i), at j * tr + i, is the input's (i, j), at
    i * pitch + j (bytes)."""
    pitch = -(-tc * itemsize // 32) * 32 // itemsize
    j, i = np.divmod(np.arange(tr * tc, dtype=np.int64), tr)
    out = ((i * pitch + j) * itemsize).astype(np.uint32)
    out.flags.writeable = False
    return out


@asc.jit
def _conv_bands(x_gm, w_gm, y_gm, t_gm, first: int, step: int, tiles: int, c1: int, h: int, w: int, taps: int,
                kout: int, pixels: int, kh: int, kw: int, stride_h: int, stride_w: int, dil_h: int, dil_w: int,
                pad_l: int, pad_r: int, filt: int, mc: asc.ConstExpr[int], kc: asc.ConstExpr[int],
                nc: asc.ConstExpr[int], notify: asc.ConstExpr[bool]):  # fmt: skip
    """conv_img2col's bands from `first` on, every `step`-th (notify: a cross-core flag after each block)."""
    size = x_gm.dtype.sizeof()
    c0 = 32 // size
    fm = asc.LocalTensor(x_gm.dtype, asc.TPosition.A1, 0, CONV_L1_MAP // size)
    b1 = asc.LocalTensor(x_gm.dtype, asc.TPosition.B1, CONV_L1_MAP, CONV_L1_WEIGHTS // size)
    # two of each on-chip buffer: the next block's loads (MTE1) run while the cube multiplies this one, and the
    # next pixels' products while the fixpipe drains these
    half_a = 32768 // size
    a2 = asc.LocalTensor(x_gm.dtype, asc.TPosition.A2, 0, 65536 // size)
    b2 = asc.LocalTensor(x_gm.dtype, asc.TPosition.B2, 0, 65536 // size)
    acc = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 32768)
    E = asc.HardEvent
    wide = filt - filt  # an int64 0 (filt, packed by the host, is past 32 bits): the block words are 64-bit too
    sent = 0
    for t in range(first, tiles, step):
        n = t_gm.get_value(t * 8)
        p0 = t_gm.get_value(t * 8 + 1)
        count = t_gm.get_value(t * 8 + 2)
        ih0 = t_gm.get_value(t * 8 + 3)
        rows = t_gm.get_value(t * 8 + 4)
        pad_t = t_gm.get_value(t * 8 + 5)
        pad_b = t_gm.get_value(t * 8 + 6)
        m_first = t_gm.get_value(t * 8 + 7)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        # the band's input rows of every channel group (C1 runs of rows * w * C0 elements, h * w * C0 apart) in two
        # parts: the rows the first block of pixels reads, then, after the weights, the rest, which the cube's work
        # on that block hides
        ow = (w + pad_l + pad_r - (kw - 1) * dil_w - 1) // stride_w + 1
        first_rows = ((m_first + min(mc, count) - 1) // ow) * stride_h - pad_t + (kh - 1) * dil_h + 1
        first_rows = max(1, min(rows, first_rows))
        band_at = ((n * c1) * h + ih0) * w * c0
        asc.data_copy(fm, x_gm[band_at:], asc.DataCopyParams(c1, first_rows * w, (h - first_rows) * w,
                                                             (rows - first_rows) * w))  # fmt: skip
        for o0 in range(0, kout, nc):
            cn = min(nc, kout - o0)
            n1 = (cn + 15) // 16
            asc.pipe_barrier(asc.PipeID.PIPE_ALL)
            asc.data_copy(b1, w_gm[o0 * taps :], asc.Nd2NzParams(1, cn, taps, 0, taps, n1 * 16, 1, 0))
            asc.set_flag(E.MTE2_MTE1, 0)  # the weights and the first rows are in L1
            asc.wait_flag(E.MTE2_MTE1, 0)
            if o0 == 0:
                if first_rows < rows:
                    asc.data_copy(fm[first_rows * w * c0 :], x_gm[band_at + first_rows * w * c0 :],
                                  asc.DataCopyParams(c1, (rows - first_rows) * w, (h - rows + first_rows) * w,
                                                     first_rows * w))  # fmt: skip
                asc.set_flag(E.MTE2_MTE1, 1)  # the rest of the band is in L1
            # the band's FMatrix (height, width, padding) and padding value once: a V2 load of nothing; the
            # blocks then load with V2Pro, the block and the filter packed in two words
            fmatrix = asc.LoadData3DParamsV2((pad_l, pad_r, pad_t, pad_b), rows, w, c1 * c0, 0, 0, 0, 0, stride_w,
                                             stride_h, kw, kh, dil_w, dil_h, False, 0)  # fmt: skip
            asc.load_data(a2, fm, fmatrix)
            asc.set_flag(E.M_MTE1, 0)  # both L0A/L0B halves free
            asc.set_flag(E.M_MTE1, 1)
            asc.set_flag(E.FIX_M, 0)  # both L0C halves free
            asc.set_flag(E.FIX_M, 1)
            i = 0
            j = 0
            for m0 in range(0, count, mc):
                cm = min(mc, count - m0)
                m1 = (cm + 15) // 16
                q = j % 2
                if o0 == 0 and m0 == mc:  # the second block may read the rest of the band
                    asc.wait_flag(E.MTE2_MTE1, 1)
                for k0 in range(0, taps, kc):
                    ck = min(kc, taps - k0)
                    k1 = ck // c0
                    p = i % 2
                    asc.wait_flag(E.M_MTE1, p)
                    ext = ((wide + m_first + m0) << 48) | ((wide + k0) << 32) | ((wide + cm) << 16) | ck
                    asc.load_data(
                        a2[p * half_a :],
                        fm,
                        asc.LoadData3DParamsV2Pro(c1 * c0, False, False, False, False, False, ext, filt),
                    )
                    # the block's k1 column blocks of B^T's Nz are consecutive fractals, as L0B's Zn lays them
                    asc.load_data(b2[p * half_a :], b1, asc.LoadData2DParams(k0 // c0 * n1, k1 * n1, 1, 0, 0, False, 0))
                    asc.set_flag(E.MTE1_M, p)
                    asc.wait_flag(E.MTE1_M, p)
                    if k0 == 0:
                        asc.wait_flag(E.FIX_M, q)
                        asc.mmad(acc[q * 16384 :], a2[p * half_a :], b2[p * half_a :], asc.MmadParams(cm, cn, ck))
                    else:
                        asc.mmad(acc[q * 16384 :], a2[p * half_a :], b2[p * half_a :],
                                 asc.MmadParams(cm, cn, ck, cmatrix_init_val=False))  # fmt: skip
                    asc.set_flag(E.M_MTE1, p)
                    i += 1
                asc.set_flag(E.M_FIX, q)
                asc.wait_flag(E.M_FIX, q)
                asc.fixpipe(y_gm[(n * pixels + p0 + m0) * kout + o0 :], acc[q * 16384 :],
                            asc.FixpipeParamsV220(cn, cm, m1 * 16, kout, asc.QuantModes.NoQuant))  # fmt: skip
                if notify:  # the block is in GM: the group's vector cores turn it round
                    asc.cross_core_set_flag(CONV_FLAG, 2, asc.PipeID.PIPE_FIX)
                    sent += 1
                    if sent > CONV_AHEAD:  # a flag holds at most 15 sets unconsumed (the Model checks it)
                        asc.cross_core_wait_flag(CONV_BACK_FLAG, 2, asc.PipeID.PIPE_FIX)
                asc.set_flag(E.FIX_M, q)
                j += 1
            if o0 == 0 and count <= mc:  # one block read the whole band: the second part's flag taken back
                asc.wait_flag(E.MTE2_MTE1, 1)
            asc.wait_flag(E.M_MTE1, 0)
            asc.wait_flag(E.M_MTE1, 1)
            asc.wait_flag(E.FIX_M, 0)
            asc.wait_flag(E.FIX_M, 1)
    if notify:  # the hand-backs still owed
        for _ in range(min(sent, CONV_AHEAD)):
            asc.cross_core_wait_flag(CONV_BACK_FLAG, 2, asc.PipeID.PIPE_FIX)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@asc.jit(matmul_cube_only=True)
def conv_img2col(x5: asc.GlobalAddress, wt: asc.GlobalAddress, y: asc.GlobalAddress, tiles_gm: asc.GlobalAddress,
                 tiles: int, c1: int, h: int, w: int, taps: int, kout: int, pixels: int, kh: int, kw: int,
                 stride_h: int, stride_w: int, dil_h: int, dil_w: int, pad_l: int, pad_r: int, filt: int,
                 mc: asc.ConstExpr[int], kc: asc.ConstExpr[int], nc: asc.ConstExpr[int]):  # fmt: skip
    """y[n][p][o] = sum over t of img2col(x5[n])[p][t] * wt[o][t]: x5 is the NC1HWC0 feature map, wt the weights
    as [kout rounded to 8] x taps (taps = C1 * kh * kw * C0, img2col's column order), y pixel-major. A tile (a
    row of tiles_gm: image, first pixel, pixels, first input row, input rows, top and bottom padding, its first
    img2col row) is a band of whole output rows: its input rows go to L1, the FMatrix takes the band's height
    and padding (so the padding costs no copy), and per (nc output channels, mc pixels, kc taps) block the
    img2col load fills L0A, the weights' block L0B (from Nz in L1: B^T in Nz is L0B's Zn), mmad accumulates in
    L0C and the fixpipe writes the block to GM. Each core takes every block_num-th tile."""
    x_gm, w_gm, y_gm, t_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x5)
    w_gm.set_global_buffer(wt)
    y_gm.set_global_buffer(y)
    t_gm.set_global_buffer(tiles_gm)
    _conv_bands(x_gm, w_gm, y_gm, t_gm, asc.get_block_idx(), asc.get_block_num(), tiles, c1, h, w, taps, kout,
                pixels, kh, kw, stride_h, stride_w, dil_h, dil_w, pad_l, pad_r, filt, mc, kc, nc, False)  # fmt: skip


@asc.jit(kernel_type=KernelType.MIX_AIC_1_2)
def conv_fused(x: asc.GlobalAddress, wgt: asc.GlobalAddress, out: asc.GlobalAddress, x5: asc.GlobalAddress,
               wt: asc.GlobalAddress, y: asc.GlobalAddress, tiles_gm: asc.GlobalAddress, offsets: asc.GlobalAddress,
               out_offsets: asc.GlobalAddress, layout: asc.GlobalAddress, tiles: int, c1: int, h: int, w: int,
               taps: int, kout: int, k: int, pixels: int, kh: int, kw: int, stride_h: int, stride_w: int, dil_h: int,
               dil_w: int, pad_l: int, pad_r: int, filt: int, mc: asc.ConstExpr[int], kc: asc.ConstExpr[int],
               nc: asc.ConstExpr[int], tr: asc.ConstExpr[int], tc: asc.ConstExpr[int], otr: asc.ConstExpr[int],
               otc: asc.ConstExpr[int], folded: asc.ConstExpr[bool] = False):  # fmt: skip
    """The three launches of a convolution in one (MIX_AIC_1_2): the vector cores lay out the feature map and
    the weights (transpose_tiles_pair's work; `layout` holds its scalar arguments), every core meets at
    sync_all, the cube cores run conv_img2col's bands, and after each block's fixpipe (a cross-core flag) the
    group's two vector cores turn that block of y round into out's NCHW, while the cube goes on. folded: the
    layouts are layouts_by_tables' (`offsets` its tables, `layout` its x_tiles, w_tiles, entries, pitch and
    tables' length, then from element 24 on its tiles)."""
    x_gm, w_gm, y_gm, t_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x5)
    w_gm.set_global_buffer(wt)
    y_gm.set_global_buffer(y)
    t_gm.set_global_buffer(tiles_gm)
    groups = asc.get_block_num()
    if asc.ascend_is_aiv():
        src_gm, wsrc_gm, out_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        offsets_gm, out_offsets_gm, l_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        src_gm.set_global_buffer(x)
        wsrc_gm.set_global_buffer(wgt)
        out_gm.set_global_buffer(out)
        offsets_gm.set_global_buffer(offsets)
        out_offsets_gm.set_global_buffer(out_offsets)
        l_gm.set_global_buffer(layout)
        me = asc.get_block_idx()
        cores = 2 * groups
        # synchronised by hand: the cube's side has its own flags, which insert_sync would add to
        if folded:
            _layouts_by_tables(x_gm, src_gm, w_gm, wsrc_gm, offsets_gm, l_gm[24:], me, cores, l_gm.get_value(0),
                               l_gm.get_value(1), l_gm.get_value(2), l_gm.get_value(3), l_gm.get_value(4))  # fmt: skip
        else:  # transpose_tiles_pair's work on the group's vector cores (`layout` holds its scalar arguments)
            _transposes(x_gm, src_gm, w_gm, wsrc_gm, offsets_gm, me, cores, l_gm.get_value(0), l_gm.get_value(1),
                        l_gm.get_value(2), l_gm.get_value(3), l_gm.get_value(4), l_gm.get_value(5), l_gm.get_value(6),
                        l_gm.get_value(7), l_gm.get_value(8), l_gm.get_value(10), l_gm.get_value(11),
                        l_gm.get_value(13), l_gm.get_value(14), l_gm.get_value(15), l_gm.get_value(16),
                        l_gm.get_value(17), l_gm.get_value(20), tr, tc, True)  # fmt: skip
        asc.sync_all(False)
        # the group's blocks, in the cube core's order: each block's half of the tiles after its flag; the halves'
        # flags stay open across the blocks, so one block's tiles overlap the next's
        opitch = (otc * 4 + 31) // 32 * 32 // 4
        o_in = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 2 * otr * opitch)
        o_picks = asc.LocalTensor(asc.uint32, asc.TPosition.VECCALC, 16384 + 128, otr * otc)
        o_out = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 24576 + 256, 2 * otr * otc)
        asc.data_copy(o_picks, out_offsets_gm, otr * otc)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        _halves_open()
        group = me // 2
        for t in range(group, tiles, groups):
            n = t_gm.get_value(t * 8)
            p0 = t_gm.get_value(t * 8 + 1)
            count = t_gm.get_value(t * 8 + 2)
            for o0 in range(0, kout, nc):
                cn = min(nc, k - o0)
                for m0 in range(0, count, mc):
                    cm = min(mc, count - m0)
                    asc.cross_core_wait_flag(CONV_FLAG, 2, asc.PipeID.PIPE_MTE2)
                    dst_at = (n * k + o0) * pixels + p0 + m0
                    src_at = (n * pixels + p0 + m0) * kout + o0
                    _transpose_part(out_gm[dst_at:], y_gm[src_at:], o_picks, o_in, o_out, asc.get_sub_block_idx(), 2,
                                    1, 1, cm, cm, cn, 0, kout, 0, pixels, otr, otc, opitch)  # fmt: skip
                    asc.cross_core_set_flag(CONV_BACK_FLAG, 2, asc.PipeID.PIPE_MTE3)  # the block is consumed
        _halves_close()
    else:
        asc.sync_all(False)
        _conv_bands(x_gm, w_gm, y_gm, t_gm, asc.get_block_idx(), groups, tiles, c1, h, w, taps, kout, pixels, kh,
                    kw, stride_h, stride_w, dil_h, dil_w, pad_l, pad_r, filt, mc, kc, nc, True)  # fmt: skip


CONV_L1_MAP = 384 * 1024  # L1 bytes for a band of the feature map; the rest of the 512 KiB holds the weights
CONV_L1_WEIGHTS = 128 * 1024
CONV_FLAG = 3  # conv_fused's cross-core flag: a block of y is in GM
CONV_BACK_FLAG = 4  # and its hand-back: the group's vector cores have written a block to out
CONV_AHEAD = 4  # blocks the cube may run ahead of its vector cores (each hands back twice, one set a vector core)
