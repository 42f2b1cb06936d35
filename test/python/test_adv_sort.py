"""asc.adv.concat and asc.adv.extract (Ascend C Concat / Extract, Atlas A2) around the basic sort: concat makes
its dst the scores tensor (the Sort that follows reads the scores, not dst's old contents), extract unpacks the
(score, index) structures into values and uint32 indices; checked against numpy's stable descending sort of each
group of 32, for float16 and float32 and several repeat counts; the errors; the emitted Ascend C."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.errors import CodegenError

from kernels import ascendc_source

GROUPS = 8  # groups of 32 scores sorted: the extract reads at most this many structures' worth
S = 32 * GROUPS


@asc.jit
def buffer(pipe: asc.ConstExpr, dtype: asc.ConstExpr, size: asc.ConstExpr[int]):
    b = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(b, size)
    return b.get(dtype)


@asc.jit
def sort_kernel(x: asc.GlobalAddress, idx: asc.GlobalAddress, values: asc.GlobalAddress,
                indices: asc.GlobalAddress, repeat: int):  # fmt: skip
    """Sort GROUPS groups of 32 (x, idx) after a concat into a tensor full of -9, then extract `repeat` repeats;
    the outputs keep the values they came with where extract writes nothing."""
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    i_gm = asc.GlobalTensor()
    i_gm.set_global_buffer(idx)
    v_gm = asc.GlobalTensor()
    v_gm.set_global_buffer(values)
    o_gm = asc.GlobalTensor()
    o_gm.set_global_buffer(indices)
    pipe = asc.TPipe()
    scores = buffer(pipe, x.dtype, S * 4)
    index = buffer(pipe, asc.uint32, S * 4)
    concat = buffer(pipe, x.dtype, S * 4)
    sorted_ = buffer(pipe, x.dtype, S * 8)
    tmp = buffer(pipe, x.dtype, S * 8)
    out_v = buffer(pipe, x.dtype, S * 4)
    out_i = buffer(pipe, asc.uint32, S * 4)
    asc.data_copy(scores, x_gm, S)
    asc.data_copy(index, i_gm, S)
    asc.data_copy(out_v, v_gm, S)
    asc.data_copy(out_i, o_gm, S)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.duplicate(concat, -9.0, S)
    asc.adv.concat(concat, scores, tmp, GROUPS * 2)
    asc.sort(sorted_, concat, index, tmp, GROUPS)
    asc.adv.extract(dst_value=out_v, dst_index=out_i, src=sorted_, repeat_time=repeat)  # pyasc's keywords
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(v_gm, out_v, S)
    asc.data_copy(o_gm, out_i, S)


def reference(x, idx):
    """Each group of 32 sorted by score, largest first, equal scores in input order."""
    v, i = x.reshape(-1, 32), idx.reshape(-1, 32)
    order = np.argsort(-v.astype(np.float64), axis=1, kind="stable")
    return np.take_along_axis(v, order, 1).ravel(), np.take_along_axis(i, order, 1).ravel()


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_extract_unpacks_the_sorted_structures(dtype):
    rng = np.random.default_rng(7)
    # few distinct scores: equal scores show that the order within a group is kept
    x = rng.integers(-20, 20, S).astype(dtype) / 4
    idx = rng.permutation(1000).astype(np.uint32)[:S] + 5
    want_v, want_i = reference(x, idx)
    for repeat in [0, 1, 3]:
        values, indices = np.full(S, 7, dtype), np.full(S, 0xDEAD, np.uint32)
        sort_kernel[1, rt.current_stream()](x, idx, values, indices, repeat)
        n_v = 32 * repeat
        # the library's Atlas A2 code: float16 indices over twice the repeats (64 per repeat), float32 32
        n_i = 64 * repeat if dtype == np.float16 else 32 * repeat
        np.testing.assert_array_equal(values[:n_v], want_v[:n_v], err_msg=f"repeat {repeat}")
        np.testing.assert_array_equal(indices[:n_i], want_i[:n_i], err_msg=f"repeat {repeat}")
        assert np.all(values[n_v:] == 7) and np.all(indices[n_i:] == 0xDEAD)


@asc.jit
def bad_sort(case: asc.ConstExpr[str]):
    h = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 256)
    f = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 1024, 256)
    u = asc.LocalTensor(asc.uint32, asc.TPosition.VECOUT, 2048, 256)
    i = asc.LocalTensor(asc.int32, asc.TPosition.VECOUT, 4096, 256)
    if case == "concat dtype":
        asc.adv.concat(h, f, h, 4)
    elif case == "concat int":
        asc.adv.concat(i, i, i, 4)
    elif case == "concat repeat":
        asc.adv.concat(h, h, h, 256)
    elif case == "extract index":
        asc.adv.extract(h, i, h, 4)
    elif case == "extract dtype":
        asc.adv.extract(f, u, h, 4)
    else:
        asc.adv.extract(h, u, h, -1)


@pytest.mark.parametrize(
    "case, message",
    [
        ("concat dtype", "dst, src and tmp must hold one dtype"),
        ("concat int", "dst must hold float16 or float32 scores"),
        ("concat repeat", r"repeat_time must be in \[0, 255\], got 256"),
        ("extract index", "dst_index must be a uint32 LocalTensor"),
        ("extract dtype", "dst_value and src must hold one dtype"),
        ("extract repeat", r"repeat_time must be in \[0, 255\], got -1"),
    ],
)
def test_bad_arguments_are_compile_errors(case, message):
    with pytest.raises(CodegenError, match=message):
        bad_sort.compile(case)


def test_the_board_gets_the_library_calls_and_the_cpu_proof_the_expansion():
    z = np.zeros(S, np.float16)
    compiled = sort_kernel.compile(z, np.zeros(S, np.uint32), z, np.zeros(S, np.uint32), 2)
    board = ascendc_source(compiled)
    assert "AscendC::Concat(" in board and "AscendC::Extract(" in board
    assert "AscendC::GatherMask(" not in board  # the expansion is left out
    cpu = ascendc_source(compiled, expanded=True)
    assert cpu.count("AscendC::GatherMask(") == 2 and "// AscendC::Extract(" in cpu
