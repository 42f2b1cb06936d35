"""The AIPP (image pre-processing) parameters of set_aipp_functions, a later issue's instruction:
they construct and hold their fields with pyasc's names and defaults."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from ...errors import CodegenError
from . import dtype as dt


@dataclass
class AippPaddingParams:
    __asc_builtin__ = True

    padding_mode: Any = 0
    padding_value_ch0: Any = 0
    padding_value_ch1: Any = 0
    padding_value_ch2: Any = 0
    padding_value_ch3: Any = 0


@dataclass
class AippSwapParams:
    __asc_builtin__ = True

    is_swap_rb: Any = False
    is_swap_uv: Any = False
    is_swap_ax: Any = False


@dataclass
class AippSingleLineParams:
    __asc_builtin__ = True

    is_single_line_copy: Any = False


@dataclass
class AippDataTypeConvParams:
    __asc_builtin__ = True

    dtc_mean_ch0: Any = 0
    dtc_mean_ch1: Any = 0
    dtc_mean_ch2: Any = 0
    dtc_min_ch0: Any = 0.0
    dtc_min_ch1: Any = 0.0
    dtc_min_ch2: Any = 0.0
    dtc_var_ch0: Any = 1.0
    dtc_var_ch1: Any = 1.0
    dtc_var_ch2: Any = 1.0
    dtc_round_mode: Any = 0


@dataclass
class AippChannelPaddingParams:
    __asc_builtin__ = True

    c_padding_mode: Any = 0
    c_padding_value: Any = 0


@dataclass
class AippColorSpaceConvParams:
    """The 3 x 3 colour-space matrix (csc_matrix_r{row}_c{col}) and the input / output biases."""

    __asc_builtin__ = True

    is_enable_csc: Any = False
    csc_matrix_r0_c0: Any = 0
    csc_matrix_r0_c1: Any = 0
    csc_matrix_r0_c2: Any = 0
    csc_matrix_r1_c0: Any = 0
    csc_matrix_r1_c1: Any = 0
    csc_matrix_r1_c2: Any = 0
    csc_matrix_r2_c0: Any = 0
    csc_matrix_r2_c1: Any = 0
    csc_matrix_r2_c2: Any = 0
    csc_bias_in_0: Any = 0
    csc_bias_in_1: Any = 0
    csc_bias_in_2: Any = 0
    csc_bias_out_0: Any = 0
    csc_bias_out_1: Any = 0
    csc_bias_out_2: Any = 0


@dataclass
class AippParams:
    """All AIPP parameters for an int8 or float16 output; a part not given takes its defaults."""

    __asc_builtin__ = True

    dtype: Any
    padding_params: Optional[AippPaddingParams] = None
    swap_params: Optional[AippSwapParams] = None
    single_line_params: Optional[AippSingleLineParams] = None
    dtc_params: Optional[AippDataTypeConvParams] = None
    c_padding_params: Optional[AippChannelPaddingParams] = None
    csc_params: Optional[AippColorSpaceConvParams] = None
    handle: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.dtype not in (dt.int8, dt.float16):
            raise CodegenError(f"AippParams dtype must be asc.int8 or asc.float16, got {self.dtype!r}")
        self.padding_params = self.padding_params or AippPaddingParams()
        self.swap_params = self.swap_params or AippSwapParams()
        self.single_line_params = self.single_line_params or AippSingleLineParams()
        self.dtc_params = self.dtc_params or AippDataTypeConvParams()
        self.c_padding_params = self.c_padding_params or AippChannelPaddingParams()
        self.csc_params = self.csc_params or AippColorSpaceConvParams()
