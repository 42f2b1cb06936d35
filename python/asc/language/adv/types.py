"""The adv library's configuration types (pyasc's asc.language.adv.types), each a compile-time value: Ascend C
takes them as ``constexpr`` template arguments."""

from __future__ import annotations

from ...errors import CodegenError

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
