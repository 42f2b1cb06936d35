"""The language/core API surface against numpy: tensor views and metadata (reinterpret_cast,
set_addr_with_offset, get_size / get_length / set_size / set_buffer_len, get_phy_addr, t(i),
user tags, shape info), LocalMemAllocator, asc.range / asc.static_range, static_assert and
number, the parameter structs, and the Ascend C these views are emitted as."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.language.core.dtype import KnownTypes
from asc.language.core.struct import Field, Struct, StructField
from asc.runtime.jit import MockTensor

from kernels import ascendc_source

N = 256  # float32 elements of the tests' Unified Buffer tensors


@asc.jit
def reinterpret_kernel(x: asc.GlobalAddress, bits: asc.GlobalAddress, halves: asc.GlobalAddress, n: int):
    x_gm, bits_gm, halves_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    bits_gm.set_global_buffer(bits)
    halves_gm.set_global_buffer(halves)
    a = asc.LocalTensorAuto(asc.float32, N)
    asc.data_copy(a, x_gm, n)
    as_int = a.reinterpret_cast(asc.int32)  # the same bytes: the copy out needs the copy in's data
    asc.data_copy(bits_gm, as_int, n)
    asc.data_copy(halves_gm, a.reinterpret_cast(asc.int16), 2 * n)


def test_reinterpret_cast_views_the_same_bytes(rng):
    x = rng.normal(0, 100, N).astype(np.float32)
    bits = np.zeros(N, np.int32)
    halves = np.zeros(2 * N, np.int16)
    reinterpret_kernel[1, rt.current_stream()](x, bits, halves, N)
    np.testing.assert_array_equal(bits, x.view(np.int32))
    np.testing.assert_array_equal(halves, x.view(np.int16))


@asc.jit
def sizes_kernel(out: asc.GlobalAddress, y: asc.GlobalAddress, addr: int, n: int, k: int, m: int, nbytes: int):
    out_gm, y_gm = asc.GlobalTensor(), asc.GlobalTensor()
    out_gm.set_global_buffer(out)
    y_gm.set_global_buffer(y, 48)
    t = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, addr, n)
    out_gm.set_value(0, t.get_size())
    out_gm.set_value(1, t.get_length())
    out_gm.set_value(2, t.get_phy_addr())
    out_gm.set_value(3, t.get_phy_addr(k))
    out_gm.set_value(4, t[k].get_size())
    out_gm.set_value(5, t.reinterpret_cast(asc.float32).get_size())
    out_gm.set_value(6, t.reinterpret_cast(asc.int8).get_length())
    out_gm.set_value(10, t[k].get_phy_addr())
    t.set_size(m)
    out_gm.set_value(7, t.get_size())
    t.set_buffer_len(nbytes)
    out_gm.set_value(8, t.get_size())
    out_gm.set_value(9, y_gm.get_size())


@pytest.mark.parametrize("addr,n,k,m,nbytes", [(0, 512, 128, 256, 1024), (4096, 100, 7, 3, 64), (32, 33, 32, 1, 2)])
def test_sizes_lengths_and_addresses(addr, n, k, m, nbytes):
    out = np.full(11, -1, np.int64)
    sizes_kernel[1, rt.current_stream()](out, np.zeros(64, np.float32), addr, n, k, m, nbytes)
    want = [n, 2 * n, addr, addr + 2 * k, n - k, 2 * n // 4, 2 * n, m, nbytes // 2, 48, addr + 2 * k]
    np.testing.assert_array_equal(out, want)


@asc.jit
def offset_view_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, bits: asc.GlobalAddress, n: int, off: int,
                       count: int):  # fmt: skip
    x_gm, z_gm, bits_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    z_gm.set_global_buffer(z)
    bits_gm.set_global_buffer(bits)
    a = asc.LocalTensorAuto(asc.float32, N)
    asc.data_copy(a, x_gm, n)
    view = asc.LocalTensor(asc.float32)  # declared; set_addr_with_offset gives it memory
    view.set_addr_with_offset(a, off)
    asc.data_copy(z_gm, view, count)
    as_int = asc.LocalTensor(asc.int32)
    as_int.set_addr_with_offset(a, off)  # counted in a's elements, seen as int32
    asc.data_copy(bits_gm, as_int, count)


@pytest.mark.parametrize("off,count", [(0, 64), (8, 128), (64, 192)])
def test_set_addr_with_offset_copies_the_right_elements(off, count, rng):
    x = rng.random(N, dtype=np.float32)
    z = np.zeros(count, np.float32)
    bits = np.zeros(count, np.int32)
    offset_view_kernel[1, rt.current_stream()](x, z, bits, N, off, count)
    np.testing.assert_array_equal(z, x[off : off + count])
    np.testing.assert_array_equal(bits, x[off : off + count].view(np.int32))


@asc.jit
def element_kernel(x: asc.GlobalAddress, out: asc.GlobalAddress, i: int, j: int):
    x_gm, out_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    out_gm.set_global_buffer(out)
    a = asc.LocalTensorAuto(asc.float32, N)
    asc.data_copy(a, x_gm, N)
    out_gm.set_value(0, a(i))  # t(i): the element, as get_value
    out_gm.set_value(1, x_gm(j))
    a.set_user_tag(7)
    out_gm.set_value(2, a.get_user_tag() + 0.5)
    tagged = a[8]
    out_gm.set_value(3, tagged.get_user_tag())  # a view has a tag of its own, 0 until set


def test_element_access_and_user_tags(rng):
    x = rng.random(N, dtype=np.float32)
    out = np.zeros(4, np.float32)
    element_kernel[1, rt.current_stream()](x, out, 5, 200)
    np.testing.assert_array_equal(out, [x[5], x[200], 7.5, 0.0])


@asc.jit
def allocator_kernel(out: asc.GlobalAddress, dynamic: int):
    out_gm = asc.GlobalTensor()
    out_gm.set_global_buffer(out)
    allocator = asc.LocalMemAllocator(asc.Hardware.UB)
    a = allocator.alloc(asc.TPosition.VECIN, asc.float32, 10)  # 40 bytes: the next tensor starts at 64
    b = allocator.alloc(asc.TPosition.VECOUT, asc.float16, dynamic)
    c = allocator.alloc(asc.TPosition.VECCALC, asc.int8, 1)
    out_gm.set_value(0, a.get_phy_addr())
    out_gm.set_value(1, b.get_phy_addr())
    out_gm.set_value(2, c.get_phy_addr())
    out_gm.set_value(3, b.get_size())
    out_gm.set_value(4, allocator.get_cur_addr())


@pytest.mark.parametrize("dynamic", [1, 16, 100])
def test_local_mem_allocator_places_tensors_one_after_another(dynamic):
    out = np.zeros(5, np.int64)
    allocator_kernel[1, rt.current_stream()](out, dynamic)
    c = 64 + (2 * dynamic + 31) // 32 * 32
    np.testing.assert_array_equal(out, [0, 64, c, dynamic, c + 32])


@asc.jit
def allocator_in_loops(out: asc.GlobalAddress, n: int, flag: int):
    """Tensors placed inside a run-time loop and branch: the board's allocator counts at run time."""
    out_gm = asc.GlobalTensor()
    out_gm.set_global_buffer(out)
    allocator = asc.LocalMemAllocator()
    allocator.alloc(asc.TPosition.VECIN, asc.float32, 10)  # [0, 64)
    for i in range(n):
        out_gm.set_value(2 * i, allocator.get_cur_addr())  # before this iteration's alloc
        t = allocator.alloc(asc.TPosition.VECOUT, asc.float16, 100)  # 224 bytes each
        out_gm.set_value(2 * i + 1, t.get_phy_addr())
    if flag > 0:
        allocator.alloc(asc.TPosition.VECCALC, asc.int8, 1)  # 32 bytes, only when taken
    last = allocator.alloc(asc.TPosition.VECCALC, asc.int32, 8)
    out_gm.set_value(16, last.get_phy_addr())
    out_gm.set_value(17, allocator.get_cur_addr())


@pytest.mark.parametrize("n, flag", [(0, 0), (1, 1), (3, 0), (7, 1)])
def test_local_mem_allocator_counts_allocs_in_run_time_loops_and_branches_per_run(n, flag):
    out = np.full(18, -1, np.int64)
    allocator_in_loops[1, rt.current_stream()](out, n, flag)
    want = np.full(18, -1, np.int64)
    for i in range(n):
        want[2 * i] = want[2 * i + 1] = 64 + 224 * i
    want[16] = 64 + 224 * n + 32 * (flag > 0)
    want[17] = want[16] + 32
    np.testing.assert_array_equal(out, want)


def test_local_mem_allocator_refuses_a_position_of_another_memory():
    @asc.jit
    def wrong_memory(out: asc.GlobalAddress):
        allocator = asc.LocalMemAllocator(asc.Hardware.L1)
        allocator.alloc(asc.TPosition.VECIN, asc.float32, 8)

    with pytest.raises(asc.CodegenError, match="VECIN.* is not in L1"):
        wrong_memory.compile(MockTensor(asc.float32))


@asc.jit
def loops_kernel(out: asc.GlobalAddress, n: int):
    out_gm = asc.GlobalTensor()
    out_gm.set_global_buffer(out)
    for i in asc.static_range(1, 7, 2):
        out_gm.set_value(i, i * i)  # i is a Python int: i * i is folded while compiling
    for j in asc.range(n):
        out_gm.set_value(8 + j, j * 10)


def test_static_range_unrolls_and_range_loops():
    out = np.zeros(16, np.int32)
    loops_kernel[1, rt.current_stream()](out, 5)
    want = np.zeros(16, np.int32)
    want[[1, 3, 5]] = [1, 9, 25]
    want[8:13] = np.arange(5) * 10
    np.testing.assert_array_equal(out, want)
    ir = loops_kernel.ir(np.zeros(16, np.int32), 5)
    assert ir.count("for ") == 1, ir  # only asc.range is a run-time loop
    assert ir.count("global_tensor.set_value") == 4


def test_static_range_needs_compile_time_bounds():
    @asc.jit
    def runtime_bound(out: asc.GlobalAddress, n: int):
        out_gm = asc.GlobalTensor()
        out_gm.set_global_buffer(out)
        for i in asc.static_range(n):
            out_gm.set_value(i, 1)

    with pytest.raises(asc.CodegenError, match="static_range\\(\\) bounds must be compile-time integers"):
        runtime_bound.compile(MockTensor(asc.int32), 4)


def test_static_assert_names_the_line():
    @asc.jit
    def checked(out: asc.GlobalAddress, tile: asc.ConstExpr[int]):
        asc.static_assert(tile % 8 == 0, "tile must be a multiple of 8")
        out_gm = asc.GlobalTensor()
        out_gm.set_global_buffer(out)
        out_gm.set_value(0, asc.number(tile, asc.int32))

    out = np.zeros(1, np.int32)
    checked[1, rt.current_stream()](out, 16)
    assert out[0] == 16
    with pytest.raises(asc.CodegenError, match="static_assert failed: tile must be a multiple of 8") as e:
        checked[1, rt.current_stream()](out, 12)
    line = checked.fn.__code__.co_firstlineno + 2
    assert f":{line}:" in str(e.value)


def test_emitted_ascendc_spells_the_views():
    compiled = sizes_kernel.compile(MockTensor(asc.int64), MockTensor(asc.float32), 0, 64, 8, 4, 32)
    source = ascendc_source(compiled)
    for spelling in (
        ".GetSize()",
        ".GetPhyAddr(",
        ".SetSize(",
        ".ReinterpretCast<float>()",
        ".ReinterpretCast<int8_t>()",
    ):
        assert spelling in source, spelling
    compiled = offset_view_kernel.compile(MockTensor(asc.float32), MockTensor(asc.float32), MockTensor(asc.int32),
                                          N, 8, 64)  # fmt: skip
    assert ".ReinterpretCast<int32_t>()" in ascendc_source(compiled)


def test_reinterpret_cast_refuses_non_numeric_dtypes():
    @asc.jit
    def to_void(out: asc.GlobalAddress):
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 64)
        t.reinterpret_cast(asc.void)

    with pytest.raises(asc.CodegenError, match="reinterpret_cast needs an integer or floating-point"):
        to_void.compile(MockTensor(asc.float32))


def test_declared_tensor_without_memory_is_refused():
    @asc.jit
    def unset(out: asc.GlobalAddress):
        t = asc.LocalTensor(asc.float32)
        t.get_value(0)

    with pytest.raises(asc.CodegenError, match="has no memory yet"):
        unset.compile(MockTensor(asc.float32))


def test_shape_info_round_trips_and_sizes():
    @asc.jit
    def shapes(out: asc.GlobalAddress):
        t = asc.LocalTensorAuto(asc.float32, (4, 8))
        t.set_shape_info(asc.ShapeInfo(asc.array(asc.int32, [4, 6]), data_format=asc.DataFormat.ND))
        out_gm = asc.GlobalTensor()
        out_gm.set_global_buffer(out)
        out_gm.set_value(0, t.get_size())  # LocalTensorAuto(dtype, (d1, d2)) holds d1 * d2 elements
        out_gm.set_value(1, t.get_shape_info().shape[1])
        out_gm.set_value(2, asc.get_shape_size(t.get_shape_info()))
        out_gm.set_value(3, asc.get_shape_size(asc.LocalTensor(asc.int32).get_shape_info()))

    out = np.zeros(4, np.int32)
    shapes[1, rt.current_stream()](out)
    np.testing.assert_array_equal(out, [32, 6, 24, 1])


def test_parameter_structs_hold_pyasc_fields():
    p = asc.DataCopyEnhancedParams(asc.BlockMode.BLOCK_MODE_VECTOR, asc.DeqScale.DEQ8, 3, 1, True, asc.pad_t.PAD_MODE2)
    assert (p.block_mode, p.deq_scale, p.deq_value, p.is_relu, p.pad_mode, p.pad_value) == (
        asc.BlockMode.BLOCK_MODE_VECTOR, asc.DeqScale.DEQ8, 3, True, asc.pad_t.PAD_MODE2, 0)  # fmt: skip
    s = asc.SliceInfo()
    assert (s.start_index, s.end_index, s.stride, s.burst_len, s.shape_value) == (0, 31, 0, 32, 0)
    assert asc.GatherRepeatParams() == asc.GatherRepeatParams(1, 8)
    assert asc.TransDataTo5HDParams(True, False, 2, 8, 16).src_rep_stride == 16
    assert asc.MrgSort4Info([1, 2, 3, 4]).valid_bit == 15
    assert len(asc.VdeqInfo().scale) == 16
    assert asc.AippParams(asc.int8).csc_params == asc.AippColorSpaceConvParams()
    with pytest.raises(asc.CodegenError, match="int8 or asc.float16"):
        asc.AippParams(asc.float32)
    assert asc.PipeID.PIPE_MTE4 == 7 and asc.CacheMode.CACHE_MODE_PERSISTENT == 4
    assert asc.double is asc.float64 and asc.float64.is_float() and not asc.void.is_numeric()


def test_data_type_from_a_name_is_the_predefined_dtype():
    import copy
    import pickle

    for d in (asc.int8, asc.uint16, asc.int32, asc.float16, asc.bfloat16, asc.float32, asc.bool_):
        assert asc.DataType(d.name) is d and asc.DataType(d.name).sizeof() == d.sizeof()
    assert asc.DataType("int1") is asc.bool_ and asc.DataType("float64") is asc.float64
    assert asc.DataType("void").is_void() and {asc.DataType("int32"): 1}[asc.int32] == 1
    assert copy.deepcopy(asc.int16) is asc.int16 and pickle.loads(pickle.dumps(asc.float16)) is asc.float16
    for bad in ("int33", "torch.float32", "", 5):
        with pytest.raises(ValueError, match="not a dtype name"):
            asc.DataType(bad)


@asc.jit
def data_type_by_name_kernel(x: asc.GlobalAddress, out: asc.GlobalAddress, n: asc.ConstExpr[int]):
    x_gm, out_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    out_gm.set_global_buffer(out, n)
    t = asc.LocalTensor(asc.DataType("int32"), asc.TPosition.VECIN, 0, n)
    r = asc.LocalTensor(asc.DataType("float32"), asc.TPosition.VECOUT, n * 4, n)
    asc.data_copy(t, x_gm, count=n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.cast(r, t, asc.RoundMode.CAST_NONE, n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(out_gm, r, count=n)


def test_data_type_by_name_in_a_kernel(rng):
    x = rng.integers(-1000, 1000, 64, dtype=np.int32)
    out = np.zeros(64, np.float32)
    data_type_by_name_kernel[1, rt.current_stream()](x, out, 64)
    np.testing.assert_array_equal(out, x.astype(np.float32))


def test_pyasc_module_aliases_and_names():
    from asc.language.core.dtype import KnownTypes

    assert asc.basic.data_copy is asc.data_copy and asc.core.LocalTensor is asc.LocalTensor
    assert asc.fwk is asc.language.fwk
    assert KnownTypes.int32 is asc.int32 and KnownTypes.float_ is asc.float32
    from asc.runtime.launcher import LaunchOptions

    assert asc.LaunchOptions is LaunchOptions


@asc.jit
def queue_views_kernel(x: asc.GlobalAddress, bits: asc.GlobalAddress, out: asc.GlobalAddress, n: int):
    x_gm, bits_gm, out_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    bits_gm.set_global_buffer(bits)
    out_gm.set_global_buffer(out)
    pipe = asc.TPipe()
    q_in = asc.TQue(asc.TPosition.VECIN, 1)
    q_out = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(q_in, 1, N * 4)
    pipe.init_buffer(q_out, 1, N * 4)
    a = q_in.alloc_tensor(asc.float32)
    out_gm.set_value(0, a.get_size())  # a queue's tensor: the buffer's bytes in elements
    a.set_buffer_len(n * 4)
    out_gm.set_value(1, a.get_size())
    asc.data_copy(a, x_gm, n)
    q_in.enque(a)
    b = q_in.deque(asc.float32)
    c = q_out.alloc_tensor(asc.int32)
    asc.adds(c, b.reinterpret_cast(asc.int32), 1, n)  # the float32 bits + 1, as integers
    q_out.enque(c)
    q_in.free_tensor(b)
    d = q_out.deque(asc.int32)
    asc.data_copy(bits_gm, d, n)
    q_out.free_tensor(d)


def test_views_of_queue_tensors(rng):
    x = rng.random(N, dtype=np.float32)
    bits = np.zeros(128, np.int32)
    out = np.zeros(2, np.int32)
    queue_views_kernel[1, rt.current_stream()](x, bits, out, 128)
    np.testing.assert_array_equal(out, [N, 128])
    np.testing.assert_array_equal(bits, x[:128].view(np.int32) + 1)


@asc.jit
def pad_params_kernel(x: asc.GlobalAddress, u: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, length: int):
    x_gm, u_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    u_gm.set_global_buffer(u)
    z_gm.set_global_buffer(z)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 1024)
    # the non-Ext forms: DataCopyParams (block_len in bytes for data_copy_pad) and DataCopyPadParams
    asc.data_copy_pad(a, x_gm, asc.DataCopyParams(rows, length * 4, 0, 0), asc.DataCopyPadParams(True, 0, 1, 7))
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.data_copy(u_gm, a, rows * 8)
    asc.data_copy_pad(z_gm, a, asc.DataCopyParams(rows, length * 4, 0, 0))


def test_data_copy_pad_takes_the_non_ext_params(rng):
    rows, length = 3, 5  # 5 floats per row, padded to one 8-float block
    x = rng.random(rows * length, dtype=np.float32)
    u = np.zeros(rows * 8, np.float32)
    z = np.zeros(rows * length, np.float32)
    pad_params_kernel[1, rt.current_stream()](x, u, z, rows, length)
    image = u.reshape(rows, 8)
    np.testing.assert_array_equal(image[:, :length], x.reshape(rows, length))
    assert np.all(image[:, length:] == 7)
    np.testing.assert_array_equal(z, x)


def test_mrg_sort_src_list_holds_tensors_of_its_dtype():
    @asc.jit
    def lists(out: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 64)
        b = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 256, 64)
        asc.MrgSortSrcList(asc.float32, a, b)
        asc.MrgSortSrcList(asc.float16, a, b)

    with pytest.raises(asc.CodegenError, match="LocalTensors of asc.float16"):
        lists.compile(MockTensor(asc.float32))


@asc.jit
def resize_in_branch(out: asc.GlobalAddress, x: asc.GlobalAddress, n: int):
    out_gm, x_gm = asc.GlobalTensor(), asc.GlobalTensor()
    out_gm.set_global_buffer(out)
    x_gm.set_global_buffer(x)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(t, x_gm, 64)
    asc.set_flag(asc.HardEvent.MTE2_S, 0)
    asc.wait_flag(asc.HardEvent.MTE2_S, 0)
    view = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    for i in range(n):  # methods that change a tensor inside a loop or run-time if: later uses see the change
        view.set_addr_with_offset(t, i * 8)
    if n > 2:
        t.set_size(8)
    out_gm.set_value(0, t.get_size())
    out_gm.set_value(1, view(0))


@pytest.mark.parametrize("n", [1, 5])
def test_changes_inside_regions_are_seen_after_them(n, rng):
    x = rng.random(64, dtype=np.float32)
    out = np.zeros(2, np.float32)
    resize_in_branch[1, rt.current_stream()](out, x, n)
    np.testing.assert_array_equal(out, [8 if n > 2 else 64, x[(n - 1) * 8]])


class BlockConfig(Struct):
    block_length = Field(dtype=KnownTypes.int32, default=0)


class TileConfig(Struct):
    tile_length = Field(dtype=KnownTypes.int32, default=0)
    tile_num = Field(dtype=KnownTypes.int32, default=0)


class KernelConfig(Struct):
    block = StructField(BlockConfig)
    tile = StructField(TileConfig)


@asc.jit
def nested_struct_kernel(out: asc.GlobalAddress, config: KernelConfig):
    out_gm = asc.GlobalTensor()
    out_gm.set_global_buffer(out)
    config.tile.tile_num = config.tile.tile_num + 1  # the kernel's own copy
    out_gm.set_value(0, config.block.block_length)
    out_gm.set_value(1, config.tile.tile_length)
    out_gm.set_value(2, config.tile.tile_num)


def test_nested_structs_are_passed_field_by_field():
    config = KernelConfig(tile=TileConfig(tile_length=512, tile_num=0))
    config.block = BlockConfig(block_length=1000)
    config.tile.tile_num = 7
    assert [n for n, _ in KernelConfig.fields()] == ["block.block_length", "tile.tile_length", "tile.tile_num"]
    assert config.pack() == np.array([1000, 512, 7], np.int32).tobytes()
    for _ in range(2):  # the second launch takes the fast path
        out = np.zeros(3, np.int32)
        nested_struct_kernel[1, rt.current_stream()](out, config)
        np.testing.assert_array_equal(out, [1000, 512, 8])
    assert config.tile.tile_num == 7
    with pytest.raises(TypeError, match="is a BlockConfig"):
        config.block = TileConfig()


def test_a_local_tensor_auto_longer_than_any_memory_is_named_where_it_is_made():
    @asc.jit
    def huge(out: asc.GlobalAddress):
        t = asc.LocalTensorAuto(asc.float32, 2**40)
        out_gm = asc.GlobalTensor()
        out_gm.set_global_buffer(out)
        out_gm.set_value(0, t.get_size())

    with pytest.raises(asc.CodegenError, match=r"length 1099511627776 \(4 bytes each\) is more than any on-chip") as e:
        huge[1, rt.current_stream()](np.zeros(4, np.int32))
    assert "t = asc.LocalTensorAuto(asc.float32, 2**40)" in str(e.value)
