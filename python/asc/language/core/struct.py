"""Structs passed by value into kernels (tiling data such as asc.adv.TCubeTiling).

On the host a Struct holds Python numbers. As a kernel argument each field is
passed as one scalar parameter; inside the kernel the struct is a local copy
whose fields are mutable run-time scalars (``tiling.share_l1_size = ...`` is
allowed and changes only the kernel's copy, as in pyasc)."""

from __future__ import annotations

import struct as _struct
from typing import Any, ClassVar

from ...codegen.context import current_builder, in_kernel
from ...errors import CodegenError
from . import dtype as dt

_PACK = {"int32": "i", "uint32": "I", "int64": "q", "uint64": "Q", "float32": "f", "int16": "h", "uint16": "H"}


class Field:
    """One struct member: its dtype, its default and its C name."""

    def __init__(self, dtype: dt.DataType, default: Any = 0, name: str = ""):
        self.dtype, self.default, self.c_name = dtype, default, name


class StructField:
    """A member that is itself a struct (``block = StructField(BlockConfig)``), laid out inline."""

    def __init__(self, struct_type: type, default: Any = None):
        if not (isinstance(struct_type, type) and issubclass(struct_type, Struct)):
            raise TypeError(f"StructField needs a Struct subclass, got {struct_type!r}")
        self.struct_type, self.default = struct_type, default


class Struct:
    """Base class: subclasses declare ``name = Field(dtype, default, "cName")`` (or ``StructField(Other)``)
    in layout order."""

    _fields: ClassVar[list[tuple[str, Any]]] = []
    __asc_builtin__ = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._fields = [(k, v) for k, v in vars(cls).items() if isinstance(v, (Field, StructField))]

    def __init__(self, **values: Any):
        unknown = set(values) - {name for name, _ in self._fields}
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field(s) {sorted(unknown)}")
        object.__setattr__(self, "_in_kernel", False)
        if in_kernel():
            self._init_in_kernel(values)
            return
        for name, f in self._fields:
            if isinstance(f, StructField):
                default = f.default if f.default is not None else f.struct_type()
                self.__setattr__(name, values.get(name, default))
            else:
                object.__setattr__(self, name, values.get(name, f.default))

    def _init_in_kernel(self, values: dict) -> None:
        """A struct built inside a kernel (``tiling = TCubeTiling(m=size_m, ...)``) is a local variable as in
        Ascend C: each field a mutable run-time scalar of its dtype, set from the value given or the default."""
        from .ir_value import Scalar, cast, to_scalar

        builder = current_builder()
        for name, f in self._fields:
            value = values.get(name, f.default)
            if isinstance(f, StructField):
                if value is None:
                    value = f.struct_type()
                elif isinstance(value, f.struct_type):  # a copy, field by field
                    value = f.struct_type(**{n: getattr(value, n) for n, _ in f.struct_type._fields})
                else:
                    raise TypeError(f"{type(self).__name__}.{name} is a {f.struct_type.__name__}, got {value!r}")
                object.__setattr__(self, name, value)
                continue
            init = cast(value, f.dtype) if isinstance(value, Scalar) else to_scalar(value, f.dtype)
            var = Scalar(builder.op("var", [init.handle]), f.dtype)
            var._mutable = True
            object.__setattr__(self, name, var)
        object.__setattr__(self, "_in_kernel", True)

    @classmethod
    def fields(cls) -> list[tuple[str, Field]]:
        """The scalar fields in layout order, a nested struct's as "member.field"."""
        out: list[tuple[str, Field]] = []
        for name, f in cls._fields:
            if isinstance(f, StructField):
                out += [(f"{name}.{sub}", g) for sub, g in f.struct_type.fields()]
            else:
                out.append((name, f))
        return out

    def field_values(self) -> list:
        """The values of fields(), in its order."""
        out: list = []
        for name, f in self._fields:
            value = getattr(self, name)
            out += value.field_values() if isinstance(f, StructField) else [value]
        return out

    def pack(self) -> bytes:
        """The C layout: the fields in order, little-endian, packed."""
        return b"".join(
            _struct.pack("<" + _PACK[f.dtype.name], v) for (_, f), v in zip(self.fields(), self.field_values())
        )

    @classmethod
    def from_kernel_params(cls, scalars: list) -> Struct:
        """The kernel's local copy: one mutable variable per field (made by the caller)."""
        obj = cls.__new__(cls)
        rest = list(scalars)
        for name, f in cls._fields:
            if isinstance(f, StructField):
                n = len(f.struct_type.fields())
                object.__setattr__(obj, name, f.struct_type.from_kernel_params(rest[:n]))
                rest = rest[n:]
            else:
                object.__setattr__(obj, name, rest.pop(0))
        object.__setattr__(obj, "_in_kernel", True)
        return obj

    def __setattr__(self, name: str, value: Any) -> None:
        field = dict(self._fields).get(name)
        if field is None:
            raise AttributeError(f"{type(self).__name__} has no field '{name}'")
        if self._in_kernel:
            raise CodegenError("struct fields are assigned through the kernel (tiling.field = value)")
        if isinstance(field, StructField) and not isinstance(value, field.struct_type):
            raise TypeError(f"{type(self).__name__}.{name} is a {field.struct_type.__name__}, got {value!r}")
        object.__setattr__(self, name, value)

    def assign_in_kernel(self, name: str, value: Any, builder: Any) -> None:
        """`self.name = value` inside a kernel: an assignment to the field's variable."""
        field = dict(self._fields).get(name)
        if field is None:
            raise CodegenError(f"{type(self).__name__} has no field '{name}'")
        if isinstance(field, StructField):
            raise CodegenError(f"{type(self).__name__}.{name} is a struct: assign its fields ({name}.field = value)")
        from .ir_value import Scalar, cast, to_scalar

        var = getattr(self, name)
        new = cast(value, field.dtype) if isinstance(value, Scalar) else to_scalar(value, field.dtype)
        builder.op("assign", [var.handle, new.handle])

    def __repr__(self) -> str:
        return f"{type(self).__name__}(" + ", ".join(f"{n}={getattr(self, n)!r}" for n, _ in self._fields) + ")"
