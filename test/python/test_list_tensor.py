"""List tensors: a kernel walks a ListTensorDesc the host laid out with asc.lib.host.list_tensor_desc (shapes,
indices, data pointers and the tensors' data checked against what the host built, writes through the pointers
landing in the host's arrays), a list of pointers only, the Model's errors for bad input (an index past the list,
a shape offset past the dims, a length or count that disagrees, a pointer outside the launch), the compile errors,
and the Ascend C they are emitted as."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.lib.host import list_tensor_desc
from asc.runtime.jit import MockTensor

from kernels import ascendc_source

MAX_TENSORS, SLOTS = 4, 12  # per tensor in `out`: dim, index, shape[0..7], element count, first element


def decode(words: np.ndarray) -> tuple[list[tuple[int, ...]], list[int]]:
    """The reference decoder of the documented layout (word 0 the pointers' byte offset, records of a header
    dim | index << 32 and dim shape words, then the pointers), written apart from the builder."""
    w = [int(x) for x in words]
    ptr_word = w[0] // 8
    shapes, at = [], 1
    while at < ptr_word:
        dim, index = w[at] & 0xFFFFFFFF, w[at] >> 32
        assert index == len(shapes)
        shapes.append(tuple(w[at + 1 : at + 1 + dim]))
        at += 1 + dim
    return shapes, w[ptr_word : ptr_word + len(shapes)]


@asc.jit
def walk_kernel(desc: asc.GlobalAddress, out: asc.GlobalAddress, t0: asc.GlobalAddress, t1: asc.GlobalAddress,
                t2: asc.GlobalAddress, nbytes: int, count: int):  # fmt: skip
    out_gm = asc.GlobalTensor()
    out_gm.set_global_buffer(out)
    lst = asc.ListTensorDesc(data=desc, length=nbytes, shape_size=count)
    n = lst.get_size()
    out_gm.set_value(0, n)
    for i in range(n):
        d = asc.TensorDesc(dtype=asc.float32)
        lst.get_desc(d, i)
        base = 1 + i * 12
        dim = d.get_dim()
        out_gm.set_value(base, dim)
        out_gm.set_value(base + 1, d.get_index())
        for k in range(dim):
            out_gm.set_value(base + 2 + k, d.get_shape(k))
        obj = d.get_data_obj()
        out_gm.set_value(base + 10, obj.get_size())
        # the data behind both pointers: read through get_data_ptr, doubled in place through get_data_obj
        data = asc.GlobalTensor()
        data.set_global_buffer(lst.get_data_ptr(i, asc.float32))
        out_gm.set_value(base + 11, asc.number(data.get_value(0), asc.uint64))
        for j in range(obj.get_size()):
            obj.set_value(j, obj.get_value(j) * 2)


def shapes_of(rng, dim):
    return [tuple(int(s) for s in rng.integers(1, 5, dim)) for _ in range(3)]


@pytest.mark.parametrize("dim", [1, 2, 3])
def test_a_kernel_walks_the_host_built_list(dim, rng):
    tensors = [rng.integers(1, 100, shape).astype(np.float32) for shape in shapes_of(rng, dim)]
    before = [t.copy() for t in tensors]
    desc = list_tensor_desc(tensors)
    shapes, pointers = decode(desc)
    assert shapes == [t.shape for t in tensors]
    assert pointers == [t.ctypes.data for t in tensors]
    out = np.zeros(1 + MAX_TENSORS * SLOTS, np.uint64)
    walk_kernel[1, rt.current_stream()](desc, out, *tensors, desc.nbytes, len(tensors))
    assert out[0] == 3
    for i, t in enumerate(before):
        row = out[1 + i * SLOTS : 1 + (i + 1) * SLOTS]
        assert row[0] == t.ndim and row[1] == i
        assert tuple(int(s) for s in row[2 : 2 + t.ndim]) == t.shape and not row[2 + t.ndim : 10].any()
        assert row[10] == t.size
        assert row[11] == int(t.flat[0])
        np.testing.assert_array_equal(tensors[i], 2 * t)  # written through the pointer: the host's own array


def test_a_list_of_torch_tensors():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    tensors = [torch.randint(1, 50, shape).to(torch.float32) for shape in [(3, 2), (1, 5), (4, 4)]]
    before = [t.clone() for t in tensors]
    desc = list_tensor_desc(tensors)
    shapes, pointers = decode(desc)
    assert shapes == [tuple(t.shape) for t in tensors] and pointers == [t.data_ptr() for t in tensors]
    out = np.zeros(1 + MAX_TENSORS * SLOTS, np.uint64)
    walk_kernel[1, rt.current_stream()](desc, out, *tensors, desc.nbytes, len(tensors))
    for i, t in enumerate(before):
        row = out[1 + i * SLOTS : 1 + (i + 1) * SLOTS]
        assert tuple(int(v) for v in row[:4]) == (2, i, *t.shape) and row[10] == t.numel()
        assert torch.equal(tensors[i], 2 * t)
    with pytest.raises(ValueError, match="not contiguous"):
        list_tensor_desc([torch.ones(4, 4).t()])


@asc.jit
def pointers_kernel(desc: asc.GlobalAddress, out: asc.GlobalAddress, a: asc.GlobalAddress, b: asc.GlobalAddress):
    out_gm = asc.GlobalTensor()
    out_gm.set_global_buffer(out)
    lst = asc.ListTensorDesc()
    lst.init(desc)
    n = lst.get_size()
    out_gm.set_value(0, asc.number(n, asc.int32))
    for i in range(n):
        t = asc.GlobalTensor()
        t.set_global_buffer(lst.get_data_ptr(index=i, dtype=asc.int32))
        out_gm.set_value(1 + i, t.get_value(1))


def test_a_list_of_pointers_only():
    a, b = np.arange(8, dtype=np.int32), np.arange(100, 116, dtype=np.int32)
    desc = list_tensor_desc([a, b], shapes=False)
    w = [int(x) for x in desc]
    assert w[:3] == [24, 2 << 32, 0xFFFFFFFF] and w[3:] == [a.ctypes.data, b.ctypes.data]
    out = np.zeros(8, np.int32)
    pointers_kernel[1, rt.current_stream()](desc, out, a, b)
    np.testing.assert_array_equal(out[:3], [2, 1, 101])


@asc.jit
def probe_kernel(desc: asc.GlobalAddress, out: asc.GlobalAddress, t0: asc.GlobalAddress, t1: asc.GlobalAddress,
                 WHAT: asc.ConstExpr[int], ARG: asc.ConstExpr[int]):  # fmt: skip
    out_gm = asc.GlobalTensor()
    out_gm.set_global_buffer(out)
    if WHAT == 0:
        lst = asc.ListTensorDesc(data=desc)
        t = asc.GlobalTensor()
        t.set_global_buffer(lst.get_data_ptr(ARG, asc.float32))
        out_gm.set_value(0, asc.number(t.get_value(0), asc.uint64))
    elif WHAT == 1:
        lst = asc.ListTensorDesc(desc)
        d = asc.TensorDesc()
        lst.get_desc(d, ARG)
        out_gm.set_value(0, d.get_dim())
    elif WHAT == 2:
        lst = asc.ListTensorDesc(desc)
        d = asc.TensorDesc()
        lst.get_desc(d, 1)
        out_gm.set_value(0, d.get_shape(ARG))
    elif WHAT == 3:
        asc.ListTensorDesc(desc, length=ARG, shape_size=2)
    elif WHAT == 4:
        asc.ListTensorDesc(desc, length=64, shape_size=ARG)
    elif WHAT == 5:  # an unfilled TensorDesc: 0 and 0, then its data is an error
        d = asc.TensorDesc(asc.float16)
        out_gm.set_value(0, d.get_dim() + d.get_index())
        out_gm.set_value(1, 7)
        if ARG:
            d.get_data_ptr()
    else:
        d = asc.TensorDesc()
        d.set_shape_addr(ARG)


def probe(what, arg, tensors=None, pass_tensors=True):
    tensors = tensors or [np.ones((2, 3), np.float32), np.full((4, 5), 3, np.float32)]
    desc = list_tensor_desc(tensors)
    out = np.zeros(4, np.uint64)
    args = tensors if pass_tensors else [np.zeros(8, np.float32), np.zeros(8, np.float32)]
    probe_kernel[1, rt.current_stream()](desc, out, *args, what, arg)
    return out


def test_the_probes_work_in_range():
    assert probe(0, 1)[0] == 3
    assert probe(1, 1)[0] == 2
    assert probe(2, 1)[0] == 5
    probe(3, 72)  # the buffer's bytes: 8 + 2 * 3 * 8 + 2 * 8
    assert list(probe(5, 0)[:2]) == [0, 7]


def test_the_layout_length_is_the_buffer():
    desc = list_tensor_desc([np.ones((2, 3), np.float32), np.ones((4, 5), np.float32)])
    assert desc.nbytes == 8 + 2 * 3 * 8 + 2 * 8 == 72


@pytest.mark.parametrize(
    "what,arg,message",
    [
        (0, 2, "index 2 is outside the list's 2 tensors"),
        (1, 5, "index 5 is outside the list's 2 tensors"),
        (2, 2, r"get_shape\(2\): the TensorDesc has 2 dimensions"),
        (3, 64, "length is 64 but the list's layout takes 72 bytes"),
        (4, 3, "shape_size is 3 but the list holds 2 tensors"),
        (5, 1, "has no tensor yet"),
        (6, 0, "scalar unit's memory, which the Model does not have"),
    ],
)
def test_bad_input_is_a_launch_error(what, arg, message):
    with pytest.raises(asc.errors.KernelError, match=message):
        probe(what, arg)


def test_a_pointer_outside_the_launch_is_an_error():
    with pytest.raises(asc.errors.KernelError, match="in none of the launch's GM buffers"):
        probe(0, 0, pass_tensors=False)


def test_a_buffer_that_is_not_a_list_is_an_error():
    bad = list_tensor_desc([np.ones((2, 3), np.float32), np.ones((4, 5), np.float32)])
    bad[0] = 64  # the pointers said to start a word after the records end
    out = np.zeros(4, np.uint64)
    with pytest.raises(asc.errors.KernelError, match="do not fill the 56 bytes before the pointers"):
        probe_kernel[1, rt.current_stream()](bad, out, np.zeros(6, np.float32), np.zeros(20, np.float32), 0, 0)
    short = list_tensor_desc([np.ones((2, 3), np.float32), np.ones((4, 5), np.float32)])[:5]
    with pytest.raises(asc.errors.KernelError, match="past its 40 bytes"):
        probe_kernel[1, rt.current_stream()](short, out, np.zeros(6, np.float32), np.zeros(20, np.float32), 0, 0)


def test_pointers_only_have_no_shapes():
    a = np.ones(4, np.float32)
    desc = list_tensor_desc([a, a], shapes=False)
    with pytest.raises(asc.errors.KernelError, match="data pointers only"):
        probe_kernel[1, rt.current_stream()](desc, np.zeros(4, np.uint64), a, a, 1, 0)


def test_the_host_builder_checks_its_tensors():
    with pytest.raises(ValueError, match="tensor 1 has 1 dimensions and tensor 0 has 2"):
        list_tensor_desc([np.ones((2, 2)), np.ones(3)])
    with pytest.raises(ValueError, match="not C-contiguous"):
        list_tensor_desc([np.ones((4, 4))[:, ::2]])
    with pytest.raises(ValueError, match="at least one tensor"):
        list_tensor_desc([])
    with pytest.raises(ValueError, match="use shapes=False"):
        list_tensor_desc([np.array(1.0, np.float32)])
    with pytest.raises(TypeError, match="numpy array or a torch tensor"):
        list_tensor_desc([[1, 2]])


@asc.jit
def misuse_kernel(desc: asc.GlobalAddress, WHAT: asc.ConstExpr[int]):
    lst = asc.ListTensorDesc()
    if WHAT == 0:
        lst.get_size()
    elif WHAT == 1:
        lst.init(desc)
        lst.get_desc(asc.GlobalTensor(), 0)
    elif WHAT == 2:
        asc.TensorDesc(asc.bool_)
    else:
        lst.init(desc)
        lst.get_data_ptr(0, dtype=3)


@pytest.mark.parametrize(
    "what,message",
    [(0, "call init"), (1, "desc must be an asc.TensorDesc"), (2, "bool"), (3, "dtype must be an asc dtype")],
)
def test_misuse_is_a_compile_error(what, message):
    with pytest.raises(asc.CodegenError, match=message):
        misuse_kernel[1, rt.current_stream()](np.zeros(8, np.uint64), what)


def test_emitted_ascendc_spells_the_classes():
    f32 = MockTensor(asc.float32)
    source = ascendc_source(walk_kernel.compile(MockTensor(asc.uint64), MockTensor(asc.uint64), f32, f32, f32, 8, 3))
    for spelling in ("AscendC::ListTensorDesc ", ".GetSize()", "AscendC::TensorDesc<float> ", ".SetShapeAddr(",
                     ".GetDesc(", ".GetDim()", ".GetIndex()", ".GetShape(", ".GetDataObj()",
                     ".GetDataPtr<float>("):  # fmt: skip
        assert spelling in source, spelling
