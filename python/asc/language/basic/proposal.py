"""Sorting on pipe V (pyasc's asc.language.basic.proposal): sort32 and mrg_sort on (score, index) 8-byte
structures, the advanced sort, get_mrg_sort_result, get_sort_len / get_sort_offset, and the region-proposal
instructions mrg_sort4, rp_sort16, proposal_concat and proposal_extract, which Atlas A2/A3 lack (they compile, as
Ascend C does there; the Model reports them when they run). Each is a row of the op table (src/ir/ops_sort.cpp),
which states the semantics and cites the documentation."""

from __future__ import annotations

import warnings
from typing import Any

from ...codegen.context import current_builder
from ...errors import CodegenError, PlatformWarning
from ..core import dtype as dt
from ..core.ir_value import Scalar, cast, const, to_int
from ..core.sort_params import MrgSort4Info, MrgSortSrcList
from .utils import builtin, require_local


def _int(value: Any, what: str) -> int:
    """An integer operand: a Python int as an int64 constant (the verifier checks its range), a run-time integer
    as it is (the Ascend C call converts it to the parameter's type)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if not -(2**63) <= value < 2**63:
            raise CodegenError(f"{what} {value} does not fit in 64 bits")
        return const(value, dt.int64).handle
    if isinstance(value, bool):
        raise CodegenError(f"{what} must be an integer, got {value!r}")
    return to_int(value, what).handle


def _flag(value: Any, fn: str, name: str) -> int:
    # a template argument in Ascend C: a compile-time True or False
    if not isinstance(value, bool):
        raise CodegenError(f"{fn}: {name} must be True or False (a compile-time constant), got {value!r}")
    return int(value)


@builtin
def sort32(dst: Any, src0: Any, src1: Any, repeat_time: Any) -> None:
    """``AscendC::Sort32``: each repeat sorts 32 scores of src0 (float16 or float32) with their uint32 indices
    (src1), largest score first (equal scores keep their order), into 32 (score, index) structures of 8 bytes in
    dst: the score in the low bytes (a float16's 2 bytes followed by 2 reserved), the index in the high 4.
    ``repeat_time`` 0..255 groups of 32; groups are not sorted against each other."""
    handles = [require_local(t, "sort32", role).handle for t, role in ((dst, "dst"), (src0, "src0"), (src1, "src1"))]
    current_builder().op("sort32", [*handles, _int(repeat_time, "sort32 repeat_time")])


@builtin
def sort(dst: Any, concat: Any, index: Any, tmp: Any, repeat_time: Any, is_full_sort: Any = False) -> None:
    """``AscendC::Sort`` (Atlas A2/A3 layout): as sort32 for each of ``repeat_time`` groups of 32 scores (concat)
    and uint32 indices (index); with ``is_full_sort=True`` all ``repeat_time * 32`` as one sort. ``tmp`` (the
    dtype of dst, as large as dst) is scratch space: its contents afterwards are unspecified (the Model leaves a
    copy of dst)."""
    full = _flag(is_full_sort, "sort", "is_full_sort")
    roles = ((dst, "dst"), (concat, "concat"), (index, "index"), (tmp, "tmp"))
    handles = [require_local(t, "sort", role).handle for t, role in roles]
    current_builder().op("sort", [*handles, _int(repeat_time, "sort repeat_time")], {"is_full_sort": full})


def _check_list_count(fn: str, sort_list: MrgSortSrcList, valid_bit: Any) -> None:
    needed = {3: 2, 7: 3, 15: 4}.get(valid_bit) if isinstance(valid_bit, int) else None
    if needed is not None and len(sort_list.srcs) < needed:
        raise CodegenError(
            f"{fn}: valid_bit {valid_bit} merges {needed} lists, the MrgSortSrcList has {len(sort_list.srcs)}"
        )


def _merge_operands(fn: str, dst: Any, sort_list: Any, lengths: Any, valid_bit: Any, repeat: Any) -> list[int]:
    d = require_local(dst, fn, "dst")
    if not isinstance(sort_list, MrgSortSrcList):
        raise CodegenError(f"{fn}: the lists must be an asc.MrgSortSrcList, got {type(sort_list).__name__}")
    _check_list_count(fn, sort_list, valid_bit)
    if sort_list.dtype != d.dtype:
        raise CodegenError(f"{fn}: the lists hold {sort_list.dtype.name}, dst is {d.dtype.name}")
    if not isinstance(lengths, (list, tuple)) or not 1 <= len(lengths) <= 4:
        raise CodegenError(f"{fn}: the element counts must be a list of 4 lengths, got {lengths!r}")
    srcs = sort_list.srcs
    # absent lists (the merge takes the first 2 or 3 by valid_bit) repeat src1: they are not read
    tensors = [t.handle for t in (*srcs, *[srcs[0]] * (4 - len(srcs)))]
    counts = [_int(n, f"{fn} element count") for n in (*lengths, *[0] * (4 - len(lengths)))]
    ints = [_int(valid_bit, f"{fn} valid_bit"), _int(repeat, f"{fn} repeat_times")]
    return [d.handle, *tensors, *counts, *ints]


@builtin
def mrg_sort(dst: Any, sort_list: Any, *args: Any, **kwargs: Any) -> None:
    """``AscendC::MrgSort``: merges the first 2, 3 or 4 sorted lists of (score, index) structures (``valid_bit``
    3, 7 or 15) into dst, largest score first; on equal scores the earlier list's structure goes first. Two
    forms, as pyasc's:

    * ``mrg_sort(dst, sort_list, params)`` with an asc.MrgSort4Info;
    * ``mrg_sort(dst, sort_list, element_count_list, sorted_num, valid_bit, repeat_time,
      is_exhausted_suspension=False)`` (the advanced API's MrgSort; ``sorted_num`` is Ascend C's output array,
      which a Python list cannot receive: read the counts with get_mrg_sort_result).

    With the suspension flag the merge stops when a list runs out; get_mrg_sort_result then tells how much of
    each list it took. ``repeat_time`` > 1 merges groups of 4 equal, contiguous lists one after another (needs
    valid_bit 15 and no suspension)."""
    if len(args) + len(kwargs) == 1:
        params = args[0] if args else kwargs.pop("params", None)
        if kwargs or not isinstance(params, MrgSort4Info):
            raise CodegenError("mrg_sort(dst, sort_list, params) takes an asc.MrgSort4Info")
        handles = _merge_operands(
            "mrg_sort", dst, sort_list, params.element_lengths, params.valid_bit, params.repeat_times
        )
        attrs = {"if_exhausted_suspension": int(params.if_exhausted_suspension), "lists": len(sort_list.srcs)}
        current_builder().op("mrg_sort", handles, attrs)
        return
    names = ["element_count_list", "sorted_num", "valid_bit", "repeat_time", "is_exhausted_suspension"]
    if len(args) > len(names):
        raise CodegenError(f"mrg_sort takes at most {len(names) + 2} arguments")
    values = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in names or key in values:
            raise CodegenError(f"mrg_sort: unexpected or repeated argument {key!r}")
        values[key] = value
    missing = [n for n in names[:4] if n not in values]
    if missing:
        raise CodegenError(f"mrg_sort: missing {', '.join(missing)} (or pass one asc.MrgSort4Info)")
    if not isinstance(values["sorted_num"], (list, tuple)) or len(values["sorted_num"]) != 4:
        raise CodegenError("mrg_sort: sorted_num must be a list of 4 (Ascend C's uint32_t sortedNum[4])")
    suspension = _flag(values.get("is_exhausted_suspension", False), "mrg_sort", "is_exhausted_suspension")
    handles = _merge_operands(
        "mrg_sort", dst, sort_list, values["element_count_list"], values["valid_bit"], values["repeat_time"]
    )
    attrs = {"is_exhausted_suspension": suspension, "lists": len(sort_list.srcs)}
    current_builder().op("mrg_sort.counts", handles, attrs)


@builtin
def get_mrg_sort_result() -> tuple[Scalar, Scalar, Scalar, Scalar]:
    """``AscendC::GetMrgSortResult``: how many structures of each of the four lists the last mrg_sort took
    (uint16 each; all of a list's unless ``if_exhausted_suspension`` stopped the merge early)."""
    b = current_builder()
    return tuple(Scalar(b.op("get_mrg_sort_result", [], {"list": k}), dt.uint16) for k in range(4))  # type: ignore[return-value]


def _sort_size(name: str, value: Any, dtype: Any) -> Scalar:
    if not isinstance(dtype, dt.DataType) or dtype not in (dt.float16, dt.float32):
        raise CodegenError(f"{name}: dtype must be asc.float16 or asc.float32 (the scores' type), got {dtype!r}")
    if isinstance(value, int) and not isinstance(value, bool):
        if not 0 <= value < 2**32:
            raise CodegenError(f"{name}: {value} is not a uint32")
        operand = const(value, dt.uint32)
    elif isinstance(value, Scalar) and value.dtype.is_int():
        operand = cast(value, dt.uint32)  # as the uint32_t parameter converts it
    else:
        raise CodegenError(f"{name}: the count must be an integer, got {value!r}")
    handle = current_builder().op(name, [operand.handle], {"dtype": dtype.code})
    return Scalar(handle, dt.uint32)


@builtin
def get_sort_len(elem_count: Any, dtype: Any = dt.float32) -> Scalar:
    """``AscendC::GetSortLen<T>``: the size of ``elem_count`` (score, index) structures in elements of
    ``dtype`` (T; pyasc emits float, the default): 4 per structure for float16, 2 for float32 (uint32)."""
    return _sort_size("get_sort_len", elem_count, dtype)


@builtin
def get_sort_offset(elem_offset: Any, dtype: Any = dt.float32) -> Scalar:
    """``AscendC::GetSortOffset<T>``: where structure ``elem_offset`` starts, in elements of ``dtype`` (T; pyasc
    emits float, the default): 4 per structure for float16, 2 for float32 (uint32)."""
    return _sort_size("get_sort_offset", elem_offset, dtype)


@builtin
def mrg_sort4(dst: Any, src: Any, params: Any) -> None:
    """``AscendC::MrgSort4``: the region-proposal merge of the Atlas training / inference series; Atlas A2/A3
    lack it (the kernel compiles, as Ascend C does there; running it on the Model is an error)."""
    if not isinstance(params, MrgSort4Info):
        raise CodegenError(f"mrg_sort4: params must be an asc.MrgSort4Info, got {type(params).__name__}")
    _lacking_platform("mrg_sort4", "AscendC::MrgSort4")
    handles = _merge_operands("mrg_sort4", dst, src, params.element_lengths, params.valid_bit, params.repeat_times)
    attrs = {"if_exhausted_suspension": int(params.if_exhausted_suspension), "lists": len(src.srcs)}
    current_builder().op("mrg_sort4", handles, attrs)


@builtin
def rp_sort16(dst: Any, src: Any, repeat_time: Any) -> None:
    """``AscendC::RpSort16``: sorts 16 region proposals per repeat by score (Atlas training / inference series;
    Atlas A2/A3 lack it: the kernel compiles, running it on the Model is an error)."""
    _lacking_platform("rp_sort16", "AscendC::RpSort16")
    d, s = require_local(dst, "rp_sort16", "dst"), require_local(src, "rp_sort16", "src")
    current_builder().op("rp_sort16", [d.handle, s.handle, _int(repeat_time, "rp_sort16 repeat_time")])


def _lacking_platform(name: str, api: str) -> None:
    # no platform row of the Model has them: Atlas A2/A3 lack them (CANN's dav-c220 declares these "an unsupported
    # API on current device"): warn as the Ascend C compiler does; the Model fails the launch when it reaches them.
    # A platform row with Platform::region_proposals (none yet) would run them: this warning would then ask it.
    file, line, col = current_builder().loc
    warnings.warn(
        f"{file}:{line}:{col}: {name} (Ascend C {api}) is a region-proposal instruction of the Atlas training "
        "series and Atlas inference AI Core; Atlas A2/A3 and the Model's Ascend 950 rows do not have it: the kernel "
        "compiles, and running it fails. Sort with sort32 or sort and merge with mrg_sort",
        PlatformWarning,
        stacklevel=2,
    )


def _proposal(name: str, dst: Any, src: Any, repeat_time: Any, mode_number: Any) -> None:
    _lacking_platform(name, "AscendC::ProposalConcat" if name == "proposal_concat" else "AscendC::ProposalExtract")
    d, s = require_local(dst, name, "dst"), require_local(src, name, "src")
    ints = [_int(repeat_time, f"{name} repeat_time"), _int(mode_number, f"{name} mode_number")]
    current_builder().op(name, [d.handle, s.handle, *ints])


@builtin
def proposal_concat(dst: Any, src: Any, repeat_time: Any, mode_number: Any) -> None:
    """``AscendC::ProposalConcat``: 16 elements per repeat into field ``mode_number`` (0 x1, 1 y1, 2 x2, 3 y2,
    4 score, 5 label) of 16 region proposals (Atlas training / inference series; Atlas A2/A3 lack it: the
    kernel compiles, running it on the Model is an error)."""
    _proposal("proposal_concat", dst, src, repeat_time, mode_number)


@builtin
def proposal_extract(dst: Any, src: Any, repeat_time: Any, mode_number: Any) -> None:
    """``AscendC::ProposalExtract``: field ``mode_number`` of 16 region proposals per repeat into 16 elements
    (the reverse of proposal_concat; Atlas training / inference series; Atlas A2/A3 lack it: the kernel
    compiles, running it on the Model is an error)."""
    _proposal("proposal_extract", dst, src, repeat_time, mode_number)
