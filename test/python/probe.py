"""Helpers to observe run-time scalar results: a kernel copies a block of ones
to z[slot*8:] when a condition holds, so a test reads the result from z."""

import numpy as np

import asc

SLOT = 8  # float32 elements per 32-byte block


@asc.jit
def mark(ones_gm: asc.GlobalTensor, z_gm: asc.GlobalTensor, slot):
    """Copies 8 ones to z[slot*8:] (the caller decides whether to call it)."""
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, SLOT)
    asc.data_copy(t, ones_gm, SLOT)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.data_copy(z_gm[slot * SLOT :], t, SLOT)
    asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
    asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)


@asc.jit
def views(ones: asc.GlobalAddress, z: asc.GlobalAddress):
    ones_gm = asc.GlobalTensor()
    ones_gm.set_global_buffer(ones, SLOT)
    z_gm = asc.GlobalTensor()
    z_gm.set_global_buffer(z)
    return ones_gm, z_gm


def buffers(slots):
    return np.ones(SLOT, np.float32), np.zeros(slots * SLOT, np.float32)


def marked(z):
    """Which slots were marked."""
    blocks = z.reshape(-1, SLOT)
    assert np.all((blocks == 0) | (blocks == 1))
    return [bool(b[0]) for b in blocks]
