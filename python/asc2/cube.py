"""Cube tiles: tiles in a cube core's L1, L0A, L0B and L0C, and the matrix
multiplications on them. A load with location=L1 copies GM into L1
(data_copy with Nd2NzParams); location=L0A / L0B goes on through L1
(load_data; B's fractals transposed on the way); asc2.copy moves L1 -> L0A /
L0B and L0C -> L1 (the fixpipe, converting float32 to float16 / bfloat16);
matmul / matmul_acc / `@` run mmad into L0C; a store of an L0C tile is the
fixpipe into GM, with the tile's pending ReLU and dtype conversion (asc2.relu
and .to on an L0C tile fuse into it). The compiler places the tiles in each
memory (allocate_local) and orders the pipes (MTE2 -> MTE1 -> M -> FIX,
insert_sync); a kernel using them runs on the cube cores (AIC_ONLY).

Layouts (C0 = 32 bytes of elements: 16 for float16 / bfloat16, 8 for
float32; a fractal is 16 rows x C0 = 512 bytes, row-major):
- L1 and L0A: "Zz", the rows in slabs of 16, each slab's fractals left to
  right, slabs one after another (a [R, C] tile takes ceil16(R) x C elements).
  L0A must be Zz (mmad's left operand); L1 holds it too so that both operands
  come out of it with whole-fractal moves: A's fractals as they are, B's 16 x 16
  squares (two adjacent float32 fractals) transposed.
- L0B: "Zn", fractal (k / C0, n / 16) holds 16 n x C0 k (mmad's right operand).
- L0C: Nz of 16 x 16 float32 fractals, element (m, n) at
  (n / 16) * ceil16(M) * 16 + m * 16 + n % 16.
Ascend C: Mmad / LoadData / Fixpipe / DataCopy ND2NZ (https://github.com/cannmirror/asc-devkit
docs/zh/api/SIMD-API/基础API/矩阵计算（ISASI）/), the layouts of its "矩阵编程" guide."""

from __future__ import annotations

from typing import Any, Optional

import asc
from asc.codegen import regions
from asc.codegen.context import current_builder
from asc.errors import CodegenError
from asc.language.basic.utils import builtin
from asc.language.core.ir_value import Scalar, cast, is_runtime, to_scalar

from .tile import Tile, TileLocation, check_shape

_I64 = asc.int64
_FRACTAL = 512  # bytes
_INPUTS = (asc.float16, asc.bfloat16, asc.float32)  # mmad's operand dtypes here (float32 accumulates)
_POSITION = {
    TileLocation.L1: asc.TPosition.A1,
    TileLocation.L0A: asc.TPosition.A2,
    TileLocation.L0B: asc.TPosition.B2,
    TileLocation.L0C: asc.TPosition.CO1,
    TileLocation.BT: asc.TPosition.C2,
}
# float32 in L0C -> the tile's dtype on the way out through the fixpipe (QuantMode_t)
_QUANT = {asc.float32: asc.QuantModes.NoQuant, asc.float16: asc.QuantModes.F322F16,
          asc.bfloat16: asc.QuantModes.F322BF16}  # fmt: skip
_MAX_REPEATS = 255  # LoadData2DParams.repeat_times
_MAX_MNK = 4095  # MmadParams' m, n, k
_BIAS_UNIT = 16  # bias-table elements moved at a time: 64 bytes of float32


def _ceil(a: int, b: int) -> int:
    return -(-a // b) * b


def _c0(dtype: asc.DataType) -> int:
    return 32 // dtype.sizeof()


class CubeTile(Tile):
    """A tile in L1, L0A, L0B or L0C (see the module's layouts). An L0C tile holds float32; its `dtype` is
    what a store or copy converts it to (``.to``) and `relu` whether it applies ReLU first."""

    def __init__(self, shape: tuple[int, ...], dtype: asc.DataType, location: TileLocation,
                 buf: Optional[asc.LocalTensor] = None, relu: bool = False):  # fmt: skip
        self.shape, self.dtype, self.location, self.relu = shape, dtype, location, relu
        if buf is None:
            held = asc.float32 if location in (TileLocation.L0C, TileLocation.BT) else dtype
            buf = asc.LocalTensorAuto(held, CubeTile.elements(shape, dtype, location), position=_POSITION[location])
        self.buf = buf
        current_builder().uses_cube = True

    @staticmethod
    def elements(shape: tuple[int, ...], dtype: asc.DataType, location: TileLocation) -> int:
        if len(shape) == 1:  # a bias row (L1 or BT): whole 64-byte runs of the float32 table
            return _ceil(shape[0], _BIAS_UNIT)
        rows, cols = shape
        if location == TileLocation.L0C:
            return _ceil(rows, 16) * _ceil(cols, 16)
        if location == TileLocation.L0B:  # ceil16(K) k rows (float32 squares write 16 at a time) x ceil16(N)
            return _ceil(rows, 16) * _ceil(cols, 16)
        # L1 / L0A: whole slabs; float32 L1 one fractal more, which a last 16 x 16 square over an 8-wide tail reads
        extra = _FRACTAL // 4 if location == TileLocation.L1 and dtype == asc.float32 else 0
        return _ceil(rows, 16) * cols + extra

    @property
    def length(self) -> int:
        return CubeTile.elements(self.shape, self.dtype, self.location)

    def __repr__(self) -> str:
        return f"Tile({list(self.shape)}, {self.dtype.name}, {self.location.name})"

    @builtin
    def reshape(self, *shape: Any) -> Tile:
        raise CodegenError(f"Tile.reshape: a {self!r} keeps its fractal layout; reshape UB tiles only")

    def __asc_var__(self) -> Tile:
        raise CodegenError(f"a {self!r} cannot be reassigned across a loop or run-time if; accumulate into an "
                           f"asc2.zeros_acc tile with asc2.matmul_acc instead")  # fmt: skip


def _location(location: Any, what: str) -> TileLocation:
    try:
        return TileLocation(location)
    except ValueError:
        raise CodegenError(f"{what}: location must be an asc2.TileLocation, got {location!r}") from None


def _cube_dims(shape: Any, dtype: asc.DataType, what: str) -> tuple[int, int]:
    dims = check_shape(shape, dtype, what)
    if len(dims) != 2:
        raise CodegenError(f"{what}: cube tiles are 2-D, got {list(dims)}")
    if dtype not in _INPUTS:
        raise CodegenError(f"{what}: cube tiles hold float16, bfloat16 or float32, got {dtype.name}")
    return dims  # type: ignore[return-value]


# -- GM -> L1 (-> L0A / L0B) ---------------------------------------------------------------------------------------
def load(t: Any, dims: Any, at: list, location: TileLocation, pad_value: Any) -> CubeTile:
    """asc2.load with location L1, L0A or L0B (memory.load checked `t` and computed `at`)."""
    from .memory import _linear, _rows_and_cols, _when_positive

    what = "asc2.load"
    if location not in (TileLocation.L1, TileLocation.L0A, TileLocation.L0B, TileLocation.BT):
        raise CodegenError(f"{what}: a load goes to UB, L1, L0A, L0B or BT, not {location.name} (L0C tiles come "
                           f"from asc2.zeros_acc and matmul)")  # fmt: skip
    if len(dims) == 1 and location in (TileLocation.L1, TileLocation.BT):
        return _load_bias(t, dims, at, location, pad_value)
    if location == TileLocation.BT:
        raise CodegenError(f"{what}: a bias-table tile is 1-D (one value per output column), got {list(dims)}")
    dims = _cube_dims(dims, t.dtype, what)
    if len(t.shape) != 2:
        raise CodegenError(f"{what}: a cube tile loads from a 2-D tensor, got a {len(t.shape)}-D one")
    tile = CubeTile(dims, t.dtype, TileLocation.L1)
    if t.stored:  # a tensor an L0C tile was stored in: the copy in waits for the fixpipe
        _gm_order()
    t.loaded = True
    rows, cols = _rows_and_cols(t, dims, at)
    whole = not is_runtime(rows) and not is_runtime(cols) and rows == dims[0] and cols == dims[1]
    if not whole or dims[0] % 16:  # padding rows / columns hold pad_value (zeros keep K sums right)
        _fill(tile, pad_value)
    src_cols = t.shape[1]

    def copy() -> None:
        # slab s (rows 16s..16s+15) goes to element 16 * s * cols, its C0 groups one fractal apart
        slab = 16 * dims[1]
        full, tail = _divmod(rows, 16)
        base = _linear(t, at)
        if not is_runtime(src_cols) and 16 * src_cols <= 65535:
            _when_positive(
                full,
                cols,
                lambda: asc.data_copy(
                    tile.buf, t.gm[base:], asc.Nd2NzParams(full, 16, cols, 16 * src_cols, src_cols, 16, 1, slab)
                ),
            )
        else:  # the slabs' source stride does not fit Nd2NzParams' 16 bits: one copy each
            with regions.for_range(0, full) as s:
                asc.data_copy(tile.buf[s * slab :], t.gm[base + s * 16 * src_cols :],
                              asc.Nd2NzParams(1, 16, cols, 0, src_cols, 16, 1, 0))  # fmt: skip
        _when_positive(tail, cols, lambda: asc.data_copy(
            tile.buf[full * slab :], t.gm[base + full * 16 * src_cols :],
            asc.Nd2NzParams(1, tail, cols, 0, src_cols, 16, 1, 0)))  # fmt: skip

    _when_positive(rows, cols, copy)
    if location == TileLocation.L1:
        return tile
    return _to_l0(tile, dims, [0, 0], location, what)


def _divmod(value: Any, by: int) -> tuple[Any, Any]:
    if not is_runtime(value):
        return divmod(value, by)
    v = to_scalar(value, _I64)
    return v // by, v % by


def _fill(tile: CubeTile, value: Any) -> None:
    """Every element of an L1 tile set to `value` (InitConstValue in 32-byte blocks)."""
    blocks = tile.length * tile.dtype.sizeof() // 32
    scalar = cast(value, tile.dtype) if isinstance(value, Scalar) else value
    for start in range(0, blocks, 32767):  # block_num's limit
        n = min(32767, blocks - start)
        asc.init_const_value(tile.buf[start * 32 // tile.dtype.sizeof() :],
                             asc.InitConstValueParams(1, n, 0, scalar))  # fmt: skip


# -- L1 -> L0A / L0B, L0C -> L1 ------------------------------------------------------------------------------------
@builtin
def copy(tile: Any, shape: Any = None, *, offsets: Any = None, location: Any = TileLocation.UB,
         distrib: Any = None) -> Tile:  # fmt: skip
    """The part of `tile` of `shape` at `offsets` in another memory: L1 -> L0A / L0B / BT, an L0C tile -> L1
    (converted to its dtype, which must be float16 or bfloat16 there), or an L0C tile -> the vector cores'
    Unified Buffer (Ascend 950; `distrib` says which vector core gets what: asc2.handover)."""
    what = "asc2.copy"
    if not isinstance(tile, Tile):
        raise CodegenError(f"{what}: expected a tile, got {type(tile).__name__}")
    dest = _location(location, what)
    dims = tuple(tile.shape) if shape is None else check_shape(shape, tile.dtype, what)
    at = [0] * len(tile.shape) if offsets is None else list(offsets)
    if len(at) != len(tile.shape) or len(dims) != len(tile.shape):
        raise CodegenError(f"{what}: {len(at)} offsets and a {len(dims)}-D shape for a {len(tile.shape)}-D tile")
    for d, o, whole in zip(dims, at, tile.shape):
        if not is_runtime(o) and (o < 0 or o + d > whole):
            raise CodegenError(f"{what}: {list(dims)} at offsets {at} is not inside {tile!r}")
    src = tile.location
    if src == TileLocation.L1 and dest == TileLocation.BT:
        return _to_bias_table(tile, dims, at, what)  # type: ignore[arg-type]
    if src == TileLocation.L1 and dest in (TileLocation.L0A, TileLocation.L0B):
        return _to_l0(tile, _cube_dims(dims, tile.dtype, what), at, dest, what)  # type: ignore[arg-type]
    if src == TileLocation.L0C and dest == TileLocation.L1:
        return _l0c_to_l1(tile, dims, at, what)  # type: ignore[arg-type]
    if src == TileLocation.L0C and dest == TileLocation.UB:
        from .handover import to_ub

        if len(dims) != 2:
            raise CodegenError(f"{what}: an L0C tile is 2-D, got a shape of {list(dims)}")
        return to_ub(tile, dims, at, None if distrib is None else int(distrib), what)
    if src == TileLocation.UB and dest == TileLocation.L1:
        from .join import to_l1

        return to_l1(tile, dims, at, None if distrib is None else int(distrib), what)
    if distrib is not None:
        raise CodegenError(f"{what}: distrib is for copies between a cube core and its vector cores (L0C -> UB, "
                           f"UB -> L1)")  # fmt: skip
    raise CodegenError(f"{what}: copies go L1 -> L0A / L0B / BT, L0C -> L1 and (Ascend 950) L0C -> UB and UB -> L1, "
                       f"not {src.name} -> {dest.name}")  # fmt: skip


def _aligned(offset: Any, unit: int, what: str, axis: str) -> None:
    if not is_runtime(offset) and offset % unit:
        raise CodegenError(f"{what}: the {axis} offset must be a multiple of {unit} (whole fractals), got {offset}")


def _to_l0(src: CubeTile, dims: tuple[int, int], at: list, dest: TileLocation, what: str) -> CubeTile:
    """[rows, cols] of an L1 tile from row at[0], column at[1] into L0A (Zz) or L0B (Zn)."""
    dtype = src.dtype
    c0 = _c0(dtype)
    _aligned(at[0], 16, what, "row")
    _aligned(at[1], 16 if dest == TileLocation.L0B else c0, what, "column")
    out = CubeTile(dims, dtype, dest)
    groups = src.shape[1] // c0  # fractals per slab of the source
    rows, cols = dims
    row0 = at[0] // 16
    col0 = at[1] // c0
    frac = _FRACTAL // dtype.sizeof()
    if dest == TileLocation.L0A:  # row block i: its fractals as they are
        k1 = cols // c0
        if cols == src.shape[1]:  # whole slabs: one run
            _fractals(out.buf, 0, src.buf, row0 * groups, -(-rows // 16) * k1, False)
        else:
            for i in range(-(-rows // 16)):
                _fractals(out.buf, i * k1 * frac, src.buf, (row0 + i) * groups + col0, k1, False)
        return out
    n1 = -(-cols // 16)
    slabs = -(-rows // 16)
    if dtype.sizeof() == 2:  # each 16 x 16 fractal transposed into Zn
        if cols == src.shape[1]:
            _fractals(out.buf, 0, src.buf, row0 * groups, slabs * n1, True)
        else:
            for kb in range(slabs):
                _fractals(out.buf, kb * n1 * frac, src.buf, (row0 + kb) * groups + col0, n1, True)
        return out
    # float32: square (kb, nb) = the slab's fractals 2nb, 2nb + 1 -> Zn fractals (2kb, nb) and (2kb + 1, nb)
    for kb in range(slabs):
        first = ((row0 + kb) * groups + col0) * frac
        asc.load_data_with_transpose(out.buf[2 * kb * n1 * frac :], src.buf[first:],
                                     asc.LoadData2dTransposeParams(0, n1, 1, 0, n1 - 1, 0))  # fmt: skip
    return out


def _fractals(dst: Any, dst_at: int, src: Any, start: Any, count: int, transpose: bool) -> None:
    """`count` consecutive 512-byte fractals from fractal `start` of src to dst from element `dst_at`."""
    frac = _FRACTAL // dst.dtype.sizeof()
    for done in range(0, count, _MAX_REPEATS):
        n = min(_MAX_REPEATS, count - done)
        asc.load_data(dst[dst_at + done * frac :], src,
                      asc.LoadData2DParams(start + done, n, 1, 0, 0, transpose, 0))  # fmt: skip


def _l0c_to_l1(tile: CubeTile, dims: tuple[int, int], at: list, what: str) -> CubeTile:
    """An L0C tile's [rows, cols] at `at` into an L1 tile (Zz), converted on the way (NZ2NZ, a slab at a time)."""
    if tile.dtype not in (asc.float16, asc.bfloat16):
        raise CodegenError(f"{what}: L0C -> L1 converts float32 to float16 or bfloat16 (Ascend C's L0C -> L1 copy "
                           f"has no NoQuant mode); convert the tile with .to(asc.float16) first, got "
                           f"{tile.dtype.name}")  # fmt: skip
    dims = _cube_dims(dims, tile.dtype, what)
    _aligned(at[0], 16, what, "row")
    _aligned(at[1], 16, what, "column")
    out = CubeTile(dims, tile.dtype, TileLocation.L1)
    rows, cols = dims
    if rows % 16:
        _fill(out, 0)
    m16 = _ceil(tile.shape[0], 16)
    base = (at[1] // 16) * m16 * 16 + at[0] * 16  # L0C element of (at[0], at[1])
    quant = _QUANT[tile.dtype]
    for s in range(-(-rows // 16)):
        m = min(16, rows - 16 * s)
        # dst_stride: the next 16 columns one fractal (16 x 32 bytes) on
        asc.data_copy(out.buf[s * 16 * cols :], tile.buf[base + s * 256 :],
                      asc.DataCopyCO12DstParams(cols, m, 16, m16, quant, int(tile.relu)))  # fmt: skip
    return out


# -- the bias table -------------------------------------------------------------------------------------------------
# A bias row reaches the table as in Ascend C: GM -> L1 (MTE2), then L1 -> BT (MTE1), which widens float16 /
# bfloat16 to the table's float32; mmad adds it to every row of the product (asc.mmad with a C2 bias).
def _load_bias(t: Any, dims: tuple[int, ...], at: list, location: TileLocation, pad_value: Any) -> CubeTile:
    """asc2.load of a 1-D tile into L1 or the bias table."""
    from .memory import _linear, _rows_and_cols, _when_positive

    what = "asc2.load"
    if len(t.shape) != 1:
        raise CodegenError(f"{what}: a bias row loads from a 1-D tensor, got a {len(t.shape)}-D one")
    if t.dtype not in _INPUTS:
        raise CodegenError(f"{what}: a bias row is float16, bfloat16 or float32, got {t.dtype.name}")
    tile = CubeTile(dims, t.dtype, TileLocation.L1)
    _, cols = _rows_and_cols(t, dims, at)
    if is_runtime(cols) or cols != tile.length:  # the columns past the tensor's end or the row's hold pad_value
        _fill(tile, pad_value)

    def copy() -> None:
        params = asc.DataCopyExtParams(1, to_scalar(cols, _I64) * t.dtype.sizeof(), 0, 0)
        asc.data_copy_pad(tile.buf, t.gm[_linear(t, at) :], params)

    _when_positive(1, cols, copy)
    if location == TileLocation.L1:
        return tile
    return _to_bias_table(tile, dims, [0], what)


def _to_bias_table(src: CubeTile, dims: tuple[int, ...], at: list, what: str) -> CubeTile:
    """`dims[0]` values of a 1-D L1 tile from `at[0]` into the bias table, as float32."""
    if len(src.shape) != 1 or len(dims) != 1:
        raise CodegenError(f"{what}: the bias table takes a 1-D L1 tile (one value per output column), got {src!r}")
    _aligned(at[0], _BIAS_UNIT, what, "bias")
    out = CubeTile(dims, asc.float32, TileLocation.BT)
    asc.data_copy(out.buf, src.buf[at[0] :], out.length)
    return out


def _bias(bias: Any, n: int, what: str) -> Optional[CubeTile]:
    """matmul's / zeros_acc's bias= as a bias-table tile of n values (an L1 row is moved there first)."""
    if bias is None:
        return None
    if not isinstance(bias, CubeTile) or bias.location not in (TileLocation.BT, TileLocation.L1):
        raise CodegenError(f"{what}: bias is a 1-D tile loaded with location=asc2.TileLocation.BT (or L1), got "
                           f"{bias!r}")  # fmt: skip
    if len(bias.shape) != 1 or bias.shape[0] != n:
        raise CodegenError(f"{what}: the bias has one value per output column: [{n}], got {list(bias.shape)}")
    return bias if bias.location == TileLocation.BT else _to_bias_table(bias, bias.shape, [0], what)


# -- L0C -> GM -----------------------------------------------------------------------------------------------------
def store(value: CubeTile, t: Any, at: list) -> None:
    """asc2.store of an L0C tile: the fixpipe into GM as rows (NZ2ND), converted and ReLU'd as the tile says."""
    from .memory import _linear, _rows_and_cols, _when_positive

    what = "asc2.store"
    if value.location != TileLocation.L0C:
        raise CodegenError(f"{what}: a {value!r} is not stored from {value.location.name}: only matmul results "
                           f"(L0C) go back to GM from the cube memories")  # fmt: skip
    if value.dtype != t.dtype:
        raise CodegenError(f"{what}: a {value.dtype.name} tile into a {t.dtype.name} tensor; convert it with "
                           f".to(asc.{t.dtype.name}) first")  # fmt: skip
    if t.dtype not in _QUANT:
        raise CodegenError(f"{what}: an L0C tile stores as float32, float16 or bfloat16, not {t.dtype.name}")
    if len(t.shape) != 2:
        raise CodegenError(f"{what}: an L0C tile goes into a 2-D tensor, got a {len(t.shape)}-D one")
    rows, cols = _rows_and_cols(t, value.shape, at)
    m16 = _ceil(value.shape[0], 16)

    def copy() -> None:
        params = asc.FixpipeParamsV220(cols, rows, m16, t.shape[1], _QUANT[t.dtype], relu_en=value.relu)
        asc.fixpipe(t.gm[_linear(t, at) :], value.buf, params)

    _when_positive(rows, cols, copy)
    t.stored = True
    if t.loaded:
        _gm_order()


# GM is asc2's to order (memory.py): a tensor the fixpipe writes and MTE2 reads has the copies ordered on both sides
# of each store, as memory.py orders MTE3 and MTE2 (which a UB tile's store and load use), with the same event id.
def _gm_order() -> None:
    from .memory import _GM_EVENT_ID

    asc.set_flag(asc.HardEvent.FIX_MTE2, _GM_EVENT_ID)
    asc.wait_flag(asc.HardEvent.FIX_MTE2, _GM_EVENT_ID)


# -- L0C tiles, matmul ---------------------------------------------------------------------------------------------
@builtin
def zeros_acc(shape: Any, dtype: Any = asc.float32, *, bias: Any = None) -> CubeTile:
    """An accumulator: a float32 tile of zeros in L0C, for asc2.matmul_acc; with `bias` (a BT tile of one
    value per column) every row starts at the bias instead."""
    what = "asc2.zeros_acc"
    if dtype != asc.float32:
        raise CodegenError(f"{what}: the accumulator is float32 (mmad accumulates in float32), got {dtype!r}")
    dims = check_shape(shape, asc.float32, what)
    if len(dims) != 2:
        raise CodegenError(f"{what}: the accumulator is 2-D, got {list(dims)}")
    acc = CubeTile(dims, asc.float32, TileLocation.L0C)
    # L0C has no fill: zero x zero written over it (mmad with cmatrix_init_val) zeroes every element
    m16, n16 = _ceil(dims[0], 16), _ceil(dims[1], 16)
    za = CubeTile((m16, 16), asc.float16, TileLocation.L0A)
    zb = CubeTile((16, n16), asc.float16, TileLocation.L0B)
    for z, frac_blocks in ((za, m16 // 16), (zb, n16 // 16)):
        asc.init_const_value(z.buf, asc.InitConstValueParams(1, frac_blocks, 0, 0))
    _mmad(acc, za, zb, True, what, bias=_bias(bias, dims[1], what))
    return acc


def _operand(t: Any, location: TileLocation, what: str, side: str) -> CubeTile:
    if not isinstance(t, Tile):
        raise CodegenError(f"{what}: the {side} operand must be a tile, got {type(t).__name__}")
    if t.location == location:
        return t  # type: ignore[return-value]
    if t.location == TileLocation.L1:
        return copy(t, location=location)
    raise CodegenError(f"{what}: the {side} operand is a {t!r}; load it with location=asc2.TileLocation."
                       f"{location.name} (or L1)")  # fmt: skip


def _operands(a: Any, b: Any, what: str) -> tuple[CubeTile, CubeTile]:
    a = _operand(a, TileLocation.L0A, what, "left")
    b = _operand(b, TileLocation.L0B, what, "right")
    if a.dtype != b.dtype:
        raise CodegenError(f"{what}: dtypes {a.dtype.name} and {b.dtype.name} differ")
    if a.shape[1] != b.shape[0]:
        raise CodegenError(f"{what}: shapes {list(a.shape)} and {list(b.shape)} do not multiply")
    return a, b


def _mmad(c: CubeTile, a: CubeTile, b: CubeTile, init: bool, what: str, bias: Optional[CubeTile] = None,
          hf32: bool = False) -> None:  # fmt: skip
    """c = (init ? 0 : c) + a x b, or bias + a x b; `hf32` rounds float32 operands to HF32 for this mmad only."""
    m, k = a.shape
    n = b.shape[1]
    if max(m, n, k) > _MAX_MNK:
        raise CodegenError(f"{what}: m {m}, n {n} and k {k} must be at most {_MAX_MNK} (MmadParams); split the tiles")
    if not isinstance(hf32, bool):
        raise CodegenError(f"{what}: hf32 is a bool, got {hf32!r}")
    if hf32 and a.dtype != asc.float32:
        raise CodegenError(f"{what}: hf32=True rounds float32 operands, these are {a.dtype.name}")
    if hf32:  # on the M pipe, in order with the mmad it brackets
        asc.set_hf32_mode(True)
    if bias is not None:
        asc.mmad(c.buf, a.buf, b.buf, bias.buf, asc.MmadParams(m, n, k))
    else:
        asc.mmad(c.buf, a.buf, b.buf, asc.MmadParams(m, n, k, cmatrix_init_val=init))
    if hf32:
        asc.set_hf32_mode(False)


@builtin
def matmul(a: Any, b: Any, bias: Any = None, *, hf32: bool = False) -> CubeTile:
    """a (L0A, [M, K]) x b (L0B, [K, N]) into a new float32 L0C tile [M, N]; L1 operands are copied first.
    `bias` (a BT tile of N values) is added to every row; `hf32` rounds float32 operands to HF32."""
    what = "asc2.matmul"
    a, b = _operands(a, b, what)
    bias = _bias(bias, b.shape[1], what)
    c = CubeTile((a.shape[0], b.shape[1]), asc.float32, TileLocation.L0C)
    _mmad(c, a, b, True, what, bias=bias, hf32=hf32)
    return c


@builtin
def matmul_acc(a: Any, b: Any, acc: Any, *, hf32: bool = False) -> None:
    """acc += a x b (acc a float32 L0C tile of [M, N], from asc2.zeros_acc or matmul)."""
    what = "asc2.matmul_acc"
    a, b = _operands(a, b, what)
    if not isinstance(acc, CubeTile) or acc.location != TileLocation.L0C:
        raise CodegenError(f"{what}: the accumulator must be an L0C tile (asc2.zeros_acc), got {acc!r}")
    if acc.dtype != asc.float32 or acc.relu:
        raise CodegenError(f"{what}: the accumulator must be the float32 tile itself, not a converted view {acc!r}")
    if tuple(acc.shape) != (a.shape[0], b.shape[1]):
        raise CodegenError(f"{what}: the accumulator is {list(acc.shape)}, the product {[a.shape[0], b.shape[1]]}")
    _mmad(acc, a, b, False, what, hf32=hf32)


# -- what asc2's element-wise functions do on cube tiles -----------------------------------------------------------
def relu(t: CubeTile) -> CubeTile:
    """ReLU of an L0C tile: applied by the fixpipe when it is stored or copied."""
    if t.location != TileLocation.L0C:
        raise CodegenError(f"asc2.relu: a {t!r}: on cube tiles only L0C (matmul results) take relu, in the fixpipe")
    return CubeTile(t.shape, t.dtype, t.location, t.buf, relu=True)


def convert(t: CubeTile, dtype: Any) -> CubeTile:
    """An L0C tile as float16 / bfloat16 (/ float32): converted by the fixpipe when stored or copied."""
    if t.location != TileLocation.L0C:
        raise CodegenError(f"Tile.to: a {t!r}: on cube tiles only L0C (matmul results) convert, in the fixpipe")
    if dtype not in _QUANT:
        raise CodegenError(f"Tile.to: an L0C tile converts to float32, float16 or bfloat16, not {dtype!r}")
    return CubeTile(t.shape, dtype, t.location, t.buf, relu=t.relu)


def elementwise(name: str, *args: Any, **kwargs: Any) -> Any:
    """asc2.<name> given a cube tile (split.lift sends it here): relu and cast fuse into the fixpipe."""
    if name == "relu" and len(args) == 1:
        return relu(args[0])
    if name == "cast" and len(args) == 2:
        return convert(args[0], args[1])
    tiles = [a for a in args if isinstance(a, CubeTile)]
    raise CodegenError(f"asc2.{name}: a {tiles[0]!r} is in a cube memory; element-wise operations work on UB tiles "
                       f"(on an L0C tile: relu and .to, fused into the store)")  # fmt: skip


__all__ = ["CubeTile", "copy", "matmul", "matmul_acc", "zeros_acc"]
