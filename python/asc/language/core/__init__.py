"""asc.language.core: types, tensors and enums."""

from .constexpr import ConstExpr
from .data_copy_params import DataCopyExtParams, DataCopyPadExtParams, DataCopyParams
from .dtype import (
    DataType,
    bfloat16,
    bool_,
    float16,
    float32,
    float_,
    half,
    int8,
    int16,
    int32,
    int64,
    int_,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .enums import CMPMODE, HardEvent, PipeID, ReduceOrder, RoundMode, SelMode, TPosition
from .repeat_params import BinaryRepeatParams, CopyRepeatParams, UnaryRepeatParams
from .tensor import GlobalAddress, GlobalTensor, LocalTensor, LocalTensorAuto

__all__ = [
    "BinaryRepeatParams",
    "UnaryRepeatParams",
    "CMPMODE",
    "ConstExpr",
    "CopyRepeatParams",
    "DataCopyExtParams",
    "DataCopyPadExtParams",
    "DataCopyParams",
    "DataType",
    "GlobalAddress",
    "GlobalTensor",
    "HardEvent",
    "LocalTensor",
    "LocalTensorAuto",
    "PipeID",
    "ReduceOrder",
    "RoundMode",
    "SelMode",
    "TPosition",
    "bfloat16",
    "bool_",
    "float16",
    "float32",
    "float_",
    "half",
    "int16",
    "int32",
    "int64",
    "int8",
    "int_",
    "uint16",
    "uint32",
    "uint64",
    "uint8",
]
