"""Host-side sizing of asc.adv's element-wise math functions' temporary buffers: Ascend C's
Get<Fn>MaxMinTmpSize(srcShape, typeSize, isReuseSource, maxValue, minValue), in snake_case and returning
``(max_value, min_value)`` bytes: ``get_sin_max_min_tmp_size([1024], 2)``, ``get_power_max_min_tmp_size(shape,
4, type_is_int=True)``. The figures are those of asc's expansion of each function (asc.language.adv.tmp_sizes,
which the device side cuts its chunks by): below min_value the launch fails at the call; from max_value on, the
whole input goes in one chunk."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ...errors import CodegenError
from ...language.adv.tmp_sizes import INTERMEDIATES, min_max_bytes


def _elements(src_shape: Sequence[int], type_size: int, api: str) -> int:
    dims = [int(d) for d in src_shape]
    if not dims or any(d <= 0 for d in dims):
        raise CodegenError(f"get_{api.lower()}_max_min_tmp_size: src_shape must be positive dimensions, got {dims}")
    if type_size not in (2, 4):
        raise CodegenError(
            f"get_{api.lower()}_max_min_tmp_size: the data type size must be 2 (half) or 4 (float), got {type_size}"
        )
    n = 1
    for d in dims:
        n *= d
    return n


def _sizer(api: str) -> Callable[..., tuple[int, int]]:
    def get(src_shape: Sequence[int], type_size: int, is_reuse_source: bool = False, **kwargs: Any) -> tuple[int, int]:
        type_is_int = bool(kwargs.pop("type_is_int", False))
        if kwargs:
            raise TypeError(f"get_{api.lower()}_max_min_tmp_size: unexpected arguments {sorted(kwargs)}")
        low, high = min_max_bytes(api, _elements(src_shape, type_size, api), type_size, type_is_int)
        return high, low

    get.__name__ = get.__qualname__ = f"get_{api.lower()}_max_min_tmp_size"
    get.__doc__ = (
        f"Get{api}MaxMinTmpSize: (max_value, min_value) bytes of asc.adv.{api.lower()}'s temporary buffer for "
        "src_shape elements of type_size bytes" + (" (type_is_int: int32)" if api == "Power" else "") + "."
    )
    return get


_SIZERS = {f"get_{api.lower()}_max_min_tmp_size": _sizer(api) for api in INTERMEDIATES}
globals().update(_SIZERS)
__all__ = sorted(_SIZERS)
