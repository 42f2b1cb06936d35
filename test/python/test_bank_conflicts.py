"""Unified Buffer bank conflicts on the Model's clock (Atlas A2/A3), against Ascend C's best practice
"避免Unified Buffer的bank冲突": its write-write examples (8 destination blocks 512 bytes apart take 8 beats a repeat,
256 bytes apart 4), its read-read one (two sources in one bank group take 2), and a conflict-free layout taking
1. The Model adds (beats - 1) cycles a repeat to the vector pipe; the values are unchanged. Ascend 950's UB is not
the documented layout: no conflicts are charged there."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
import asc.runtime.config as config

REPEATS = 16


@asc.jit
def strided_adds(x: asc.GlobalAddress, z: asc.GlobalAddress, DST_AT: asc.ConstExpr[int],
                 DST_BLK: asc.ConstExpr[int]):  # fmt: skip
    """z's blocks = x's + 1, written DST_BLK blocks apart from DST_AT (each repeat reads 8 contiguous blocks)."""
    x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x, REPEATS * 128)
    z_gm.set_global_buffer(z, REPEATS * 128)
    src = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 0, REPEATS * 128)
    dst = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, DST_AT, 16 * 8 * REPEATS * 16)
    asc.data_copy(src, x_gm, REPEATS * 128)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.adds(dst, src, 1.0, 128, REPEATS, asc.UnaryRepeatParams(DST_BLK, 1, 8 * DST_BLK, 8))
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    for r in range(REPEATS):
        for b in range(8):
            asc.data_copy(z_gm[(r * 8 + b) * 16 :], dst[(r * 8 + b) * DST_BLK * 16 :], 16)


def vector_cycles(platform, dst_at, dst_blk):
    config.set_platform(config.Backend.Model, platform)
    x = np.arange(REPEATS * 128, dtype=np.float16)
    z = np.zeros_like(x)
    strided_adds[1, rt.current_stream()](x, z, dst_at, dst_blk)
    np.testing.assert_array_equal(z, x + np.float16(1))
    return rt.last_launch_stats().busy_cycles["V"]


@pytest.mark.parametrize("dst_blk,beats", [(16, 8), (8, 4), (4, 2), (2, 1), (1, 1)])
def test_write_conflicts_take_the_documented_beats(dst_blk, beats):
    """The page's 0x1FE00 with block stride 16 (all 8 blocks in one group) and 8 (two groups of 4); 4 makes
    four groups of 2, 2 eight groups of 1."""
    base = vector_cycles("Ascend910B1", 0x1FE00, 1)
    assert vector_cycles("Ascend910B1", 0x1FE00, dst_blk) - base == REPEATS * (beats - 1)


@asc.jit
def two_sources(x: asc.GlobalAddress, z: asc.GlobalAddress, Y_AT: asc.ConstExpr[int]):
    x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x, 4096)
    z_gm.set_global_buffer(z, 4096)
    a = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 0x10020, 4096)
    b = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, Y_AT, 4096)
    c = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 0x28000, 4096)
    asc.data_copy(a, x_gm, 4096)
    asc.data_copy(b, x_gm, 4096)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.add(c, a, b, 4096)  # 32 repeats of 128
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, c, 4096)


@pytest.mark.parametrize("platform,y_at,extra", [
    ("Ascend910B1", 0x20020, 32),  # the page's read-read example: bank 17 and bank 33, one group: 2 beats
    ("Ascend910B1", 0x20120, 0),  # 256 bytes further: disjoint groups
    ("Ascend950PR_9599", 0x20020, 0),  # not the documented layout: not charged
])  # fmt: skip
def test_two_sources_in_one_bank_group_take_two_beats(platform, y_at, extra):
    config.set_platform(config.Backend.Model, platform)
    x = np.arange(4096, dtype=np.float16) / 64
    z = np.zeros_like(x)
    cycles = {}
    for at in (0x20120, y_at):
        two_sources[1, rt.current_stream()](x, z, at)
        np.testing.assert_array_equal(z, x + x)
        cycles[at] = rt.last_launch_stats().busy_cycles["V"]
    assert cycles[y_at] - cycles[0x20120] == extra
