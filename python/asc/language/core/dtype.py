"""Element data types, spelled as in pyasc (asc.float32, asc.int16, ...)."""

from __future__ import annotations

from typing import Optional


class DataType:
    """An element type. ``code`` is the C ABI's asc_dtype_t value."""

    __slots__ = ("name", "code", "bitwidth", "kind")

    def __new__(cls, name: str, code: Optional[int] = None, bitwidth: Optional[int] = None, kind: Optional[str] = None):
        if code is None:
            # pyasc's spelling: DataType("int32") names a dtype; it is the one predefined (asc.int32), so it
            # compares, hashes and lowers as that.
            known = _BY_SPELLING.get(name) if isinstance(name, str) else None
            if known is None:
                raise ValueError(
                    f"DataType({name!r}): not a dtype name; known names: {', '.join(sorted(_BY_SPELLING))}"
                )
            return known
        return super().__new__(cls)

    def __init__(
        self, name: str, code: Optional[int] = None, bitwidth: Optional[int] = None, kind: Optional[str] = None
    ):
        if code is None:
            return  # the predefined instance __new__ returned, already set
        self.name, self.code, self.bitwidth, self.kind = name, code, bitwidth, kind

    def __reduce__(self):
        return (DataType, (self.name,))  # copies and pickles are the predefined instance

    def __copy__(self) -> DataType:
        return self

    def __deepcopy__(self, memo) -> DataType:
        return self

    def sizeof(self) -> int:
        return max(1, self.bitwidth // 8)

    def is_float(self) -> bool:
        return self.kind == "float"

    def is_int(self) -> bool:
        return self.kind in ("int", "uint", "bool")

    def is_numeric(self) -> bool:
        return self.kind in ("int", "uint", "float")

    def is_void(self) -> bool:
        return self.kind == "void"

    def is_signed(self) -> bool:
        return self.kind == "int"

    def is_unsigned(self) -> bool:
        return self.kind in ("uint", "bool")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DataType) and other.code == self.code

    def __hash__(self) -> int:
        return hash(self.code)

    def __repr__(self) -> str:
        return f"asc.{self.name}"

    __str__ = __repr__


bool_ = DataType("bool", 0, 8, "bool")
int8 = DataType("int8", 1, 8, "int")
uint8 = DataType("uint8", 2, 8, "uint")
int16 = DataType("int16", 3, 16, "int")
uint16 = DataType("uint16", 4, 16, "uint")
int32 = DataType("int32", 5, 32, "int")
uint32 = DataType("uint32", 6, 32, "uint")
int64 = DataType("int64", 7, 64, "int")
uint64 = DataType("uint64", 8, 64, "uint")
float16 = DataType("float16", 9, 16, "float")
bfloat16 = DataType("bfloat16", 10, 16, "float")
float32 = DataType("float32", 11, 32, "float")

# pyasc spells these too; neither is an element type of the Model or of Ascend C's vector unit, so any IR use
# of them is refused (codes past the C ABI's asc_dtype_t).
float64 = DataType("float64", 100, 64, "float")
void = DataType("void", 101, 0, "void")
# The 8-bit floats of pyasc's newer release (numpy side: ml_dtypes' types of the same names). They are Ascend 950
# (arch C310) element types; the Model's platforms, Atlas A2/A3, have none (neither does their Ascend C: a kernel
# using one does not compile for them), so a kernel or a launch using one is refused with unsupported_reason().
float8_e4m3fn = DataType("float8_e4m3fn", 102, 8, "float")
float8_e5m2 = DataType("float8_e5m2", 103, 8, "float")
float8_e8m0fnuz = DataType("float8_e8m0fnuz", 104, 8, "float")
FLOAT8_DTYPES = (float8_e4m3fn, float8_e5m2, float8_e8m0fnuz)
# numpy dtype names of them: ml_dtypes calls the exponent-only type float8_e8m0fnu (no negative zero)
_FLOAT8_NUMPY = {"float8_e4m3fn": float8_e4m3fn, "float8_e5m2": float8_e5m2, "float8_e8m0fnu": float8_e8m0fnuz}


def float8_of_numpy(name: str) -> Optional[DataType]:
    """The fp8 DataType of an ml_dtypes dtype name, or None."""
    return _FLOAT8_NUMPY.get(name)


half = float16
float_ = float32
int_ = int32
double = float64

ALL_DTYPES = (bool_, int8, uint8, int16, uint16, int32, uint32, int64, uint64, float16, bfloat16, float32)
_BY_CODE = {d.code: d for d in ALL_DTYPES}
_BY_NAME = {d.name: d for d in ALL_DTYPES}
# The names DataType(name) accepts: pyasc's (its int1 is our bool_) plus ours.
_BY_SPELLING = {**_BY_NAME, "int1": bool_, "float64": float64, "void": void, **{d.name: d for d in FLOAT8_DTYPES}}


def unsupported_reason(d: DataType) -> str:
    """Why a dtype that is not an element type of the Model's platforms cannot be used there."""
    if d in FLOAT8_DTYPES:
        return (
            f"{d.name} is an Ascend 950 (arch C310) type: Atlas A2/A3, the Model's platforms, have no 8-bit floats "
            "(their Ascend C has no such type either)"
        )
    return f"{d.name} is not an element type of Ascend C's vector and cube units"


def from_code(code: int) -> DataType:
    return _BY_CODE[code]


def from_name(name: str) -> Optional[DataType]:
    """numpy / torch dtype names ("float32", "torch.float16", "bool") to a DataType."""
    name = name.replace("torch.", "")
    return _BY_NAME.get(name)


def promote(a: DataType, b: DataType) -> DataType:
    """Result type of a scalar binary op: float wins, then the wider integer."""
    if a == b:
        return a
    if a.is_float() or b.is_float():
        if a.is_float() and b.is_float():
            return a if a.bitwidth >= b.bitwidth else b
        return a if a.is_float() else b
    if a == bool_:
        return b
    if b == bool_:
        return a
    if a.bitwidth != b.bitwidth:
        return a if a.bitwidth > b.bitwidth else b
    return a if a.is_signed() else b


class KnownTypes:
    """pyasc's namespace of the dtypes (``from asc.language.core.dtype import KnownTypes as KT``)."""

    void = void
    int1 = bool_
    bit = bool_
    bool_ = bool_
    int8 = int8
    int16 = int16
    int32 = int32
    int64 = int64
    uint8 = uint8
    uint16 = uint16
    uint32 = uint32
    uint64 = uint64
    float16 = float16
    bfloat16 = bfloat16
    float32 = float32
    float64 = float64
    half = float16
    float_ = float32
    double = float64
    int_ = int32
