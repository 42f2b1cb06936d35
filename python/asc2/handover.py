"""A cube core's matmul result handed to its vector cores: asc2.copy of an L0C tile into the Unified Buffer
(Ascend 950's fixpipe L0C -> UB, Ascend C's Fixpipe with FixpipeConfig isToUB). A tile kernel that does this
runs as a mix kernel (MIX_AIC_1_1, or MIX_AIC_1_2 with cv_ratio=2): the library splits its one program into
the cube core's part and the vector cores' part (src/passes/split_cube_vector.cpp). Each hand-over is

    cube core:    wait FREE;  fixpipe L0C -> the hand-over buffer;  set FULL
    vector cores: wait FULL;  copy the hand-over buffer into a tile of their own;  set FREE

(cross-core flags of mode 2: the cube core's set releases both vector cores, its wait needs both), so the
cube core may write the buffer again while the vector cores compute on their copy; the split gives FREE its
first credit and takes its last. `distrib` says which vector core gets what (asctile's DistribMode, 0..3):
None: every vector core the whole tile; FULL_VEC0 / FULL_VEC1: the whole tile to one of them (the other's
tile is not written); SPLIT_BY_M / SPLIT_BY_N: each its half of the rows / columns, sub-block 0 the first."""

from __future__ import annotations

import contextlib
from typing import Any, Optional

import asc
import asc.lib.runtime as rt
from asc.codegen import regions
from asc.codegen.context import current_builder
from asc.errors import CodegenError
from asc.lib.runtime.platforms import CompilationArch, platform_to_arch

from .cube import _QUANT, _ceil
from .elementwise import fill
from .tile import Tile, check_shape

FULL_VEC0, FULL_VEC1, SPLIT_BY_M, SPLIT_BY_N = 0, 1, 2, 3
_FULL, _FREE = 14, 15  # cross-core flags: "the hand-over buffer holds a tile", "the vector cores have copied it"


def to_ub(tile: Any, dims: tuple[int, ...], at: list, distrib: Optional[int], what: str) -> Tile:
    """The [rows, cols] of L0C tile `tile` at `at` as a Unified Buffer tile of the vector cores (see the module)."""
    if platform_to_arch(rt.current_platform()) != CompilationArch.C310:
        raise CodegenError(f"{what}: L0C -> UB is Ascend 950's fixpipe into the vector cores; {rt.current_platform()} "
                           f"has none: store the tile to GM (asc2.store) and load it into the Unified Buffer, or "
                           f"compile for an Ascend950 platform")  # fmt: skip
    if tile.dtype not in _QUANT:
        raise CodegenError(f"{what}: an L0C tile goes to the Unified Buffer as float32, float16 or bfloat16, not "
                           f"{tile.dtype.name}")  # fmt: skip
    if any(not isinstance(o, int) for o in at):
        raise CodegenError(f"{what}: an L0C -> UB copy's offsets must be known while compiling, got {at}")
    if at[0] % 16 or at[1] % 16:
        raise CodegenError(f"{what}: the offsets of an L0C -> UB copy are whole 16 x 16 fractals, got {at}")
    builder = current_builder()
    ratio = builder.cv_ratio
    if distrib not in (None, FULL_VEC0, FULL_VEC1, SPLIT_BY_M, SPLIT_BY_N):
        raise CodegenError(f"{what}: distrib for L0C -> UB is FullVec0, FullVec1, SplitByM or SplitByN, got "
                           f"{distrib!r}")  # fmt: skip
    if ratio == 1 and distrib not in (None, FULL_VEC0):
        raise CodegenError(f"{what}: distrib={_name(distrib)} needs two vector sub-blocks per cube core: compile with "
                           f"cv_ratio=2")  # fmt: skip
    rows, cols = dims
    parts = [(0, 0, rows, cols)]  # (sub-block, row offset, rows, cols) each vector core receives
    if distrib == SPLIT_BY_M:
        if rows % 2:
            raise CodegenError(f"{what}: splitting by M needs an even number of rows, got {rows}")
        parts = [(s, s * rows // 2, rows // 2, cols) for s in (0, 1)]
    elif distrib == SPLIT_BY_N:
        if cols % 32:
            raise CodegenError(f"{what}: splitting by N needs the columns to be a multiple of 32, got {cols}")
        parts = [(s, 0, rows, cols // 2) for s in (0, 1)]
    elif distrib == FULL_VEC1:
        parts = [(1, 0, rows, cols)]
    elif distrib is None and ratio == 2:
        parts = [(0, 0, rows, cols), (1, 0, rows, cols)]
    shape = check_shape((parts[0][2], parts[0][3]), tile.dtype, what)
    builder.splits_cube_vector = True
    builder.split_credits |= 1 << _FREE
    handover = asc.LocalTensorAuto(tile.dtype, Tile.length_of(shape))
    m16 = _ceil(tile.shape[0], 16)
    asc.cross_core_wait_flag(_FREE, 2, asc.PipeID.PIPE_FIX)
    for sub, row, m, n in parts:
        r, c = at[0] + row, at[1] + (sub * n if distrib == SPLIT_BY_N else 0)
        src = tile.buf[(c // 16) * m16 * 16 + r * 16 :]  # L0C's element (r, c): Nz of 16 x 16 fractals
        params = asc.FixpipeParamsArch3510(n, m, m16, n, _QUANT[tile.dtype], relu_en=tile.relu, sub_block_id=sub)
        asc.fixpipe(handover, src, params, asc.FixpipeConfig.cfg_row_major_ub)
    asc.cross_core_set_flag(_FULL, 2, asc.PipeID.PIPE_FIX)
    asc.cross_core_wait_flag(_FULL, 2, asc.PipeID.PIPE_V)
    out = Tile(shape, tile.dtype)
    if out.size != out.length:  # past the size is computed on too: defined values (the fixpipe writes the size)
        fill(out.buf, 0, out.dtype, out.length)
    bits = asc.uint16 if tile.dtype.sizeof() == 2 else asc.uint32  # Copy moves bits: bfloat16 as uint16
    receivers = {sub for sub, *_ in parts}
    guard = ratio == 2 and len(receivers) == 1  # the other vector core's tile is not written
    with regions.if_(asc.get_sub_block_idx() == next(iter(receivers))) if guard else contextlib.nullcontext():
        asc.copy(out.buf.reinterpret_cast(bits), handover.reinterpret_cast(bits), out.size)
    asc.cross_core_set_flag(_FREE, 2, asc.PipeID.PIPE_V)
    return out


def _name(distrib: Optional[int]) -> str:
    return {FULL_VEC0: "FullVec0", FULL_VEC1: "FullVec1", SPLIT_BY_M: "SplitByM", SPLIT_BY_N: "SplitByN"}.get(
        distrib, repr(distrib)
    )
