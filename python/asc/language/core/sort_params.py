"""The sorting instructions' parameter structures: MrgSortSrcList (the lists a merge takes) and MrgSort4Info (their
lengths and the merge's settings), Ascend C's structures of those names."""

from __future__ import annotations

from typing import Any

from ...errors import CodegenError
from . import dtype as dt
from .tensor import LocalTensor


class MrgSortSrcList:
    """``AscendC::MrgSortSrcList<T>``: two to four sorted lists (LocalTensors of one dtype) a merge takes, in
    order. pyasc's call shapes: ``MrgSortSrcList(dtype, src1, src2, src3=None, src4=None)``, or without the
    dtype (then src1's)."""

    __asc_builtin__ = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        dtype = kwargs.pop("dtype", None)
        kwargs.pop("handle", None)  # pyasc's IR value to wrap: accepted and ignored
        if args and isinstance(args[0], dt.DataType):
            if dtype is not None:
                raise CodegenError("MrgSortSrcList: dtype given twice")
            dtype, args = args[0], args[1:]
        names = ("src1", "src2", "src3", "src4")
        if len(args) > 4:
            raise CodegenError(f"MrgSortSrcList takes at most 4 lists, got {len(args)}")
        values = dict(zip(names, args))
        for key, value in kwargs.items():
            if key not in names:
                raise CodegenError(f"MrgSortSrcList: unknown argument {key!r}")
            if key in values:
                raise CodegenError(f"MrgSortSrcList: {key} given twice")
            values[key] = value
        srcs = [values.get(n) for n in names]
        while srcs and srcs[-1] is None:
            srcs.pop()
        if len(srcs) < 2 or any(s is None for s in srcs):
            raise CodegenError("MrgSortSrcList needs src1 and src2 (then optionally src3, src4), in order")
        for name, src in zip(names, srcs):
            if not isinstance(src, LocalTensor):
                raise CodegenError(f"MrgSortSrcList: {name} must be a LocalTensor, got {type(src).__name__}")
        dtype = srcs[0].dtype if dtype is None else dtype
        if not isinstance(dtype, dt.DataType):
            raise CodegenError(f"MrgSortSrcList: dtype must be an asc dtype, got {dtype!r}")
        for name, src in zip(names, srcs):
            if src.dtype != dtype:
                raise CodegenError(
                    f"MrgSortSrcList: the lists must be LocalTensors of {dtype!r}; {name} holds {src.dtype.name}"
                )
        self.dtype = dtype
        self.srcs: list[LocalTensor] = srcs


class MrgSort4Info:
    """``AscendC::MrgSort4Info``: the four lists' lengths in structures (each 0..4095; a list the merge does not
    take may have any), whether the merge stops when a list runs out (``if_exhausted_suspension``, a Python
    bool), which lists it takes (``valid_bit`` 3, 7 or 15: the first 2, 3 or 4) and ``repeat_times``."""

    __asc_builtin__ = True

    def __init__(
        self,
        element_lengths: Any = None,
        if_exhausted_suspension: Any = False,
        valid_bit: Any = 15,
        repeat_times: Any = 1,
        handle: Any = None,  # pyasc's IR value to wrap: accepted and ignored
    ) -> None:
        element_lengths = [0, 0, 0, 0] if element_lengths is None else element_lengths
        if not isinstance(element_lengths, (list, tuple)) or not 1 <= len(element_lengths) <= 4:
            raise CodegenError(
                f"MrgSort4Info: element_lengths must be a list of the 4 lists' lengths, got {element_lengths!r}"
            )
        if not isinstance(if_exhausted_suspension, bool):
            raise CodegenError(
                "MrgSort4Info: if_exhausted_suspension must be True or False (a compile-time constant), got "
                f"{if_exhausted_suspension!r}"
            )
        self.element_lengths = [*element_lengths, *[0] * (4 - len(element_lengths))]
        self.if_exhausted_suspension = if_exhausted_suspension
        self.valid_bit = valid_bit
        self.repeat_times = repeat_times
