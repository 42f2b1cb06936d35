"""TPipe / TQue / TQueBind / TBuf, device functions, event ids."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt

from kernels import TILE_NUM, block_views, compute, copy_in, copy_out


@asc.jit
def vadd_queues(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int,
                DEPTH: asc.ConstExpr[int], TILE_BYTES: asc.ConstExpr[int]):  # fmt: skip
    (x_gm, y_gm, z_gm), tile = block_views(x, y, z, block_length)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, DEPTH)
    qy = asc.TQue(asc.TPosition.VECIN, DEPTH)
    qz = asc.TQue(asc.TPosition.VECOUT, DEPTH)
    pipe.init_buffer(qx, DEPTH, TILE_BYTES)
    pipe.init_buffer(que=qy, num=DEPTH, len=TILE_BYTES)
    pipe.init_buffer(qz, num=DEPTH, len=TILE_BYTES)
    for i in range(TILE_NUM):
        copy_in(i, x_gm, y_gm, qx, qy, tile)
        compute(x.dtype, qx, qy, qz, tile)
        copy_out(i, z_gm, qz, tile)


@pytest.mark.parametrize("depth", [1, 2])
@pytest.mark.parametrize("cores", [1, 8])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_queues_add_like_numpy(depth, cores, dtype, rng):
    tile = 256
    block_length = TILE_NUM * tile
    n = cores * block_length
    x = (rng.random(n) * 100).astype(dtype)
    y = (rng.random(n) * 100).astype(dtype)
    z = np.zeros_like(x)
    vadd_queues[cores, rt.current_stream()](x, y, z, block_length, depth, tile * x.itemsize)
    np.testing.assert_array_equal(z, x + y)


def test_lowered_queues_use_distinct_event_ids_per_buffer():
    x = np.zeros(8 * 64, np.float32)
    text = vadd_queues.ir(x, x, x, 8 * 64, 2, 256)
    assert "tque" not in text and "tpipe" not in text  # lowered away
    for event in ("MTE2_V", "V_MTE2", "V_MTE3", "MTE3_V"):
        assert f"event = {event}" in text


@asc.jit
def passthrough(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, TILE: asc.ConstExpr[int]):
    """TQueBind(VECIN, VECOUT): MTE2 hands a buffer straight to MTE3."""
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    z_gm.set_global_buffer(z, n)
    pipe = asc.TPipe()
    que = asc.TQueBind(asc.TPosition.VECIN, asc.TPosition.VECOUT, 2)
    pipe.init_buffer(que, 2, TILE * 4)
    for i in range(n // TILE):
        t = que.alloc_tensor(asc.float32)
        asc.data_copy(t, x_gm[i * TILE :], TILE)
        que.enque(t)
        u = que.deque(asc.float32)
        asc.data_copy(z_gm[i * TILE :], u, TILE)
        que.free_tensor(u)


def test_tquebind_copies_through(rng):
    x = rng.random(4096, dtype=np.float32)
    z = np.zeros_like(x)
    passthrough[1, rt.current_stream()](x, z, 4096, 128)
    np.testing.assert_array_equal(z, x)
    assert "MTE2_MTE3" in passthrough.ir(x, z, 4096, 128)


@asc.jit
def fma_with_tbuf(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int]):
    """z = (x + y) * x, the sum kept in a TBuf temporary."""
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    y_gm.set_global_buffer(y, n)
    z_gm.set_global_buffer(z, n)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 1)
    qy = asc.TQue(asc.TPosition.VECIN, 1)
    qz = asc.TQue(asc.TPosition.VECOUT, 1)
    tmp = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(qx, 1, n * 4)
    pipe.init_buffer(qy, 1, n * 4)
    pipe.init_buffer(qz, 1, n * 4)
    pipe.init_buffer(tmp, n * 8)
    a = qx.alloc_tensor(asc.float32)
    b = qy.alloc_tensor(asc.float32)
    asc.data_copy(a, x_gm, n)
    asc.data_copy(b, y_gm, n)
    qx.enque(a)
    qy.enque(b)
    a = qx.deque(asc.float32)
    b = qy.deque(asc.float32)
    total = tmp.get(asc.float32, n)
    spare = tmp.get_with_offset(n, n * 4, asc.float32)
    asc.add(total, a, b, n)
    asc.mul(spare, total, a, n)
    c = qz.alloc_tensor(asc.float32)
    asc.data_copy(c, spare, n)
    qz.enque(c)
    qx.free_tensor(a)
    qy.free_tensor(b)
    c = qz.deque(asc.float32)
    asc.data_copy(z_gm, c, n)
    qz.free_tensor(c)


def test_tbuf_temporaries(rng):
    x, y = rng.random(512, dtype=np.float32), rng.random(512, dtype=np.float32)
    z = np.zeros_like(x)
    fma_with_tbuf[1, rt.current_stream()](x, y, z, 512)
    np.testing.assert_array_equal(z, (x + y) * x)
    text = fma_with_tbuf.ir(x, y, z, 512)
    assert text.count("pipe_barrier {pipe = V}") >= 2  # auto_sync orders the dependent vector ops


@asc.jit
def too_many_queues(x: asc.GlobalAddress):
    pipe = asc.TPipe()
    q1 = asc.TQue(asc.TPosition.VECIN, 2)
    q2 = asc.TQue(asc.TPosition.VECIN, 2)
    q3 = asc.TQue(asc.TPosition.VECIN, 2)
    q4 = asc.TQue(asc.TPosition.VECIN, 2)
    q5 = asc.TQue(asc.TPosition.VECIN, 2)
    pipe.init_buffer(q1, 2, 256)
    pipe.init_buffer(q2, 2, 256)
    pipe.init_buffer(q3, 2, 256)
    pipe.init_buffer(q4, 2, 256)
    pipe.init_buffer(q5, 2, 256)


def test_event_id_exhaustion_is_a_clear_error():
    with pytest.raises(asc.CodegenError, match=r"event ids exhausted.*'q5'.*HardEvent\.MTE2_V") as err:
        too_many_queues[1, rt.current_stream()](np.zeros(8, np.float32))
    assert "test_framework.py" in str(err.value) and "pipe.init_buffer(q5" in str(err.value)


@asc.jit
def user_event_ids(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int]):
    """Hand-placed flags with ids from alloc_event_id next to framework queues."""
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    z_gm.set_global_buffer(z, n)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 2)
    pipe.init_buffer(q, 2, n * 4)
    a = q.alloc_tensor(asc.float32)
    asc.data_copy(a, x_gm, n)
    q.enque(a)
    a = q.deque(asc.float32)
    out = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 65536, n)
    asc.add(out, a, a, n)
    eid = pipe.alloc_event_id(asc.HardEvent.V_MTE3)
    asc.set_flag(asc.HardEvent.V_MTE3, eid)
    asc.wait_flag(asc.HardEvent.V_MTE3, eid)
    pipe.release_event_id(eid, asc.HardEvent.V_MTE3)
    fetched = asc.get_tpipe_ptr().fetch_event_id(asc.HardEvent.MTE2_V)
    asc.data_copy(z_gm, out, n)
    q.free_tensor(a)
    if fetched == 2:  # ids 0 and 1 of MTE2_V belong to the queue's two buffers
        asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)


def test_alloc_fetch_release_event_ids(rng):
    x = rng.random(256, dtype=np.float32)
    z = np.zeros_like(x)
    user_event_ids[1, rt.current_stream()](x, z, 256)
    np.testing.assert_array_equal(z, x + x)
    assert "const {dtype = int32, value = 2}" in user_event_ids.ir(x, z, 256)


@asc.jit
def deque_without_buffers(x: asc.GlobalAddress):
    q = asc.TQue(asc.TPosition.VECIN, 1)
    t = q.deque(asc.float32)


@asc.jit
def runtime_buffer_count(x: asc.GlobalAddress, num: int):
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, num, 256)


def test_framework_misuse_is_reported():
    x = np.zeros(8, np.float32)
    # It compiles (pyasc's unit tests build such kernels) and fails when it runs, naming the queue.
    assert "local_tensor.create" in deque_without_buffers.ir(x)
    with pytest.raises(asc.errors.OutOfBoundsError, match=r"queue 'q' has no buffers \(call pipe.init_buffer first\)"):
        deque_without_buffers[1, rt.current_stream()](x)
    with pytest.raises(asc.CodegenError, match="must be a compile-time constant"):
        runtime_buffer_count[1, rt.current_stream()](x, 2)


@asc.jit
def queue_too_big(x: asc.GlobalAddress, n: int):
    pipe = asc.TPipe()
    big_queue = asc.TQue(asc.TPosition.VECIN, 2)
    pipe.init_buffer(big_queue, 2, n)


def test_queue_memory_beyond_ub_names_the_queue():
    with pytest.raises(asc.errors.OutOfBoundsError, match="big_queue") as err:
        queue_too_big[1, rt.current_stream()](np.zeros(8, np.float32), 100000)
    assert "196608" in str(err.value)


# ---- user tags travel with a queue's buffers ----


@asc.jit
def tag_stage_in(x_gm: asc.GlobalTensor, q: asc.TQue, tag: int):
    t = q.alloc_tensor(asc.float32)
    asc.data_copy(t, x_gm, 64)
    t.set_user_tag(tag)
    q.enque(t)


@asc.jit
def tagged_by_stage(x: asc.GlobalAddress, z: asc.GlobalAddress, tag: int):
    x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x, 64)
    z_gm.set_global_buffer(z, 64)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    o = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(que=q, num=1, len=256)
    pipe.init_buffer(que=o, num=1, len=256)
    for i in range(2):
        tag_stage_in(x_gm, q, tag + i)
        a = q.deque(asc.float32)
        c = o.alloc_tensor(asc.float32)
        if a.get_user_tag() > 10:
            asc.adds(c, a, 100.0, 64)
        else:
            asc.adds(c, a, 1.0, 64)
        o.enque(c)
        q.free_tensor(a)
        c2 = o.deque(asc.float32)
        asc.data_copy(z_gm, c2, 64)
        o.free_tensor(c2)


@pytest.mark.parametrize("tag, last_added", [(5, 1.0), (10, 100.0), (11, 100.0)])
def test_a_user_tag_set_before_enque_comes_out_of_deque(tag, last_added):
    """On the board a tag belongs to the buffer: the tensor deque hands over carries the tag its producer set
    (here in another device function), and a branch on it picks what to add. The second iteration's tag
    (tag + 1) decides the result."""
    x = np.arange(64, dtype=np.float32)
    z = np.zeros(64, np.float32)
    tagged_by_stage[1, rt.current_stream()](x, z, tag)
    np.testing.assert_array_equal(z, x + np.float32(last_added))
