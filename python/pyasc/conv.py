"""A 2-D convolution through the cube's img2col load, instead of an im2col gather on the vector unit.

A contraction nest is a convolution when its output is out[n, o, oh, ow] (all of it, float32), one operand
is weight[o, c, kh, kw] (whole, as stored) and the other input[n, c, oh * stride_h + kh * dilation_h - pad_h,
ow * stride_w + kw * dilation_w - pad_w] under guards that hold exactly where that index is inside the image
(checked element by element against the index table the nest gives, so any spelling of the bounds check
counts). It then runs in three launches (steps 1 and 2 are one, kernels.transpose_tiles_pair):

0. (folded(): an image of fewer channels than C0 takes the filter's columns as channels, so the cube pads
   c * kw channels to whole groups rather than c of them kw times; kernels.layouts_by_tables then makes steps 1
   and 2's layouts, a Gather by a table per tile.)
1. kernels.transpose_tiles: the input NCHW -> NC1HWC0 (C0 = 32 bytes of channels, the missing channels 0),
   the layout the img2col load reads. The Unified Buffer has no strided-element DMA, so it is one strided
   DMA in per 32-byte-channel group and pixel tile, one Gather by a constant offset table, one DMA out:
   three instructions per 2048 elements, the cheapest structured path (TransDataTo5HD moves 16 rows of one
   32-byte block per repeat, so C = 3 channels would need as many repeats as pixels / 16 and three more
   address lists per repeat; the Gather does a whole tile in one instruction);
2. the same kernel: the weights [o, c, kh, kw] -> [o][c1][kh][kw][c0], img2col's column order;
3. kernels.conv_img2col on the cube: bands of output rows over the cube cores; a band's input rows into L1,
   the FMatrix registers hold its height and the padding (no zero-filled copy), load_data with
   LoadData3DParamsV2 fills L0A with the img2col block, the weights go ND -> NZ into L1 and on to L0B, mmad
   accumulates in L0C, the fixpipe writes [pixels x o] to GM;
4. kernels.transpose_tiles: [pixels x o] -> out's NCHW.

Why the result is pixel-major and needs step 4: the Model's img2col load writes L0B as the K = pixels,
N = taps matrix (docs/cube.md), which mmad contracts over the pixels (the weight-gradient form); the only way
to contract over the taps is the img2col matrix as A (L0A), so the cube's result is [pixels x o], and the
fixpipe on Atlas A2 writes rows (NZ2ND) or 16-column fractals (NZ2NZ) of it, never its transpose.

What it does not take, and the nest then keeps the gather path (steps.ContractionStep): an output added to
(`+=` without the zero fill before), a partial output, groups (a channel index other than the same counter
in both operands), strides, dilations or a filter past the FMatrix's 8-bit fields (255), padding past 255,
an output width other than the padded image's, a band of input rows that does not fit 384 KiB of L1, weights
whose 16 output channels do not fit 128 KiB of L1, dtypes other than two float16 or two float32 operands."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional

import numpy as np

from . import kernels
from .errors import NotRecognised
from .steps import FLOATS, Launch, Location, Step, _table
from .symbols import Affine, ArrayView, Counter, Load, Param, Range

LAYOUT_TILE = 512  # about the elements of a folded layout's tile: small tiles spread evenly over the cores, and
# their tables are small enough for all of them to stay in the UB
ENABLED = True  # False: convolutions take the gather path (to compare the two)
# True: one MIX_AIC_1_2 launch (kernels.conv_fused), 12.5 us on the Model at the tutorial's size against the three
# launches' 19.6 us, but twice their wall clock here (the Model runs a mixed kernel's 69 cores on threads of their
# own: 72 ms against 32-38 ms, numpy's einsum about 5 ms, too near the 20x the issue allows); so three by default
FUSED = False
MAX_FIELD = 255  # the FMatrix's and the load's 8-bit fields: pads, strides, dilations, filter sizes
MAX_M_START = 32767  # m_start_pt's range
MAX_K = 65535  # k_start_pt and k_extension are 16-bit


@dataclass
class Conv:
    n: int
    c: int
    h: int
    w: int
    k: int
    kh: int
    kw: int
    oh: int
    ow: int
    stride: tuple[int, int]
    dilation: tuple[int, int]
    pad: tuple[int, int]  # top, left (the bottom and right follow from the output size)


def _single(index: Affine) -> Optional[str]:
    """The counter `index` is, when it is one counter as it is (coefficient 1, no offset)."""
    if index.offset == 0 and len(index.terms) == 1 and index.terms[0][1] == 1:
        return index.terms[0][0]
    return None


def _window(index: Affine, out_counter: str, tap_counter: str) -> tuple[int, int, int]:
    """(stride, dilation, pad) of `index` = out_counter * stride + tap_counter * dilation - pad."""
    coeffs = index.coeffs
    stride, dilation = coeffs.get(out_counter, 0), coeffs.get(tap_counter, 0)
    if set(coeffs) != {out_counter, tap_counter} or stride < 1 or dilation < 1 or index.offset > 0:
        raise NotRecognised("a spatial index other than out * stride + tap * dilation - pad")
    return stride, dilation, -index.offset


def match(out: ArrayView, free: list[Counter], reduce: list[Counter], fmap: Load, weight: Load) -> Conv:
    """The convolution the nest is, or NotRecognised."""
    if len(free) != 4 or len(reduce) != 3 or len(fmap.index) != 4 or len(weight.index) != 4:
        raise NotRecognised("not a 4-D convolution")
    if not (out.identity and fmap.view.identity and weight.view.identity):
        raise NotRecognised("a transposed view")
    n, o, oh, ow = free
    names = [_single(i) for i in weight.index]
    if None in names or names[0] != o.name:
        raise NotRecognised("a weight index other than [out channel, channel, kh, kw]")
    byname = {c.name: c for c in reduce}
    if set(names[1:]) != set(byname):
        raise NotRecognised("a weight index other than [out channel, channel, kh, kw]")
    c, kh, kw = (byname[x] for x in names[1:])
    if _single(fmap.index[0]) != n.name or _single(fmap.index[1]) != c.name:
        raise NotRecognised("an input index other than [image, channel, ...] (groups?)")
    sh, dh, ph = _window(fmap.index[2], oh.name, kh.name)
    sw, dw, pw = _window(fmap.index[3], ow.name, kw.name)
    shape_w, shape_x, shape_o = weight.view.param.shape, fmap.view.param.shape, out.param.shape
    if shape_w != (o.extent, c.extent, kh.extent, kw.extent):
        raise NotRecognised("loops that do not cover the whole weight")
    if shape_x[:2] != (n.extent, c.extent) or shape_o != (n.extent, o.extent, oh.extent, ow.extent):
        raise NotRecognised("loops that do not cover the whole input and output")
    return Conv(n.extent, c.extent, shape_x[2], shape_x[3], o.extent, kh.extent, kw.extent, oh.extent, ow.extent,
                (sh, sw), (dh, dw), (ph, pw))  # fmt: skip


def _im2col_table(conv: Conv) -> np.ndarray:
    """The input's storage position for every (n, oh, ow, c, kh, kw), FILL outside the image: what a
    convolution's guards must give."""
    n, oh, ow, c, kh, kw = np.ix_(*(np.arange(e) for e in (conv.n, conv.oh, conv.ow, conv.c, conv.kh, conv.kw)))
    ih = oh * conv.stride[0] + kh * conv.dilation[0] - conv.pad[0]
    iw = ow * conv.stride[1] + kw * conv.dilation[1] - conv.pad[1]
    inside = (ih >= 0) & (ih < conv.h) & (iw >= 0) & (iw < conv.w)
    at = ((n * conv.c + c) * conv.h + ih) * conv.w + iw
    return np.where(inside, at, kernels.FILL).reshape(-1)


def folded(conv: Conv, c0: int) -> Conv:
    """The convolution the cube runs: `conv`, or, when it needs fewer img2col columns, `conv` with the filter's
    columns folded into the channels. The img2col load pads the channels to whole groups of C0 (8 float32), so
    an image of fewer channels (a network's first layer: 3) wastes most of each group and each filter column
    pays for it: 7 x 7 x 8 = 392 taps where 147 are used. Folded, channel c * kw + dx is input channel c read at
    column ow * stride + dx * dilation - pad: a kh x 1 filter over c * kw channels, stride 1 across columns as
    wide as the output, 7 x 24 = 168 taps (FoldedLayout makes that input)."""

    def groups(channels: int) -> int:
        return -(-channels // c0)

    if conv.kw == 1 or groups(conv.c * conv.kw) >= groups(conv.c) * conv.kw:
        return conv
    return replace(conv, c=conv.c * conv.kw, w=conv.ow, kw=1, stride=(conv.stride[0], 1),
                   dilation=(conv.dilation[0], 1), pad=(conv.pad[0], 0))  # fmt: skip


@dataclass
class FoldedLayout:
    """The folded convolution's input and weights laid out by kernels.layouts_by_tables: per tile a few runs of
    the source in the UB and one Gather by a table of byte offsets (a tile of rows of one channel group, or of a
    few output channels' weights), so the column shifts and strides of the folding cost no more than a
    transpose. Table g < c1 makes group g's rows, table c1 the weights; entries past the image or the channels
    point at the tile's zero block."""

    tables: np.ndarray  # uint32 [c1 + 1, entries]: all of them in the UB while the tiles run
    tiles: np.ndarray  # int32 [tiles, 8]: layouts_by_tables' rows, the feature map's first
    x_tiles: int
    entries: int
    pitch: int  # UB elements between a tile's source runs


def folded_layout(conv: Conv, cube: Conv, c0: int, itemsize: int) -> Optional[FoldedLayout]:
    """The tables and tiles, or None when a row of the folded input or one filter's weights does not fit a tile,
    or the tables do not fit the UB together."""
    kw, sw, dw, pl = conv.kw, conv.stride[1], conv.dilation[1], conv.pad[1]
    c1 = -(-cube.c // c0)
    zero_at = kernels.LAYOUT_IN_BYTES // itemsize - c0  # a tile half's last 32-byte block stays 0
    lows = [g * c0 // kw for g in range(c1)]  # group g's first input channel and how many it reads
    runs = [(min((g + 1) * c0, cube.c) - 1) // kw - lows[g] + 1 for g in range(c1)]

    def pitch_for(rows: int) -> int:
        return -(-rows * conv.w * itemsize // 32) * 32 // itemsize

    row, per_o, taps = cube.w * c0, conv.c * conv.kh * conv.kw, c1 * conv.kh * c0
    rows = min(conv.h, max(1, LAYOUT_TILE // row))
    while rows > 0 and max(runs) * pitch_for(rows) > zero_at:
        rows -= 1
    batch = min(conv.k, max(1, LAYOUT_TILE // taps), zero_at // per_o)
    entries = max(rows * row, batch * taps)
    if rows < 1 or batch < 1 or entries > kernels.LAYOUT_ENTRIES or (c1 + 1) * entries * 4 > kernels.LAYOUT_TABLE_BYTES:
        return None
    pitch = pitch_for(rows)
    tables = np.full((c1 + 1, entries), zero_at, np.int64)
    # the feature map: entry (row, column, j) of group g is channel g * c0 + j = c * kw + dx at column
    # column * stride + dx * dilation - pad of its run's row
    r, q, j = np.ix_(np.arange(rows), np.arange(cube.w), np.arange(c0))
    for g in range(c1):
        ch = g * c0 + j
        iw = q * sw + ch % kw * dw - pl
        inside = (ch < cube.c) & (iw >= 0) & (iw < conv.w)
        at = (ch // kw - lows[g]) * pitch + r * conv.w + iw
        tables[g, : rows * row] = np.where(inside, at, zero_at).reshape(-1)
    # the weights: entry (o, g, y, j) is weight[o][c][y][dx] for channel g * c0 + j = c * kw + dx
    o, g, y, j = np.ix_(np.arange(batch), np.arange(c1), np.arange(conv.kh), np.arange(c0))
    ch = g * c0 + j
    at = o * per_o + ch // kw * conv.kh * kw + y * kw + ch % kw
    tables[c1, : batch * taps] = np.where(ch < cube.c, at, zero_at).reshape(-1)
    tiles = []
    for n in range(conv.n):
        for g in range(c1):
            for r0 in range(0, conv.h, rows):
                count = min(rows, conv.h - r0)
                src = (n * conv.c + lows[g]) * conv.h * conv.w + r0 * conv.w
                dst = ((n * c1 + g) * conv.h + r0) * row
                tiles.append((src, runs[g], count * conv.w, conv.h * conv.w, dst, count * row, g, 0))
    x_tiles = len(tiles)
    for o0 in range(0, conv.k, batch):
        count = min(batch, conv.k - o0)
        tiles.append((o0 * per_o, 1, count * per_o, count * per_o, o0 * taps, count * taps, c1, 0))
    return FoldedLayout((tables * itemsize).astype(np.uint32), np.array(tiles, np.int32), x_tiles, entries, pitch)


@dataclass
class Plan:
    """The launch geometry: the bands of output rows and the cube's block sizes."""

    c0: int
    c1: int
    taps: int
    kp: int  # output channels rounded to 8 (the fixpipe's rows are whole 32-byte blocks)
    pad_r: int
    tiles: np.ndarray  # int32 [bands, 8]: image, first pixel, pixels, first input row, rows, pad top/bottom, m
    mc: int
    kc: int
    nc: int
    filter_word: int  # the V2Pro load's filter_config: dilations, filter size, strides (docs/cube.md)


def plan(conv: Conv, itemsize: int, cores: int) -> Plan:
    c0 = 32 // itemsize
    c1 = -(-conv.c // c0)
    taps = c1 * conv.kh * conv.kw * c0
    sh, sw = conv.stride
    dh, dw = conv.dilation
    pt, pl = conv.pad
    khd, kwd = (conv.kh - 1) * dh + 1, (conv.kw - 1) * dw + 1
    if max(sh, sw, dh, dw, conv.kh, conv.kw, pt, pl) > MAX_FIELD:
        raise NotRecognised(f"a stride, dilation, filter or padding past the FMatrix's {MAX_FIELD}")
    pad_r = max(0, (conv.ow - 1) * sw + kwd - conv.w - pl)
    if pad_r > MAX_FIELD or (conv.w + pl + pad_r - kwd) // sw + 1 != conv.ow:
        raise NotRecognised("an output width other than the padded image's")
    if taps > MAX_K:
        raise NotRecognised(f"more than {MAX_K} img2col columns")
    kp = -(-conv.k // 8) * 8
    nc = min(128, kernels.CONV_L1_WEIGHTS // (taps * itemsize) // 16 * 16, -(-kp // 16) * 16)
    if nc < 16:
        raise NotRecognised("weights whose 16 output channels do not fit L1")
    band_bytes = c1 * conv.w * 32  # one input row of every channel group

    def rows_for(r: int) -> int:
        return min(conv.h, (r - 1) * sh + khd)

    rows = max(1, -(-conv.n * conv.oh // cores))  # output rows a band: about one band a core
    rows = min(rows, conv.oh)
    while rows > 1 and (rows_for(rows) * band_bytes > kernels.CONV_L1_MAP or rows * conv.ow > MAX_M_START // 2):
        rows -= 1
    if rows_for(rows) * band_bytes > kernels.CONV_L1_MAP:
        raise NotRecognised("a row of the input's channel groups that does not fit L1")
    tiles = []
    for n in range(conv.n):
        for oh0 in range(0, conv.oh, rows):
            count = min(rows, conv.oh - oh0)
            top = oh0 * sh - pt  # the band's first input row (of its first tap)
            skip = max(0, -(-(top - (conv.h - 1)) // sh))  # a band below the image starts at an earlier row
            top -= skip * sh
            ih0 = max(0, top)
            last = min(conv.h, (oh0 + count - 1) * sh + khd - pt)
            height = max(1, last - ih0)
            pad_t = ih0 - top
            pad_b = max(0, (skip + count - 1) * sh + khd - height - pad_t)
            m_first = skip * conv.ow
            if max(pad_t, pad_b) > MAX_FIELD or m_first + count * conv.ow > MAX_M_START:
                raise NotRecognised("a band whose padding or img2col rows the FMatrix cannot hold")
            tiles.append((n, oh0 * conv.ow, count * conv.ow, ih0, height, pad_t, pad_b, m_first))
    kc = 64 if itemsize == 4 else 128  # half of L0A: 128 pixels x kc taps = 32 KiB; of L0B: kc x 128 channels
    word = (dh << 40) | (dw << 32) | (conv.kh << 24) | (conv.kw << 16) | (sh << 8) | sw
    return Plan(c0, c1, taps, kp, pad_r, np.array(tiles, np.int32), 128, kc, nc, word)


@dataclass
class ConvStep(Step):
    target: Param
    location: Location
    conv: Conv
    fmap: Param
    weight: Param
    plan: Plan
    cube: Conv  # what the cube runs: conv, or conv folded (folded())
    folding: Optional[FoldedLayout]  # the layouts of a folded conv
    _workspace: dict = field(default_factory=dict)
    overwrites = True  # every element of the output: a zero fill just before it is dropped (trace.py)

    @staticmethod
    def build(*, location: Location, out: ArrayView, out_index: tuple[Affine, ...], free: list[Counter],
              reduce: list[Counter], guards: list[Range], accumulate: bool, a: Load, b: Load) -> ConvStep:  # fmt: skip
        if not ENABLED:
            raise NotRecognised("pyasc.conv.ENABLED is False")
        if accumulate:
            raise NotRecognised("a convolution added to what the output holds")
        if a.view.dtype != b.view.dtype or a.view.dtype not in FLOATS or out.dtype != np.float32:
            raise NotRecognised("operands other than two float16 or two float32 arrays into a float32 output")
        why: Optional[NotRecognised] = None
        for fmap, weight in ((a, b), (b, a)):
            try:
                conv = match(out, free, reduce, fmap, weight)
            except NotRecognised as e:
                why = why or e
                continue
            n, _, oh, ow = free
            by_name = {c.name: c for c in reduce}
            c_name, kh_name, kw_name = (_single(i) for i in weight.index[1:])
            counters = [n, oh, ow, by_name[c_name], by_name[kh_name], by_name[kw_name]]
            side = {x.name for x in counters}
            if any(not g.expr.counters <= side for g in guards):
                raise NotRecognised("a condition on the output channel")
            # the guards must hold exactly inside the image: compared element by element (raises as the gather
            # path does for an index out of bounds the guards let through)
            if not np.array_equal(_table(fmap, counters, guards, location), _im2col_table(conv)):
                raise NotRecognised("guards other than the input's bounds")
            itemsize = fmap.view.dtype.itemsize
            cube = folded(conv, 32 // itemsize)
            folding = None if cube is conv else folded_layout(conv, cube, 32 // itemsize, itemsize)
            cube = conv if folding is None else cube
            p = plan(cube, itemsize, kernels.cube_cores())
            return ConvStep(out.param, location, conv, fmap.view.param, weight.view.param, p, cube, folding)
        assert why is not None
        raise why

    def _buffers(self, dtype: np.dtype) -> dict[str, np.ndarray]:
        """The intermediate arrays, kept between calls: the weights' padding rows stay 0."""
        if not self._workspace:
            cb, p = self.cube, self.plan
            self._workspace.update(
                x5=np.empty(cb.n * p.c1 * cb.h * cb.w * p.c0, dtype),
                wt=np.zeros(p.kp * p.taps, dtype),
                y=np.empty(cb.n * cb.oh * cb.ow * p.kp, np.float32),
            )
        return self._workspace

    def launches(self, arrays: dict[str, np.ndarray]) -> list[Launch]:
        cv, cb, p, fl = self.conv, self.cube, self.plan, self.folding
        x = arrays[self.fmap.name].reshape(-1)
        w = arrays[self.weight.name].reshape(-1)
        out = arrays[self.target.name].reshape(-1)
        buf = self._buffers(x.dtype)
        size = x.dtype.itemsize
        hw, q, pixels = cv.h * cv.w, cv.kh * cv.kw, cv.oh * cv.ow
        tc = 2048 // p.c0
        # the feature map's and the weights' layouts in one launch; `layout` and `offs` are conv_fused's form of it
        if fl is None:  # [C0 channels x pixels] tiles turned round
            offs = kernels.transpose_offsets(p.c0, tc, size)
            tiles_x, tiles_w = cv.n * p.c1 * -(-hw // tc), cv.k * p.c1 * -(-q // tc)
            layouts = Launch(kernels.transpose_tiles_pair,
                             kernels.cores_for(tiles_x + tiles_w),
                             (buf["x5"], x, buf["wt"], w, offs, cv.n * p.c1, p.c1, p.c0, cv.c, hw, cv.c * hw, hw,
                              hw * p.c0, p.c0, cv.k * p.c1, p.c1, cv.c, q, cv.c * q, q, q * p.c0, tiles_x, p.c0,
                              tc))  # fmt: skip
            layout = np.array([cv.n * p.c1, p.c1, p.c0, cv.c, hw, cv.c * hw, hw, hw * p.c0, p.c0, 0,
                               cv.k * p.c1, p.c1, 0, cv.c, q, cv.c * q, q, q * p.c0, 0, 0, tiles_x, 0, 0, 0],
                              np.int32)  # fmt: skip
        else:  # the folded input and weights: a Gather by table per tile
            scalars = (fl.x_tiles, len(fl.tiles) - fl.x_tiles, fl.entries, fl.pitch, fl.tables.size)
            offs = fl.tables.reshape(-1)
            layouts = Launch(kernels.layouts_by_tables, kernels.cores_for(len(fl.tiles)),
                             (buf["x5"], x, buf["wt"], w, offs, fl.tiles.reshape(-1), *scalars))  # fmt: skip
            layout = np.zeros(24 + fl.tiles.size, np.int32)  # the five scalars, then the tiles from element 24 on
            layout[:5] = scalars
            layout[24:] = fl.tiles.reshape(-1)
        cube_args = (p.tiles.reshape(-1), len(p.tiles), p.c1, cb.h, cb.w, p.taps, p.kp)
        window = (cb.kh, cb.kw, cb.stride[0], cb.stride[1], cb.dilation[0], cb.dilation[1], cb.pad[1], p.pad_r,
                  p.filter_word, p.mc, p.kc, p.nc)  # fmt: skip
        cube_cores = min(kernels.cube_cores(), len(p.tiles))
        cube = Launch(kernels.conv_img2col, cube_cores, (buf["x5"], buf["wt"], buf["y"], *cube_args, pixels, *window))
        tr, tcol = OUT_TILE
        back = Launch(kernels.transpose_tiles,
                      kernels.cores_for(cv.n * -(-pixels // tr) * -(-cv.k // tcol)),
                      (out, buf["y"], kernels.transpose_offsets(tr, tcol, 4), cv.n, 1, pixels, pixels, cv.k,
                       pixels * p.kp, p.kp, cv.k * pixels, pixels, tr, tcol))  # fmt: skip
        if FUSED:
            back_offs = kernels.transpose_offsets(tr, tcol, 4)
            args = (x, w, out, buf["x5"], buf["wt"], buf["y"], cube_args[0], offs, back_offs, layout, *cube_args[1:],
                    cv.k, pixels, *window, p.c0, tc, tr, tcol, fl is not None)  # fmt: skip
            return [Launch(kernels.conv_fused, cube_cores, args)]
        return [layouts, cube, back]

    def describe(self) -> str:
        cv = self.conv
        fold = f"the filter's {cv.kw} columns folded into {self.cube.c} channels; " if self.folding else ""
        return (f"convolution into '{self.target.name}': {cv.k} filters {cv.kh}x{cv.kw} over {cv.c} channels, "
                f"stride {cv.stride}, padding {cv.pad}, dilation {cv.dilation}, on the cube through img2col "
                f"({fold}NC1HWC0 layout and the weights' on the vector unit, the result transposed to "
                f"NCHW)")  # fmt: skip


OUT_TILE = (128, 16)  # pixels x output channels a tile of the last transpose (2048 float32)


def macs(conv: Conv) -> int:
    return conv.n * conv.k * conv.oh * conv.ow * conv.c * conv.kh * conv.kw
