"""asc2's cube tiles against numpy: loads into L1 / L0A / L0B (tails padded
with zeros), matmul / `@` (float16, bfloat16 and float32 operands into
float32), K accumulated over several steps with zeros_acc + matmul_acc from
L1 sub-tiles at run-time offsets, the fixpipe's fused ReLU and conversion on
the store, the L0C -> L1 -> L0A chain on both generations, the emitted pipe
synchronisation, and the errors for misuse."""

import ml_dtypes
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
import asc.runtime.config as config
import asc2

L0A, L0B, L1 = asc2.TileLocation.L0A, asc2.TileLocation.L0B, asc2.TileLocation.L1
BF16 = ml_dtypes.bfloat16


@asc2.jit
def product(a_ptr: asc.GlobalAddress, b_ptr: asc.GlobalAddress, c_ptr: asc.GlobalAddress, m: asc.ConstExpr[int],
            k: asc.ConstExpr[int], n: asc.ConstExpr[int], tm: asc.ConstExpr[int], tk: asc.ConstExpr[int],
            tn: asc.ConstExpr[int], relu: asc.ConstExpr[bool], out: asc.ConstExpr):  # fmt: skip
    """C = A x B with one [tm, tk] x [tk, tn] tile per core (tiles hang over the tensors' ends)."""
    a_gm = asc2.tensor(a_ptr, [m, k])
    b_gm = asc2.tensor(b_ptr, [k, n])
    c_gm = asc2.tensor(c_ptr, [m, n])
    tiles_n = (n + tn - 1) // tn
    row = asc2.block_idx() // tiles_n * tm
    col = asc2.block_idx() % tiles_n * tn
    a = asc2.load(a_gm, [tm, tk], offsets=[row, 0], location=L0A)
    b = asc2.load(b_gm, [tk, tn], offsets=[0, col], location=L0B)
    c = a @ b
    if relu:
        c = asc2.relu(c)
    asc2.store(c.to(out), c_gm, offsets=[row, col])


def reference(a, b):
    return a.astype(np.float64) @ b.astype(np.float64)


def launch_product(a, b, tm, tk, tn, relu=False, out=np.float32):
    m, k = a.shape
    n = b.shape[1]
    c = np.full((m, n), 7, out)
    cores = -(-m // tm) * -(-n // tn)
    out_dtype = {np.float32: asc.float32, np.float16: asc.float16, BF16: asc.bfloat16}[out]
    product[cores, rt.current_stream()](a, b, c, m, k, n, tm, tk, tn, relu, out_dtype)
    return c


@pytest.mark.parametrize("m,k,n,tm,tk,tn", [(64, 128, 96, 32, 128, 48), (47, 40, 30, 48, 48, 32),
                                            (16, 16, 16, 16, 16, 16), (5, 17, 50, 16, 32, 64)])  # fmt: skip
def test_float16_matmul_with_tails(m, k, n, tm, tk, tn, rng):
    a = rng.uniform(-2, 2, (m, k)).astype(np.float16)
    b = rng.uniform(-2, 2, (k, n)).astype(np.float16)
    np.testing.assert_allclose(launch_product(a, b, tm, tk, tn), reference(a, b), rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, BF16])
def test_float32_and_bfloat16_operands(dtype, rng):
    a = rng.uniform(-2, 2, (40, 48)).astype(dtype)
    b = rng.uniform(-2, 2, (48, 40)).astype(dtype)  # float32 B: its 16 x 16 squares over an 8-wide tail
    tn = 40 if dtype == np.float32 else 48  # a bfloat16 row is whole 32-byte blocks at 48
    np.testing.assert_allclose(launch_product(a, b, 48, 48, tn), reference(a, b), rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("out", [np.float16, BF16, np.float32])
def test_fixpipe_relu_and_conversion(out, rng):
    a = rng.uniform(-2, 2, (32, 64)).astype(np.float16)
    b = rng.uniform(-2, 2, (64, 48)).astype(np.float16)
    want = np.maximum(reference(a, b), 0).astype(np.float32).astype(out)
    np.testing.assert_array_equal(launch_product(a, b, 32, 64, 48, relu=True, out=out), want)


@asc2.jit
def k_steps(a_ptr: asc.GlobalAddress, b_ptr: asc.GlobalAddress, c_ptr: asc.GlobalAddress, m: asc.ConstExpr[int],
            k: asc.ConstExpr[int], n: asc.ConstExpr[int], steps: asc.ConstExpr[int]):  # fmt: skip
    """acc = sum over K steps of A[:, step] x B[step, :], the operands cut out of L1 at run-time offsets."""
    a_gm = asc2.tensor(a_ptr, [m, k])
    b_gm = asc2.tensor(b_ptr, [k, n])
    c_gm = asc2.tensor(c_ptr, [m, n])
    acc = asc2.zeros_acc([m, n], dtype=asc.float32)
    a_l1 = asc2.load(a_gm, [m, k], offsets=[0, 0], location=L1)
    b_l1 = asc2.load(b_gm, [k, n], offsets=[0, 0], location=L1)
    step = k // steps
    for i in range(steps):
        a_i = asc2.copy(a_l1, [m, step], offsets=[0, i * step], location=L0A)
        b_i = asc2.copy(b_l1, [step, n], offsets=[i * step, 0], location=L0B)
        asc2.matmul_acc(a_i, b_i, acc)
    asc2.store(acc, c_gm, offsets=[0, 0])


@pytest.mark.parametrize("m,k,n,steps,dtype", [(32, 96, 48, 3, np.float16), (40, 128, 64, 8, np.float16),
                                                (24, 64, 40, 4, np.float32), (32, 96, 48, 2, BF16)])  # fmt: skip
def test_k_accumulation_over_steps(m, k, n, steps, dtype, rng):
    a = rng.uniform(-2, 2, (m, k)).astype(dtype)
    b = rng.uniform(-2, 2, (k, n)).astype(dtype)
    c = np.full((m, n), 7, np.float32)
    k_steps[1, rt.current_stream()](a, b, c, m, k, n, steps)
    np.testing.assert_allclose(c, reference(a, b), rtol=1e-6, atol=1e-5)


@asc2.jit
def chain(a_ptr: asc.GlobalAddress, b_ptr: asc.GlobalAddress, c_ptr: asc.GlobalAddress, m: asc.ConstExpr[int],
          k: asc.ConstExpr[int], n: asc.ConstExpr[int], dtype: asc.ConstExpr):  # fmt: skip
    """(A x B as dtype) x B: the first product goes L0C -> L1 (fixpipe, converted) -> L0A."""
    a_gm = asc2.tensor(a_ptr, [m, k])
    b_gm = asc2.tensor(b_ptr, [k, n])
    c_gm = asc2.tensor(c_ptr, [m, n])
    a = asc2.load(a_gm, [m, k], offsets=[0, 0], location=L0A)
    b = asc2.load(b_gm, [k, n], offsets=[0, 0], location=L0B)
    c_l1 = asc2.copy((a @ b).to(dtype), [m, n], offsets=[0, 0], location=L1)
    asc2.store(asc2.copy(c_l1, location=L0A) @ b, c_gm, offsets=[0, 0])


@pytest.mark.parametrize("platform", ["Ascend950PR_9599", "Ascend910B1"])
@pytest.mark.parametrize("dtype", [np.float16, BF16])
def test_l0c_to_l1_chain(platform, dtype, rng):
    """Both generations copy L0C -> L1 with a conversion (Atlas A2's copy_matrix_cc_to_cbuf, NZ to NZ; Ascend
    950's the same path): the intermediate is rounded to dtype, as numpy rounds it."""
    config.set_platform(config.Backend.Model, platform)
    m, k, n = 40, 64, 64  # 40 rows: a last slab of 8 rows through the fixpipe
    a = rng.uniform(-2, 2, (m, k)).astype(dtype)
    b = rng.uniform(-2, 2, (k, n)).astype(dtype)
    c = np.zeros((m, n), np.float32)
    chain[1, rt.current_stream()](a, b, c, m, k, n, asc.float16 if dtype == np.float16 else asc.bfloat16)
    first = reference(a, b).astype(np.float32).astype(dtype)
    np.testing.assert_allclose(c, reference(first, b), rtol=1e-6, atol=1e-5)


def test_the_cube_pipes_are_synchronised():
    """The emitted kernel orders MTE2 -> MTE1 -> M -> FIX with flags the compiler inserted, and runs on the cube
    cores (AIC_ONLY)."""
    from kernels import ascendc_source

    a = np.ones((32, 32), np.float16)
    source = ascendc_source(k_steps.compile(a, a, np.zeros((32, 32), np.float32), 32, 32, 32, 2))
    for event in ("MTE2_MTE1", "MTE1_M", "M_FIX", "M_MTE1"):
        assert f"HardEvent::{event}" in source, event
    assert "TPosition::A1" in source and "TPosition::CO1" in source
    assert "KERNEL_TYPE_AIC_ONLY" in source


@asc2.jit
def misuse(a_ptr: asc.GlobalAddress, c_ptr: asc.GlobalAddress, case: asc.ConstExpr[str]):
    a_gm = asc2.tensor(a_ptr, [32, 32])
    c_gm = asc2.tensor(c_ptr, [32, 32])
    a = asc2.load(a_gm, [32, 32], offsets=[0, 0], location=L0A)
    b = asc2.load(a_gm, [32, 32], offsets=[0, 0], location=L0B)
    if case == "ub operand":
        c = asc2.load(a_gm, [32, 32], offsets=[0, 0]) @ b
    elif case == "shapes":
        c = a @ asc2.load(a_gm, [16, 32], offsets=[0, 0], location=L0B)
    elif case == "to l1 float32":
        c = asc2.copy(a @ b, location=L1)
    elif case == "to ub":
        c = asc2.copy(a @ b, location=asc2.TileLocation.UB)
    elif case == "exp":
        c = asc2.exp(a @ b)
    elif case == "acc dtype":
        c = asc2.zeros_acc([32, 32], dtype=asc.float16)
    elif case == "acc shape":
        c = asc2.zeros_acc([32, 16])
        asc2.matmul_acc(a, b, c)
    elif case == "store l0a":
        c = a
    elif case == "reshape":
        c = (a @ b).reshape(16, 64)
    elif case == "add":
        c = (a @ b) + 1.0
    elif case == "unaligned":
        c = asc2.copy(asc2.load(a_gm, [32, 32], offsets=[0, 0], location=L1), [16, 16], offsets=[8, 0],
                      location=L0A)  # fmt: skip
    else:
        c = a @ b
    asc2.store(c, c_gm, offsets=[0, 0])


@pytest.mark.parametrize("case,message", [
    ("ub operand", "the left operand is a Tile\\(\\[32, 32\\], float16\\); load it with location"),
    ("shapes", "shapes \\[32, 32\\] and \\[16, 32\\] do not multiply"),
    ("to l1 float32", "L0C -> L1 converts float32 to float16 or bfloat16"),
    ("to ub", "L0C -> UB is Ascend 950's fixpipe into the vector cores; Ascend910B1 has none"),
    ("exp", "asc2.exp: a Tile\\(\\[32, 32\\], float32, L0C\\) is in a cube memory"),
    ("acc dtype", "the accumulator is float32"),
    ("acc shape", "the accumulator is \\[32, 16\\], the product \\[32, 32\\]"),
    ("store l0a", "is not stored from L0A"),
    ("reshape", "keeps its fractal layout; reshape UB tiles only"),
    ("add", "asc2.add: a Tile\\(\\[32, 32\\], float32, L0C\\) is in a cube memory"),
    ("unaligned", "the row offset must be a multiple of 16"),
])  # fmt: skip
def test_errors(case, message):
    a = np.ones((32, 32), np.float16)
    with pytest.raises(asc.errors.CodegenError, match=message):
        misuse[1, rt.current_stream()](a, np.zeros((32, 32), np.float32), case)


@asc.jit(kernel_type=config.KernelType.AIC_ONLY)
def nd_into_l1(a_ptr: asc.GlobalAddress, b_ptr: asc.GlobalAddress, c_ptr: asc.GlobalAddress):
    """(A x B as float16) x B, A 32 x 16, B 16 x 16, with the intermediate copied L0C -> L1 as ND rows (NZ2ND, which
    for 16 columns is the Zz layout L0A takes); cube buffers placed by the compiler (LocalTensorAuto positions)."""
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a_ptr)
    b_gm.set_global_buffer(b_ptr)
    c_gm.set_global_buffer(c_ptr)
    a1 = asc.LocalTensorAuto(asc.float16, 512, position=asc.TPosition.A1)
    b1 = asc.LocalTensorAuto(asc.float16, 256, position=asc.TPosition.B1)
    asc.data_copy(a1, a_gm, asc.Nd2NzParams(1, 32, 16, 0, 16, 32, 1, 0))
    asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, 16, 16, 0, 16, 16, 1, 0))
    a2 = asc.LocalTensorAuto(asc.float16, 512, position=asc.TPosition.A2)
    b2 = asc.LocalTensorAuto(asc.float16, 256, position=asc.TPosition.B2)
    asc.load_data(a2, a1, asc.LoadData2DParams(0, 2, 1, 0, 0, False, 0))
    asc.load_data(b2, b1, asc.LoadData2DParams(0, 1, 1, 0, 0, True, 0))
    c1 = asc.LocalTensorAuto(asc.float32, 512, position=asc.TPosition.CO1)
    asc.mmad(c1, a2, b2, asc.MmadParams(32, 16, 16))
    l1 = asc.LocalTensorAuto(asc.float16, 512, position=asc.TPosition.A1)
    asc.data_copy(l1, c1, asc.DataCopyCO12DstParams(16, 32, 16, 32, asc.QuantModes.F322F16, nz2nd_en=True))
    again = asc.LocalTensorAuto(asc.float16, 512, position=asc.TPosition.A2)
    asc.load_data(again, l1, asc.LoadData2DParams(0, 2, 1, 0, 0, False, 0))
    c2 = asc.LocalTensorAuto(asc.float32, 512, position=asc.TPosition.CO1)
    asc.mmad(c2, again, b2, asc.MmadParams(32, 16, 16))
    asc.fixpipe(c_gm, c2, asc.FixpipeParamsV220(16, 32, 32, 16, asc.QuantModes.NoQuant))


def test_l0c_to_l1_as_rows_is_ascend_950s(rng):
    """NZ2ND on the L0C -> L1 path: Ascend 950 (a dav-c310 row) writes rows; Atlas A2/A3 copy NZ to NZ only."""
    a = rng.uniform(-2, 2, (32, 16)).astype(np.float16)
    b = rng.uniform(-2, 2, (16, 16)).astype(np.float16)
    config.set_platform(config.Backend.Model, "Ascend950PR_9599")
    c = np.zeros((32, 16), np.float32)
    nd_into_l1[1, rt.current_stream()](a, b, c)
    first = reference(a, b).astype(np.float32).astype(np.float16)
    np.testing.assert_allclose(c, reference(first, b), rtol=1e-6, atol=1e-5)
    config.set_platform(config.Backend.Model, "Ascend910B1")
    with pytest.raises(asc.errors.KernelError, match="Ascend910B1 .* copies NZ to NZ only; nz2nd_en is Ascend 950's"):
        nd_into_l1[1, rt.current_stream()](a, b, c)


@asc2.jit
def through_gm(a_ptr: asc.GlobalAddress, b_ptr: asc.GlobalAddress, c_ptr: asc.GlobalAddress,
               d_ptr: asc.GlobalAddress):  # fmt: skip
    """D = (A x B as float16, stored in C and loaded back) x B: the load waits for the store's fixpipe."""
    a_gm, b_gm = asc2.tensor(a_ptr, [32, 32]), asc2.tensor(b_ptr, [32, 32])
    c_gm, d_gm = asc2.tensor(c_ptr, [32, 32]), asc2.tensor(d_ptr, [32, 32])
    b = asc2.load(b_gm, [32, 32], offsets=[0, 0], location=L0B)
    c = asc2.load(a_gm, [32, 32], offsets=[0, 0], location=L0A) @ b
    asc2.store(c.to(asc.float16), c_gm, offsets=[0, 0])
    again = asc2.load(c_gm, [32, 32], offsets=[0, 0], location=L0A)
    asc2.store(again @ b, d_gm, offsets=[0, 0])


def test_a_load_after_a_store_of_the_same_tensor_waits(rng):
    a = rng.uniform(-2, 2, (32, 32)).astype(np.float16)
    b = rng.uniform(-2, 2, (32, 32)).astype(np.float16)
    c, d = np.zeros((32, 32), np.float16), np.zeros((32, 32), np.float32)
    through_gm[1, rt.current_stream()](a, b, c, d)
    first = reference(a, b).astype(np.float32).astype(np.float16)
    np.testing.assert_array_equal(c, first)
    np.testing.assert_allclose(d, reference(first, b), rtol=1e-6, atol=1e-5)
    from kernels import ascendc_source

    assert "HardEvent::FIX_MTE2" in ascendc_source(through_gm.compile(a, b, c, d))  # the Model runs in order anyway
