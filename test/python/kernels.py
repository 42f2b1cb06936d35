"""Kernels and device functions the tests share: the examples' own (imported
from examples/, so the tests exercise exactly what users run) and small helpers."""

import sys
from pathlib import Path

import asc
from asc._ffi import ffi, lib

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

from add import BUFFER_NUM, TILE_NUM  # noqa: E402
from add import vadd_kernel as vadd_manual_sync  # noqa: E402
from add_framework import compute, copy_in, copy_out  # noqa: E402

__all__ = ["BUFFER_NUM", "TILE_NUM", "block_views", "compute", "copy_in", "copy_out", "vadd_manual_sync"]


@asc.jit
def block_views(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int):
    """This block's slice of three GM buffers, and its tile length (a device function returning a tuple)."""
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, block_length)
    y_gm.set_global_buffer(y + offset, block_length)
    z_gm.set_global_buffer(z + offset, block_length)
    return (x_gm, y_gm, z_gm), block_length // TILE_NUM


def ascendc_source(compiled, expanded: bool = False) -> str:
    """The Ascend C a compiled kernel (``kernel.compile(...)``) is emitted as: with adv calls as the AscendC::
    library calls (for the board), or `expanded` into the basic API (the CPU proof's form)."""
    emit = lib.asc_kernel_source_expanded if expanded else lib.asc_kernel_source
    size = ffi.new("size_t*")
    emit(compiled.handle, ffi.NULL, 0, size)
    buf = ffi.new("char[]", size[0] + 1)
    assert emit(compiled.handle, buf, size[0] + 1, size) == lib.ASC_OK
    return ffi.string(buf).decode()
