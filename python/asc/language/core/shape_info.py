"""ShapeInfo (the shape dump_tensor prints a tensor with) and asc.array, the
small fixed-length array it is built from."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from ...errors import CodegenError
from . import dtype as dt
from .enums import DataFormat


class Array:
    """A fixed-length array of compile-time or run-time integers (``asc.array(asc.uint32, [4, 16])``)."""

    __asc_builtin__ = True

    def __init__(self, dtype: dt.DataType, values: Sequence[Any]):
        self.dtype, self.values = dtype, list(values)

    def __len__(self) -> int:
        return len(self.values)

    def __getitem__(self, i: int) -> Any:
        return self.values[i]


def array(dtype: Any, length_or_values: Any, fill_value: Any = None) -> Array:
    """``array(dtype, [v0, v1, ...])`` or ``array(dtype, length, fill_value=0)``."""
    if not isinstance(dtype, dt.DataType):
        raise CodegenError(f"asc.array: dtype must be an asc dtype, got {dtype!r}")
    if isinstance(length_or_values, int):
        return Array(dtype, [0 if fill_value is None else fill_value] * length_or_values)
    return Array(dtype, list(length_or_values))


array.__asc_builtin__ = True  # type: ignore[attr-defined]


class ShapeInfo:
    """The shape dump_tensor lays the dumped elements out in (the last dimension is a row)."""

    __asc_builtin__ = True

    def __init__(self, shape: Any = None, original_shape: Any = None, data_format: Any = DataFormat.ND):
        dims = [] if shape is None else list(shape.values if isinstance(shape, Array) else shape)
        if len(dims) > 8:
            raise CodegenError(f"ShapeInfo: at most 8 dimensions, got {len(dims)}")
        self.shape: list = dims
        self.original_shape: Optional[list] = None if original_shape is None else list(original_shape)
        self.data_format = data_format


def get_shape_size(shape_info: ShapeInfo) -> Any:
    """The element count of a ShapeInfo: the product of its dimensions (1 for none), as Ascend C's GetShapeSize."""
    if not isinstance(shape_info, ShapeInfo):
        raise CodegenError(f"get_shape_size: expected an asc.ShapeInfo, got {type(shape_info).__name__}")
    size: Any = 1
    for d in shape_info.shape:
        size = size * d
    return size


get_shape_size.__asc_builtin__ = True  # type: ignore[attr-defined]
