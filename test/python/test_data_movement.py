"""The data-movement family beyond plain copies, on the Model against numpy references: data_copy with SliceInfo
lists (GM -> UB and back, run-time fields), DataCopyEnhancedParams at its defaults, data_copy_pad's ND2NZ form,
set_pad_value's register, set_aipp_functions + load_image_to_local (formats, swaps, colour-space and data type
conversion, spatial and channel padding), trans_data_to_5hd (tensor lists, address lists, uint64 address
tensors, NCHW -> NC1HWC0), the errors of bad input, and the Ascend C they are emitted as."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.runtime.config import KernelType
from asc.runtime.jit import MockTensor

from kernels import ascendc_source

NP = {asc.float32: np.float32, asc.float16: np.float16, asc.int16: np.int16, asc.int32: np.int32,
      asc.int8: np.int8, asc.uint8: np.uint8, asc.uint16: np.uint16}  # fmt: skip


def run(kernel, *args, cores=1):
    kernel[cores, rt.current_stream()](*args)


# ---- data_copy with SliceInfo ----------------------------------------------------------------------------


def slice_bursts(spec, burst_elems):
    """Element offsets of the slices of `spec` (a list of (start, end, stride, burst_len, shape) per dimension,
    innermost first), outer dimensions slowest: the documented SliceInfo semantics."""
    strides = [1]
    for d in range(1, len(spec)):
        strides.append(strides[-1] * spec[d - 1][4])
    offsets = [0]
    for d in reversed(range(len(spec))):
        start, end, gap, _, _ = spec[d]
        step = (burst_elems if d == 0 else 1) + gap
        idx = list(range(start, end + 1, step))
        offsets = [base + i * strides[d] for base in offsets for i in idx]
    return offsets


def slice_reference(src, dst, src_spec, dst_spec, burst_elems):
    out = dst.copy()
    for s, d in zip(slice_bursts(src_spec, burst_elems), slice_bursts(dst_spec, burst_elems), strict=True):
        out[d : d + burst_elems] = src[s : s + burst_elems]
    return out


@asc.jit
def slice_in_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, spec: asc.GlobalAddress, DIMS: asc.ConstExpr[int],
                    N: asc.ConstExpr[int]):  # fmt: skip
    """GM -> UB by the SliceInfo lists in `spec` (dst's then src's, 5 int32 fields per dimension), then UB -> GM
    whole."""
    x_gm, z_gm, s_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    z_gm.set_global_buffer(z)
    s_gm.set_global_buffer(spec)
    ub = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, N)
    asc.data_copy(ub, z_gm, N)  # z's initial contents: the slices leave the rest as it was
    asc.set_flag(asc.HardEvent.MTE2_S, 0)
    asc.wait_flag(asc.HardEvent.MTE2_S, 0)
    lists = [[], []]
    for side in asc.static_range(2):
        for d in asc.static_range(DIMS):
            b = (side * DIMS + d) * 5
            info = asc.SliceInfo(s_gm.get_value(b), s_gm.get_value(b + 1), s_gm.get_value(b + 2),
                                 s_gm.get_value(b + 3), s_gm.get_value(b + 4))  # fmt: skip
            lists[side].append(info)
    asc.data_copy(ub, x_gm, lists[0], lists[1], DIMS)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.data_copy(z_gm, ub, N)


@asc.jit
def slice_out_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, N: asc.ConstExpr[int], DST: asc.ConstExpr[tuple],
                     SRC: asc.ConstExpr[tuple]):  # fmt: skip
    """GM -> UB whole, then UB -> GM by compile-time SliceInfo lists (keywords, as pyasc names them)."""
    x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    z_gm.set_global_buffer(z)
    ub = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 0, N)
    asc.data_copy(ub, x_gm, N)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    dst, src = [], []
    for d in asc.static_range(len(DST)):
        dst = dst + [asc.SliceInfo(*DST[d])]
        src = src + [asc.SliceInfo(*SRC[d])]
    asc.data_copy(z_gm, ub, slice_list1=dst, slice_list2=src, dim_value=len(DST))


SLICE_CASES = [
    # the documentation's example: float, two rows of two 3-block slices out of a 3 x 87 tensor
    (asc.float32, [(16, 70, 7, 3, 87), (0, 2, 1, 1, 3)], [(0, 47, 0, 3, 48), (0, 1, 0, 1, 2)]),
    (asc.float16, [(0, 63, 16, 1, 64)], [(0, 31, 0, 1, 32)]),
    (asc.int16, [(32, 95, 0, 2, 128), (1, 3, 0, 1, 4)], [(0, 95, 32, 2, 128), (0, 2, 0, 1, 3)]),
    (
        asc.int32,
        [(8, 31, 8, 1, 32), (0, 1, 0, 1, 2), (1, 2, 0, 1, 3)],
        [(0, 15, 0, 1, 16), (0, 1, 0, 1, 2), (0, 1, 0, 1, 2)],
    ),  # fmt: skip
]


@pytest.mark.parametrize("dtype,src_spec,dst_spec", SLICE_CASES)
def test_slices_gm_to_ub(dtype, src_spec, dst_spec, rng):
    n = 1024
    x = (rng.random(n) * 1000).astype(NP[dtype])
    z = np.full(n, 7, NP[dtype])
    spec = np.array([f for side in (dst_spec, src_spec) for dim in side for f in dim], np.int32)
    run(slice_in_kernel, x, z, spec, len(src_spec), n)
    burst = src_spec[0][3] * 32 // dtype.sizeof()
    np.testing.assert_array_equal(z, slice_reference(x, np.full(n, 7, NP[dtype]), src_spec, dst_spec, burst))


@pytest.mark.parametrize("dtype,gm_spec,ub_spec", SLICE_CASES)
def test_slices_ub_to_gm(dtype, gm_spec, ub_spec, rng):
    n = 1024
    x = (rng.random(n) * 1000).astype(NP[dtype])
    z = np.full(n, -3, NP[dtype])
    run(slice_out_kernel, x, z, n, tuple(gm_spec), tuple(ub_spec))
    burst = ub_spec[0][3] * 32 // dtype.sizeof()
    np.testing.assert_array_equal(z, slice_reference(x, np.full(n, -3, NP[dtype]), ub_spec, gm_spec, burst))


def test_slice_errors():
    with pytest.raises(asc.CodegenError, match="burst_len of dimension 1 must be 1"):
        run(slice_out_kernel, np.zeros(256, np.float32), np.zeros(256, np.float32), 256,
            ((0, 7, 0, 1, 8), (0, 1, 0, 2, 2)), ((0, 7, 0, 1, 8), (0, 1, 0, 2, 2)))  # fmt: skip
    with pytest.raises(asc.CodegenError, match="burst_len differs"):
        run(slice_out_kernel, np.zeros(256, np.float32), np.zeros(256, np.float32), 256, ((0, 15, 0, 2, 16),),
            ((0, 7, 0, 1, 8),))  # fmt: skip
    with pytest.raises(Exception, match="bursts"):  # 2 slices into 1
        run(slice_out_kernel, np.zeros(256, np.float32), np.zeros(256, np.float32), 256, ((0, 7, 0, 1, 8),),
            ((0, 15, 0, 1, 16),))  # fmt: skip


# ---- DataCopyEnhancedParams ----------------------------------------------------------------------------


@asc.jit
def enhanced_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, RELU: asc.ConstExpr[bool]):
    x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    z_gm.set_global_buffer(z)
    ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
    params = asc.DataCopyParams(2, 2, 1, 0)  # two rows of two blocks, one block apart in GM
    asc.data_copy(ub, x_gm, params, asc.DataCopyEnhancedParams(is_relu_in=RELU))
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.data_copy(z_gm, ub, intri_params=asc.DataCopyParams(1, 4, 0, 0),
                  enhanced_params=asc.DataCopyEnhancedParams())  # fmt: skip


def test_enhanced_params_at_their_defaults_copy_as_data_copy_params(rng):
    x = rng.random(64, dtype=np.float32) - 0.5
    z = np.zeros(64, np.float32)
    run(enhanced_kernel, x, z, False)
    np.testing.assert_array_equal(z[:32], np.concatenate([x[:16], x[24:40]]))
    with pytest.raises(asc.CodegenError, match="is_relu applies to the CO1 -> CO2 path"):
        run(enhanced_kernel, x, z, True)


# ---- set_pad_value and data_copy_pad ---------------------------------------------------------------------


@asc.jit
def pad_register_kernel(x: asc.GlobalAddress, u: asc.GlobalAddress, LENGTH: asc.ConstExpr[int],
                        LEFT: asc.ConstExpr[int], RIGHT: asc.ConstExpr[int], FILL: asc.ConstExpr[float],
                        FILL_INT: asc.ConstExpr[bool]):  # fmt: skip
    x_gm, u_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    u_gm.set_global_buffer(u)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 1024)
    if FILL_INT:
        asc.set_pad_value(int(FILL), asc.TPosition.VECIN)  # an int32, as pyasc passes it
    else:
        asc.set_pad_value(FILL, dtype=x.dtype)
    size = x.dtype.sizeof()
    asc.data_copy_pad(a, x_gm, asc.DataCopyExtParams(2, LENGTH * size, 0, 0, 0),
                      asc.DataCopyPadExtParams(x.dtype, False, LEFT, RIGHT, 0))  # fmt: skip
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.data_copy(u_gm, a, 2 * (((LEFT + LENGTH + RIGHT) * size + 31) // 32 * 32 // size))


@pytest.mark.parametrize("dtype,length,left,right,fill,fill_int", [
    (asc.float32, 5, 1, 2, 2.5, False), (asc.float16, 9, 0, 3, -1.25, False), (asc.int16, 13, 2, 1, -7, True),
    (asc.float16, 6, 2, 0, 37, True),  # the register holds int32 37's bytes: the float16 pads are 0x0025
])  # fmt: skip
def test_set_pad_value_fills_the_pads(dtype, length, left, right, fill, fill_int, rng):
    t = NP[dtype]
    x = (rng.random(2 * length) * 100).astype(t)
    row = ((left + length + right) * dtype.sizeof() + 31) // 32 * 32 // dtype.sizeof()
    u = np.zeros(2 * row, t)
    run(pad_register_kernel, x, u, length, left, right, float(fill), fill_int)
    pad = np.array([int(fill)], np.int32).view(np.uint8)[: dtype.sizeof()].view(t)[0] if fill_int else t(fill)
    image = u.reshape(2, row)
    for r in range(2):
        np.testing.assert_array_equal(image[r, left : left + length], x[r * length : (r + 1) * length])
        assert np.all(image[r, :left] == pad) and np.all(image[r, left + length :] == pad)


@asc.jit
def bad_pad_value_kernel(POS: asc.ConstExpr[int]):
    asc.set_pad_value(1.0, asc.TPosition(POS))


def test_set_pad_value_errors():
    with pytest.raises(asc.CodegenError, match="pos must be TPosition.MAX, VECIN or VECOUT"):
        run(bad_pad_value_kernel, int(asc.TPosition.A1))


# ---- data_copy_pad, Unified Buffer -> L1 through GM, ND2NZ ----------------------------------------------------


def nd2nz_reference(nd_src, dst, size, nd, n, d, src_nd, src_d, c0_stride, n_stride, mat_stride):
    c0 = 32 // size
    out = dst.copy()
    for i in range(nd):
        for r in range(n):
            for c in range((d + c0 - 1) // c0 * c0):
                to = i * mat_stride + (c // c0) * c0_stride * c0 + r * n_stride * c0 + c % c0
                out[to] = nd_src[i * src_nd + r * src_d + c] if c < d else 0
    return out


@asc.jit
def pad_nd2nz_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, ROWS: asc.ConstExpr[int], LEN: asc.ConstExpr[int],
                     GAP: asc.ConstExpr[int], ND: asc.ConstExpr[tuple]):  # fmt: skip
    """x -> UB (whole), then data_copy_pad(dst, ub, rows, Nd2NzParams) into a second tensor, read back whole. The
    Model writes the destination tensor's own memory: the board's TSCM sits beside the Unified Buffer only on
    cores that have both, so the test's destination is a VECOUT tensor."""
    x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    z_gm.set_global_buffer(z)
    size = x.dtype.sizeof()
    ub = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 2048)
    out = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 8192, 2048)
    asc.data_copy(ub, x_gm, 2048)
    asc.data_copy(out, z_gm, 2048)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.data_copy_pad(out, ub, asc.DataCopyExtParams(ROWS, LEN * size, 0, GAP, 0), asc.Nd2NzParams(*ND))
    asc.pipe_barrier(asc.PipeID.PIPE_MTE3)
    asc.data_copy(z_gm, out, 2048)


@pytest.mark.parametrize("dtype,rows,length,gap,nd", [
    (asc.float16, 4, 24, 0, (1, 4, 24, 0, 24, 4, 1, 0)),      # a 4 x 24 matrix, rows packed in GM
    (asc.float32, 6, 10, 8, (2, 3, 10, 36, 12, 3, 1, 64)),     # two 3 x 10 matrices, rows 12 floats apart
    (asc.int8, 3, 40, 24, (1, 3, 40, 0, 64, 3, 1, 0)),         # int8: C0 = 32
])  # fmt: skip
def test_pad_nd2nz(dtype, rows, length, gap, nd, rng):
    t = NP[dtype]
    size = dtype.sizeof()
    x = (rng.random(2048) * 100).astype(t)
    z = np.full(2048, 5, t)
    run(pad_nd2nz_kernel, x, z, rows, length, gap, nd)
    row_elems = (length * size + 31) // 32 * 32 // size
    gm = np.zeros(rows * (length + gap // size), t)
    for r in range(rows):  # the rows as they lie in GM between the two legs
        gm[r * (length + gap // size) : r * (length + gap // size) + length] = x[r * row_elems : r * row_elems + length]
    np.testing.assert_array_equal(z, nd2nz_reference(gm, np.full(2048, 5, t), size, *nd))


# ---- AIPP: set_aipp_functions + load_image_to_local -------------------------------------------------------


@asc.jit(kernel_type=KernelType.AIC_ONLY)
def image_kernel(img: asc.GlobalAddress, uv: asc.GlobalAddress, out: asc.GlobalAddress, FMT: asc.ConstExpr[int],
                 DTYPE: asc.ConstExpr[str], WIN: asc.ConstExpr[tuple], CFG: asc.ConstExpr[tuple],
                 TOTAL: asc.ConstExpr[int]):  # fmt: skip
    """The image through the AIPP into A1, printed by dump_tensor (nothing copies L1 to GM directly)."""
    img_gm, uv_gm, out_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    img_gm.set_global_buffer(img)
    uv_gm.set_global_buffer(uv)
    out_gm.set_global_buffer(out)
    u = asc.int8 if DTYPE == "int8" else asc.float16
    pad_mode, pad_values, swap, dtc, cpad, csc = CFG
    config = asc.AippParams(
        dtype=u,
        padding_params=asc.AippPaddingParams(pad_mode, *pad_values),
        swap_params=asc.AippSwapParams(*swap),
        dtc_params=asc.AippDataTypeConvParams(*dtc),
        c_padding_params=asc.AippChannelPaddingParams(*cpad),
        csc_params=asc.AippColorSpaceConvParams(*csc),
    )
    fmt = asc.AippInputFormat(FMT)
    if fmt == asc.AippInputFormat.YUV420SP_U8:
        asc.set_aipp_functions(img_gm, uv_gm, fmt, config)
    else:
        asc.set_aipp_functions(img_gm, fmt, config)
    a1 = asc.LocalTensor(u, asc.TPosition.A1, 0, TOTAL)
    asc.load_image_to_local(a1, asc.LoadImageToLocalParams(*WIN))
    asc.set_flag(asc.HardEvent.MTE2_S, 0)
    asc.wait_flag(asc.HardEvent.MTE2_S, 0)
    asc.dump_tensor(a1, 0, TOTAL)


def aipp_reference(fmt, img, uv, win, cfg, out_dtype):
    """The documented AIPP stages: read (format, swaps), colour-space conversion, data type conversion, channel
    padding, spatial padding."""
    hs, vs, hstart, vstart, src_w, top, bot, left, right = win
    pad_mode, pad_values, swap, dtc, cpad, csc = cfg
    rb, uvs, ax = swap
    mean, mins, var, round_mode = dtc[0:3], dtc[3:6], dtc[6:9], dtc[9]
    c_mode, c_value = cpad
    size = 1 if out_dtype == "int8" else 2
    channels = 4 if c_mode else 32 // size
    rows = vs
    out = np.zeros((top + rows + bot, left + hs + right, channels), np.float64)
    for y in range(rows):
        for x in range(hs):
            r, c = vstart + y, hstart + x
            if fmt == 9:
                px = [int(img[r * src_w + c])]
            elif fmt == 4:
                px = [int(v) for v in img[(r * src_w + c) * 3 : (r * src_w + c) * 3 + 3]]
                if rb:
                    px[0], px[2] = px[2], px[0]
            elif fmt == 1:
                q = [int(v) for v in img[(r * src_w + c) * 4 : (r * src_w + c) * 4 + 4]]
                px = q[1:4] if ax else q[0:3]
                if rb:
                    px[0], px[2] = px[2], px[0]
            else:
                k = (r // 2) * src_w + (c // 2) * 2
                px = [int(img[r * src_w + c]), int(uv[k]), int(uv[k + 1])]
                if uvs:
                    px[1], px[2] = px[2], px[1]
            if csc[0] and len(px) == 3:
                m = np.array(csc[1:10]).reshape(3, 3)
                yuv_in = fmt in (0, 9)
                vec = np.array(px) - (np.array(csc[10:13]) if yuv_in else 0)
                res = (m @ vec) // 256 + (0 if yuv_in else np.array(csc[13:16]))
                px = [int(v) for v in np.clip(res, 0, 255)]
            for k in range(channels):
                if k < len(px):
                    if out_dtype == "float16":
                        t = np.float16(px[k] - mean[k])
                        t = np.float16(t - np.float16(mins[k]))
                        v = float(np.float16(t * np.float16(var[k])))
                    else:
                        t = (px[k] - mean[k] - float(np.float16(mins[k]))) * float(np.float16(var[k]))
                        t = np.rint(t) if round_mode else np.sign(t) * np.floor(abs(t) + 0.5)
                        v = float(np.clip(t, -128, 127))
                else:
                    v = c_value
                out[top + y, left + x, k] = v
    for y in range(out.shape[0]):
        for x in range(out.shape[1]):
            if top <= y < top + rows and left <= x < left + hs:
                continue
            if pad_mode == 0:
                out[y, x] = [pad_values[k] if k < 4 else c_value for k in range(channels)]
                continue

            def source(u, n, before, after):
                if 0 <= u < n:
                    return u
                s = u if pad_mode == 1 else ((u + before if u < 0 else u - after) if pad_mode == 2 else
                                             (-u - 1 if u < 0 else 2 * n - 1 - u))  # fmt: skip
                return min(n - 1, max(0, s))

            out[y, x] = out[top + source(y - top, rows, top, bot), left + source(x - left, hs, left, right)]
    return out.reshape(-1).astype(np.int8 if out_dtype == "int8" else np.float16)


NO_CSC = (False, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
DTC_NONE = (0, 0, 0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0)
# BT.601 full-range YUV -> RGB (x 256) and RGB -> YUV
YUV2RGB = (True, 256, 0, 359, 256, -88, -183, 256, 454, 0, 0, 128, 128, 0, 0, 0)
RGB2YUV = (True, 77, 150, 29, -43, -85, 128, 128, -107, -21, 0, 0, 0, 0, 128, 128)

AIPP_CASES = [
    # format, dtype, window (horiz, vert, hstart, vstart, src_w, top, bot, left, right), config
    (4, "int8", (4, 3, 2, 1, 8, 0, 0, 1, 2), (0, (5, -6, 7, 8), (True, False, False), DTC_NONE, (0, 0), NO_CSC)),
    (4, "float16", (4, 2, 0, 0, 4, 0, 0, 0, 0),
     (0, (0, 0, 0, 0), (False, False, False), (10, 20, 30, 0.5, 1.0, 1.5, 0.25, 0.5, 2.0, 0), (1, 0.75), NO_CSC)),
    (1, "int8", (2, 2, 0, 0, 4, 1, 1, 1, 1), (1, (0, 0, 0, 0), (True, False, True), (128, 100, 50, 0, 0, 0, 1, 1, 1, 1),
                                             (1, -1), NO_CSC)),
    (9, "float16", (6, 2, 2, 0, 8, 2, 1, 0, 0), (2, (0, 0, 0, 0), (False, False, False), DTC_NONE, (0, 0), NO_CSC)),
    (9, "int8", (4, 4, 0, 0, 4, 2, 2, 3, 1), (3, (0, 0, 0, 0), (False, False, False), (3, 0, 0, 0, 0, 0, 1, 1, 1, 0),
                                             (1, 9), NO_CSC)),
    (0, "int8", (4, 2, 0, 2, 6, 0, 0, 0, 0),
     (0, (0, 0, 0, 0), (False, True, False), (0, 0, 0, 0, 0, 0, 1, 1, 1, 0), (1, 0), YUV2RGB)),
    (0, "float16", (2, 2, 2, 0, 4, 0, 0, 0, 2), (0, (0, 0, 0, 0), (False, False, False), DTC_NONE, (0, 0), YUV2RGB)),
    (4, "int8", (2, 2, 0, 0, 2, 0, 0, 0, 0),
     (0, (0, 0, 0, 0), (False, False, False), (128, 128, 128, 0, 0, 0, 1, 1, 1, 0), (1, 0), RGB2YUV)),
]  # fmt: skip


@pytest.mark.parametrize("fmt,dtype,win,cfg", AIPP_CASES)
def test_load_image_through_the_aipp(fmt, dtype, win, cfg, rng, capsys):
    hs, vs, _, _, src_w, top, bot, left, right = win
    src_h = 8
    per_pixel = {4: 3, 1: 4, 9: 1, 0: 1}[fmt]
    img = rng.integers(0, 256, src_h * src_w * per_pixel, dtype=np.uint8)
    uv = rng.integers(0, 256, src_h // 2 * src_w, dtype=np.uint8)
    channels = 4 if cfg[4][0] else (32 if dtype == "int8" else 16)
    total = (top + vs + bot) * (left + hs + right) * channels
    out = np.zeros(total, np.int8 if dtype == "int8" else np.float16)
    run(image_kernel, img, uv, out, fmt, dtype, win, cfg, total)
    expected = aipp_reference(fmt, img, uv, win, cfg, dtype)
    np.testing.assert_array_equal(dumped(capsys.readouterr().out, out.dtype), expected)


def dumped(text, dtype):
    """The elements dump_tensor printed (its second line: [v0, v1, ...])."""
    body = text.splitlines()[1].split("] ", 1)[1].strip("[]")
    return np.array([float(v) for v in body.split(",")]).astype(dtype)


def test_aipp_errors(rng):
    img = np.zeros(256, np.uint8)
    out = np.zeros(1024, np.int8)
    cfg = (0, (0, 0, 0, 0), (False, False, False), DTC_NONE, (0, 0), NO_CSC)
    with pytest.raises(Exception, match="padding mode 0 .* pads left and right only"):
        run(image_kernel, img, img, out, 4, "int8", (2, 2, 0, 0, 4, 1, 0, 0, 0), cfg, 2 * 3 * 32)
    with pytest.raises(asc.CodegenError, match="horiz_size must be in \\[2, 4095\\]"):
        run(image_kernel, img, img, out, 4, "int8", (1, 2, 0, 0, 4, 0, 0, 0, 0), cfg, 64)
    with pytest.raises(asc.CodegenError, match="padding_mode must be in \\[0, 3\\]"):
        run(image_kernel, img, img, out, 4, "int8", (2, 2, 0, 0, 4, 0, 0, 0, 0), (4, *cfg[1:]), 128)
    with pytest.raises(asc.CodegenError, match="dtype must be asc.int8 or asc.float16"):
        asc.AippParams(dtype=asc.float32)


@asc.jit
def aipp_misuse_kernel(x: asc.GlobalAddress, CASE: asc.ConstExpr[int]):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    config = asc.AippParams(dtype=asc.int8)
    if CASE == 0:
        asc.set_aipp_functions(x_gm, asc.AippInputFormat.YUV420SP_U8, config)
    elif CASE == 1:
        asc.set_aipp_functions(x_gm, x_gm, asc.AippInputFormat.RGB888_U8, config)
    elif CASE == 2:
        asc.set_aipp_functions(x_gm, 4, config)
    else:
        ub = asc.LocalTensor(asc.int8, asc.TPosition.VECIN, 0, 1024)
        asc.load_image_to_local(ub, asc.LoadImageToLocalParams())


@pytest.mark.parametrize("case,message", [(0, "YUV420SP_U8 takes src0 \\(Y\\) and src1"), (1, "YUV420SP_U8 takes src0"),
                                          (2, "input_format must be an asc.AippInputFormat"),
                                          (3, "dst must be a LocalTensor in L1")])  # fmt: skip
def test_aipp_call_errors(case, message):
    with pytest.raises(asc.CodegenError, match=message):
        run(aipp_misuse_kernel, np.zeros(64, np.int8), case)


# ---- trans_data_to_5hd ----------------------------------------------------------------------------------


@asc.jit
def nchw_to_5hd_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, C: asc.ConstExpr[int], HW: asc.ConstExpr[int],
                       FORM: asc.ConstExpr[str]):  # fmt: skip
    """One image (N = 1) of C channels (a multiple of 16) of HW pixels (a multiple of 16) to NC1HWC0, C0 = 16, as
    pyasc's generalization cases do: per C1, HW / 16 repeats of 16 source blocks (one per channel) into 16
    destination blocks (one per pixel)."""
    x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    z_gm.set_global_buffer(z)
    src = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, C * HW)
    dst = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, C * HW * 2, C * HW)
    dst_addrs = asc.LocalTensor(asc.uint64, asc.TPosition.VECCALC, C * HW * 4, 16)
    src_addrs = asc.LocalTensor(asc.uint64, asc.TPosition.VECCALC, C * HW * 4 + 128, 16)
    asc.data_copy(src, x_gm, C * HW)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    params = asc.TransDataTo5HDParams(False, False, HW // 16, 16, 1)
    for c1 in asc.static_range(C // 16):
        base = c1 * 16 * HW
        dst_list, src_list, dst_addr_list, src_addr_list = [], [], [], []
        for i in asc.static_range(16):
            dst_list = dst_list + [dst[base + 16 * i]]
            src_list = src_list + [src[base + HW * i]]
            dst_addr_list = dst_addr_list + [dst[base + 16 * i].get_phy_addr()]
            src_addr_list = src_addr_list + [src[base + HW * i].get_phy_addr()]
        if FORM == "tensors":
            asc.trans_data_to_5hd(dst_list, src_list, params)
        elif FORM == "addresses":
            asc.trans_data_to_5hd(dst_addr_list, src_addr_list, params)
        else:  # the addresses stored in two uint64 tensors
            for i in asc.static_range(16):
                dst_addrs.set_value(i, dst_list[i].get_phy_addr())
                src_addrs.set_value(i, src_list[i].get_phy_addr())
            asc.set_flag(asc.HardEvent.S_V, 0)
            asc.wait_flag(asc.HardEvent.S_V, 0)
            asc.trans_data_to_5hd(dst_addrs, src_addrs, params)
            asc.pipe_barrier(asc.PipeID.PIPE_V)
            asc.set_flag(asc.HardEvent.V_S, 0)
            asc.wait_flag(asc.HardEvent.V_S, 0)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, dst, C * HW)


@pytest.mark.parametrize("form", ["tensors", "addresses", "uint64 tensors"])
@pytest.mark.parametrize("dtype,c,hw", [(asc.float16, 32, 64), (asc.int16, 16, 256), (asc.uint16, 48, 16)])
def test_nchw_to_nc1hwc0(form, dtype, c, hw, rng):
    x = (rng.random(c * hw) * 1000).astype(NP[dtype])
    z = np.zeros(c * hw, NP[dtype])
    run(nchw_to_5hd_kernel, x, z, c, hw, form)
    expected = x.reshape(c // 16, 16, hw).transpose(0, 2, 1).reshape(-1)  # C1, C0, HW -> C1, HW, C0
    np.testing.assert_array_equal(z, expected)


@asc.jit
def block_transpose_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, DST_HIGH: asc.ConstExpr[bool],
                           SRC_HIGH: asc.ConstExpr[bool]):  # fmt: skip
    """16 source blocks, 32 bytes apart, into 16 destination blocks, 32 bytes apart: one repeat."""
    x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    z_gm.set_global_buffer(z)
    n = 512 // x.dtype.sizeof()
    src = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    dst = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 512, n)
    asc.data_copy(src, x_gm, n)
    asc.data_copy(dst, z_gm, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    per = 32 // x.dtype.sizeof()
    dst_list, src_list = [], []
    for i in asc.static_range(16):
        dst_list = dst_list + [dst[per * i]]
        src_list = src_list + [src[per * i]]
    asc.trans_data_to_5hd(dst_list, src_list, asc.TransDataTo5HDParams(DST_HIGH, SRC_HIGH, 1, 0, 0))
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, dst, n)


@pytest.mark.parametrize("dtype,dst_high,src_high", [(asc.int8, False, False), (asc.int8, True, False),
                                                     (asc.uint8, False, True), (asc.uint8, True, True),
                                                     (asc.float32, False, False), (asc.int32, False, False),
                                                     (asc.float16, False, False)])  # fmt: skip
def test_block_transposes(dtype, dst_high, src_high, rng):
    t = NP[dtype]
    n = 512 // dtype.sizeof()
    x = (rng.random(n) * 100).astype(t)
    z = (rng.random(n) * 100).astype(t)
    expected = z.copy().reshape(16, -1)
    blocks = x.reshape(16, -1)
    if dtype.sizeof() == 2:
        expected[:, :] = blocks.T
    elif dtype.sizeof() == 1:
        expected[:, (16 if dst_high else 0) : (32 if dst_high else 16)] = blocks[:, (16 if src_high else 0) :][:, :16].T
    else:  # dst blocks 2p, 2p + 1: element p of src blocks 0-7, 8-15
        for p in range(8):
            expected[2 * p] = blocks[0:8, p]
            expected[2 * p + 1] = blocks[8:16, p]
    run(block_transpose_kernel, x, z, dst_high, src_high)
    np.testing.assert_array_equal(z, expected.reshape(-1))


@asc.jit
def declared_address_tensor_kernel(x_in: asc.GlobalAddress, z: asc.GlobalAddress):
    """pyasc's unit-test shape: LocalTensor(asc.uint64) declared without memory holds the addresses (the compiler
    places the two lists from the bottom of the Unified Buffer, as LocalTensorAuto: the data sits above them)."""
    x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x_in)
    z_gm.set_global_buffer(z)
    x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 1024, 256)
    y = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 2048, 256)
    asc.data_copy(x, x_gm, 256)
    d_list, s_list = asc.LocalTensor(dtype=asc.uint64), asc.LocalTensor(dtype=asc.uint64)
    for i in asc.static_range(16):
        d_list.set_value(i, y[16 * i].get_phy_addr())
        s_list.set_value(i, x[16 * i].get_phy_addr())
    asc.set_flag(asc.HardEvent.S_V, 0)
    asc.wait_flag(asc.HardEvent.S_V, 0)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.trans_data_to_5hd(d_list, s_list, asc.TransDataTo5HDParams(False, False, 1, 0, 0))
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, y, 256)


def test_declared_uint64_tensors_hold_address_lists(rng):
    x = rng.random(256).astype(np.float16)
    z = np.zeros(256, np.float16)
    run(declared_address_tensor_kernel, x, z)
    np.testing.assert_array_equal(z, x.reshape(16, 16).T.reshape(-1))


@asc.jit
def bad_5hd_kernel(CASE: asc.ConstExpr[int]):
    x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 256)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 256)
    p = asc.TransDataTo5HDParams(False, False, 1, 0, 0)
    if CASE == 0:
        asc.trans_data_to_5hd([x] * 15, [x] * 16, p)
    elif CASE == 1:
        asc.trans_data_to_5hd([a1] * 16, [x] * 16, p)
    elif CASE == 2:
        asc.trans_data_to_5hd([0] * 16, [0] * 16, p)
    elif CASE == 3:
        asc.trans_data_to_5hd([x] * 16, [x] * 16, asc.TransDataTo5HDParams(True, False, 1, 0, 0))
    else:
        asc.trans_data_to_5hd([x] * 16, [x] * 16, asc.DataCopyParams())


@pytest.mark.parametrize("case,message", [(0, "each list holds 16 entries"), (1, "must be in the Unified Buffer"),
                                          (2, "cannot tell the data's dtype"),
                                          (3, "apply to int8 and uint8 only"),
                                          (4, "params must be an asc.TransDataTo5HDParams")])  # fmt: skip
def test_5hd_errors(case, message):
    with pytest.raises(asc.CodegenError, match=message):
        run(bad_5hd_kernel, case)


# ---- the emitted Ascend C ---------------------------------------------------------------------------------


def test_emitted_ascendc_spells_the_instructions():
    source = ascendc_source(slice_out_kernel.compile(MockTensor(asc.float32), MockTensor(asc.float32), 256,
                                                     ((0, 7, 0, 1, 8),), ((0, 7, 0, 1, 8),)))  # fmt: skip
    assert "AscendC::SliceInfo asc_slices" in source and "AscendC::DataCopy(" in source
    source = ascendc_source(pad_register_kernel.compile(MockTensor(asc.float32), MockTensor(asc.float32), 5, 1, 2,
                                                        2.5, False))  # fmt: skip
    assert "AscendC::SetPadValue<float, AscendC::TPosition::MAX>(" in source
    cfg = (0, (0, 0, 0, 0), (True, False, False), DTC_NONE, (0, 0), NO_CSC)
    source = ascendc_source(image_kernel.compile(MockTensor(asc.uint8), MockTensor(asc.uint8), MockTensor(asc.int8),
                                                 4, "int8", (2, 2, 0, 0, 2, 0, 0, 0, 0), cfg, 128))  # fmt: skip
    assert "AscendC::SetAippFunctions(" in source and "AscendC::AippParams<int8_t>{" in source
    assert "AscendC::LoadImageToLocal(" in source
    source = ascendc_source(nchw_to_5hd_kernel.compile(MockTensor(asc.float16), MockTensor(asc.float16), 16, 16,
                                                       "addresses"))  # fmt: skip
    assert "AscendC::TransDataTo5HD<half>(asc_5hd" in source
    source = ascendc_source(pad_nd2nz_kernel.compile(MockTensor(asc.float16), MockTensor(asc.float16), 4, 24, 0,
                                                     (1, 4, 24, 0, 24, 4, 1, 0)))  # fmt: skip
    assert "AscendC::DataCopyPad(" in source and "AscendC::Nd2NzParams(" in source
