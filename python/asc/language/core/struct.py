"""Structs passed by value into kernels (tiling data such as asc.adv.TCubeTiling).

On the host a Struct holds Python numbers. As a kernel argument each field is
passed as one scalar parameter; inside the kernel the struct is a local copy
whose fields are mutable run-time scalars (``tiling.share_l1_size = ...`` is
allowed and changes only the kernel's copy, as in pyasc)."""

from __future__ import annotations

import struct as _struct
from typing import Any, ClassVar

from ...errors import CodegenError
from . import dtype as dt

_PACK = {"int32": "i", "uint32": "I", "int64": "q", "uint64": "Q", "float32": "f", "int16": "h", "uint16": "H"}


class Field:
    """One struct member: its dtype, its default and its C name."""

    def __init__(self, dtype: dt.DataType, default: Any = 0, name: str = ""):
        self.dtype, self.default, self.c_name = dtype, default, name


class Struct:
    """Base class: subclasses declare ``name = Field(dtype, default, "cName")`` in layout order."""

    _fields: ClassVar[list[tuple[str, Field]]] = []
    __asc_builtin__ = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._fields = [(k, v) for k, v in vars(cls).items() if isinstance(v, Field)]

    def __init__(self, **values: Any):
        unknown = set(values) - {name for name, _ in self._fields}
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field(s) {sorted(unknown)}")
        for name, f in self._fields:
            object.__setattr__(self, name, values.get(name, f.default))
        object.__setattr__(self, "_in_kernel", False)

    @classmethod
    def fields(cls) -> list[tuple[str, Field]]:
        return list(cls._fields)

    def pack(self) -> bytes:
        """The C layout: the fields in order, little-endian, packed."""
        return b"".join(_struct.pack("<" + _PACK[f.dtype.name], getattr(self, n)) for n, f in self._fields)

    @classmethod
    def from_kernel_params(cls, scalars: list) -> Struct:
        """The kernel's local copy: one mutable variable per field (made by the caller)."""
        obj = cls.__new__(cls)
        for (name, _), value in zip(cls._fields, scalars):
            object.__setattr__(obj, name, value)
        object.__setattr__(obj, "_in_kernel", True)
        return obj

    def __setattr__(self, name: str, value: Any) -> None:
        if not any(name == n for n, _ in self._fields):
            raise AttributeError(f"{type(self).__name__} has no field '{name}'")
        if self._in_kernel:
            raise CodegenError("struct fields are assigned through the kernel (tiling.field = value)")
        object.__setattr__(self, name, value)

    def assign_in_kernel(self, name: str, value: Any, builder: Any) -> None:
        """`self.name = value` inside a kernel: an assignment to the field's variable."""
        field = dict(self._fields).get(name)
        if field is None:
            raise CodegenError(f"{type(self).__name__} has no field '{name}'")
        from .ir_value import Scalar, cast, to_scalar

        var = getattr(self, name)
        new = cast(value, field.dtype) if isinstance(value, Scalar) else to_scalar(value, field.dtype)
        builder.op("assign", [var.handle, new.handle])

    def __repr__(self) -> str:
        return f"{type(self).__name__}(" + ", ".join(f"{n}={getattr(self, n)!r}" for n, _ in self._fields) + ")"
