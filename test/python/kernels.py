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


ADV_N = 4096  # the adv element-wise harness's tensor length: counts up to it


@asc.jit
def adv_unary(x: asc.GlobalAddress, y: asc.GlobalAddress, count: int, fn: asc.ConstExpr,
              tmp_bytes: asc.ConstExpr[int]):  # fmt: skip
    """y[:count] = fn(x[:count]) for an asc.adv element-wise function `fn`, with a temporary buffer of
    tmp_bytes from a TBuf (the framework's, the Unified Buffer after the pipe's buffers, when 0); y past count
    comes back unchanged."""
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    y_gm = asc.GlobalTensor()
    y_gm.set_global_buffer(y)
    pipe = asc.TPipe()
    a_buf = asc.TBuf(asc.TPosition.VECIN)
    b_buf = asc.TBuf(asc.TPosition.VECOUT)
    pipe.init_buffer(a_buf, ADV_N * 4)
    pipe.init_buffer(b_buf, ADV_N * 4)
    a = a_buf.get(x.dtype)
    b = b_buf.get(y.dtype)
    asc.data_copy(a, x_gm, ADV_N)
    asc.data_copy(b, y_gm, ADV_N)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if tmp_bytes:
        tmp_buf = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(tmp_buf, tmp_bytes)
        fn(b, a, count, tmp_buf.get(asc.uint8))
    else:
        fn(b, a, count=count)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(y_gm, b, ADV_N)


def run_adv_unary(fn, x, count: int, tmp_bytes: int, out_dtype=None):
    """The harness on input x (ADV_N elements); returns y (ADV_N elements, 7 past count)."""
    import numpy as np

    import asc.lib.runtime as rt

    y = np.full(ADV_N, 7, out_dtype or x.dtype)
    adv_unary[1, rt.current_stream()](x, y, count, fn, tmp_bytes)
    return y
