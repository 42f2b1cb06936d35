"""The sorting instructions (sort32, sort, mrg_sort in both forms, get_mrg_sort_result, get_sort_len,
get_sort_offset) against numpy references of the documented rules (Atlas A2/A3), over generated cases, and their
errors; the region-proposal instructions (mrg_sort4, rp_sort16, proposal_concat, proposal_extract) compile as
Ascend C does on A2 and are reported when the Model runs them.

* A sorted element is an 8-byte (score, index) structure: the score in the low bytes (float32, or float16 and two
  reserved bytes), the uint32 index in the high 4.
* sort32: each group of 32 sorted by score, largest first, equal scores in input order.
* mrg_sort: the first 2, 3 or 4 lists (valid_bit 3, 7, 15) merged, largest score first, on equal scores the
  earlier list first; with the suspension flag the merge stops once a list runs out. get_mrg_sort_result: how
  many structures of each list the merge took.
"""

import warnings

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.runtime.jit import MockTensor

from kernels import ascendc_source

N = 256  # scores per sort launch (8 groups of 32)
LIST_BYTES = 8192  # the merge's source buffer: up to 1024 structures
SENTINEL = 0x5A


# ---- numpy references ---------------------------------------------------------------------------------------


def structures(scores, indices):
    """(score, index) 8-byte structures as bytes (reserved bytes of float16 scores: SENTINEL)."""
    out = np.full((len(scores), 8), SENTINEL, np.uint8)
    size = scores.dtype.itemsize
    out[:, :size] = scores.view(np.uint8).reshape(-1, size)
    out[:, 4:] = indices.astype(np.uint32).view(np.uint8).reshape(-1, 4)
    return out


def sort_reference(scores, indices, group):
    """Each `group` of (score, index) pairs sorted largest score first, ties in input order."""
    out = []
    for first in range(0, len(scores), group):
        s, i = scores[first : first + group], indices[first : first + group]
        order = np.argsort(-s.astype(np.float64), kind="stable")
        out.append(structures(s[order], i[order]))
    return np.concatenate(out) if out else np.zeros((0, 8), np.uint8)


def merge_reference(lists, dtype, suspension):
    """The documented merge of `lists` (each an (n, 8) array of structures); returns the merged structures and how
    many of each list were taken."""
    size = np.dtype(dtype).itemsize
    scores = [lst[:, :size].copy().view(dtype).reshape(-1).astype(np.float64) for lst in lists]
    taken = [0] * len(lists)
    out = []
    if suspension and any(len(lst) == 0 for lst in lists):
        return np.zeros((0, 8), np.uint8), taken
    while True:
        best = None
        for k, lst in enumerate(lists):
            if taken[k] < len(lst) and (best is None or scores[k][taken[k]] > scores[best][taken[best]]):
                best = k
        if best is None:
            break
        out.append(lists[best][taken[best]])
        taken[best] += 1
        if suspension and taken[best] == len(lists[best]):
            break
    return (np.array(out, np.uint8) if out else np.zeros((0, 8), np.uint8)), taken


def tied_scores(rng, n, dtype, distinct=12):
    """Scores drawn from a few values, so that many are equal."""
    return (rng.integers(-distinct // 2, distinct // 2, n) * 1.5).astype(dtype)


def random_scores(rng, n, dtype):
    return rng.uniform(-1000, 1000, n).astype(dtype)


# ---- sort32 and sort -----------------------------------------------------------------------------------------


@asc.jit
def sort_kernel(s: asc.GlobalAddress, i: asc.GlobalAddress, o: asc.GlobalAddress, t: asc.GlobalAddress,
                repeat: int, OP: asc.ConstExpr[str]):  # fmt: skip
    n_o = N * 8 // s.dtype.sizeof()
    s_gm, i_gm, o_gm, t_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    s_gm.set_global_buffer(s, N)
    i_gm.set_global_buffer(i, N)
    o_gm.set_global_buffer(o, n_o)
    t_gm.set_global_buffer(t, n_o)
    src = asc.LocalTensor(s.dtype, asc.TPosition.VECIN, 0, N)
    idx = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 1024, N)
    dst = asc.LocalTensor(s.dtype, asc.TPosition.VECOUT, 2048, n_o)
    tmp = asc.LocalTensor(s.dtype, asc.TPosition.VECCALC, 4096, n_o)
    asc.data_copy(src, s_gm, N)
    asc.data_copy(idx, i_gm, N)
    asc.data_copy(dst, o_gm, n_o)
    asc.data_copy(tmp, t_gm, n_o)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if OP == "sort32":
        asc.sort32(dst, src, idx, repeat)
    elif OP == "sort32_kw":
        asc.sort32(dst=dst, src0=src, src1=idx, repeat_time=repeat)
    elif OP == "sort":
        asc.sort(dst, src, idx, tmp, repeat)
    elif OP == "full_sort":
        asc.sort(dst, src, idx, tmp, repeat_time=repeat, is_full_sort=True)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(o_gm, dst, n_o)
    asc.data_copy(t_gm, tmp, n_o)


def run_sort(scores, indices, repeat, op):
    dtype = scores.dtype
    n_o = N * 8 // dtype.itemsize
    o = np.full(n_o * dtype.itemsize, SENTINEL, np.uint8).view(dtype)
    t = np.full(n_o * dtype.itemsize, SENTINEL, np.uint8).view(dtype)
    sort_kernel[1, rt.current_stream()](scores, indices, o, t, repeat, op)
    return o.view(np.uint8).reshape(-1, 8), t.view(np.uint8).reshape(-1, 8)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("repeat", [0, 1, 3, 8])
@pytest.mark.parametrize("op", ["sort32", "sort32_kw", "sort"])
@pytest.mark.parametrize("ties", [False, True])
def test_sort32_sorts_each_group_of_32(dtype, repeat, op, ties, rng):
    scores = tied_scores(rng, N, dtype) if ties else random_scores(rng, N, dtype)
    indices = rng.permutation(N).astype(np.uint32) + 1000
    got, _ = run_sort(scores, indices, repeat, op)
    n = 32 * repeat
    np.testing.assert_array_equal(got[:n], sort_reference(scores[:n], indices[:n], 32))
    assert (got[n:] == SENTINEL).all(), "structures past the repeats were written"


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("repeat", [1, 2, 5, 8])
def test_full_sort_sorts_every_repeat_as_one(dtype, repeat, rng):
    scores = tied_scores(rng, N, dtype, distinct=40)
    indices = np.arange(N, dtype=np.uint32)
    got, tmp = run_sort(scores, indices, repeat, "full_sort")
    n = 32 * repeat
    want = sort_reference(scores[:n], indices[:n], n)
    np.testing.assert_array_equal(got[:n], want)
    # equal scores keep the input order: their indices rise
    size = np.dtype(dtype).itemsize
    s = got[:n, :size].copy().view(dtype).reshape(-1)
    idx = got[:n, 4:].copy().view(np.uint32).reshape(-1)
    assert all(idx[k] < idx[k + 1] for k in range(n - 1) if s[k] == s[k + 1])
    assert (got[n:] == SENTINEL).all()
    np.testing.assert_array_equal(tmp[:n], want)  # the Model's choice for the scratch space: a copy of dst


def test_sort32_layout_of_a_half_structure():
    scores = np.zeros(N, np.float16)
    scores[:4] = [1.0, 3.0, 2.0, 3.0]
    indices = np.arange(N, dtype=np.uint32) * 7
    got, _ = run_sort(scores, indices, 1, "sort32")
    # 3.0 (index 7), 3.0 (index 21), 2.0 (index 14), 1.0 (index 0): score bytes 0-1, reserved 2-3, index 4-7
    assert got[0, :2].view(np.float16)[0] == 3.0 and got[0, 4:].view(np.uint32)[0] == 7
    assert got[1, 4:].view(np.uint32)[0] == 21 and got[2, 4:].view(np.uint32)[0] == 14
    assert (got[:32, 2:4] == SENTINEL).all(), "the reserved bytes of a float16 structure are not written"


# ---- mrg_sort --------------------------------------------------------------------------------------------------


@asc.jit
def merge_kernel(src: asc.GlobalAddress, out: asc.GlobalAddress, counts: asc.GlobalAddress,
                 o1: int, o2: int, o3: int, o4: int, l1: int, l2: int, l3: int, l4: int, valid: int, repeat: int,
                 FORM: asc.ConstExpr[str], LISTS: asc.ConstExpr[int], SUSPEND: asc.ConstExpr[bool]):  # fmt: skip
    n = LIST_BYTES // src.dtype.sizeof()
    src_gm, out_gm, counts_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    src_gm.set_global_buffer(src, n)
    out_gm.set_global_buffer(out, n)
    counts_gm.set_global_buffer(counts, 4)
    lists = asc.LocalTensor(src.dtype, asc.TPosition.VECIN, 0, n)
    dst = asc.LocalTensor(src.dtype, asc.TPosition.VECOUT, LIST_BYTES, n)
    asc.data_copy(lists, src_gm, n)
    asc.data_copy(dst, out_gm, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if LISTS == 2:
        sort_list = asc.MrgSortSrcList(src.dtype, lists[o1], lists[o2])
    elif LISTS == 3:
        sort_list = asc.MrgSortSrcList(lists[o1], lists[o2], lists[o3])
    else:
        sort_list = asc.MrgSortSrcList(src.dtype, lists[o1], lists[o2], lists[o3], lists[o4])
    if FORM == "info":
        asc.mrg_sort(dst, sort_list, asc.MrgSort4Info([l1, l2, l3, l4], SUSPEND, valid, repeat))
    elif FORM == "info_kw":
        info = asc.MrgSort4Info([l1, l2, l3, l4], if_exhausted_suspension=SUSPEND, valid_bit=valid, repeat_times=repeat)
        asc.mrg_sort(dst, sort_list, params=info)
    else:
        asc.mrg_sort(dst, sort_list, [l1, l2, l3, l4], [0, 0, 0, 0], valid_bit=valid, repeat_time=repeat,
                     is_exhausted_suspension=SUSPEND)  # fmt: skip
    m1, m2, m3, m4 = asc.get_mrg_sort_result()
    counts_gm.set_value(0, m1)
    counts_gm.set_value(1, m2)
    counts_gm.set_value(2, m3)
    counts_gm.set_value(3, m4)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(out_gm, dst, n)


def sorted_list(rng, length, dtype, list_no, ties):
    scores = tied_scores(rng, length, dtype, distinct=6) if ties else random_scores(rng, length, dtype)
    scores = np.sort(scores)[::-1].copy()
    return structures(scores, np.arange(length, dtype=np.uint32) + 1000 * list_no)


def run_merge(dtype, lists, offsets, lengths, valid, repeat=1, form="info", suspend=False):
    """lists: the structures placed at `offsets` (in structures) of the source buffer; the merge's four lists
    start at the first four offsets."""
    size = np.dtype(dtype).itemsize
    src = np.zeros((LIST_BYTES // 8, 8), np.uint8)
    for lst, off in zip(lists, offsets):
        src[off : off + len(lst)] = lst
    out = np.full(LIST_BYTES, SENTINEL, np.uint8)
    counts = np.full(4, 0xFFFF, np.uint16)
    per = 8 // size  # elements of dtype per structure
    offs = [o * per for o in offsets[:4]] + [0] * (4 - min(4, len(offsets)))
    lens = list(lengths) + [0] * (4 - len(lengths))
    merge_kernel[1, rt.current_stream()](src.reshape(-1).view(dtype), out.view(dtype), counts, *offs, *lens, valid,
                                         repeat, form, min(4, len(lists)), suspend)  # fmt: skip
    return out.reshape(-1, 8), [int(c) for c in counts]


MERGE_CASES = [  # list lengths (the lists merged: 2, 3 or 4), suspension
    ([32, 32], False), ([5, 40], False), ([0, 17], False), ([32, 32, 32], False), ([3, 0, 9], False),
    ([32, 32, 32, 32], False), ([1, 64, 7, 20], False), ([0, 0, 0, 0], False), ([100, 3, 50, 8], False),
    ([8, 30], True), ([30, 8, 16], True), ([16, 4, 40, 9], True), ([12, 12, 12, 12], True), ([0, 5, 6], True),
]  # fmt: skip


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("lengths,suspend", MERGE_CASES)
@pytest.mark.parametrize("form", ["info", "info_kw", "counts"])
@pytest.mark.parametrize("ties", [False, True])
def test_mrg_sort_merges_the_valid_lists(dtype, lengths, suspend, form, ties, rng):
    lists = [sorted_list(rng, n, dtype, k, ties) for k, n in enumerate(lengths)]
    offsets, at = [], 0
    for n in lengths:  # lists apart, each 8-byte aligned (a structure), some gap between them
        offsets.append(at)
        at += n + int(rng.integers(0, 3))
    valid = {2: 3, 3: 7, 4: 15}[len(lengths)]
    got, counts = run_merge(dtype, lists, offsets, lengths, valid, form=form, suspend=suspend)
    want, taken = merge_reference(lists, dtype, suspend)
    np.testing.assert_array_equal(got[: len(want)], want)
    assert (got[len(want) :] == SENTINEL).all(), "the merge wrote past the structures it took"
    assert counts == taken + [0] * (4 - len(lengths))


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_ties_across_lists_take_the_earlier_list_first(dtype, rng):
    lists = [structures(np.array([5, 5, 1], dtype), np.array([10 * k + j for j in range(3)], np.uint32))
             for k in range(4)]  # fmt: skip
    got, _ = run_merge(dtype, lists, [0, 3, 6, 9], [3, 3, 3, 3], 15)
    idx = got[:12, 4:].copy().view(np.uint32).reshape(-1)
    np.testing.assert_array_equal(idx, [0, 1, 10, 11, 20, 21, 30, 31, 2, 12, 22, 32])


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("repeat", [2, 3])
def test_repeats_merge_contiguous_groups_of_four_lists(dtype, repeat, rng):
    length = 16
    groups = [[sorted_list(rng, length, dtype, 4 * r + k, False) for k in range(4)] for r in range(repeat)]
    flat = [lst for g in groups for lst in g]
    offsets = [j * length for j in range(len(flat))]
    got, counts = run_merge(dtype, flat, offsets, [length] * 4, 15, repeat=repeat)
    for r, g in enumerate(groups):
        want, _ = merge_reference(g, dtype, False)
        np.testing.assert_array_equal(got[r * 4 * length : (r + 1) * 4 * length], want)
    assert (got[repeat * 4 * length :] == SENTINEL).all()
    assert counts == [length] * 4


def test_mrg_sort_with_fewer_lists_than_the_src_list_has(rng):
    # valid_bit 3 with four lists given: only the first two are merged
    lists = [sorted_list(rng, 10, np.float32, k, False) for k in range(4)]
    got, counts = run_merge(np.float32, lists, [0, 10, 20, 30], [10, 10, 10, 10], 3)
    want, _ = merge_reference(lists[:2], np.float32, False)
    np.testing.assert_array_equal(got[:20], want)
    assert (got[20:] == SENTINEL).all() and counts == [10, 10, 0, 0]


# ---- get_sort_len / get_sort_offset ---------------------------------------------------------------------------


@asc.jit
def size_kernel(x: asc.GlobalAddress, out: asc.GlobalAddress, n: int):
    x_gm, out_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    out_gm.set_global_buffer(out)
    for i in range(n):
        v = x_gm.get_value(i)
        out_gm.set_value(6 * i, asc.get_sort_len(v))
        out_gm.set_value(6 * i + 1, asc.get_sort_len(v, asc.float16))
        out_gm.set_value(6 * i + 2, asc.get_sort_len(elem_count=v, dtype=asc.float32))
        out_gm.set_value(6 * i + 3, asc.get_sort_offset(v))
        out_gm.set_value(6 * i + 4, asc.get_sort_offset(v, dtype=asc.half))
        out_gm.set_value(6 * i + 5, asc.get_sort_offset(elem_offset=v))
    out_gm.set_value(6 * n, asc.get_sort_len(100))
    out_gm.set_value(6 * n + 1, asc.get_sort_offset(10, asc.float16))


def test_sort_sizes_count_elements_of_the_score_type(rng):
    x = np.concatenate([[0, 1, 2, 32, 100, 4095, 2**30, 2**31 + 5, 2**32 - 1], rng.integers(0, 2**32, 16)])
    x = x.astype(np.uint32)
    out = np.zeros(6 * x.size + 2, np.uint32)
    size_kernel[1, rt.current_stream()](x, out, x.size)
    v = x.astype(np.uint64)
    want = np.stack([v * 2, v * 4, v * 2, v * 2, v * 4, v * 2], axis=1).reshape(-1) % 2**32
    np.testing.assert_array_equal(out[:-2], want.astype(np.uint32))
    assert list(out[-2:]) == [200, 40]


# ---- the region-proposal instructions ------------------------------------------------------------------------


@asc.jit
def proposal_kernel(out: asc.GlobalAddress, OP: asc.ConstExpr[str]):
    out_gm = asc.GlobalTensor()
    out_gm.set_global_buffer(out, 2048)
    dst = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 0, 2048)
    src = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 4096, 2048)
    asc.data_copy(src, out_gm, 2048)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if OP == "rp_sort16":
        asc.rp_sort16(dst, src, repeat_time=2)
    elif OP == "proposal_concat":
        asc.proposal_concat(dst, src, repeat_time=2, mode_number=4)
    elif OP == "proposal_extract":
        asc.proposal_extract(dst, src, 2, 4)
    else:
        lists = asc.MrgSortSrcList(asc.float16, src, src[128], src[256], src[384])
        asc.mrg_sort4(dst, lists, asc.MrgSort4Info([16, 16, 16, 16], False, 15, 1))
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(out_gm, dst, 2048)


PROPOSAL_OPS = {"rp_sort16": "AscendC::RpSort16(", "proposal_concat": "AscendC::ProposalConcat(",
                "proposal_extract": "AscendC::ProposalExtract(", "mrg_sort4": "AscendC::MrgSort4("}  # fmt: skip


@pytest.mark.parametrize("op", list(PROPOSAL_OPS))
def test_region_proposal_instructions_compile_and_are_reported_on_a2(op):
    with pytest.warns(asc.errors.PlatformWarning, match=rf"test_sort.py:\d+:\d+: {op} .*950 rows do not have it"):
        assert PROPOSAL_OPS[op] in ascendc_source(proposal_kernel.compile(MockTensor(asc.float16), op))
    with pytest.raises(asc.errors.KernelError, match=rf"{op} .*region-proposal.*Ascend910B1 \(Atlas A2/A3\) does not"):
        with warnings.catch_warnings():  # the launch may compile it again
            warnings.simplefilter("ignore", asc.errors.PlatformWarning)
            proposal_kernel[1, rt.current_stream()](np.zeros(2048, np.float16), op)


# ---- errors --------------------------------------------------------------------------------------------------


@asc.jit
def bad_kernel(x: asc.GlobalAddress, r: int, CASE: asc.ConstExpr[str]):
    f32 = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
    f16 = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 1024, 256)
    i32 = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 2048, 256)
    u32 = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 3072, 256)
    dst = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4096, 2048)
    lists = asc.MrgSortSrcList(f32, f32[64], f32[128], f32[192])
    if CASE == "int_scores":
        asc.sort32(i32, i32, u32, 1)
    elif CASE == "float_indices":
        asc.sort32(dst, f32, f32, 1)
    elif CASE == "mixed_dtypes":
        asc.sort32(dst, f16, u32, 1)
    elif CASE == "repeat_256":
        asc.sort32(dst, f32, u32, 256)
    elif CASE == "full_sort_not_bool":
        asc.sort(dst, f32, u32, dst, 1, is_full_sort=1)
    elif CASE == "valid_bit_5":
        asc.mrg_sort(dst, lists, asc.MrgSort4Info([4, 4, 4, 4], False, 5, 1))
    elif CASE == "length_4096":
        asc.mrg_sort(dst, lists, asc.MrgSort4Info([4096, 4, 4, 4], False, 15, 1))
    elif CASE == "repeat_with_suspension":
        asc.mrg_sort(dst, lists, asc.MrgSort4Info([4, 4, 4, 4], True, 15, 2))
    elif CASE == "repeat_with_two_lists":
        asc.mrg_sort(dst, lists, [4, 4, 4, 4], [0, 0, 0, 0], 3, 2)
    elif CASE == "too_few_lists":
        asc.mrg_sort(dst, asc.MrgSortSrcList(f32, f32[64]), asc.MrgSort4Info([4, 4, 4, 4], False, 7, 1))
    elif CASE == "suspension_not_bool":
        asc.mrg_sort(dst, lists, [4, 4, 4, 4], [0, 0, 0, 0], 15, 1, is_exhausted_suspension=r)
    elif CASE == "not_a_src_list":
        asc.mrg_sort(dst, [f32, f32], asc.MrgSort4Info([4, 4, 4, 4]))
    elif CASE == "list_dtype":
        asc.mrg_sort(dst, asc.MrgSortSrcList(f16, f16[64]), asc.MrgSort4Info([4, 4, 0, 0], False, 3, 1))
    elif CASE == "mixed_list":
        asc.MrgSortSrcList(f32, f16)
    elif CASE == "sort_len_dtype":
        asc.get_sort_len(4, asc.int32)
    elif CASE == "sort_len_negative":
        asc.get_sort_offset(-1)
    elif CASE == "mode_number_6":
        asc.proposal_concat(f16, f16, 1, 6)
    elif CASE == "proposal_dtype":
        asc.rp_sort16(i32, i32, 1)


ERRORS = {
    "int_scores": r"sort32: dtype int32 is not supported \(supported: float16, float32\)",
    "float_indices": "src1 must be a LocalTensor of uint32 indices",
    "mixed_dtypes": "operand 0 is float32 but operand 1 is float16",
    "repeat_256": r"repeat_time must be in \[0, 255\], got 256",
    "full_sort_not_bool": "is_full_sort must be True or False",
    "valid_bit_5": "valid_bit must be 3 .2 lists., 7 .3 lists. or 15 .4 lists., got 5",
    "length_4096": r"element length 0 must be in \[0, 4095\], got 4096",
    "repeat_with_suspension": "repeat_times 2 needs 4 valid lists",
    "repeat_with_two_lists": "repeat_times 2 needs 4 valid lists",
    "too_few_lists": "valid_bit 7 merges 3 lists, the MrgSortSrcList has 2",
    "suspension_not_bool": "is_exhausted_suspension must be True or False",
    "not_a_src_list": "must be an asc.MrgSortSrcList",
    "list_dtype": "the lists hold float16, dst is float32",
    "mixed_list": "LocalTensors of asc.float32",
    "sort_len_dtype": "dtype must be asc.float16 or asc.float32",
    "sort_len_negative": "-1 is not a uint32",
    "mode_number_6": r"mode_number must be in \[0, 5\], got 6",
    "proposal_dtype": "rp_sort16: dtype int32 is not supported",
}


@pytest.mark.parametrize("case", list(ERRORS))
@pytest.mark.filterwarnings("ignore::asc.errors.PlatformWarning")
def test_bad_input_is_a_codegen_error(case):
    with pytest.raises(asc.CodegenError, match=ERRORS[case]):
        bad_kernel.compile(MockTensor(asc.float32), 1, case)


def test_run_time_arguments_are_checked_by_the_model(rng):
    lists = [sorted_list(rng, 8, np.float32, k, False) for k in range(4)]
    with pytest.raises(asc.errors.KernelError, match="valid_bit must be 3, 7 or 15, got 6"):
        run_merge(np.float32, lists, [0, 8, 16, 24], [8] * 4, 6)
    with pytest.raises(asc.errors.KernelError, match=r"element length 1 is 5000, not in \[0, 4095\]"):
        run_merge(np.float32, lists, [0, 8, 16, 24], [8, 5000, 8, 8], 15)
    with pytest.raises(asc.errors.KernelError, match="valid_bit 15 merges 4 lists, the MrgSortSrcList has 2"):
        run_merge(np.float32, lists[:2], [0, 8], [8, 8], 15)
    with pytest.raises(asc.errors.KernelError, match="four lists of one length stored one after another"):
        run_merge(np.float32, lists, [0, 9, 18, 27], [8] * 4, 15, repeat=2)
    with pytest.raises(asc.errors.KernelError, match="repeat_time 300 must be 0..255"):
        run_sort(np.zeros(N, np.float32), np.zeros(N, np.uint32), 300, "sort32")


@asc.jit
def overlap_kernel(x: asc.GlobalAddress, OFFSET: asc.ConstExpr[int]):
    buf = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 1024)
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, 1024)
    asc.data_copy(buf, x_gm, 1024)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.mrg_sort(buf[OFFSET], asc.MrgSortSrcList(buf, buf[16]), asc.MrgSort4Info([8, 8, 0, 0], False, 3, 1))


def test_overlapping_and_misaligned_lists_are_errors():
    with pytest.raises(asc.errors.KernelError, match=r"src2 \(bytes \[64, 128\)\) overlaps dst"):
        overlap_kernel[1, rt.current_stream()](np.zeros(1024, np.float32), 24)


@asc.jit
def misaligned_kernel(x: asc.GlobalAddress):
    buf = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 1024)
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, 1024)
    asc.data_copy(buf, x_gm, 1024)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.mrg_sort(buf[512], asc.MrgSortSrcList(buf, buf[17]), asc.MrgSort4Info([8, 8, 0, 0], False, 3, 1))


def test_a_list_must_start_on_a_structure():
    with pytest.raises(asc.errors.MisalignedError, match="src2 starts at byte 68 of the Unified Buffer"):
        misaligned_kernel[1, rt.current_stream()](np.zeros(1024, np.float32))


# ---- the Ascend C --------------------------------------------------------------------------------------------


def test_emitted_ascendc_spells_the_instructions():
    def sort_args(dtype):
        return MockTensor(dtype), MockTensor(asc.uint32), MockTensor(dtype), MockTensor(dtype), 1

    assert "AscendC::Sort<float, true>(" in ascendc_source(sort_kernel.compile(*sort_args(asc.float32), "full_sort"))
    assert "AscendC::Sort<half, false>(" in ascendc_source(sort_kernel.compile(*sort_args(asc.float16), "sort"))
    assert "AscendC::Sort32(" in ascendc_source(sort_kernel.compile(*sort_args(asc.float16), "sort32"))
    args = [MockTensor(asc.float32), MockTensor(asc.float32), MockTensor(asc.uint16), *[0] * 10]
    source = ascendc_source(merge_kernel.compile(*args, "info", 4, True))
    assert "AscendC::MrgSort(" in source and "AscendC::MrgSortSrcList<float>(" in source
    assert "AscendC::MrgSort4Info(asc_lengths, true," in source and "AscendC::GetMrgSortResult(" in source
    source = ascendc_source(merge_kernel.compile(*args, "counts", 2, False))
    assert "AscendC::MrgSort<float, false>(" in source and "asc_sorted_num" in source
    source = ascendc_source(size_kernel.compile(MockTensor(asc.uint32), MockTensor(asc.uint32), 1))
    assert "AscendC::GetSortLen<float>(" in source and "AscendC::GetSortLen<half>(" in source
    assert "AscendC::GetSortOffset<half>(" in source


def test_mrg_sort4_info_takes_pyasc_call_shapes():
    info = asc.MrgSort4Info([16, 16], if_exhausted_suspension=True, valid_bit=3, repeat_times=1, handle=None)
    assert (info.element_lengths, info.if_exhausted_suspension, info.valid_bit, info.repeat_times) == (
        [16, 16, 0, 0], True, 3, 1)  # fmt: skip
    assert asc.MrgSort4Info().element_lengths == [0, 0, 0, 0] and asc.MrgSort4Info().valid_bit == 15
    with pytest.raises(asc.CodegenError, match="element_lengths must be a list of the 4 lists' lengths"):
        asc.MrgSort4Info([1, 2, 3, 4, 5])
    with pytest.raises(asc.CodegenError, match="if_exhausted_suspension must be True or False"):
        asc.MrgSort4Info([1, 2, 3, 4], 1)


@asc.jit(insert_sync=True)
def flagless_top_k(x: asc.GlobalAddress, i: asc.GlobalAddress, out: asc.GlobalAddress, counts: asc.GlobalAddress):
    """Sort 128 scores in 4 groups and merge them, with no flags: the sync inserter orders the pipes."""
    x_gm, i_gm, out_gm, counts_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x, 128)
    i_gm.set_global_buffer(i, 128)
    out_gm.set_global_buffer(out, 256)
    counts_gm.set_global_buffer(counts, 4)
    scores = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 128)
    index = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 512, 128)
    groups = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 1024, 256)
    merged = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 2048, 256)
    asc.data_copy(scores, x_gm, 128)
    asc.data_copy(index, i_gm, 128)
    asc.sort32(groups, scores, index, 4)
    step = asc.get_sort_offset(32)
    lists = asc.MrgSortSrcList(groups, groups[step], groups[2 * step], groups[3 * step])
    asc.mrg_sort(merged, lists, [32, 32, 32, 32], [0, 0, 0, 0], 15, 1)
    m = asc.get_mrg_sort_result()
    for k in asc.static_range(4):
        counts_gm.set_value(k, m[k])
    asc.data_copy(out_gm, merged, 256)


def test_a_flagless_sort_and_merge_is_synchronised(rng):
    x = random_scores(rng, 128, np.float32)
    out = np.full(256, np.nan, np.float32)
    counts = np.zeros(4, np.uint16)
    flagless_top_k[1, rt.current_stream()](x, np.arange(128, dtype=np.uint32), out, counts)
    groups = [sort_reference(x[32 * k : 32 * (k + 1)], np.arange(32 * k, 32 * (k + 1), dtype=np.uint32), 32)
              for k in range(4)]  # fmt: skip
    want, taken = merge_reference(groups, np.float32, False)
    np.testing.assert_array_equal(out.view(np.uint8).reshape(-1, 8), want)
    np.testing.assert_array_equal(out[0::2], np.sort(x)[::-1])
    assert list(counts) == taken == [32] * 4
