"""The enums and option structs of the host tiling API, numbered as CANN's matmul_tiling namespace."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from ...language.core.enums import TPosition as KernelTPosition

# The kernel's positions, plus the host-only ones (LCM is VECCALC, SHM is SPM).
TPosition = IntEnum(
    "TPosition",
    {
        **{p.name: p.value for p in KernelTPosition if p.name != "MAX"},
        "LCM": KernelTPosition.VECCALC.value,
        "SPM": 12,
        "SHM": 12,
        "TSCM": 13,
        "MAX": 14,
    },
)


class DataType(IntEnum):
    """GE's data type numbering (ge::DataType). DT_BFLOAT16 is the tiling API's other name of DT_BF16."""

    DT_FLOAT = 0
    DT_FLOAT16 = 1
    DT_INT8 = 2
    DT_INT32 = 3
    DT_UINT8 = 4
    DT_INT16 = 6
    DT_UINT16 = 7
    DT_UINT32 = 8
    DT_INT64 = 9
    DT_UINT64 = 10
    DT_DOUBLE = 11
    DT_BOOL = 12
    DT_STRING = 13
    DT_COMPLEX64 = 16
    DT_COMPLEX128 = 17
    DT_QINT8 = 18
    DT_QINT16 = 19
    DT_QINT32 = 20
    DT_QUINT8 = 21
    DT_QUINT16 = 22
    DT_STRING_REF = 24
    DT_DUAL = 25
    DT_VARIANT = 26
    DT_BF16 = 27
    DT_BFLOAT16 = 27
    DT_UNDEFINED = 28
    DT_INT4 = 29
    DT_UINT1 = 30
    DT_INT2 = 31
    DT_MAX = 33


# Bytes per element of the types the cube unit multiplies or produces (others are not Matmul operands).
CUBE_TYPE_SIZES = {DataType.DT_FLOAT: 4, DataType.DT_FLOAT16: 2, DataType.DT_BF16: 2, DataType.DT_INT8: 1,
                   DataType.DT_UINT8: 1, DataType.DT_INT32: 4}  # fmt: skip


class MatrixTraverse(IntEnum):
    NOSET = 0
    FIRSTM = 1
    FIRSTN = 2


class MatrixMadType(IntEnum):
    """The cube's multiply mode: NORMAL, HF32 (float32 operands as hf32) or MXMODE."""

    NORMAL = 0
    HF32 = 1
    MXMODE = 2


class DequantType(IntEnum):
    """How a quantised Matmul's result is scaled: one scalar (set_quant_scalar) or a vector (set_quant_vector)."""

    SCALAR = 0
    TENSOR = 1


class ScheduleType(IntEnum):
    INNER_PRODUCT = 0
    OUTER_PRODUCT = 1


@dataclass
class MatmulConfigParams:
    """The MatmulConfig choices a tiling is made for (set_matmul_config_params)."""

    mm_config_type: int = 1
    enable_l1_cache_ub: bool = False
    schedule_type: ScheduleType = ScheduleType.INNER_PRODUCT
    traverse: MatrixTraverse = MatrixTraverse.NOSET
    en_vec_nd2nz: bool = False
