"""The device functions behind asc.adv.Matmul, written in the kernel language
itself. `mm` is the Matmul object: its tiling (the kernel's copy of the
TCubeTiling), operands and options are read while compiling; the sizes are
run-time values from the tiling.

Memory use, per core (the one-block-at-a-time path, _compute_serial): A's base
block in L1 at 0 and in L0A, B's in L1 at 128 KiB and in L0B, the bias row in
L1 at 384 KiB and the bias table, the result block in L0C. The streamed path
(_compute_streamed: L1 chunks of stepKa / stepKb base blocks, double-buffered
in L1 and in L0) fills all of L1 with A's and B's chunks. B reaches L0B's Zn layout straight from Bᵀ, through
load_data's 16 x 16 transpose (2-byte types) or load_data_with_transpose
(float32 in 16-row slabs, int8 in 32 x 32 squares)."""

from __future__ import annotations

import asc
from asc.runtime.jit import jit

WORKSPACE_ZEROS = 15 * 1024 * 1024  # the workspace's last MiB is never written: zeros for L1 padding
WORKSPACE_BLOCK = 256 * 1024  # bytes of workspace per vector core for get_tensor_c
WORKSPACE_BIAS = 14 * 1024 * 1024  # a LocalTensor bias staged here, 16 KiB per core
QUANT_L1 = 458752  # L1 byte address of a block's quant vector words (after A, B and the bias row)
SPARSE_INDEX_L1 = 327680  # L1 byte address of a sparse B block's index fractals (B's dense half ends before)


def _quant_mode(mm):
    """The fixpipe quant mode set_quant_scalar / set_quant_vector select for this Matmul's dtypes, or None."""
    if mm.quant is None:
        return None
    a, c = mm.a_type.dtype, mm.c_type.dtype
    vector = mm.quant[0] == "vector"
    if a == asc.int8 and c == asc.float16:
        return asc.QuantModes.VDEQF16 if vector else asc.QuantModes.DEQF16
    if a == asc.int8 and c == asc.int8:
        return asc.QuantModes.VREQ8 if vector else asc.QuantModes.REQ8
    if a in (asc.float16, asc.bfloat16) and c == asc.int8:
        return asc.QuantModes.VQF322B8_PRE if vector else asc.QuantModes.QF322B8_PRE
    return None


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


def _streams(mm):
    """Whether _compute_streamed handles this Matmul: A and B matrices in GM (not scalars, not sparse), A not
    transposed, B transposed or of a 2-byte type, and no bias or quant vector (their L1 rows are where the
    streamed path keeps its second buffers)."""
    if mm.a_is_scalar or mm.b_is_scalar or mm.b_sparse or mm.a_trans or mm.has_bias:
        return False
    if mm.quant is not None and mm.quant[0] == "vector":
        return False
    return mm.b_trans or mm.a_type.dtype.sizeof() == 2


@jit
def _compute(mm, a_gm, b_gm, bias_at, m0, n0, cm, cn):
    """The block C[m0 : m0 + cm, n0 : n0 + cn] into L0C: streamed through L1 and L0 when _streams(mm), else
    one base block at a time (_compute_serial)."""
    if _streams(mm):
        c1 = _compute_streamed(mm, a_gm, b_gm, m0, n0, cm, cn)
    else:
        c1 = _compute_serial(mm, a_gm, b_gm, bias_at, m0, n0, cm, cn)
    return c1


@jit
def _compute_streamed(mm, a_gm, b_gm, m0, n0, cm, cn):
    """The block C[m0 : m0 + cm, n0 : n0 + cn] into L0C the way Ascend C's MDL template runs it: A's K in
    chunks of stepKa x baseK and B's of stepKb x baseK, each one MTE2 copy into one of two L1 buffers (A's at
    0 and 128 KiB, B's at 256 and 384 KiB), so the next chunk loads while MTE1 reads this one; L0A and L0B
    ping-pong (two halves) so MTE1 fills one while the cube multiplies the other. The steps come from the
    tiling, cut to what a 128 KiB buffer holds. Flags: MTE2_MTE1 / MTE1_MTE2 ids 0-1 (A's buffers) and 2-3
    (B's), MTE1_M / M_MTE1 ids 0-1 (the L0 halves); each free flag is set once up front and waited once at
    the end."""
    t = mm.tiling
    sm, sn, sk = _shape(mm)
    a_dt = mm.a_type.dtype
    size = a_dt.sizeof()
    c0 = 32 // size
    frac = 16 * c0
    acc_dt = asc.int32 if a_dt == asc.int8 else asc.float32
    a1 = asc.LocalTensor(a_dt, asc.TPosition.A1, 0, 262144 // size)
    b1 = asc.LocalTensor(a_dt, asc.TPosition.B1, 262144, 262144 // size)
    a2 = asc.LocalTensor(a_dt, asc.TPosition.A2, 0, 65536 // size)
    b2 = asc.LocalTensor(a_dt, asc.TPosition.B2, 0, 65536 // size)
    c1 = asc.LocalTensor(acc_dt, asc.TPosition.CO1, 0, 32768)
    bk = t.base_k + 0
    m1 = (cm + 15) // 16
    n1 = (cn + 15) // 16
    kb1 = (bk + c0 - 1) // c0  # fractals along K in a whole base step
    aligned = bk % 16 == 0  # sub-steps of a chunk start on whole fractals (and B's 16-row blocks)
    step_a = max(1, min(t.step_k_a, 131072 // (m1 * kb1 * frac * size)))
    step_b = max(1, min(t.step_k_b, 131072 // (n1 * kb1 * frac * size)))
    if not aligned:
        step_a = 1
        step_b = 1
    # Two L1 buffers per matrix (the next chunk loads while MTE1 reads this one) unless the tiling's depth holds
    # fewer than two chunks (depthA1 < 2 stepKa: Ascend C's L1 without double buffering): then one, and each chunk's
    # copy waits for MTE1 to finish with the last
    bufs_a = 2
    if t.depth_a1 > 0 and t.depth_a1 < 2 * step_a:
        bufs_a = 1
    bufs_b = 2
    if t.depth_b1 > 0 and t.depth_b1 < 2 * step_b:
        bufs_b = 1
    l0_halves = 1
    if max(m1, n1) * kb1 * frac * size <= 32768:
        l0_halves = 2
    steps = (sk + bk - 1) // bk
    for e in range(2):
        asc.set_flag(asc.HardEvent.MTE1_MTE2, e)
        asc.set_flag(asc.HardEvent.MTE1_MTE2, 2 + e)
        asc.set_flag(asc.HardEvent.M_MTE1, e)
    for ks in range(steps):
        k0 = ks * bk
        ck = min(bk, sk - k0)
        k1 = (ck + c0 - 1) // c0
        ja = ks % step_a
        ia = (ks // step_a) % bufs_a
        ka = (ks - ja) * bk  # A's chunk starts here, B's at kb
        jb = ks % step_b
        ib = (ks // step_b) % bufs_b
        kb = (ks - jb) * bk
        a_at = ia * (131072 // size)
        b_at = ib * (131072 // size)
        if ja == 0:  # MTE2: A's next chunk into its buffer, once MTE1 is done with what it held
            asc.wait_flag(asc.HardEvent.MTE1_MTE2, ia)
            kc = min(step_a * bk, sk - ka)
            asc.data_copy(a1[a_at:], a_gm[m0 * mm.a_row + ka :], asc.Nd2NzParams(1, cm, kc, 0, mm.a_row, m1 * 16, 1, 0))
            asc.set_flag(asc.HardEvent.MTE2_MTE1, ia)
        kcb = min(step_b * bk, sk - kb)
        k16 = (kcb + 15) // 16 * 16  # B's chunk rows (K), when B is not transposed
        if jb == 0:
            asc.wait_flag(asc.HardEvent.MTE1_MTE2, 2 + ib)
            if mm.b_trans:
                asc.data_copy(b1[b_at:], b_gm[n0 * mm.b_row + kb :],
                              asc.Nd2NzParams(1, cn, kcb, 0, mm.b_row, n1 * 16, 1, 0))  # fmt: skip
            else:
                asc.data_copy(b1[b_at:], b_gm[kb * mm.b_row + n0 :],
                              asc.Nd2NzParams(1, kcb, cn, 0, mm.b_row, k16, 1, 0))  # fmt: skip
            asc.set_flag(asc.HardEvent.MTE2_MTE1, 2 + ib)
        # MTE1: this step's base blocks out of the chunks into an L0 half, once the cube is done with it
        p = ks % l0_halves
        a2p = a2[p * (32768 // size) :]
        b2p = b2[p * (32768 // size) :]
        asc.wait_flag(asc.HardEvent.M_MTE1, p)
        if ja == 0:
            asc.wait_flag(asc.HardEvent.MTE2_MTE1, ia)
        if jb == 0:
            asc.wait_flag(asc.HardEvent.MTE2_MTE1, 2 + ib)
        for i in range(m1):  # L0A holds row block i's K fractals at i * k1.. (Zz)
            asc.load_data(a2p[i * k1 * frac :], a1[a_at + (ja * kb1 * m1 + i) * frac :],
                          asc.LoadData2DParams(0, k1, m1, 0, 0, False, 0))  # fmt: skip
        if mm.b_trans:
            for kk in range(k1):
                asc.load_data(b2p[kk * n1 * frac :], b1[b_at:],
                              asc.LoadData2DParams((jb * kb1 + kk) * n1, n1, 1, 0, 0, False, 0))  # fmt: skip
        else:
            for kk in range(k1):
                asc.load_data(b2p[kk * n1 * frac :], b1[b_at:],
                              asc.LoadData2DParams(jb * kb1 + kk, n1, k16 // 16, 0, 0, True, 0))  # fmt: skip
        if ja == step_a - 1 or ks == steps - 1:  # the chunk's last step: its buffer may be refilled
            asc.set_flag(asc.HardEvent.MTE1_MTE2, ia)
        if jb == step_b - 1 or ks == steps - 1:
            asc.set_flag(asc.HardEvent.MTE1_MTE2, 2 + ib)
        asc.set_flag(asc.HardEvent.MTE1_M, p)
        asc.wait_flag(asc.HardEvent.MTE1_M, p)
        if k0 == 0:
            asc.mmad(c1, a2p, b2p, asc.MmadParams(cm, cn, ck))
        else:
            asc.mmad(c1, a2p, b2p, asc.MmadParams(cm, cn, ck, cmatrix_init_val=False))
        asc.set_flag(asc.HardEvent.M_MTE1, p)
    for e in range(2):
        asc.wait_flag(asc.HardEvent.MTE1_MTE2, e)
        asc.wait_flag(asc.HardEvent.MTE1_MTE2, 2 + e)
        asc.wait_flag(asc.HardEvent.M_MTE1, e)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    return c1


@jit
def _compute_serial(mm, a_gm, b_gm, bias_at, m0, n0, cm, cn):
    """The block C[m0 : m0 + cm, n0 : n0 + cn] of this core's share into L0C, K in base_k steps. A's rows
    in GM are mm.a_row elements long (M of them, or K when A is stored transposed), B's mm.b_row; the bias
    row starts at element bias_at of the bias tensor."""
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
        # A^T (K x M) is loaded like B (K x N) and turned round the same way on its way to L0A; a scalar A
        # (set_tensor_a(scalar)) is no copy at all: L0A is filled with it below
        if mm.a_is_scalar:
            pass
        elif mm.a_trans and c0 == 16:  # Nz: 16 x 16 fractals (k rows, m columns) to transpose into Zz
            asc.data_copy(a1, a_gm[k0 * mm.a_row + m0 :], asc.Nd2NzParams(1, ck, cm, 0, mm.a_row, k16, 1, 0))
        elif mm.a_trans and c0 == 8:
            _slabs_to_l1(mm, a1, a_gm[k0 * mm.a_row + m0 :], mm.a_row, ck, cm)
        elif mm.a_trans:
            asc.data_copy(a1, a_gm[k0 * mm.a_row + m0 :], asc.Nd2NzParams(1, ck, cm, 0, mm.a_row, k1 * 32, 1, 0))
        else:
            asc.data_copy(a1, a_gm[m0 * mm.a_row + k0 :], asc.Nd2NzParams(1, cm, ck, 0, mm.a_row, m1 * 16, 1, 0))
        if mm.b_is_scalar:
            pass
        elif mm.b_sparse:
            _sparse_b_to_l1(mm, b_gm, b1, n0, k0, cn, ck)
        elif mm.b_trans:
            asc.data_copy(b1, b_gm[n0 * mm.b_row + k0 :], asc.Nd2NzParams(1, cn, ck, 0, mm.b_row, n1 * 16, 1, 0))
        elif c0 == 16:
            asc.data_copy(b1, b_gm[k0 * mm.b_row + n0 :], asc.Nd2NzParams(1, ck, cn, 0, mm.b_row, k16, 1, 0))
        elif c0 == 8:
            _slabs_to_l1(mm, b1, b_gm[k0 * mm.b_row + n0 :], mm.b_row, ck, cn)
        else:  # int8: rows padded to 32, two stacked 16 x 32 fractals per square
            asc.data_copy(b1, b_gm[k0 * mm.b_row + n0 :], asc.Nd2NzParams(1, ck, cn, 0, mm.b_row, k1 * 32, 1, 0))
        asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
        asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
        # L0A holds row block i's K fractals at i * k1.. (Zz)
        if mm.a_is_scalar:  # every fractal of the block the scalar (512-byte blocks)
            asc.init_const_value(a2, asc.InitConstValueParams(1, m1 * k1, 0, mm.a_scalar))
        elif mm.a_trans and c0 == 16:  # row block i's K fractals are consecutive in A^T's Nz
            for i in range(m1):
                asc.load_data(a2[i * k1 * frac :], a1, asc.LoadData2DParams(i * (k16 // 16), k1, 1, 0, 0, True, 0))
        elif mm.a_trans and c0 == 8:
            # square (slab kb, column block i) turns into fractals 2kb and 2kb + 1 of row block i; when k1 is
            # odd the last slab's second one spills into the next row block's first, so slab 0 goes last
            slabs = k16 // 16
            for r in range(slabs):
                kb = slabs - 1 - r
                asc.load_data_with_transpose(a2[2 * kb * frac :], a1,
                                             asc.LoadData2dTransposeParams(kb * m1, m1, 1, k1 - 1, 0, 0))  # fmt: skip
        elif mm.a_trans:  # int8: square (kb, i) of 32 x 32 turns into fractal kb of row blocks 2i and 2i + 1
            for kb in range(k1):
                params = asc.LoadData2dTransposeParams(kb, (m1 + 1) // 2, k1, 2 * k1 - 1, k1 - 1, 0)
                asc.load_data_with_transpose(a2[kb * frac :], a1, params)
        else:
            for i in range(m1):
                asc.load_data(a2[i * k1 * frac :], a1[i * frac :], asc.LoadData2DParams(0, k1, m1, 0, 0, False, 0))
        if mm.b_is_scalar:
            asc.init_const_value(b2, asc.InitConstValueParams(1, k1 * n1, 0, mm.b_scalar))
        elif mm.b_sparse:  # each dense fractal with its index fractal, which mmad_with_sparse reads
            for kb in range(((ck + 3) // 4 * 2 + 31) // 32):
                asc.load_data_with_sparse(b2[kb * n1 * frac :], b1, _sparse_index_l1(),
                                          asc.LoadData2DParams(kb * n1, n1, 0, 0, 0, False, 0))  # fmt: skip
        elif mm.b_trans:
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
        if mm.b_sparse:  # A's four values along K reduced to the two the index picks (no bias: set_bias refuses)
            if k0 == 0:
                asc.mmad_with_sparse(c1, a2, b2, asc.MmadParams(cm, cn, ck))
            else:
                asc.mmad_with_sparse(c1, a2, b2, asc.MmadParams(cm, cn, ck, cmatrix_init_val=False))
        elif k0 == 0:
            if mm.has_bias:
                _mmad_first(mm, bias_at, c1, a2, b2, acc_dt, n0, cm, cn, ck)
            else:
                asc.mmad(c1, a2, b2, asc.MmadParams(cm, cn, ck))
        else:
            asc.mmad(c1, a2, b2, asc.MmadParams(cm, cn, ck, cmatrix_init_val=False))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    return c1


@jit
def _sparse_index_l1():
    return asc.LocalTensor(asc.uint8, asc.TPosition.B1, SPARSE_INDEX_L1, 65536)


@jit
def _sparse_b_to_l1(mm, b_gm, b1, n0, k0, cn, ck):
    """A sparse B's block into L1: the densified Bᵀ rows n0.. (two values for every four K, from k0 / 2) as
    Nz fractals of 16 rows x 32 values, column blocks n1 * 16 rows apart (L0B's Zn order, which
    load_data_with_sparse copies fractal by fractal), and their index fractals (128 bytes each) from the NZ
    index matrix in GM, whose K blocks are ceil(N / 16) fractals apart. k0 is a multiple of 64 (baseK)."""
    n1 = (cn + 15) // 16
    kd = (ck + 3) // 4 * 2
    n_all = (mm.org_n + 15) // 16
    asc.data_copy(b1, b_gm[n0 * mm.b_row + k0 // 2 :], asc.Nd2NzParams(1, cn, kd, 0, mm.b_row, n1 * 16, 1, 0))
    index = _sparse_index_l1()
    for kb in range((kd + 31) // 32):
        asc.data_copy(index[kb * n1 * 128 :], mm.sparse_index[((k0 // 64 + kb) * n_all + n0 // 16) * 128 :], n1 * 128)


@jit
def _slabs_to_l1(mm, l1, gm, row, rows, cols):
    """float32 rows x cols (rows along K, `row` elements apart in GM) into L1 as 16-row slabs of Nz,
    zero-padded to whole slabs: each 16 x 16 square is two fractals load_data_with_transpose turns round."""
    slab = (cols + 15) // 16 * 256
    if rows % 16 != 0:
        zeros = asc.GlobalTensor()
        zeros.set_global_buffer(mm.workspace.reinterpret(asc.float32) + WORKSPACE_ZEROS // 4)
        asc.data_copy(l1, zeros, asc.Nd2NzParams(1, 1, (rows + 15) // 16 * slab, 0, 0, 1, 1, 0))
        asc.pipe_barrier(asc.PipeID.PIPE_MTE2)
    if rows // 16 > 0:
        asc.data_copy(l1, gm, asc.Nd2NzParams(rows // 16, 16, cols, 16 * row, row, 16, 1, slab))
    if rows % 16 > 0:
        asc.data_copy(l1[rows // 16 * slab :], gm[rows // 16 * 16 * row :],
                      asc.Nd2NzParams(1, rows % 16, cols, 0, row, 16, 1, 0))  # fmt: skip


@jit
def _mmad_first(mm, bias_at, c1, a2, b2, acc_dt, n0, cm, cn, ck):
    """The first K step: L0C = bias + A x B when the bias is set (at run time), else A x B."""
    if mm.bias_flag != 0:
        bias1 = asc.LocalTensor(mm.bias_gm.dtype, asc.TPosition.C1, 393216, 1024)  # C1 -> C2 converts a half bias
        bt = asc.LocalTensor(acc_dt, asc.TPosition.C2, 0, 256)
        asc.data_copy(
            bias1, mm.bias_gm[bias_at + n0 :], asc.Nd2NzParams(1, 1, cn, 0, cn, 1, 1, 0)
        )  # exactly cn, zero-padded
        asc.set_flag(asc.HardEvent.MTE2_MTE1, 1)
        asc.wait_flag(asc.HardEvent.MTE2_MTE1, 1)
        asc.data_copy(bt, bias1, (cn + 7) // 8 * 8)
        asc.set_flag(asc.HardEvent.MTE1_M, 1)
        asc.wait_flag(asc.HardEvent.MTE1_M, 1)
        asc.mmad(c1, a2, b2, bt, asc.MmadParams(cm, cn, ck))
    else:
        asc.mmad(c1, a2, b2, asc.MmadParams(cm, cn, ck))


@jit
def _fixpipe_out(mm, dst, c1, n0, cm, cn, row, atomic):
    """L0C -> GM, rows `row` elements apart, converted to C's dtype (quantised as set_quant_scalar /
    set_quant_vector say, columns n0..n0 + cn of the quant vector); `atomic` 1, 2, 3 adds to / keeps the
    max / min of what GM holds (en_atomic)."""
    m1 = (cm + 15) // 16
    quant = asc.QuantModes.F322F16 if mm.c_type.dtype == asc.float16 else asc.QuantModes.NoQuant
    mode = _quant_mode(mm)
    if atomic == 1:
        asc.set_atomic_add(mm.c_type.dtype)
    elif atomic == 2:
        asc.set_atomic_max(mm.c_type.dtype)
    elif atomic == 3:
        asc.set_atomic_min(mm.c_type.dtype)
    if mode is None:
        asc.fixpipe(dst, c1, asc.FixpipeParamsV220(cn, cm, m1 * 16, row, quant))
    elif mm.quant[0] == "scalar":
        asc.fixpipe(dst, c1, asc.FixpipeParamsV220(cn, cm, m1 * 16, row, mode, deq_scalar=mm.quant[1]))
    else:  # one quant word per column, staged in L1 (the uint64 words 32-byte blocks: 4 columns each)
        words = asc.LocalTensor(asc.uint64, asc.TPosition.A1, QUANT_L1, 1024)
        asc.data_copy(words, mm.quant[1][n0:], (cn + 3) // 4 * 4)
        asc.set_flag(asc.HardEvent.MTE2_FIX, 2)
        asc.wait_flag(asc.HardEvent.MTE2_FIX, 2)
        asc.fixpipe(dst, c1, words, asc.FixpipeParamsV220(cn, cm, m1 * 16, row, mode))
    if atomic != 0:
        asc.set_atomic_none()
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@jit
def _iterate_all(mm, a_gm, b_gm, bias_at, c_gm, atomic):
    """This core's whole share of C, block by block, into c_gm (rows mm.c_row elements apart)."""
    t = mm.tiling
    sm, sn, sk = _shape(mm)
    m_iter, n_iter = _block_counts(mm)
    for mi in range(m_iter):
        for ni in range(n_iter):
            m0 = mi * t.base_m
            n0 = ni * t.base_n
            cm = min(t.base_m, sm - m0)
            cn = min(t.base_n, sn - n0)
            c1 = _compute(mm, a_gm, b_gm, bias_at, m0, n0, cm, cn)
            _fixpipe_out(mm, c_gm[m0 * mm.c_row + n0 :], c1, n0, cm, cn, mm.c_row, atomic)


@jit
def _begin_block(mm, count, m_iter, n_iter):
    """Iteration `count` of `with mm.iterate()`: which block (M first for iterate_order 0), computed."""
    t = mm.tiling
    sm, sn, sk = _shape(mm)
    mi = count % m_iter
    ni = count // m_iter
    if mm.config_order == 1:
        mi = count // n_iter
        ni = count % n_iter
    elif mm.config_order is None and t.iterate_order == 1:
        mi = count // n_iter
        ni = count % n_iter
    m0 = mi * t.base_m
    n0 = ni * t.base_n
    cm = min(t.base_m, sm - m0)
    cn = min(t.base_n, sn - n0)
    return m0, n0, cm, cn, _compute(mm, mm.a_gm, mm.b_gm, 0, m0, n0, cm, cn)


@jit
def _block_to_gm(mm, c_gm, sequential, atomic):
    m0, n0, cm, cn, c1 = mm.current
    if sequential:
        _fixpipe_out(mm, c_gm, c1, n0, cm, cn, cn, atomic)
    else:
        _fixpipe_out(mm, c_gm[m0 * mm.c_row + n0 :], c1, n0, cm, cn, mm.c_row, atomic)


@jit
def _block_to_ub(mm, ub):
    """Atlas A2 has no L0C -> UB path: L0C -> this core's workspace block -> the UB tensor, dense."""
    m0, n0, cm, cn, c1 = mm.current
    ws = asc.GlobalTensor()
    ws.set_global_buffer(mm.workspace.reinterpret(ub.dtype) + asc.get_block_idx() * (WORKSPACE_BLOCK // 4))
    _fixpipe_out(mm, ws, c1, n0, cm, cn, cn, 0)
    asc.data_copy(ub, ws, cm * cn)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)


@jit
def _iterate_batch(mm, c_gm, batch_a, batch_b, steps, atomic):
    """batch_c = max(batch_a, batch_b) products, each a whole iterate_all: C_i = A_(i // (batch_c / batch_a))
    x B_(i // (batch_c / batch_b)) (+ bias_i). `steps` are the elements from one matrix to the next in A,
    B, C and the bias; the rows inside each are mm.a_row / b_row / c_row apart."""
    step_a, step_b, step_c, step_bias = steps
    batch_c = max(batch_a, batch_b)
    for i in range(batch_c):
        ia = i // (batch_c // batch_a)
        ib = i // (batch_c // batch_b)
        _iterate_all(mm, mm.a_gm[ia * step_a :], mm.b_gm[ib * step_b :], i * step_bias, c_gm[i * step_c :], atomic)


@jit
def _block_to_workspace(mm, out):
    """get_tensor_c(): the current block, dense (cn per row), into `out` (this core's workspace slice)."""
    m0, n0, cm, cn, c1 = mm.current
    _fixpipe_out(mm, out, c1, n0, cm, cn, cn, 0)


@jit
def _iterate_all_to_ub(mm, ub):
    """iterate_all into a LocalTensor: each block through the workspace into its place in the dense
    singleCoreM x singleCoreN result in the Unified Buffer (rows singleCoreN apart)."""
    t = mm.tiling
    sm, sn, sk = _shape(mm)
    m_iter, n_iter = _block_counts(mm)
    ws = asc.GlobalTensor()
    ws.set_global_buffer(mm.workspace.reinterpret(ub.dtype) + asc.get_block_idx() * (WORKSPACE_BLOCK // 4))
    for mi in range(m_iter):
        for ni in range(n_iter):
            m0 = mi * t.base_m
            n0 = ni * t.base_n
            cm = min(t.base_m, sm - m0)
            cn = min(t.base_n, sn - n0)
            c1 = _compute(mm, mm.a_gm, mm.b_gm, 0, m0, n0, cm, cn)
            _fixpipe_out(mm, ws[m0 * sn + n0 :], c1, n0, cm, cn, sn, 0)
    asc.data_copy(ub, ws, sm * sn)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)


@jit
def _bias_from_ub(mm, bias_ub):
    """set_bias(LocalTensor): the UB row (singleCoreN elements, so set_bias after set_tail / set_single_shape)
    copied to this core's bias slot in the workspace, from where the cube path reads it as it reads a GM
    bias; returns that GlobalTensor."""
    staged = asc.GlobalTensor()
    staged.set_global_buffer(mm.workspace.reinterpret(bias_ub.dtype) + (WORKSPACE_BIAS // bias_ub.dtype.sizeof())
                             + asc.get_block_idx() * (16384 // bias_ub.dtype.sizeof()))  # fmt: skip
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    sm, sn, sk = _shape(mm)  # the row this core's share reads: singleCoreN elements, exactly
    asc.data_copy_pad(staged, bias_ub, asc.DataCopyExtParams(1, sn * bias_ub.dtype.sizeof(), 0, 0, 0))
    asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
    asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)
    return staged


@jit
def _iterate_n_batch(mm, ws, batch_loop, batch_a, batch_b, steps):
    """batch_loop iterate_batch calls; call l reads A from matrix l * batch_a, B from l * batch_b and writes
    its max(batch_a, batch_b) results one after another into the workspace `ws` (step_c apart)."""
    step_a, step_b, step_c, step_bias = steps
    batch_c = max(batch_a, batch_b)
    for loop in range(batch_loop):
        for i in range(batch_c):
            ia = loop * batch_a + i // (batch_c // batch_a)
            ib = loop * batch_b + i // (batch_c // batch_b)
            _iterate_all(mm, mm.a_gm[ia * step_a :], mm.b_gm[ib * step_b :], i * step_bias,
                         ws[(loop * batch_c + i) * step_c :], 0)  # fmt: skip


@jit
def _batch_to_ub(mm, batch_a, batch_b, group, local):
    """get_batch_tensor_c(local, ...): the group of iterate_n_batch's results at `group` into `local`."""
    sm, sn, sk = _shape(mm)
    asc.data_copy(local, group, max(batch_a, batch_b) * sm * sn)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
