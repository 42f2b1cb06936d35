"""The operator API's convolutions through the cube's img2col load (pyasc/conv.py): numpy-checked conv2d on
generated cases (strides 1 and 2, paddings 0..3, filters 1, 3 and 7, 1, 3, 8 and 17 channels, float32 and
float16, odd image sizes, two images), bands of output rows that lie wholly in the padding, several blocks
of pixels, taps and output channels per band, dilation; that the tutorial's conv2d takes this path (its
launches' kernels) with its zero fill dropped; and that what the path does not take (an output added to,
grouped channels) falls back to the gathers and a matmul and is still right."""

import numpy as np
import pytest
from pyasc_ops import conv2d

import asc.lib.runtime as rt
import pyasc
import pyasc.conv as conv
import pyasc.kernels as kernels
from pyasc.steps import ContractionStep


@pyasc.operator("DilatedConv2d")
def dilated_conv2d(input, weight, output, stride=1, padding=0, dilation=1):
    N, C, H, W = input.shape
    K, _, kH, kW = weight.shape
    oH = (H + 2 * padding - dilation * (kH - 1) - 1) // stride + 1
    oW = (W + 2 * padding - dilation * (kW - 1) - 1) // stride + 1
    output.resize((N, K, oH, oW))
    output[:] = 0
    for n in range(N):
        for k in range(K):
            for c in range(C):
                for oh in range(oH):
                    for ow in range(oW):
                        s = 0
                        for kh in range(kH):
                            for kw in range(kW):
                                ih = oh * stride + kh * dilation - padding
                                iw = ow * stride + kw * dilation - padding
                                if ih >= 0 and ih < H and iw >= 0 and iw < W:  # the bounds spelt another way
                                    s += weight[k, c, kh, kw] * input[n, c, ih, iw]  # the weight first
                        output[n, k, oh, ow] += s


@pyasc.operator("ConvAddedTo")
def conv_added_to(input, weight, output):  # no zero fill: the convolution is added to what output holds
    N, C, H, W = input.shape
    K, _, kH, kW = weight.shape
    for n in range(N):
        for k in range(K):
            for c in range(C):
                for oh in range(H - kH + 1):
                    for ow in range(W - kW + 1):
                        s = 0
                        for kh in range(kH):
                            for kw in range(kW):
                                s += input[n, c, oh + kh, ow + kw] * weight[k, c, kh, kw]
                        output[n, k, oh, ow] += s


@pyasc.operator("DepthwiseConv2d")
def depthwise_conv2d(input, weight, output):  # groups = channels: the channel is the output's counter
    N, C, H, W = input.shape
    _, _, kH, kW = weight.shape
    output[:] = 0
    for n in range(N):
        for k in range(C):
            for oh in range(H - kH + 1):
                for ow in range(W - kW + 1):
                    s = 0
                    for kh in range(kH):
                        for kw in range(kW):
                            s += input[n, k, oh + kh, ow + kw] * weight[k, 0, kh, kw]
                    output[n, k, oh, ow] += s


def reference(x, w, stride, padding, dilation=1):
    """float64 convolution, numpy only."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    n, c, h, wd = x.shape
    k, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    oh = (h + 2 * padding - dilation * (kh - 1) - 1) // stride + 1
    ow = (wd + 2 * padding - dilation * (kw - 1) - 1) // stride + 1
    out = np.zeros((n, k, oh, ow))
    for i in range(kh):
        for j in range(kw):
            r, s = i * dilation, j * dilation
            patch = xp[:, :, r : r + stride * (oh - 1) + 1 : stride, s : s + stride * (ow - 1) + 1 : stride]
            out += np.einsum("nchw,kc->nkhw", patch, w[:, :, i, j])
    return out


def kernels_of(op, *args, **attrs):
    arrays, bound, _ = op._bind(args, attrs)
    plan = op.plan(arrays, bound)
    return [launch.kernel for launch in plan.launches(op._storage(plan, arrays))], plan


TOLERANCE = {np.float32: 1e-4, np.float16: 2e-3}
CUBE = (kernels.conv_fused, kernels.conv_img2col)  # one mixed launch, or the three-launch form's cube kernel


def on_the_cube(made):
    return any(k in CUBE for k in made)


CASES = [  # n, c, h, w, k, kernel, stride, padding, dtype
    (1, 3, 15, 17, 8, 3, 1, 1, np.float32),
    (2, 3, 13, 11, 16, 3, 2, 1, np.float32),
    (1, 1, 9, 9, 8, 1, 1, 0, np.float32),
    (2, 8, 10, 7, 24, 1, 2, 2, np.float32),
    (1, 17, 12, 9, 16, 3, 1, 3, np.float32),
    (2, 3, 21, 19, 8, 7, 2, 3, np.float32),
    (1, 17, 11, 13, 5, 7, 1, 2, np.float32),
    (1, 8, 9, 12, 13, 3, 2, 0, np.float32),
    (1, 3, 15, 17, 8, 3, 1, 1, np.float16),
    (2, 17, 11, 9, 16, 3, 2, 2, np.float16),
    (1, 1, 13, 13, 8, 7, 1, 3, np.float16),
    (2, 8, 9, 7, 24, 1, 1, 1, np.float16),
    (1, 3, 23, 21, 16, 7, 2, 3, np.float16),
    (1, 17, 10, 11, 40, 1, 2, 0, np.float16),
]


@pytest.mark.parametrize("fused", [True, False])
@pytest.mark.parametrize("n,c,h,w,k,ksize,stride,padding,dtype", CASES)
def test_conv2d_through_img2col_equals_numpy(n, c, h, w, k, ksize, stride, padding, dtype, fused, rng, monkeypatch):
    monkeypatch.setattr(conv, "FUSED", fused)
    x = rng.standard_normal((n, c, h, w)).astype(dtype)
    weight = rng.standard_normal((k, c, ksize, ksize)).astype(dtype)
    oh, ow = (h + 2 * padding - ksize) // stride + 1, (w + 2 * padding - ksize) // stride + 1
    out = np.empty((n, k, oh, ow), np.float32)  # float16 operands: the cube's float32 result
    made, plan = kernels_of(conv2d, x, weight, out, stride=stride, padding=padding)
    step = plan.steps[0]
    layouts = kernels.layouts_by_tables if step.folding else kernels.transpose_tiles_pair
    assert made == ([kernels.conv_fused] if fused else [layouts, kernels.conv_img2col, kernels.transpose_tiles])
    # the filter's columns folded into the channels exactly where that needs fewer img2col columns
    c0 = 32 // np.dtype(dtype).itemsize
    assert (step.folding is not None) == (ksize > 1 and -(-c * ksize // c0) < -(-c // c0) * ksize)
    conv2d(x, weight, out, stride=stride, padding=padding)
    tol = TOLERANCE[dtype]
    np.testing.assert_allclose(out, reference(x, weight, stride, padding), rtol=tol, atol=tol * np.sqrt(c * ksize**2))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("fused", [True, False])
def test_bands_wholly_in_the_padding(dtype, fused, rng, monkeypatch):
    monkeypatch.setattr(conv, "FUSED", fused)
    # a 1x1 filter with padding 3: the first and last three output rows read only padding (bands above and
    # below the image), one output row a band on 24 cores
    x = rng.standard_normal((2, 3, 5, 6)).astype(dtype)
    weight = rng.standard_normal((8, 3, 1, 1)).astype(dtype)
    out = np.empty((2, 8, 11, 12), np.float32)
    conv2d(x, weight, out, stride=1, padding=3)
    np.testing.assert_allclose(out, reference(x, weight, 1, 3), rtol=1e-3, atol=1e-3)
    assert (out[:, :, :3] == 0).all() and (out[:, :, -3:] == 0).all()


@pytest.mark.parametrize("fused", [True, False])
def test_several_blocks_of_pixels_taps_and_channels(fused, rng, monkeypatch):
    monkeypatch.setattr(conv, "FUSED", fused)
    # 136 filters: two blocks of output channels (128 + 8); 8 x 7 x 7 taps: four blocks of 128; a band of
    # several hundred pixels: blocks of 128 and a tail
    x = rng.standard_normal((1, 8, 100, 41)).astype(np.float32)
    weight = rng.standard_normal((136, 8, 7, 7)).astype(np.float32)
    _, plan = kernels_of(conv2d, x, weight, stride=1, padding=3)
    step = next(s for s in plan.steps if isinstance(s, conv.ConvStep))
    assert step.plan.nc < 136 and step.plan.taps > step.plan.kc and step.plan.tiles[0, 2] > step.plan.mc
    out = conv2d(x, weight, stride=1, padding=3)
    np.testing.assert_allclose(out, reference(x, weight, 1, 3), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("dilation,stride,padding", [(2, 1, 2), (3, 2, 1)])
def test_dilation_and_another_spelling_of_the_guards(dilation, stride, padding, rng):
    x = rng.standard_normal((1, 3, 14, 15)).astype(np.float32)
    weight = rng.standard_normal((8, 3, 3, 3)).astype(np.float32)
    made, _ = kernels_of(dilated_conv2d, x, weight, stride=stride, padding=padding, dilation=dilation)
    assert on_the_cube(made)
    out = dilated_conv2d(x, weight, stride=stride, padding=padding, dilation=dilation)
    np.testing.assert_allclose(out, reference(x, weight, stride, padding, dilation), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("fused", [False, True])
def test_the_tutorial_conv_takes_the_img2col_path(fused, rng, monkeypatch):
    monkeypatch.setattr(conv, "FUSED", fused)
    x = rng.standard_normal((1, 3, 224, 224)).astype(np.float32)
    weight = rng.standard_normal((64, 3, 7, 7)).astype(np.float32)
    out = np.empty((1, 64, 112, 112), np.float32)
    made, plan = kernels_of(conv2d, x, weight, out, stride=2, padding=3)
    # the zero fill is dropped (the convolution writes every element): the layouts, the cube, the result's
    # transpose (pyasc.conv.FUSED: all three in one mixed launch)
    assert made == ([kernels.conv_fused] if fused else
                    [kernels.layouts_by_tables, kernels.conv_img2col, kernels.transpose_tiles])  # fmt: skip
    assert len(plan.steps) == 1 and "img2col" in plan.steps[0].describe()
    # 3 channels x 7 columns folded: 7 x 24 img2col columns where 7 x 7 x 8 would be
    assert plan.steps[0].cube.c == 21 and plan.steps[0].plan.taps == 168
    out[...] = np.nan  # every element is written
    conv2d(x, weight, out, stride=2, padding=3)
    np.testing.assert_allclose(out, reference(x, weight, 2, 3), rtol=1e-3, atol=1e-3)


def test_an_output_added_to_falls_back_to_the_gathers(rng):
    x = rng.standard_normal((1, 3, 9, 10)).astype(np.float32)
    weight = rng.standard_normal((8, 3, 3, 3)).astype(np.float32)
    out = rng.standard_normal((1, 8, 7, 8)).astype(np.float32)
    want = out + reference(x, weight, 1, 0)
    made, plan = kernels_of(conv_added_to, x, weight, out)
    assert not on_the_cube(made) and isinstance(plan.steps[0], ContractionStep)
    conv_added_to(x, weight, out)
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4)


def test_grouped_channels_fall_back_to_the_gathers(rng):
    x = rng.standard_normal((2, 4, 8, 9)).astype(np.float32)
    weight = rng.standard_normal((4, 1, 3, 3)).astype(np.float32)
    out = np.empty((2, 4, 6, 7), np.float32)
    made, _ = kernels_of(depthwise_conv2d, x, weight, out)
    assert not on_the_cube(made)
    depthwise_conv2d(x, weight, out)
    want = np.stack([reference(x[:, i : i + 1], weight[i : i + 1], 1, 0)[:, 0] for i in range(4)], axis=1)
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4)


def test_disabled_the_gather_path_gives_the_same_result(rng, monkeypatch):
    x = rng.standard_normal((1, 3, 17, 15)).astype(np.float32)
    weight = rng.standard_normal((16, 3, 3, 3)).astype(np.float32)
    cube = conv2d(x, weight, stride=2, padding=1)
    monkeypatch.setattr(conv, "ENABLED", False)
    op = pyasc.register(conv2d.fn, name="Conv2dGathers")
    made, _ = kernels_of(op, x, weight, stride=2, padding=1)
    assert not on_the_cube(made) and kernels.gather_windows in made
    np.testing.assert_allclose(op(x, weight, stride=2, padding=1), cube, rtol=1e-5, atol=1e-5)


def test_the_layout_transpose_equals_numpy(rng):
    # NCHW -> NC1HWC0 of 17 channels (C0 = 8: three groups, the last one with one channel and 7 zeros)
    x = rng.standard_normal((2, 17, 5, 7)).astype(np.float32)
    c1, hw = 3, 35
    dst = np.full(2 * c1 * hw * 8, np.nan, np.float32)
    offs = kernels.transpose_offsets(8, 256, 4)
    args = (dst, x.reshape(-1), offs, 2 * c1, c1, 8, 17, hw, 17 * hw, hw, hw * 8, 8, 8, 256)
    kernels.transpose_tiles[4, rt.current_stream()](*args)
    want = np.zeros((2, c1 * 8, hw), np.float32)
    want[:, :17] = x.reshape(2, 17, hw)
    want = want.reshape(2, c1, 8, hw).transpose(0, 1, 3, 2).reshape(-1)
    np.testing.assert_array_equal(dst, want)


def test_a_band_of_more_blocks_than_the_cube_may_run_ahead(rng, monkeypatch):
    monkeypatch.setattr(conv, "FUSED", True)
    # 10 output rows of 130 pixels a band: 11 blocks of 128 pixels, more than CONV_AHEAD unconsumed flags
    x = rng.standard_normal((1, 3, 240, 130)).astype(np.float32)
    weight = rng.standard_normal((8, 3, 3, 3)).astype(np.float32)
    _, plan = kernels_of(conv2d, x, weight, stride=1, padding=1)
    step = next(s for s in plan.steps if isinstance(s, conv.ConvStep))
    assert -(-int(step.plan.tiles[0, 2]) // step.plan.mc) > kernels.CONV_AHEAD
    out = conv2d(x, weight, stride=1, padding=1)
    np.testing.assert_allclose(out, reference(x, weight, 1, 1), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_the_folded_layouts_equal_numpy(dtype, rng, monkeypatch):
    # 3 channels x a 5-column filter folded into 15 channels (two groups of 8 float32, one of 16 float16), stride 2,
    # padding 2, two images; small tiles (about 256 entries), so both layouts take several tiles and tables
    monkeypatch.setattr(conv, "LAYOUT_TILE", 256)
    n, c, h, w, k, kh, kw, stride, pad = 2, 3, 9, 13, 10, 5, 5, 2, 2
    ow = (w + 2 * pad - kw) // stride + 1
    cv = conv.Conv(n, c, h, w, k, kh, kw, (h + 2 * pad - kh) // stride + 1, ow, (stride, stride), (1, 1), (pad, pad))
    c0 = 32 // np.dtype(dtype).itemsize
    cube = conv.folded(cv, c0)
    assert (cube.c, cube.w, cube.kw, cube.stride, cube.pad) == (15, ow, 1, (stride, 1), (pad, 0))
    fl = conv.folded_layout(cv, cube, c0, np.dtype(dtype).itemsize)
    assert fl.x_tiles > 2 * -(-15 // c0) and len(fl.tiles) - fl.x_tiles > 1
    c1 = -(-15 // c0)
    x = rng.standard_normal((n, c, h, w)).astype(dtype)
    weight = rng.standard_normal((k, c, kh, kw)).astype(dtype)
    x5 = np.full(n * c1 * h * ow * c0, np.nan, dtype)
    wt = np.full(k * c1 * kh * c0, np.nan, dtype)
    kernels.layouts_by_tables[kernels.cores_for(len(fl.tiles)), rt.current_stream()](
        x5, x.reshape(-1), wt, weight.reshape(-1), fl.tables.reshape(-1), fl.tiles.reshape(-1), fl.x_tiles,
        len(fl.tiles) - fl.x_tiles, fl.entries, fl.pitch, fl.tables.size)  # fmt: skip
    padded = np.pad(x, ((0, 0), (0, 0), (0, 0), (pad, pad + kw)))
    want_x = np.zeros((n, c1 * c0, h, ow), dtype)
    want_w = np.zeros((k, c1 * c0, kh), dtype)
    for ch in range(c * kw):
        cc, dx = divmod(ch, kw)
        want_x[:, ch] = padded[:, cc, :, dx : dx + stride * (ow - 1) + 1 : stride]
        want_w[:, ch] = weight[:, cc, :, dx]
    want_x = want_x.reshape(n, c1, c0, h, ow).transpose(0, 1, 3, 4, 2)
    want_w = want_w.reshape(k, c1, c0, kh).transpose(0, 1, 3, 2)
    np.testing.assert_array_equal(x5, want_x.reshape(-1))
    np.testing.assert_array_equal(wt, want_w.reshape(-1))
