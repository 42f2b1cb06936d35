"""Host-side sizing and tiling of asc.adv's softmax, softmax_flash_v2, rmsnorm and swiglu: Ascend C's
GetSoftMaxMaxTmpSize / GetSoftMaxMinTmpSize / SoftMaxTilingFunc, their SoftmaxFlashV2 counterparts,
GetRmsNormMaxMinTmpSize / GetRmsNormTilingInfo and GetSwiGLUMaxMinTmpSize, in snake_case.

A shape is a sequence of dimensions (the last one the row, k); sizes are bytes. Where Ascend C's own formula is
documented (SoftMax's, from its tiling source) it is followed; the minimum is never below what asc's expansion
of the function needs (asc.adv raises a KernelError at the call below that)."""

from __future__ import annotations

from typing import Any, Sequence

from ...errors import CodegenError

_BLK = 32
_FLOAT = 4
_UNIT = 64  # float32 elements of one 256-byte repeat
_TILE = 8  # float32 elements of one 32-byte block
# float32 elements asc's softmax expansion keeps besides a row (activation.py: the row's value, its broadcast and
# a copy of it), and rmsnorm's (normalization.py: the row's value and its broadcast)
_FIXED = 8 + 64 + 8
_RMS_FIXED = 8 + 64


def _rows_cols(src_shape: Sequence[int], type_size: int, api: str) -> tuple[int, int]:
    dims = [int(d) for d in src_shape]
    if not dims or any(d <= 0 for d in dims):
        raise CodegenError(f"{api}: src_shape must be positive dimensions, got {list(src_shape)}")
    if type_size not in (2, 4):
        raise CodegenError(f"{api}: the data type size must be 2 (half) or 4 (float), got {type_size}")
    k = dims[-1]
    if k * type_size % _BLK:
        raise CodegenError(f"{api}: the last axis ({k} elements of {type_size} bytes) must be 32-byte aligned")
    m = 1
    for d in dims[:-1]:
        m *= d
    return m, k


def _per_row_softmax(k: int, type_size: int, update: bool = False) -> int:
    """Bytes one row needs: Ascend C's (block + k + 64) float32s, or for the flash update (4 blocks + 2 k);
    at least asc's expansion (the float16 row widened, the row's value, its broadcast, the update's blocks)."""
    epb = _BLK // type_size
    ascend = epb * 4 + 2 * k if update else epb + k + _UNIT
    ours = (k if type_size == 2 else 0) + _FIXED + (24 if update else 0)
    return max(ascend, ours) * _FLOAT


def get_softmax_max_tmp_size(src_shape: Sequence[int], data_type_size: int, is_reuse_source: bool = False) -> int:
    """GetSoftMaxMaxTmpSize: the temporary buffer that lets SoftMax do every row in one pass."""
    m, k = _rows_cols(src_shape, data_type_size, "get_softmax_max_tmp_size")
    return m * _per_row_softmax(k, data_type_size)


def get_softmax_min_tmp_size(src_shape: Sequence[int], data_type_size: int, is_reuse_source: bool = False) -> int:
    """GetSoftMaxMinTmpSize: the least SoftMax works with (a row at a time)."""
    _, k = _rows_cols(src_shape, data_type_size, "get_softmax_min_tmp_size")
    return _per_row_softmax(k, data_type_size)


def _fill(tiling: Any, m: int, k: int, type_size: int, work_bytes: int, per_row_bytes: int) -> None:
    """SoftMaxTilingFunc's fields: the rows per pass (split_m) the work space holds, rounded to whole blocks
    of 8 rows and, for basic blocks (m a multiple of 8, k of 64), to a divisor of m."""
    from ...language.adv.tiling import SoftmaxTiling

    if not isinstance(tiling, SoftmaxTiling):
        raise CodegenError(f"the tiling must be an asc.adv.SoftmaxTiling, got {type(tiling).__name__}")
    epb = _BLK // type_size
    base = min(work_bytes // per_row_bytes, m)
    if m > base > _TILE:
        base = base // _TILE * _TILE
    if base > _TILE and m % _TILE == 0 and k % _UNIT == 0:
        base = base // _TILE * _TILE
        while m % base:
            base -= _TILE
        while base * k >= _UNIT * 256:  # at most 255 repeats
            base //= 2
    tail = m % base if base else 0
    values = {"src_m": m, "src_k": k, "src_size": m * k, "out_max_m": m, "out_max_k": epb,
              "out_max_size": m * epb, "split_m": base, "split_k": k, "split_size": base * k, "reduce_m": base,
              "reduce_k": epb, "reduce_size": base * epb, "range_m": m // base if base else 0, "tail_m": tail,
              "tail_split_size": tail * k, "tail_reduce_size": tail * epb}  # fmt: skip
    for name, value in values.items():
        setattr(tiling, name, value)


def softmax_tiling_func(src_shape: Sequence[int], data_type_size: int, local_work_space_size: int,
                        softmax_tiling: Any) -> None:  # fmt: skip
    """SoftMaxTilingFunc: fills softmax_tiling (an asc.adv.SoftmaxTiling) for src_shape and a work space of
    local_work_space_size bytes."""
    m, k = _rows_cols(src_shape, data_type_size, "softmax_tiling_func")
    _fill(softmax_tiling, m, k, data_type_size, local_work_space_size, _per_row_softmax(k, data_type_size))


def _unbroadcast_bytes(m: int, is_update: bool, is_flash_output_brc: bool) -> int:
    """SOFTMAX_OUTPUT_WITHOUT_BRC (is_flash_output_brc: the per-row tensors not broadcast): asc stages every
    row's value as a float32 block per per-row tensor (5 with the update, else 2) and the values once."""
    if not is_flash_output_brc:
        return 0
    rows8 = (m + 7) // 8 * 8
    return rows8 * (4 + (5 if is_update else 2) * 32)


def get_softmax_flash_v2_max_tmp_size(src_shape: Sequence[int], data_type_size1: int, data_type_size2: int,
                                      is_update: bool = False, is_basic_block: bool = False,
                                      is_flash_output_brc: bool = False) -> int:  # fmt: skip
    """GetSoftMaxFlashV2MaxTmpSize: every row in one pass."""
    m, k = _rows_cols(src_shape, data_type_size1, "get_softmax_flash_v2_max_tmp_size")
    return m * _per_row_softmax(k, data_type_size1, is_update) + _unbroadcast_bytes(m, is_update, is_flash_output_brc)


def get_softmax_flash_v2_min_tmp_size(src_shape: Sequence[int], data_type_size1: int, data_type_size2: int,
                                      is_update: bool = False, is_basic_block: bool = False,
                                      is_flash_output_brc: bool = False) -> int:  # fmt: skip
    """GetSoftMaxFlashV2MinTmpSize: a row at a time."""
    m, k = _rows_cols(src_shape, data_type_size1, "get_softmax_flash_v2_min_tmp_size")
    return _per_row_softmax(k, data_type_size1, is_update) + _unbroadcast_bytes(m, is_update, is_flash_output_brc)


def softmax_flash_v2_tiling_func(src_shape: Sequence[int], data_type_size1: int, data_type_size2: int,
                                 local_work_space_size: int, softmax_flash_tiling: Any, is_update: bool = False,
                                 is_basic_block: bool = False, is_flash_output_brc: bool = False) -> None:  # fmt: skip
    """SoftMaxFlashV2TilingFunc: as softmax_tiling_func, the per-row blocks sized by data_type_size2."""
    m, k = _rows_cols(src_shape, data_type_size1, "softmax_flash_v2_tiling_func")
    per = _per_row_softmax(k, data_type_size1, is_update)
    _fill(softmax_flash_tiling, m, k, data_type_size2, local_work_space_size, per)


def _rmsnorm_row_bytes(h: int, type_size: int) -> int:
    # asc's expansion: a float32 row of squares (float16: also the widened row and gamma), the row's value
    return h * _FLOAT * (3 if type_size == 2 else 1) + _RMS_FIXED * _FLOAT


def get_rms_norm_max_min_tmp_size(src_shape: Sequence[int], type_size: int, is_reuse_source: bool = False,
                                  is_basic_block: bool = False) -> tuple[int, int]:  # fmt: skip
    """GetRmsNormMaxMinTmpSize: (max, min) bytes of RmsNorm's temporary buffer for src [B, S, H]. asc's
    expansion goes a row at a time, so the two are equal."""
    _, h = _rows_cols(src_shape, type_size, "get_rms_norm_max_min_tmp_size")
    need = _rmsnorm_row_bytes(h, type_size)
    return need, need


def get_rms_norm_tiling_info(src_shape: Sequence[int], original_src_shape: Sequence[int], stack_buffer_size: int,
                             type_size: int, tiling: Any, is_basic_block: bool = False) -> bool:  # fmt: skip
    """GetRmsNormTilingInfo: fills tiling (an asc.adv.RmsNormTiling) for src [B, S, H] whose data is
    original_src_shape's [B, S, originalH]; False when stack_buffer_size bytes hold less than one row's need."""
    from ...language.adv.tiling import RmsNormTiling

    if not isinstance(tiling, RmsNormTiling):
        raise CodegenError(f"get_rms_norm_tiling_info: the tiling must be an asc.adv.RmsNormTiling, got {tiling!r}")
    dims = [int(d) for d in src_shape]
    if len(dims) != 3:
        raise CodegenError(f"get_rms_norm_tiling_info: src_shape is [B, S, H], got {dims}")
    rows, h = _rows_cols(dims, type_size, "get_rms_norm_tiling_info")
    ori_h = int(list(original_src_shape)[-1])
    if not 0 < ori_h <= h:
        raise CodegenError(f"get_rms_norm_tiling_info: the original H ({ori_h}) must be in 1..{h}")
    need = _rmsnorm_row_bytes(h, type_size)
    if stack_buffer_size < need:
        return False
    per = min(rows, stack_buffer_size // need)
    tail = rows % per
    values = {"b_length": dims[0], "s_length": dims[1], "h_length": h, "original_h_length": ori_h,
              "reciprocal_of_h_length": 1.0 / ori_h, "main_bsh_length": per * h, "main_bs_length": per,
              "main_bs_length_align": (per + _TILE - 1) // _TILE * _TILE, "loop_round": rows // per,
              "input_tail_pos": rows // per * per * h, "tail_bsh_length": tail * h, "tail_bs_length": tail}  # fmt: skip
    for name, value in values.items():
        setattr(tiling, name, value)
    return True


def get_swiglu_max_min_tmp_size(src_shape: Sequence[int], type_size: int,
                                is_reuse_source: bool = False) -> tuple[int, int]:  # fmt: skip
    """GetSwiGLUMaxMinTmpSize: (max, min) bytes. asc's expansion keeps 2 float32 intermediates per element
    (4 for float16, its inputs widened) in chunks of whole 64-element repeats: the max holds all of src."""
    n = 1
    for d in src_shape:
        n *= int(d)
    if n <= 0 or type_size not in (2, 4):
        raise CodegenError("get_swiglu_max_min_tmp_size: a positive shape and a type size of 2 or 4")
    buffers = 4 if type_size == 2 else 2
    return buffers * _FLOAT * ((n + _UNIT - 1) // _UNIT * _UNIT), buffers * _FLOAT * _UNIT


__all__ = [
    "get_rms_norm_max_min_tmp_size",
    "get_rms_norm_tiling_info",
    "get_softmax_flash_v2_max_tmp_size",
    "get_softmax_flash_v2_min_tmp_size",
    "get_softmax_max_tmp_size",
    "get_softmax_min_tmp_size",
    "get_swiglu_max_min_tmp_size",
    "softmax_flash_v2_tiling_func",
    "softmax_tiling_func",
]
