"""The framework's queue queries, in-place and user-position forms, TBufPool and TPipe.reset, on the Model
(results against numpy) and in the emitted Ascend C."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt

from kernels import ascendc_source

F32 = asc.float32


@asc.jit
def record_state(o: asc.GlobalTensor, at: int, q: asc.TQue):
    """Writes the four queries of `q` to o[at .. at+3] (count, vacant, has_tensor, has_idle_buffer)."""
    o.set_value(at, q.get_tensor_count_in_que())
    if q.vacant_in_que():
        o.set_value(at + 1, 1)
    if q.has_tensor_in_que():
        o.set_value(at + 2, 1)
    if q.has_idle_buffer():
        o.set_value(at + 3, 1)


@asc.jit
def queue_queries(out: asc.GlobalAddress, n: int):
    o = asc.GlobalTensor()
    o.set_global_buffer(out, n)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 2)
    pipe.init_buffer(q, 2, 256)
    record_state(o, 0, q)
    a = q.alloc_tensor(F32)
    q.enque(a)
    record_state(o, 4, q)
    b = q.alloc_tensor(F32)
    q.enque(b)
    record_state(o, 8, q)  # depth 2 reached, both buffers in use
    u = q.deque(F32)
    q.free_tensor(u)
    record_state(o, 12, q)
    v = q.deque(F32)
    q.free_tensor(v)
    q.free_all_event()
    record_state(o, 16, q)
    for i in range(3):  # the counters are run-time state: right in every iteration
        t = q.alloc_tensor(F32)
        q.enque(t)
        record_state(o, 20 + 4 * i, q)
        w = q.deque(F32)
        q.free_tensor(w)


def test_queue_queries_report_the_queue_state():
    out = np.zeros(32, np.int32)
    queue_queries[1, rt.current_stream()](out, 32)
    expected = [0, 1, 0, 1, 1, 1, 1, 1, 2, 0, 1, 0, 1, 1, 1, 1, 0, 1, 0, 1] + [1, 1, 1, 1] * 3
    np.testing.assert_array_equal(out, expected)
    source = ascendc_source(queue_queries.compile(out, 32))  # the queries are scalar code in the Ascend C too
    assert "AscendC::WaitFlag" in source and "TQue" not in source


@asc.jit
def unbuffered_queries(out: asc.GlobalAddress):
    o = asc.GlobalTensor()
    o.set_global_buffer(out, 4)
    q = asc.TQue(asc.TPosition.VECIN, 1)
    record_state(o, 0, q)


def test_a_queue_without_buffers_is_empty_and_has_no_idle_buffer():
    out = np.full(4, 7, np.int32)
    unbuffered_queries[1, rt.current_stream()](out)
    np.testing.assert_array_equal(out, [0, 1, 7, 7])


@asc.jit
def in_place_and_user_positions(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, TILE: asc.ConstExpr[int]):
    """A VECIN/VECOUT TQueBind used in place: GM -> VECIN (MTE2 to V), adds, VECOUT -> GM (V to MTE3)."""
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    z_gm.set_global_buffer(z, n)
    pipe = asc.TPipe()
    que = asc.TQueBind(asc.TPosition.VECIN, asc.TPosition.VECOUT, 1, mask=0)
    pipe.init_buffer(que, 2, TILE * 4)
    for i in range(n // TILE):
        t = asc.LocalTensor(F32)
        que.alloc_tensor(t)  # t is now the queue's buffer
        asc.data_copy(t, x_gm[i * TILE :], TILE)
        que.enque(t, asc.TPosition.GM, asc.TPosition.VECIN)
        u = que.deque(F32, asc.TPosition.GM, asc.TPosition.VECIN)
        asc.adds(u, u, 1.0, TILE)
        que.enque(u, asc.TPosition.VECOUT, asc.TPosition.GM)
        w = asc.LocalTensor(F32)
        que.deque(w, asc.TPosition.VECOUT, asc.TPosition.GM)
        asc.data_copy(z_gm[i * TILE :], w, TILE)
        que.free_tensor(w)


def test_in_place_forms_and_user_positions(rng):
    x = rng.random(1024, dtype=np.float32)
    z = np.zeros_like(x)
    in_place_and_user_positions[1, rt.current_stream()](x, z, 1024, 128)
    np.testing.assert_array_equal(z, x + np.float32(1))
    text = in_place_and_user_positions.ir(x, z, 1024, 128)
    for event in ("MTE2_V", "V_MTE3", "MTE3_MTE2"):  # the two user hand-overs, and the queue's own free
        assert f"event = {event}" in text


@asc.jit
def pool_copy(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, TILE: asc.ConstExpr[int], POOL: int):
    """A double-buffered copy through a queue whose buffers come from a TBufPool."""
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    z_gm.set_global_buffer(z, n)
    pipe = asc.TPipe()
    pool = asc.TBufPool(asc.TPosition.VECIN, 4)
    pipe.init_buf_pool(pool, POOL)
    que = asc.TQueBind(asc.TPosition.VECIN, asc.TPosition.VECOUT, 2)
    pool.init_buffer(que, 2, TILE * 4)
    for i in range(n // TILE):
        t = que.alloc_tensor(F32)
        asc.data_copy(t, x_gm[i * TILE :], TILE)
        que.enque(t)
        u = que.deque(F32)
        asc.data_copy(z_gm[i * TILE :], u, TILE)
        que.free_tensor(u)


def test_double_buffered_copy_through_a_pool(rng):
    x = rng.random(2048, dtype=np.float32)
    z = np.zeros_like(x)
    pool_copy[1, rt.current_stream()](x, z, 2048, 128, 1024)
    np.testing.assert_array_equal(z, x)


def test_a_queue_larger_than_its_pool_is_an_error(rng):
    x = rng.random(2048, dtype=np.float32)
    with pytest.raises(asc.errors.OutOfBoundsError, match="runs past the end of TBufPool 'pool'"):
        pool_copy[1, rt.current_stream()](x, np.zeros_like(x), 2048, 128, 512)


@asc.jit
def shared_pools(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, w: asc.GlobalAddress,
                 n: int, RESET: asc.ConstExpr[bool]):  # fmt: skip
    """pool1 reuses pool0's bytes: its MTE2 write would overtake pool0's MTE3 read without pool0.reset()."""
    x_gm, y_gm, z_gm, w_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    y_gm.set_global_buffer(y, n)
    z_gm.set_global_buffer(z, n)
    w_gm.set_global_buffer(w, n)
    pipe = asc.TPipe()
    pool0 = asc.TBufPool(asc.TPosition.VECCALC, 2)
    pool1 = asc.TBufPool(asc.TPosition.VECCALC, 2)
    pipe.init_buf_pool(pool0, n * 4)
    pipe.init_buf_pool(pool1, n * 4, share_buf=pool0)
    b0 = asc.TBuf(asc.TPosition.VECCALC)
    b1 = asc.TBuf(asc.TPosition.VECCALC)
    pool0.init_buffer(b0, n * 4)
    pool1.init_buffer(b1, n * 4)
    t0 = b0.get(F32)
    asc.data_copy(t0, x_gm, n)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.data_copy(z_gm, t0, n)  # MTE3 reads pool0's buffer ...
    if RESET:
        pool0.reset()
    t1 = b1.get(F32)
    asc.data_copy(t1, y_gm, n)  # ... and MTE2 overwrites the same bytes through pool1's
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 1)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 1)
    asc.data_copy(w_gm, t1, n)


def test_two_pools_reuse_the_same_bytes(rng):
    x, y = rng.random(256, dtype=np.float32), rng.random(256, dtype=np.float32)
    z, w = np.zeros_like(x), np.zeros_like(x)
    shared_pools[1, rt.current_stream()](x, y, z, w, 256, True)
    np.testing.assert_array_equal(z, x)
    np.testing.assert_array_equal(w, y)
    compiled = shared_pools.compile(x, y, z, w, 256, True)
    assert "pipe_barrier" in compiled.ir
    assert "PipeBarrier<PIPE_ALL>" in ascendc_source(compiled)


def test_the_race_checker_sees_both_pools_accesses(rng):
    x, y = rng.random(256, dtype=np.float32), rng.random(256, dtype=np.float32)
    with pytest.raises(asc.errors.RaceError, match=r"write-after-read race on Unified Buffer bytes \[0, 1024\)"):
        shared_pools[1, rt.current_stream()](x, y, np.zeros_like(x), np.zeros_like(x), 256, False)


@asc.jit
def pipe_reset(x: asc.GlobalAddress, z: asc.GlobalAddress, base: asc.GlobalAddress, n: int):
    x_gm, z_gm, base_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    z_gm.set_global_buffer(z, n)
    base_gm.set_global_buffer(base, 1)
    pipe = asc.TPipe()
    pipe.init()
    base_gm.set_value(0, pipe.get_base_addr(asc.TPosition.VECIN))
    q0 = asc.TQue(asc.TPosition.VECIN, 2)
    q1 = asc.TQue(asc.TPosition.VECIN, 2)
    q2 = asc.TQue(asc.TPosition.VECIN, 2)
    q3 = asc.TQue(asc.TPosition.VECIN, 2)
    pipe.init_buffer(q0, 2, n * 4)  # with q1..q3: 8 MTE2_V ids, all of them
    pipe.init_buffer(q1, 2, n * 4)
    pipe.init_buffer(q2, 2, n * 4)
    pipe.init_buffer(q3, 2, n * 4)
    t = q0.alloc_tensor(F32)
    asc.data_copy(t, x_gm, n)
    q0.enque(t)
    u = q0.deque(F32)
    q0.free_tensor(u)
    pipe.reset()  # ids and memory are free again
    again = asc.TQue(asc.TPosition.VECIN, 2)
    pipe.init_buffer(again, 2, n * 4)
    v = again.alloc_tensor(F32)  # the bytes q0 used: still holding x
    again.enque(v)
    w = again.deque(F32)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, w, n)
    asc.set_flag(asc.HardEvent.MTE3_V, 0)
    asc.wait_flag(asc.HardEvent.MTE3_V, 0)
    again.free_tensor(w)


def test_pipe_reset_frees_memory_and_event_ids(rng):
    x = rng.random(64, dtype=np.float32)
    z = np.zeros_like(x)
    base = np.full(1, -1, np.int32)
    pipe_reset[1, rt.current_stream()](x, z, base, 64)
    np.testing.assert_array_equal(z, x)
    assert base[0] >= 0


@asc.jit
def too_many_pool_buffers(x: asc.GlobalAddress):
    pipe = asc.TPipe()
    pool = asc.TBufPool(asc.TPosition.VECIN, 2)
    pipe.init_buf_pool(pool, 4096)
    que = asc.TQue(asc.TPosition.VECIN, 1)
    pool.init_buffer(que, 3, 256)


@asc.jit
def pool_without_memory(x: asc.GlobalAddress):
    pool = asc.TBufPool(asc.TPosition.VECIN, 2)
    b = asc.TBuf(asc.TPosition.VECIN)
    pool.init_buffer(b, 256)
    b.get(F32).set_value(0, 1.0)


def test_pool_misuse_is_reported():
    x = np.zeros(8, np.float32)
    with pytest.raises(asc.CodegenError, match="holds at most buf_id_size=2 buffers"):
        too_many_pool_buffers[1, rt.current_stream()](x)
    with pytest.raises(asc.errors.OutOfBoundsError, match=r"TBufPool 'pool' has no memory \(call init_buf_pool"):
        pool_without_memory[1, rt.current_stream()](x)


@asc.jit
def scale_through_tbuf(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    z_gm.set_global_buffer(z, n)
    pipe = asc.TPipe()
    buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(buf=buf, num=n * 4)
    t = buf.alloc_tensor(F32)  # the queue spelling for a TBuf: its whole buffer
    asc.data_copy(t, x_gm, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.muls(t, t, 3.0, n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, t, n)
    buf.free_tensor(t)


def test_tbuf_alloc_tensor_is_its_whole_buffer():
    x = np.random.default_rng(3).standard_normal(128).astype(np.float32)
    z = np.zeros_like(x)
    scale_through_tbuf[1](x, z, 128)
    np.testing.assert_allclose(z, x * np.float32(3.0), rtol=1e-6)


@asc.jit
def setup_per_tile(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, tile: asc.ConstExpr[int],
                   tiles: int, depth: asc.ConstExpr[int]):  # fmt: skip
    x_gm, y_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x, tile * tiles)
    y_gm.set_global_buffer(y, tile * tiles)
    z_gm.set_global_buffer(z, tile * tiles)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, depth)
    qy = asc.TQue(asc.TPosition.VECIN, depth)
    qz = asc.TQue(asc.TPosition.VECOUT, depth)
    for i in range(tiles):  # pyasc's test_vadd_sw: the pipe is set up and reset in every iteration
        pipe.destroy()
        pipe.init()
        pipe.init_buffer(que=qx, num=depth, len=tile * 4)
        pipe.init_buffer(que=qy, num=depth, len=tile * 4)
        pipe.init_buffer(que=qz, num=depth, len=tile * 4)
        a = qx.alloc_tensor(F32)
        b = qy.alloc_tensor(F32)
        asc.data_copy(a, x_gm[i * tile :], count=tile)
        asc.data_copy(b, y_gm[i * tile :], count=tile)
        qx.enque(a)
        qy.enque(b)
        a = qx.deque(F32)
        b = qy.deque(F32)
        c = qz.alloc_tensor(F32)
        asc.add(c, a, b, count=tile)
        qz.enque(c)
        qx.free_tensor(a)
        qy.free_tensor(b)
        c = qz.deque(F32)
        asc.data_copy(z_gm[i * tile :], c, count=tile)
        qz.free_tensor(c)
        pipe.reset()


@pytest.mark.parametrize("tiles", [1, 3])
@pytest.mark.parametrize("depth", [1, 2])
def test_init_buffer_and_reset_inside_a_loop(tiles, depth, rng):
    x = rng.random(64 * tiles, dtype=np.float32)
    y = rng.random(64 * tiles, dtype=np.float32)
    z = np.zeros_like(x)
    setup_per_tile[1, rt.current_stream()](x, y, z, 64, tiles, depth)
    np.testing.assert_array_equal(z, x + y)


@asc.jit
def keeps_a_queue_set_up_in_a_loop(x: asc.GlobalAddress, tiles: int):
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    for _i in range(tiles):
        pipe.init_buffer(q, 1, 256)  # no reset: the second iteration would set q up twice


@asc.jit
def resets_an_outer_queue_in_a_loop(x: asc.GlobalAddress, tiles: int):
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, 256)
    for _i in range(tiles):
        pipe.reset()  # q is gone after the first iteration


@asc.jit
def sets_up_in_one_branch(x: asc.GlobalAddress, n: int):
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    if n > 0:
        pipe.init_buffer(q, 1, 256)
    t = q.alloc_tensor(F32)


def test_setup_in_a_loop_or_if_that_changes_the_pipe_is_an_error():
    x = np.zeros(8, np.float32)
    for kernel, what in [
        (keeps_a_queue_set_up_in_a_loop, "tpipe.init_buffer"),
        (resets_an_outer_queue_in_a_loop, "tpipe.reset"),
        (sets_up_in_one_branch, "tpipe.init_buffer"),
    ]:
        with pytest.raises(asc.CodegenError, match=what + " inside a loop or if must leave the pipe as the body found"):
            kernel[1, rt.current_stream()](x, 2)
