"""Host-side Matmul tiling (asc.lib.host.MatmulApiTiling / MultiCoreMatmulTiling):
split an M x N x K problem over cores and into base blocks that fit the cube
memories, and fill an asc.adv.TCubeTiling.

The rules a tiling must meet are Ascend C's (TCubeTiling documentation):
baseM and baseN multiples of 16; baseM * baseK (A) and baseN * baseK (B)
double-buffered in L0A / L0B; baseM * baseN float32 results in L0C; the L1
blocks of A, B and the bias row within L1. The choices inside those rules are
this module's own: simple and deterministic rather than CANN's search, but
with the base blocks and L1 depths Huawei's tiling picks for large shapes
(128 x 256 x 64 for 2-byte types, A and B each filling half of L1 double-
buffered: docs/matmul.md)."""

from __future__ import annotations

from typing import Any, Optional

from ...language.core.enums import CubeFormat
from .platform import PlatformAscendC, PlatformAscendCManager
from .tiling_types import (
    CUBE_TYPE_SIZES,
    DataType,
    DequantType,
    MatmulConfigParams,
    MatrixMadType,
    MatrixTraverse,
    ScheduleType,
    TPosition,
)

__all__ = ["BatchMatmulTiling", "CubeFormat", "MatmulApiTiling", "MultiCoreMatmulTiling"]


def _align(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def _ceil(x: int, a: int) -> int:
    return (x + a - 1) // a


class MatmulApiTiling:
    """One core's tiling of C (M x N) = A (M x K) x B (K x N) [+ bias]."""

    def __init__(self, platform: Optional[PlatformAscendC] = None):
        self.platform = platform or PlatformAscendCManager.get_instance()
        self.a_type = (TPosition.GM, CubeFormat.ND, DataType.DT_FLOAT16, False)
        self.b_type = (TPosition.GM, CubeFormat.ND, DataType.DT_FLOAT16, False)
        self.c_type = (TPosition.GM, CubeFormat.ND, DataType.DT_FLOAT)
        self.bias_type = (TPosition.GM, CubeFormat.ND, DataType.DT_FLOAT)
        self.org: Optional[tuple[int, int, int, int]] = None
        self.shape: Optional[tuple[int, int, int]] = None
        self.bias = False
        self.fix_split = (-1, -1, -1)
        self.traverse = MatrixTraverse.NOSET
        self.buffer_space = (-1, -1, -1, -1)
        self.dim = 1
        self.single_shape = (-1, -1, -1)
        self.result: Optional[dict[str, int]] = None
        # batch Matmul (iterate_batch): the B, S, N, G, D axes of A, B and C, and the largest batch count
        self.layouts: dict[str, tuple[int, int, int, int, int]] = {}
        self.batch_num = 0
        # choices the Model's Matmul does not need, recorded (and read back by the getters)
        self.mad_type = MatrixMadType.NORMAL
        self.dequant_type = DequantType.SCALAR
        self.sparse = False
        self.double_buffer = (True, True, False, False, False, False)
        self.config_params = MatmulConfigParams()
        # limits on the base block: (max_m, max_n, max_k, min_m, min_n, min_k), -1 for none
        self.split_range = (-1, -1, -1, -1, -1, -1)
        # multi-core only: limits on and alignment of each core's block, and whether K is split over cores
        self.single_range = (-1, -1, -1, -1, -1, -1)
        self.align_split = (-1, -1, -1)
        self.split_k = False

    # -- the problem --------------------------------------------------------------------
    def set_a_type(self, pos: Any, type: Any, data_type: Any, is_trans: bool = False) -> int:  # noqa: A002
        self.a_type = (TPosition(pos), CubeFormat(type), DataType(data_type), bool(is_trans))
        return 0

    def set_b_type(self, pos: Any, type: Any, data_type: Any, is_trans: bool = False) -> int:  # noqa: A002
        self.b_type = (TPosition(pos), CubeFormat(type), DataType(data_type), bool(is_trans))
        return 0

    def set_c_type(self, pos: Any, type: Any, data_type: Any) -> int:  # noqa: A002
        self.c_type = (TPosition(pos), CubeFormat(type), DataType(data_type))
        return 0

    def set_bias_type(self, pos: Any, type: Any, data_type: Any) -> int:  # noqa: A002
        self.bias_type = (TPosition(pos), CubeFormat(type), DataType(data_type))
        return 0

    def set_org_shape(self, org_m: int, org_n: int, org_ka: int, org_kb: Optional[int] = None) -> int:
        self.org = (org_m, org_n, org_ka, org_ka if org_kb is None else org_kb)
        return 0

    def set_shape(self, m: int, n: int, k: int) -> int:
        self.shape = (m, n, k)
        return 0

    def enable_bias(self, is_bias_in: bool = True) -> int:
        self.bias = bool(is_bias_in)
        return 0

    def set_fix_split(self, base_m_in: int = -1, base_n_in: int = -1, base_k_in: int = -1) -> int:
        for v in (base_m_in, base_n_in):
            if v != -1 and (v <= 0 or v % 16):
                return -1
        self.fix_split = (base_m_in, base_n_in, base_k_in)
        return 0

    def set_traverse(self, traverse: Any) -> int:
        self.traverse = MatrixTraverse(traverse)
        return 0

    def set_buffer_space(self, l1_size: int = -1, l0_c_size: int = -1, ub_size: int = -1, bt_size: int = -1) -> int:
        self.buffer_space = (l1_size, l0_c_size, ub_size, bt_size)
        return 0

    def set_double_buffer(
        self, a: bool, b: bool, c: bool, bias: bool, trans_nd2nz: bool = True, trans_nz2nd: bool = True
    ) -> int:
        """Recorded (get_double_buffer): the tiling double-buffers L0A/L0B and L1 (depthA1 = 2 x stepKa)
        whatever this says, as Ascend C's MDL tiling does."""
        self.double_buffer = (bool(a), bool(b), bool(c), bool(bias), bool(trans_nd2nz), bool(trans_nz2nd))
        return 0

    def get_double_buffer(self) -> tuple[bool, bool, bool, bool, bool, bool]:
        return self.double_buffer

    def set_mad_type(self, mad_type: Any) -> int:
        """NORMAL, HF32 or MXMODE: recorded (get_mad_type); the Model multiplies float32 exactly either way."""
        self.mad_type = MatrixMadType(mad_type)
        return 0

    def get_mad_type(self) -> MatrixMadType:
        return self.mad_type

    def set_dequant_type(self, dequant_type: Any) -> int:
        """SCALAR or TENSOR (must match the kernel's set_quant_scalar / set_quant_vector): recorded."""
        self.dequant_type = DequantType(dequant_type)
        return 0

    def get_dequant_type(self) -> DequantType:
        return self.dequant_type

    def set_sparse(self, is_sparse_in: bool = False) -> int:
        """Whether the Matmul is a sparse one: recorded (is_sparse)."""
        self.sparse = bool(is_sparse_in)
        return 0

    def is_sparse(self) -> bool:
        return self.sparse

    def set_split_range(
        self, max_base_m: int = -1, max_base_n: int = -1, max_base_k: int = -1,
        min_base_m: int = -1, min_base_n: int = -1, min_base_k: int = -1,
    ) -> int:  # fmt: skip
        """Bounds on baseM/baseN/baseK (-1: none). The tiling keeps each base within its bounds, aligned to 16
        (M, N) and to a C0 of the operand type (K); a minimum above its maximum is refused (-1)."""
        limits = (max_base_m, max_base_n, max_base_k, min_base_m, min_base_n, min_base_k)
        if any(v == 0 or v < -1 for v in limits):
            return -1
        for hi, lo in zip(limits[:3], limits[3:]):
            if hi != -1 and lo != -1 and lo > hi:
                return -1
        self.split_range = limits
        return 0

    def get_split_range(self) -> tuple[int, int, int, int, int, int]:
        return self.split_range

    def set_matmul_config_params(self, *args: Any, **kwargs: Any) -> None:
        """The MatmulConfig the kernel uses: a MatmulConfigParams or its fields (mm_config_type,
        enable_l1_cache_ub, schedule_type, traverse, en_vec_nd2nz). A traverse other than NOSET orders the
        iteration as set_traverse does; the rest is recorded (get_matmul_config_params)."""
        if len(args) == 1 and not kwargs and isinstance(args[0], MatmulConfigParams):
            params = args[0]
        else:
            names = ("mm_config_type", "enable_l1_cache_ub", "schedule_type", "traverse", "en_vec_nd2nz")
            values = dict(zip(names, args))
            values.update({k.removesuffix("_in"): v for k, v in kwargs.items()})
            params = MatmulConfigParams(**values)
        self.config_params = MatmulConfigParams(
            int(params.mm_config_type), bool(params.enable_l1_cache_ub), ScheduleType(params.schedule_type),
            MatrixTraverse(params.traverse), bool(params.en_vec_nd2nz),
        )  # fmt: skip
        if self.config_params.traverse != MatrixTraverse.NOSET:
            self.traverse = self.config_params.traverse

    def get_matmul_config_params(self) -> MatmulConfigParams:
        return self.config_params

    # -- batch Matmul -------------------------------------------------------------------
    def _layout(self, which: str, b: int, s: int, n: int, g: int, d: int) -> int:
        if min(b, s, n, g, d) <= 0:
            return -1
        self.layouts[which] = (b, s, n, g, d)
        return 0

    def set_a_layout(self, b: int, s: int, n: int, g: int, d: int) -> int:
        """A's axes for the BSNGD / SBNGD / BNGS1S2 layouts: a batch is an S x D matrix."""
        return self._layout("a", b, s, n, g, d)

    def set_b_layout(self, b: int, s: int, n: int, g: int, d: int) -> int:
        return self._layout("b", b, s, n, g, d)

    def set_c_layout(self, b: int, s: int, n: int, g: int, d: int) -> int:
        """C's axes: for BNGS1S2, `s` is S1 and `d` is S2."""
        return self._layout("c", b, s, n, g, d)

    def set_batch_num(self, batch: int) -> int:
        """The largest batch count of one iterate_batch (max of batch_a and batch_b)."""
        if batch <= 0:
            return -1
        self.batch_num = batch
        return 0

    def set_batch_info_for_normal(self, batch_a: int, batch_b: int, m: int, n: int, k: int) -> int:
        """The NORMAL layout: batch_a M x K matrices of A, batch_b K x N of B, one a multiple of the other."""
        if min(batch_a, batch_b, m, n, k) <= 0 or max(batch_a, batch_b) % min(batch_a, batch_b):
            return -1
        batch = max(batch_a, batch_b)
        self._layout("a", batch_a, m, 1, 1, k)
        self._layout("b", batch_b, n, 1, 1, k)
        self._layout("c", batch, m, 1, 1, n)
        self.batch_num = batch
        if self.shape is None:
            self.shape = (m, n, k)
        return 0

    # before get_tiling the bases are the fixed ones (set_fix_split), or -1
    def get_base_m(self) -> int:
        return self.result["base_m"] if self.result else self.fix_split[0]

    def get_base_n(self) -> int:
        return self.result["base_n"] if self.result else self.fix_split[1]

    def get_base_k(self) -> int:
        return self.result["base_k"] if self.result else self.fix_split[2]

    # -- the split ----------------------------------------------------------------------
    def _split(self, m: int, n: int) -> tuple[int, int]:
        return 1, 1

    def _bases(self, single_m: int, single_n: int, k: int) -> Optional[tuple[int, int, int]]:
        size_a, size_b = CUBE_TYPE_SIZES[self.a_type[2]], CUBE_TYPE_SIZES[self.b_type[2]]
        p = self.platform
        l0c = p.l0c_bytes if self.buffer_space[1] == -1 else self.buffer_space[1]
        fix_m, fix_n, fix_k = self.fix_split
        max_m, max_n, max_k, min_m, min_n, min_k = self.split_range
        k_unit = 32 // min(size_a, size_b)  # a whole C0 of the narrower type

        def bounded(value: int, hi: int, lo: int, unit: int) -> int:  # within set_split_range's bounds
            if hi != -1:
                value = min(value, max(unit, hi // unit * unit))
            if lo != -1:
                value = max(value, _align(lo, unit))
            return value

        base_m = fix_m if fix_m != -1 else bounded(min(_align(single_m, 16), 128), max_m, min_m, 16)
        base_n = fix_n if fix_n != -1 else bounded(min(_align(single_n, 16), 256), max_n, min_n, 16)
        floor_n = _align(min_n, 16) if min_n != -1 else 16
        while base_m * base_n * 4 > l0c and base_n > floor_n and fix_n == -1:  # float32 / int32 results in L0C
            base_n -= 16
        if base_m * base_n * 4 > l0c:
            return None
        room = min(p.l0a_bytes // (2 * base_m * size_a), p.l0b_bytes // (2 * base_n * size_b))
        if fix_k != -1:
            base_k = fix_k
        else:
            base_k = bounded(min(_align(k, k_unit), room // k_unit * k_unit), max_k, min_k, k_unit)
        if base_k <= 0 or base_k > room:
            return None
        return base_m, base_n, base_k

    def get_tiling(self, tiling: Any) -> int:
        """Fills `tiling` (an asc.adv.TCubeTiling); 0 on success, -1 if no tiling fits."""
        shape = self.shape or (self.org[:3] if self.org else None)
        if shape is None or min(shape) <= 0:
            return -1
        if self.a_type[2] not in CUBE_TYPE_SIZES or self.b_type[2] not in CUBE_TYPE_SIZES:
            return -1  # not a type the cube multiplies
        m, n, k = shape
        org_m, org_n, org_ka, org_kb = self.org or (m, n, k, k)
        m_dim, n_dim = self._split(m, n)
        k_dim = self._split_k(k, m_dim * n_dim)
        single_m, single_n, single_k = self.single_shape
        single_m = self._single(m, m_dim, 0) if single_m == -1 else single_m
        single_n = self._single(n, n_dim, 1) if single_n == -1 else single_n
        single_k = self._single(k, k_dim, 2) if single_k == -1 else single_k
        bases = self._bases(single_m, single_n, single_k)
        if bases is None:
            return -1
        base_m, base_n, base_k = bases
        size_a, size_b = CUBE_TYPE_SIZES[self.a_type[2]], CUBE_TYPE_SIZES[self.b_type[2]]
        l1 = self.platform.l1_bytes if self.buffer_space[0] == -1 else self.buffer_space[0]
        bias_bytes = base_n * 4 if self.bias else 0
        share_l1 = base_m * base_k * size_a + base_n * base_k * size_b + bias_bytes
        if share_l1 > l1 or bias_bytes > self.platform.bt_bytes:
            return -1
        share_l1 = max(share_l1, self._l1_use(base_m, base_n, base_k, size_a, size_b, single_k) + bias_bytes)
        step_ka, step_kb = self._l1_steps(base_m * base_k * size_a, base_n * base_k * size_b, single_k, base_k)
        values = dict(
            used_core_num=m_dim * n_dim * k_dim, m=org_m, n=org_n, k_a=org_ka, k_b=org_kb, single_core_m=single_m,
            single_core_n=single_n, single_core_k=single_k, base_m=base_m, base_n=base_n, base_k=base_k,
            depth_a1=2 * step_ka, depth_b1=2 * step_kb, step_m=1, step_n=1, is_bias=int(self.bias), trans_length=0,
            iterate_order=1 if self.traverse == MatrixTraverse.FIRSTN else 0, share_mode=0, share_l1_size=share_l1,
            share_l0c_size=base_m * base_n * 4, share_ub_size=0, batch_m=1, batch_n=1, single_batch_m=1,
            single_batch_n=1, step_k_a=step_ka, step_k_b=step_kb, db_l0a=2, db_l0b=2, db_l0c=1,
        )  # fmt: skip
        values["batch_num"] = self.batch_num
        for which in ("a", "b", "c"):
            axes = self.layouts.get(which, (0, 0, 0, 0, 0))
            names = ("b", "s1", "n", "g", "s2") if which == "c" else ("b", "s", "n", "g", "d")
            for axis, value in zip(names, axes):
                values[f"{which}_layout_info_{axis}"] = value
        for name, value in values.items():
            setattr(tiling, name, value)
        self.result = values
        self.core_split = (m_dim * n_dim * k_dim, m_dim, n_dim)
        return 0

    def _l1_steps(self, block_a: int, block_b: int, single_k: int, base_k: int) -> tuple[int, int]:
        """stepKa / stepKb as Ascend C's MDL tiling sets them (matmul best-practice sample, case 5: base 128 x
        256 x 64 float16, depthA1 16 and stepKa 8, depthB1 8 and stepKb 4, "depthA1 / (stepM * stepKa) = 2"):
        A and B each get half of L1, double-buffered, so a step is as many base blocks along K as a quarter of
        L1 holds, but no more than K has. With a bias row, or L1 limited by set_buffer_space below the
        platform's, the steps stay 1 (the Matmul then runs one base block at a time)."""
        l1 = self.platform.l1_bytes
        if self.bias or self.buffer_space[0] not in (-1, l1):
            return 1, 1
        k_steps = _ceil(single_k, base_k)
        quarter = l1 // 4
        step = lambda block: max(1, min(k_steps, quarter // block))  # noqa: E731
        return step(block_a), step(block_b)

    def _l1_use(self, base_m: int, base_n: int, base_k: int, size_a: int, size_b: int, single_k: int) -> int:
        step_ka, step_kb = self._l1_steps(base_m * base_k * size_a, base_n * base_k * size_b, single_k, base_k)
        return 2 * (step_ka * base_m * base_k * size_a + step_kb * base_n * base_k * size_b)

    def _single(self, size: int, parts: int, axis: int) -> int:
        """One core's share of an axis split in `parts`, rounded up to set_align_split's alignment."""
        share = _ceil(size, parts)
        align = self.align_split[axis]
        return min(_align(share, align), _align(size, align)) if align > 0 else share

    def _split_k(self, k: int, cores: int) -> int:
        return 1


class MultiCoreMatmulTiling(MatmulApiTiling):
    """The problem split over `set_dim(n)` cores (n Matmul instances: vector cores in a mix kernel, cube
    cores in a cube-only one) as an mDim x nDim grid."""

    def set_dim(self, dim: int) -> int:
        if dim <= 0:
            return -1
        self.dim = dim
        return 0

    def set_single_shape(self, single_m_in: int = -1, single_n_in: int = -1, single_k_in: int = -1) -> int:
        self.single_shape = (single_m_in, single_n_in, single_k_in)
        return 0

    def set_single_range(
        self, max_m: int = -1, max_n: int = -1, max_k: int = -1, min_m: int = -1, min_n: int = -1, min_k: int = -1
    ) -> int:
        """Bounds on each core's block (singleCoreM/N/K; -1: none). The split over cores prefers grids whose
        blocks are within them (when none is, the bounds are not met); a minimum above its maximum is -1."""
        limits = (max_m, max_n, max_k, min_m, min_n, min_k)
        if any(v == 0 or v < -1 for v in limits):
            return -1
        for hi, lo in zip(limits[:3], limits[3:]):
            if hi != -1 and lo != -1 and lo > hi:
                return -1
        self.single_range = limits
        return 0

    def set_align_split(self, align_m: int, align_n: int, align_k: int) -> int:
        """Each core's block is a multiple of these (in elements; -1 or 0: no alignment)."""
        if min(align_m, align_n, align_k) < -1:
            return -1
        self.align_split = (align_m, align_n, align_k)
        return 0

    def enable_multi_core_split_k(self, flag: bool) -> None:
        """Lets the split use cores left over by the M x N grid for K: each core then computes a partial C of
        singleCoreK, which the kernel must add into GM (zeroed first, atomic add on)."""
        self.split_k = bool(flag)

    def _in_range(self, sm: int, sn: int) -> bool:
        max_m, max_n, _, min_m, min_n, _ = self.single_range
        return (
            (max_m == -1 or sm <= max_m)
            and (max_n == -1 or sn <= max_n)
            and (min_m == -1 or sm >= min_m)
            and (min_n == -1 or sn >= min_n)
        )

    def _split_k(self, k: int, cores: int) -> int:
        """How many pieces K is cut in: 1 unless enable_multi_core_split_k, then as many as the cores the grid
        leaves idle allow, each at least a C0 of K deep (and within set_single_range's K bounds)."""
        if not self.split_k or self.single_shape[2] != -1:
            return 1
        k_unit = 32 // min(CUBE_TYPE_SIZES[self.a_type[2]], CUBE_TYPE_SIZES[self.b_type[2]])
        max_k, min_k = self.single_range[2], self.single_range[5]
        valid = [
            k_dim
            for k_dim in range(1, max(1, self.dim // cores) + 1)
            if _ceil(k, _ceil(k, k_dim)) == k_dim  # every core gets some of K
            and _ceil(k, k_dim) >= k_unit
            and (min_k == -1 or _ceil(k, k_dim) >= min_k)
        ] or [1]
        within = [k_dim for k_dim in valid if max_k == -1 or _ceil(k, k_dim) <= max_k]
        # with a maximum: the fewest pieces that meet it; without: every idle core
        return (min(within) if max_k != -1 else max(within)) if within else max(valid)

    def get_core_num(self) -> tuple[int, int, int]:
        return getattr(self, "core_split", (1, 1, 1))

    def get_single_shape(self) -> tuple[int, int, int]:
        r = self.result or {}
        return r.get("single_core_m", -1), r.get("single_core_n", -1), r.get("single_core_k", -1)

    def _split(self, m: int, n: int) -> tuple[int, int]:
        """The grid using the most cores; among those, the one whose per-core blocks divide into the fixed
        base sizes (if any), then the squarest per-core block."""
        fix_m, fix_n, _ = self.fix_split
        best, best_key = (1, 1), None
        for m_dim in range(1, min(self.dim, _ceil(m, 16)) + 1):
            n_dim = min(self.dim // m_dim, _ceil(n, 16))
            sm, sn = _ceil(m, m_dim), _ceil(n, n_dim)
            if _ceil(m, sm) != m_dim or _ceil(n, sn) != n_dim:
                continue  # some core would get nothing
            divides = (fix_m == -1 or sm % fix_m == 0) + (fix_n == -1 or sn % fix_n == 0)
            key = (self._in_range(sm, sn), m_dim * n_dim, divides, -abs(sm - sn))
            if best_key is None or key > best_key:
                best, best_key = (m_dim, n_dim), key
        return best


class BatchMatmulTiling(MultiCoreMatmulTiling):
    """Tiles one matrix of a batch (every batch has the same shape); iterate_batch walks the batches with
    the layout fields and batch count set_a/b/c_layout, set_batch_num or set_batch_info_for_normal give."""

    def get_core_num(self) -> tuple[int, int, int, int, int]:  # type: ignore[override]
        """(dim, m_dim, n_dim, batch_core_m, batch_core_n): batches are not split over cores."""
        return (*super().get_core_num(), 1, 1)
