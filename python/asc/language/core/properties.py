"""Ascend C's named hardware constants, read in kernels as ``asc.property(asc.TOTAL_L1_SIZE)``.

The values are those of the current platform (Atlas A2 / 910B): the L1 keeps
128 bytes for the Matmul server (Ascend C's TOTAL_L1_SIZE on arch 2201)."""

from __future__ import annotations

from dataclasses import dataclass

from . import dtype as dt
from .ir_value import Scalar, const


@dataclass(frozen=True)
class Property:
    name: str
    dtype: dt.DataType
    value: int


DEFAULT_C0_SIZE = Property("DEFAULT_C0_SIZE", dt.int32, 32)
ONE_BLK_SIZE = Property("ONE_BLK_SIZE", dt.int16, 32)
TOTAL_L1_SIZE = Property("TOTAL_L1_SIZE", dt.int32, 512 * 1024 - 128)
TOTAL_L0C_SIZE = Property("TOTAL_L0C_SIZE", dt.int32, 128 * 1024)


def property(prop: Property) -> Scalar:  # noqa: A001 - pyasc's name
    """The constant, as a scalar of its Ascend C type."""
    if not isinstance(prop, Property):
        raise TypeError("asc.property takes one of asc.DEFAULT_C0_SIZE, ONE_BLK_SIZE, TOTAL_L1_SIZE, TOTAL_L0C_SIZE")
    return const(prop.value, prop.dtype)


property.__asc_builtin__ = True  # type: ignore[attr-defined]


def ceildiv(a: int, b: int) -> int:
    """ceil(a / b) for host-side sizes (pyasc's asc.ceildiv)."""
    return (a + b - 1) // b
