"""Parameters of the cube-unit instructions: data_copy with Nd2NzParams,
load_data (LoadData2DParams), mmad (MmadParams) and fixpipe
(FixpipeParamsV220, FixpipeConfig). Field names and defaults are pyasc's."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from .enums import CO2Layout, QuantModes


@dataclass
class Nd2NzParams:
    """GM (ND) -> L1 (Nz): nd_num matrices of n_value rows of d_value elements. Matrix strides are in
    elements; dst_nz_c0_stride / dst_nz_n_stride in 32-byte units."""

    __asc_builtin__ = True

    nd_num: Any = 1
    n_value: Any = 0
    d_value: Any = 0
    src_nd_matrix_stride: Any = 0
    src_d_value: Any = 0
    dst_nz_c0_stride: Any = 0
    dst_nz_n_stride: Any = 0
    dst_nz_matrix_stride: Any = 0

    def fields(self) -> list:
        return [self.nd_num, self.n_value, self.d_value, self.src_nd_matrix_stride, self.src_d_value,
                self.dst_nz_c0_stride, self.dst_nz_n_stride, self.dst_nz_matrix_stride]  # fmt: skip


@dataclass
class Nz2NdParamsFull:
    """Unified Buffer (Nz, 16-element columns) -> GM (ND): nd_num matrices of n_value rows of d_value
    elements (a multiple of 16); src_nd_matrix_stride counts 256 elements, src_n_stride 16 elements,
    dst_d_stride and dst_nd_matrix_stride elements."""

    __asc_builtin__ = True

    nd_num: Any = 1
    n_value: Any = 0
    d_value: Any = 0
    src_nd_matrix_stride: Any = 0
    src_n_stride: Any = 0
    dst_d_stride: Any = 0
    dst_nd_matrix_stride: Any = 0
    # pyasc's constructors end with `handle` (an IR value to wrap): accepted and ignored
    handle: Any = field(default=None, repr=False, compare=False)

    def fields(self) -> list:
        return [self.nd_num, self.n_value, self.d_value, self.src_nd_matrix_stride, self.src_n_stride,
                self.dst_d_stride, self.dst_nd_matrix_stride]  # fmt: skip


@dataclass
class LoadData2DParams:
    """L1 -> L0A/L0B in 512-byte fractals: fractal i comes from start_index +/- i * src_stride
    (addr_mode 0 / 1) and goes to (dst_gap + 1) * i; if_transpose transposes each 16 x 16 fractal."""

    __asc_builtin__ = True

    start_index: Any = 0
    repeat_times: Any = 1
    src_stride: Any = 0
    sid: Any = 0
    dst_gap: Any = 0
    if_transpose: Any = False
    addr_mode: Any = 0

    def fields(self) -> list:
        return [self.start_index, self.repeat_times, self.src_stride, self.sid, self.dst_gap,
                int(self.if_transpose) if isinstance(self.if_transpose, bool) else self.if_transpose,
                self.addr_mode]  # fmt: skip


@dataclass
class LoadData2dTransposeParams:
    """load_data_with_transpose: square i (16 x 16, or 32 x 32 for 1-byte types) comes from start_index +/-
    i * src_stride and goes to fractal (dst_gap + 1) * i; its second fractal (1-/4-byte types) dst_frac_gap
    fractals later."""

    __asc_builtin__ = True

    start_index: Any = 0
    repeat_times: Any = 1
    src_stride: Any = 0
    dst_gap: Any = 0
    dst_frac_gap: Any = 0
    addr_mode: Any = 0

    def fields(self) -> list:
        return [self.start_index, self.repeat_times, self.src_stride, self.dst_gap, self.dst_frac_gap, self.addr_mode]


class MmadParams:
    """``MmadParams(m, n, k, is_bias=False, ...)`` or ``MmadParams(m, n, k, unit_flag=0, cmatrix_source=False,
    cmatrix_init_val=True)``: C (=|+=) A x B over m x k and k x n. is_bias (deprecated) means accumulate."""

    __asc_builtin__ = True

    def __init__(self, m: Any = 0, n: Any = 0, k: Any = 0, is_bias: Any = None, fm_offset: Any = None,
                 en_ssparse: Any = None, en_winograd_a: Any = None, en_winograd_b: Any = None,
                 unit_flag: Any = None, cmatrix_source: Any = None, cmatrix_init_val: Any = None):  # fmt: skip
        self.m, self.n, self.k = m, n, k
        self.is_bias = bool(is_bias) if is_bias is not None else False
        self.cmatrix_source = bool(cmatrix_source) if cmatrix_source is not None else False
        self.cmatrix_init_val = True if cmatrix_init_val is None else cmatrix_init_val
        self.unit_flag = unit_flag or 0

    def init(self) -> Any:
        """The effective initialise flag: cmatrix_init_val and not is_bias."""
        if self.is_bias:
            return 0
        return int(self.cmatrix_init_val) if isinstance(self.cmatrix_init_val, bool) else self.cmatrix_init_val


@dataclass
class FixpipeParamsV220:
    """L0C -> GM: m_size x n_size elements; src_stride in 16-element units (ceil16 of m), dst_stride the
    destination row length (NZ2ND) in elements; quant_pre converts, relu_en applies max(0, x)."""

    __asc_builtin__ = True

    n_size: Any = 0
    m_size: Any = 0
    src_stride: Any = 0
    dst_stride: Any = 0
    quant_pre: Any = QuantModes.NoQuant
    deq_scalar: Any = 0
    nd_num: Any = 1
    src_nd_stride: Any = 0
    dst_nd_stride: Any = 0
    relu_en: Any = False
    unit_flag: Any = 0
    is_channel_split: Any = False

    def fields(self) -> list:
        relu = int(self.relu_en) if isinstance(self.relu_en, bool) else self.relu_en
        return [self.n_size, self.m_size, self.src_stride, self.dst_stride, int(self.quant_pre), self.deq_scalar,
                self.nd_num, self.src_nd_stride, self.dst_nd_stride, relu]  # fmt: skip


@dataclass
class FixpipeParamsArch3510:
    """Ascend 950's fixpipe parameters (Ascend C's FixpipeParamsArch3510; FixpipeParamsC310 is the same), here for
    L0C -> a vector core's Unified Buffer. m_size x n_size elements; src_stride in 16-element units (ceil16 of m);
    dst_stride in elements: the destination row length (NZ2ND) or the distance between 16-column fractals (NZ2NZ).
    dual_dst_ctl 0 writes sub-block sub_block_id's UB; 1 splits M, 2 splits N in halves, the first to sub-block 0
    and the second to sub-block 1 (NoQuant, no ReLU). nd_num, src_nd_stride (16-element units) and dst_nd_stride
    (elements) are Ascend C's `params` (Nz2NdParams)."""

    __asc_builtin__ = True

    n_size: Any = 0
    m_size: Any = 0
    src_stride: Any = 0
    dst_stride: Any = 0
    quant_pre: Any = QuantModes.NoQuant
    deq_scalar: Any = 0
    relu_en: Any = False
    unit_flag: Any = 0
    dual_dst_ctl: Any = 0
    sub_block_id: Any = 0
    nd_num: Any = 1
    src_nd_stride: Any = 0
    dst_nd_stride: Any = 0
    is_channel_split: Any = False

    def fields(self) -> list:
        """The IR's fixpipe.ub fields after dst and src."""
        flags = [int(x) if isinstance(x, bool) else x for x in (self.relu_en, self.dual_dst_ctl, self.sub_block_id)]
        return [self.n_size, self.m_size, self.src_stride, self.dst_stride, int(self.quant_pre), self.deq_scalar,
                self.nd_num, self.src_nd_stride, self.dst_nd_stride, *flags]  # fmt: skip


FixpipeParamsC310 = FixpipeParamsArch3510


@dataclass
class DataCopyCO12DstParams:
    """data_copy L0C (CO1) -> GM: fixpipe's fields (note dst_stride before src_stride); the quantisation
    scalar comes from set_fix_pipe_pre_quant_flag; nz2nd_en picks the ND output."""

    __asc_builtin__ = True

    n_size: Any = 0
    m_size: Any = 0
    dst_stride: Any = 0
    src_stride: Any = 0
    quant_pre: Any = QuantModes.NoQuant
    relu_pre: Any = 0
    channel_split: Any = False
    nz2nd_en: Any = False

    def fields(self) -> list:
        return [self.n_size, self.m_size, self.src_stride, self.dst_stride, int(self.quant_pre), 0, 1, 0, 0,
                int(self.relu_pre) if isinstance(self.relu_pre, bool) else self.relu_pre]  # fmt: skip


class FixpipeConfig:
    """fixpipe's output layout: FixpipeConfig.cfg_row_major (NZ2ND, the default) or FixpipeConfig.cfg_nz; Ascend
    950's L0C -> UB takes one with is_to_ub=True (Ascend C's isToUB): cfg_row_major_ub or cfg_nz_ub."""

    __asc_builtin__ = True
    cfg_row_major: FixpipeConfig
    cfg_nz: FixpipeConfig
    cfg_row_major_ub: FixpipeConfig
    cfg_nz_ub: FixpipeConfig

    def __init__(self, layout: Any = CO2Layout.ROW_MAJOR, is_to_ub: Any = False, handle: Optional[int] = None):
        self.layout = CO2Layout(layout)
        self.is_to_ub = bool(is_to_ub)


FixpipeConfig.cfg_row_major = FixpipeConfig(CO2Layout.ROW_MAJOR)
FixpipeConfig.cfg_nz = FixpipeConfig(CO2Layout.NZ)
FixpipeConfig.cfg_row_major_ub = FixpipeConfig(CO2Layout.ROW_MAJOR, True)
FixpipeConfig.cfg_nz_ub = FixpipeConfig(CO2Layout.NZ, True)
