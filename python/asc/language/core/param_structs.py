"""Parameter structs of instructions a later issue implements (enhanced data_copy, gather,
init_const_value, load_image_to_local, mrg_sort4, trans_data_to_5hd, the load_data 3D forms,
vdeq, check_local_memory_ia). Each constructs, holds and exposes its fields with pyasc's names,
order and defaults; fields may be compile-time numbers or run-time scalars.

pyasc's constructors take a last `handle` (an IR value to wrap); it is accepted and ignored, so
pyasc code that passes one positionally still builds the struct."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from .enums import BlockMode, DeqScale, pad_t

_BLOCK_BYTES = 32  # ONE_BLK_SIZE


def _handle() -> Any:
    return field(default=None, repr=False, compare=False)


class DataCopyEnhancedParams:
    """data_copy's enhanced options: block mode, dequantisation, relu and padding on the way. pyasc's keywords
    are deq_value_in, sid_store_mode_in, is_relu_in, pad_mode_in, pad_value_in (the attributes drop the _in)."""

    __asc_builtin__ = True

    def __init__(self, block_mode: Any = BlockMode.BLOCK_MODE_NORMAL, deq_scale: Any = DeqScale.DEQ_NONE,
                 deq_value_in: Any = 0, sid_store_mode_in: Any = 0, is_relu_in: Any = False,
                 pad_mode_in: Any = pad_t.PAD_NONE, pad_value_in: Any = 0, handle: Any = None) -> None:  # fmt: skip
        self.block_mode, self.deq_scale, self.deq_value = block_mode, deq_scale, deq_value_in
        self.sid_store_mode, self.is_relu, self.pad_mode, self.pad_value = (
            sid_store_mode_in,
            is_relu_in,
            pad_mode_in,
            pad_value_in,
        )
        self.handle = handle

    def __repr__(self) -> str:
        fields = ("block_mode", "deq_scale", "deq_value", "sid_store_mode", "is_relu", "pad_mode", "pad_value")
        return "DataCopyEnhancedParams(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in fields) + ")"


@dataclass
class DataCopyPadParams:
    """data_copy_pad's padding of each row (the non-Ext form): `left_padding` / `right_padding` elements."""

    __asc_builtin__ = True

    is_pad: Any = False
    left_padding: Any = 0
    right_padding: Any = 0
    padding_value: Any = 0
    handle: Any = _handle()


@dataclass
class GatherRepeatParams:
    """gather's destination strides in 32-byte blocks (within a repeat, between repeats)."""

    __asc_builtin__ = True

    dst_blk_stride: Any = 1
    dst_rep_stride: Any = 8
    handle: Any = _handle()


@dataclass
class InitConstValueParams:
    """init_const_value: `repeat_times` repeats of `block_num` blocks, `dst_gap` blocks apart, set to `init_value`."""

    __asc_builtin__ = True

    repeat_times: Any = 0
    block_num: Any = 0
    dst_gap: Any = 0
    init_value: Any = 0
    handle: Any = _handle()


@dataclass
class LoadImageToLocalParams:
    """load_image_to_local: the window of the image and its padding."""

    __asc_builtin__ = True

    horiz_size: Any = 2
    vert_size: Any = 2
    horiz_start_pos: Any = 0
    vert_start_pos: Any = 0
    src_horiz_size: Any = 2
    top_pad_size: Any = 0
    bot_pad_size: Any = 0
    left_pad_size: Any = 0
    right_pad_size: Any = 0
    sid: Any = 0
    handle: Any = _handle()


@dataclass
class SliceInfo:
    """One dimension of a sliced data_copy: elements [start_index, end_index] every `stride`, `burst_len`
    32-byte blocks each, of a dimension of `shape_value`. The defaults are one 32-byte block."""

    __asc_builtin__ = True

    start_index: Any = 0
    end_index: Any = None
    stride: Any = 0
    burst_len: Any = None
    shape_value: Any = 0
    handle: Any = _handle()

    def __post_init__(self) -> None:
        # pyasc and Ascend C default both to a block: ONE_BLK_SIZE - 1 and ONE_BLK_SIZE
        if self.end_index is None:
            self.end_index = _BLOCK_BYTES - 1
        if self.burst_len is None:
            self.burst_len = _BLOCK_BYTES


@dataclass
class TransDataTo5HDParams:
    """trans_data_to_5hd: which halves of the 16-bit lanes, repeats and the repeat strides."""

    __asc_builtin__ = True

    dst_high_half: Any = False
    src_high_half: Any = False
    repeat_times: Any = 1
    dst_rep_stride: Any = 0
    src_rep_stride: Any = 0
    handle: Any = _handle()


@dataclass
class LoadData2DParamsV2:
    __asc_builtin__ = True

    m_start_position: Any = 0
    k_start_position: Any = 0
    m_step: Any = 0
    k_step: Any = 0
    src_stride: Any = 0
    dst_stride: Any = 0
    if_transpose: Any = False
    sid: Any = 0
    handle: Any = _handle()


@dataclass
class LoadData2dTransposeParamsV2:
    __asc_builtin__ = True

    start_index: Any = 0
    repeat_times: Any = 0
    src_stride: Any = 0
    dst_gap: Any = 0
    dst_frac_gap: Any = 0
    src_frac_gap: Any = 0
    addr_mode: Any = 0
    handle: Any = _handle()


@dataclass
class LoadData3DParamsV1:
    """load_data 3D (img2col), first form: the feature map in L1, the filter window, strides and dilation."""

    __asc_builtin__ = True

    pad_list: Any = (0, 0, 0, 0)
    l1_h: Any = 1
    l1_w: Any = 1
    c1_index: Any = 0
    fetch_filter_w: Any = 0
    fetch_filter_h: Any = 0
    left_top_w: Any = 0
    left_top_h: Any = 0
    stride_w: Any = 1
    stride_h: Any = 1
    filter_w: Any = 1
    filter_h: Any = 1
    dilation_filter_w: Any = 1
    dilation_filter_h: Any = 1
    jump_stride: Any = 1
    repeat_mode: Any = 0
    repeat_time: Any = 1
    c_size: Any = 0
    pad_value: Any = 0
    handle: Any = _handle()

    # pyasc round-trips a struct through its IR value (from_ir(p.to_ir())): here the struct is its own value
    def to_ir(self) -> LoadData3DParamsV1:
        return self

    @classmethod
    def from_ir(cls, handle: Any) -> Any:
        return handle


@dataclass
class LoadData3DParamsV2:
    """load_data 3D (img2col), second form: the k/m extensions and start points of the result."""

    __asc_builtin__ = True

    pad_list: Any = (0, 0, 0, 0)
    l1_h: Any = 1
    l1_w: Any = 1
    channel_size: Any = 1
    k_extension: Any = 1
    m_extension: Any = 1
    k_start_pt: Any = 0
    m_start_pt: Any = 0
    stride_w: Any = 1
    stride_h: Any = 1
    filter_w: Any = 1
    filter_h: Any = 1
    dilation_filter_w: Any = 1
    dilation_filter_h: Any = 1
    en_transpose: Any = False
    pad_value: Any = 0
    filter_size_w: Any = False
    filter_size_h: Any = False
    f_matrix_ctrl: Any = False
    handle: Any = _handle()

    # pyasc round-trips a struct through its IR value (from_ir(p.to_ir())): here the struct is its own value
    def to_ir(self) -> LoadData3DParamsV2:
        return self

    @classmethod
    def from_ir(cls, handle: Any) -> Any:
        return handle


@dataclass
class LoadData3DParamsV2Pro:
    """load_data 3D with the configuration packed in two words (ext_config, filter_config)."""

    __asc_builtin__ = True

    channel_size: Any = 0
    en_transpose: Any = False
    en_small_k: Any = False
    filter_size_w: Any = False
    filter_size_h: Any = False
    f_matrix_ctrl: Any = False
    ext_config: Any = 0
    # Ascend C's default: stride 1, filter 1 x 1, dilation 1 packed into the word
    filter_config: Any = 0x10101010101
    handle: Any = _handle()


@dataclass
class LoadDataRepeatParam:
    __asc_builtin__ = True

    repeat_time: Any = 1
    repeat_stride: Any = 0
    repeat_mode: Any = 0
    handle: Any = _handle()


@dataclass
class VdeqInfo:
    """Per-channel dequantisation of a vdeq: 16 scales, offsets and sign modes."""

    __asc_builtin__ = True

    scale: Optional[Any] = None
    offset: Optional[Any] = None
    sign_mode: Optional[Any] = None
    handle: Any = _handle()

    def __post_init__(self) -> None:
        self.scale = [1.0] * 16 if self.scale is None else list(self.scale)
        self.offset = [0] * 16 if self.offset is None else list(self.offset)
        self.sign_mode = [False] * 16 if self.sign_mode is None else list(self.sign_mode)


@dataclass
class CheckLocalMemoryIAParam:
    """check_local_memory_ia: a range of local memory [start_addr, end_addr) in 32-byte units and which
    accesses to it raise."""

    __asc_builtin__ = True

    enable_bit: Any = 0
    start_addr: Any = 0
    end_addr: Any = 0
    is_scalar_read: Any = False
    is_scalar_write: Any = False
    is_vector_read: Any = False
    is_vector_write: Any = False
    is_mte_read: Any = False
    is_mte_write: Any = False
    is_enable: Any = False
    handle: Any = _handle()
