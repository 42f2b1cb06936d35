"""The adv library's types (pyasc's asc.language.adv.types): the softmax family's SoftMaxShapeInfo (the shape of
a call's src, passed by value as Ascend C's struct), SoftmaxConfig and SoftmaxMode, and AscendQuant's
QuantConfig. The configs are compile-time values: Ascend C takes them as ``constexpr`` template arguments."""

from __future__ import annotations

from enum import IntEnum
from typing import Any

from ...errors import CodegenError
from ..core import dtype as dt
from ..core.struct import Field, Struct


class SoftmaxMode(IntEnum):
    """How the softmax functions lay out their per-row outputs (sum, max, exp_max): SOFTMAX_NORMAL broadcasts
    each row's value over a 32-byte block; SOFTMAX_OUTPUT_WITHOUT_BRC writes one value per row."""

    SOFTMAX_NORMAL = 0
    SOFTMAX_OUTPUT_WITHOUT_BRC = 1


class SoftMaxShapeInfo(Struct):
    """``SoftMaxShapeInfo(src_m, src_k, ori_src_m, ori_src_k)``: src is src_m rows of src_k elements (src_k
    32-byte aligned); the data is the first ori_src_m x ori_src_k of it (the rest padding). All 0: the shape
    comes from src's set_shape_info, or else the tiling."""

    src_m = Field(dt.uint32, 0, "srcM")
    src_k = Field(dt.uint32, 0, "srcK")
    ori_src_m = Field(dt.uint32, 0, "oriSrcM")
    ori_src_k = Field(dt.uint32, 0, "oriSrcK")

    def __init__(self, src_m: Any = 0, src_k: Any = 0, ori_src_m: Any = 0, ori_src_k: Any = 0) -> None:
        super().__init__(src_m=src_m, src_k=src_k, ori_src_m=ori_src_m, ori_src_k=ori_src_k)


class SoftmaxConfig:
    """Ascend C's SoftmaxConfig, a compile-time template argument: ``check_tiling`` (the API checks the tiling
    against the shape), a constant shape ``src_m`` x ``src_k`` (0: from the call), and ``mode``."""

    __asc_builtin__ = True

    def __init__(self, check_tiling: bool = True, src_m: int = 0, src_k: int = 0,
                 mode: SoftmaxMode = SoftmaxMode.SOFTMAX_NORMAL) -> None:  # fmt: skip
        for name, value in (("src_m", src_m), ("src_k", src_k)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise CodegenError(f"SoftmaxConfig: {name} must be a non-negative int known while compiling")
        if not isinstance(check_tiling, bool):
            raise CodegenError("SoftmaxConfig: check_tiling must be a Python bool")
        self.check_tiling, self.src_m, self.src_k = check_tiling, src_m, src_k
        self.mode = SoftmaxMode(int(mode))

    def is_default(self) -> bool:
        return self.check_tiling and self.src_m == 0 and self.src_k == 0 and self.mode == SoftmaxMode.SOFTMAX_NORMAL

    def spelled(self) -> str:
        """The C++ initializer of Ascend C's constexpr SoftmaxConfig (braces doubled for library_call)."""
        check = "true" if self.check_tiling else "false"
        return f"{{{{{check}, {self.src_m}, {self.src_k}, AscendC::SoftmaxMode::{self.mode.name}}}}}"


_U32 = 2**32


def _uint32(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise CodegenError(f"{what} must be a Python int (a compile-time constant), got {value!r}")
    if not 0 <= value < _U32:
        raise CodegenError(f"{what} must be a uint32 (0 .. 2**32 - 1), got {value}")
    return value


class QuantConfig:
    """Ascend C's ``AscendQuantConfig`` (the ``config`` template argument of AscendQuant): compile-time counts that
    rule over the call's arguments. Per tensor, with ``calc_count`` and ``work_local_size`` non-zero: ``calc_count``
    elements in chunks of the first ``work_local_size`` bytes of the temporary buffer. Per channel, with
    ``scale_count`` and ``calc_count`` non-zero: ``calc_count / scale_count`` rows of ``scale_count`` channels
    (chunks of ``work_local_size`` bytes when it is non-zero). ``offset_count`` must equal ``scale_count`` (forms
    with an offset tensor) and ``scale_count`` be a multiple of 32."""

    __asc_builtin__ = True

    def __init__(self, calc_count: int = 0, offset_count: int = 0, scale_count: int = 0,
                 work_local_size: int = 0) -> None:  # fmt: skip
        self.calc_count = _uint32(calc_count, "QuantConfig calc_count")
        self.offset_count = _uint32(offset_count, "QuantConfig offset_count")
        self.scale_count = _uint32(scale_count, "QuantConfig scale_count")
        self.work_local_size = _uint32(work_local_size, "QuantConfig work_local_size")

    def fields(self) -> tuple[int, int, int, int]:
        """calcCount, offsetCount, scaleCount, workLocalSize: the struct's field order."""
        return self.calc_count, self.offset_count, self.scale_count, self.work_local_size

    def __repr__(self) -> str:
        return "QuantConfig({}, {}, {}, {})".format(*self.fields())
