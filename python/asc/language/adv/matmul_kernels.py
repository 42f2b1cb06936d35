"""The device functions behind asc.adv.Matmul, written in the kernel language
itself. `mm` is the Matmul object: its tiling (the kernel's copy of the
TCubeTiling), operands and options are read while compiling; the sizes are
run-time values from the tiling.

Memory use, per core: A's base block in L1 at 0 and in L0A, B's in L1 at
128 KiB and in L0B, the bias row in L1 at 384 KiB and the bias table, the
result block in L0C. B reaches L0B's Zn layout straight from Bᵀ, through
load_data's 16 x 16 transpose (2-byte types) or load_data_with_transpose
(float32 in 16-row slabs, int8 in 32 x 32 squares)."""

from __future__ import annotations

import asc
from asc.runtime.jit import jit

WORKSPACE_ZEROS = 15 * 1024 * 1024  # the workspace's last MiB is never written: zeros for L1 padding
WORKSPACE_BLOCK = 256 * 1024  # bytes of workspace per vector core for get_tensor_c


@jit
def _shape(mm):
    """This core's M, N, K: the tiling's single-core sizes, or the tails set_tail gave."""
    t = mm.tiling
    sm = t.single_core_m + 0
    sn = t.single_core_n + 0
    sk = t.single_core_k + 0
    tail_m, tail_n, tail_k = mm.tails
    if tail_m != -1:
        sm = tail_m + 0
    if tail_n != -1:
        sn = tail_n + 0
    if tail_k != -1:
        sk = tail_k + 0
    return sm, sn, sk


@jit
def _block_counts(mm):
    t = mm.tiling
    sm, sn, sk = _shape(mm)
    return (sm + t.base_m - 1) // t.base_m, (sn + t.base_n - 1) // t.base_n


@jit
def _compute(mm, m0, n0, cm, cn):
    """The block C[m0 : m0 + cm, n0 : n0 + cn] of this core's share into L0C, K in base_k steps."""
    t = mm.tiling
    sm, sn, sk = _shape(mm)
    a_dt = mm.a_type.dtype
    size = a_dt.sizeof()
    c0 = 32 // size
    frac = 16 * c0
    acc_dt = asc.int32 if a_dt == asc.int8 else asc.float32
    a1 = asc.LocalTensor(a_dt, asc.TPosition.A1, 0, 131072 // size)
    b1 = asc.LocalTensor(a_dt, asc.TPosition.B1, 131072, 262144 // size)
    a2 = asc.LocalTensor(a_dt, asc.TPosition.A2, 0, 65536 // size)
    b2 = asc.LocalTensor(a_dt, asc.TPosition.B2, 0, 65536 // size)
    c1 = asc.LocalTensor(acc_dt, asc.TPosition.CO1, 0, 32768)
    m1 = (cm + 15) // 16
    n1 = (cn + 15) // 16
    for k0 in range(0, sk, t.base_k):
        ck = min(t.base_k, sk - k0)
        k1 = (ck + c0 - 1) // c0
        k16 = (ck + 15) // 16 * 16
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        if mm.a_trans:  # A^T (K x M) as Nz: 16 x 16 fractals (k rows, m columns) to transpose into Zz
            asc.data_copy(a1, mm.a_gm[k0 * mm.org_m + m0 :], asc.Nd2NzParams(1, ck, cm, 0, mm.org_m, k16, 1, 0))
        else:
            asc.data_copy(a1, mm.a_gm[m0 * mm.org_ka + k0 :], asc.Nd2NzParams(1, cm, ck, 0, mm.org_ka, m1 * 16, 1, 0))
        if mm.b_trans:
            asc.data_copy(b1, mm.b_gm[n0 * mm.org_kb + k0 :], asc.Nd2NzParams(1, cn, ck, 0, mm.org_kb, n1 * 16, 1, 0))
        elif c0 == 16:
            asc.data_copy(b1, mm.b_gm[k0 * mm.org_n + n0 :], asc.Nd2NzParams(1, ck, cn, 0, mm.org_n, k16, 1, 0))
        elif c0 == 8:  # float32: 16-row slabs, zero-padded
            slab = 16 * n1 * 16
            zeros = asc.GlobalTensor()
            zeros.set_global_buffer(mm.workspace.reinterpret(a_dt) + WORKSPACE_ZEROS // size)
            if ck % 16 != 0:
                asc.data_copy(b1, zeros, asc.Nd2NzParams(1, 1, k16 // 16 * slab, 0, 0, 1, 1, 0))
                asc.pipe_barrier(asc.PipeID.PIPE_MTE2)
            if ck // 16 > 0:
                asc.data_copy(
                    b1,
                    mm.b_gm[k0 * mm.org_n + n0 :],
                    asc.Nd2NzParams(ck // 16, 16, cn, 16 * mm.org_n, mm.org_n, 16, 1, slab),
                )
            if ck % 16 > 0:
                asc.data_copy(b1[ck // 16 * slab :], mm.b_gm[(k0 + ck // 16 * 16) * mm.org_n + n0 :],
                              asc.Nd2NzParams(1, ck % 16, cn, 0, mm.org_n, 16, 1, 0))  # fmt: skip
        else:  # int8: rows padded to 32, two stacked 16 x 32 fractals per square
            asc.data_copy(b1, mm.b_gm[k0 * mm.org_n + n0 :], asc.Nd2NzParams(1, ck, cn, 0, mm.org_n, k1 * 32, 1, 0))
        asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
        asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
        for i in range(m1):
            if mm.a_trans:  # row block i's K fractals are consecutive in A^T's Nz
                asc.load_data(a2[i * k1 * frac :], a1, asc.LoadData2DParams(i * (k16 // 16), k1, 1, 0, 0, True, 0))
            else:
                asc.load_data(a2[i * k1 * frac :], a1[i * frac :], asc.LoadData2DParams(0, k1, m1, 0, 0, False, 0))
        if mm.b_trans:
            for kk in range(k1):
                asc.load_data(b2[kk * n1 * frac :], b1, asc.LoadData2DParams(kk * n1, n1, 1, 0, 0, False, 0))
        elif c0 == 16:
            for kk in range(k1):
                asc.load_data(b2[kk * n1 * frac :], b1, asc.LoadData2DParams(kk, n1, k16 // 16, 0, 0, True, 0))
        elif c0 == 8:
            for kb in range(k16 // 16):
                asc.load_data_with_transpose(b2[2 * kb * n1 * frac :], b1,
                                             asc.LoadData2dTransposeParams(kb * n1, n1, 1, 0, n1 - 1, 0))  # fmt: skip
        else:
            for kb in range(k1):
                asc.load_data_with_transpose(b2[kb * n1 * frac :], b1,
                                             asc.LoadData2dTransposeParams(kb, (n1 + 1) // 2, k1, 1, 0, 0))  # fmt: skip
        asc.set_flag(asc.HardEvent.MTE1_M, 0)
        asc.wait_flag(asc.HardEvent.MTE1_M, 0)
        if k0 == 0:
            if mm.has_bias:
                _mmad_first(mm, c1, a2, b2, acc_dt, n0, cm, cn, ck)
            else:
                asc.mmad(c1, a2, b2, asc.MmadParams(cm, cn, ck))
        else:
            asc.mmad(c1, a2, b2, asc.MmadParams(cm, cn, ck, cmatrix_init_val=False))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    return c1


@jit
def _mmad_first(mm, c1, a2, b2, acc_dt, n0, cm, cn, ck):
    """The first K step: L0C = bias + A x B when the bias is set (at run time), else A x B."""
    if mm.bias_flag != 0:
        bias1 = asc.LocalTensor(acc_dt, asc.TPosition.C1, 393216, 1024)
        bt = asc.LocalTensor(acc_dt, asc.TPosition.C2, 0, 256)
        asc.data_copy(bias1, mm.bias_gm[n0:], asc.Nd2NzParams(1, 1, cn, 0, cn, 1, 1, 0))  # exactly cn, zero-padded
        asc.set_flag(asc.HardEvent.MTE2_MTE1, 1)
        asc.wait_flag(asc.HardEvent.MTE2_MTE1, 1)
        asc.data_copy(bt, bias1, (cn + 7) // 8 * 8)
        asc.set_flag(asc.HardEvent.MTE1_M, 1)
        asc.wait_flag(asc.HardEvent.MTE1_M, 1)
        asc.mmad(c1, a2, b2, bt, asc.MmadParams(cm, cn, ck))
    else:
        asc.mmad(c1, a2, b2, asc.MmadParams(cm, cn, ck))


@jit
def _fixpipe_out(mm, dst, c1, cm, cn, row):
    """L0C -> GM, rows `row` elements apart, converted to C's dtype."""
    m1 = (cm + 15) // 16
    quant = asc.QuantModes.F322F16 if mm.c_type.dtype == asc.float16 else asc.QuantModes.NoQuant
    asc.fixpipe(dst, c1, asc.FixpipeParamsV220(cn, cm, m1 * 16, row, quant))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@jit
def _iterate_all(mm, c_gm):
    t = mm.tiling
    sm, sn, sk = _shape(mm)
    m_iter, n_iter = _block_counts(mm)
    for mi in range(m_iter):
        for ni in range(n_iter):
            m0 = mi * t.base_m
            n0 = ni * t.base_n
            cm = min(t.base_m, sm - m0)
            cn = min(t.base_n, sn - n0)
            c1 = _compute(mm, m0, n0, cm, cn)
            _fixpipe_out(mm, c_gm[m0 * mm.org_n + n0 :], c1, cm, cn, mm.org_n)


@jit
def _begin_block(mm, count, m_iter, n_iter):
    """Iteration `count` of `with mm.iterate()`: which block (M first for iterate_order 0), computed."""
    t = mm.tiling
    sm, sn, sk = _shape(mm)
    mi = count % m_iter
    ni = count // m_iter
    if t.iterate_order == 1:
        mi = count // n_iter
        ni = count % n_iter
    m0 = mi * t.base_m
    n0 = ni * t.base_n
    cm = min(t.base_m, sm - m0)
    cn = min(t.base_n, sn - n0)
    return m0, n0, cm, cn, _compute(mm, m0, n0, cm, cn)


@jit
def _block_to_gm(mm, c_gm, sequential):
    m0, n0, cm, cn, c1 = mm.current
    if sequential:
        _fixpipe_out(mm, c_gm, c1, cm, cn, cn)
    else:
        _fixpipe_out(mm, c_gm[m0 * mm.org_n + n0 :], c1, cm, cn, mm.org_n)


@jit
def _block_to_ub(mm, ub):
    """Atlas A2 has no L0C -> UB path: L0C -> this core's workspace block -> the UB tensor, dense."""
    m0, n0, cm, cn, c1 = mm.current
    ws = asc.GlobalTensor()
    ws.set_global_buffer(mm.workspace.reinterpret(ub.dtype) + asc.get_block_idx() * (WORKSPACE_BLOCK // 4))
    _fixpipe_out(mm, ws, c1, cm, cn, cn)
    asc.data_copy(ub, ws, cm * cn)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
