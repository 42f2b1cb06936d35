"""Pieces of the scripts the NPU tests run in a subprocess against the stand-in ACL (test_config.py,
test_npu_runtime.py): the same kernel and helpers, written once."""

# x[:n] *= 2 in one block, with its flags: the kernel every NPU script launches.
SCALE_KERNEL = """
@asc.jit
def scale(x: asc.GlobalAddress, n: int):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    buf = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, n)
    asc.data_copy(buf, x_gm, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.muls(buf, buf, 2.0, n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(x_gm, buf, n)
"""

# error(f, *args): the exception f raises, as "Type: message", or None.
ERROR_HELPER = """
def error(f, *args):
    try:
        f(*args)
    except Exception as e:
        return f"{type(e).__name__}: {e}"
    return None
"""
