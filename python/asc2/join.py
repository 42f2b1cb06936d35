"""Vector cores' tiles handed to their cube core: asc2.copy of a Unified Buffer tile into L1 (Ascend 950's
UB -> L1, Ascend C's DataCopy from VECIN / VECOUT into TSCM over copy_ubuf_to_cbuf), the way back of
asc2.handover. The tile kernel runs as a mix kernel whose one program the library splits
(src/passes/split_cube_vector.cpp). Each join site k (at most four in a kernel) has its own buffer in L1 and
its own pair of mode-2 cross-core flags, FULL_k and FREE_k:

    vector cores: wait FREE_k;  copy their tile into the L1 buffer, laid out as the cube's L1 tiles are (Zz);
                  set FULL_k
    cube core:    wait FULL_k;  ... use the tile ...;  set FREE_k at the end of the block (loop body, branch,
                  kernel) that made it

The cube core's set waits for what its MTE1 loads read from the buffer; the split gives FREE_k its first
credit and takes its last, so the vector cores compute their next tile while the cube core multiplies this
one, and copy it in once the cube core is done. `distrib` (asctile's DistribMode) says who writes what: None
or FULL_VEC0: sub-block 0 its whole tile; FULL_VEC1: sub-block 1; JOIN_BY_M / JOIN_BY_N (cv_ratio=2): each
its tile as the rows / columns of one twice as tall / wide, sub-block 0 first."""

from __future__ import annotations

from typing import Any, Optional

import asc
import asc.lib.runtime as rt
from asc.codegen import regions
from asc.codegen.context import current_builder
from asc.errors import CodegenError
from asc.lib.runtime.platforms import CompilationArch, platform_to_arch

from .cube import _INPUTS, CubeTile, _c0, _ceil
from .elementwise import fill
from .tile import Tile, TileLocation

FULL_VEC0, FULL_VEC1, JOIN_BY_M, JOIN_BY_N = 0, 1, 4, 5
_SITES = 4  # join sites in a kernel: flag pairs (12, 13), (10, 11), (8, 9), (6, 7); asc2.handover has (14, 15)
_NAMES = {None: "None", FULL_VEC0: "FullVec0", FULL_VEC1: "FullVec1", JOIN_BY_M: "JoinByM", JOIN_BY_N: "JoinByN"}


def to_l1(tile: Tile, dims: tuple[int, ...], at: list, distrib: Optional[int], what: str) -> CubeTile:
    """The vector cores' UB tile `tile` (the whole of it) as an L1 tile of their cube core (see the module)."""
    if platform_to_arch(rt.current_platform()) != CompilationArch.C310:
        raise CodegenError(f"{what}: UB -> L1 is Ascend 950's path from the vector cores to the cube core; "
                           f"{rt.current_platform()} has none: store the tile to GM (asc2.store) and load it into L1, "
                           f"or compile for an Ascend950 platform")  # fmt: skip
    if len(tile.shape) != 2 or tile.dtype not in _INPUTS:
        raise CodegenError(f"{what}: a UB -> L1 copy moves a 2-D float16, bfloat16 or float32 tile (an operand of "
                           f"the cube), got {tile!r}")  # fmt: skip
    if tuple(dims) != tuple(tile.shape) or any(o != 0 for o in at):
        raise CodegenError(f"{what}: a UB -> L1 copy moves the whole tile: no shape or offsets")
    builder = current_builder()
    if distrib not in _NAMES:
        raise CodegenError(f"{what}: distrib for UB -> L1 is FullVec0, FullVec1, JoinByM or JoinByN, got {distrib!r}")
    if builder.cv_ratio == 1 and distrib not in (None, FULL_VEC0):
        raise CodegenError(f"{what}: distrib={_NAMES[distrib]} needs two vector sub-blocks per cube core: compile "
                           f"with cv_ratio=2")  # fmt: skip
    site = builder.join_sites
    if site >= _SITES:
        raise CodegenError(f"{what}: a tile kernel copies from the Unified Buffer into L1 at most {_SITES} times "
                           f"(each copy in the program has its own pair of cross-core flags)")  # fmt: skip
    builder.join_sites += 1
    full, free = 12 - 2 * site, 13 - 2 * site
    builder.splits_cube_vector = True
    builder.split_credits |= 1 << free
    rows, cols = tile.shape
    joined = (2 * rows, cols) if distrib == JOIN_BY_M else (rows, 2 * cols) if distrib == JOIN_BY_N else (rows, cols)
    out = CubeTile(joined, tile.dtype, TileLocation.L1)
    writers = (0, 1) if distrib in (JOIN_BY_M, JOIN_BY_N) else (1,) if distrib == FULL_VEC1 else (0,)
    asc.cross_core_wait_flag(free, 2, asc.PipeID.PIPE_MTE3)
    if builder.cv_ratio == 1:
        _copy_share(tile, out, 0, distrib)
    else:
        for sub in writers:
            with regions.if_(asc.get_sub_block_idx() == sub):
                _copy_share(tile, out, sub, distrib)
    asc.cross_core_set_flag(full, 2, asc.PipeID.PIPE_MTE3)
    asc.cross_core_wait_flag(full, 2, asc.PipeID.PIPE_MTE1)
    builder.at_region_end(lambda: asc.cross_core_set_flag(free, 2, asc.PipeID.PIPE_MTE1))
    return out


def _copy_share(tile: Tile, out: CubeTile, sub: int, distrib: Optional[int]) -> None:
    """Sub-block `sub`'s tile into its rows / columns of `out`, and its share of the rows past out's that fill
    the last slab of 16 (zeros: they meet the other operand's padding in a matmul)."""
    rows, cols = tile.shape
    c0 = _c0(tile.dtype)
    row0 = sub * rows if distrib == JOIN_BY_M else 0
    block0 = sub * (cols // c0) if distrib == JOIN_BY_N else 0
    _copy_rows(out, tile.buf, rows, cols // c0, row0, block0)
    pad = _ceil(out.shape[0], 16) - out.shape[0]
    if pad and (distrib != JOIN_BY_M or sub == 1):  # the last slab's rows past the tile: the bottom writer's
        zeros = asc.LocalTensorAuto(tile.dtype, pad * cols)
        fill(zeros, 0, tile.dtype, pad * cols)
        _copy_rows(out, zeros, pad, cols // c0, out.shape[0], block0)


def _copy_rows(out: CubeTile, src: Any, rows: int, blocks: int, row0: int, block0: int) -> None:
    """`rows` ND rows of `blocks` 32-byte blocks (dense in the UB tensor `src`) into L1 tile `out` (Zz: 16-row
    slabs, each slab's fractals left to right; one row of a fractal is one block) as its rows row0.. and blocks
    block0..: per row, its blocks a fractal (16 blocks) apart; or per run of rows in one slab and block column,
    the rows' blocks one after another: whichever takes fewer copies."""
    width = out.shape[1] // _c0(out.dtype)  # blocks per row of out
    per_block = 32 // out.dtype.sizeof()
    runs = []  # (first row, rows) inside one slab
    r = 0
    while r < rows:
        n = min(rows - r, 16 - (row0 + r) % 16)
        runs.append((r, n))
        r += n

    def block_of(row: int, block: int) -> int:  # out's block of its row `row`, block `block`
        return (row // 16) * 16 * width + block * 16 + row % 16

    if rows <= len(runs) * blocks:
        for r in range(rows):
            dst = out.buf[block_of(row0 + r, block0) * per_block :]
            asc.data_copy(dst, src[r * blocks * per_block :], asc.DataCopyParams(blocks, 1, 0, 15))
        return
    for first, n in runs:
        for j in range(blocks):
            dst = out.buf[block_of(row0 + first, block0 + j) * per_block :]
            asc.data_copy(dst, src[(first * blocks + j) * per_block :], asc.DataCopyParams(n, 1, blocks - 1, 0))
