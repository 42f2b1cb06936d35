"""Host-side Matmul tiling (asc.lib.host.MatmulApiTiling / MultiCoreMatmulTiling):
split an M x N x K problem over cores and into base blocks that fit the cube
memories, and fill an asc.adv.TCubeTiling.

The rules a tiling must meet are Ascend C's (TCubeTiling documentation):
baseM and baseN multiples of 16; baseM * baseK (A) and baseN * baseK (B)
double-buffered in L0A / L0B; baseM * baseN float32 results in L0C; the L1
blocks of A, B and the bias row within L1. The choices inside those rules are
this module's own: simple and deterministic rather than CANN's search."""

from __future__ import annotations

from enum import IntEnum
from typing import Any, Optional

from ...language.core.enums import CubeFormat
from ...language.core.enums import TPosition as KernelTPosition
from .platform import PlatformAscendC, PlatformAscendCManager

# The kernel's TPosition values, plus the host-only SPM and TSCM.
TPosition = IntEnum("TPosition", {**{p.name: p.value for p in KernelTPosition}, "SPM": 12, "TSCM": 13})


class DataType(IntEnum):  # GE's numbering
    DT_FLOAT = 0
    DT_FLOAT16 = 1
    DT_INT8 = 2
    DT_INT32 = 3
    DT_UINT8 = 4
    DT_INT16 = 6
    DT_UINT16 = 7
    DT_UINT32 = 8
    DT_INT64 = 9
    DT_BF16 = 27


class MatrixTraverse(IntEnum):
    NOSET = 0
    FIRSTM = 1
    FIRSTN = 2


_SIZE = {DataType.DT_FLOAT: 4, DataType.DT_FLOAT16: 2, DataType.DT_BF16: 2, DataType.DT_INT8: 1,
         DataType.DT_UINT8: 1, DataType.DT_INT32: 4}  # fmt: skip


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

    def set_double_buffer(self, *args: Any, **kwargs: Any) -> int:
        return 0  # the choices below single-buffer L1 and double-buffer L0A/L0B

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

    def get_base_m(self) -> int:
        return self.result["base_m"] if self.result else -1

    def get_base_n(self) -> int:
        return self.result["base_n"] if self.result else -1

    def get_base_k(self) -> int:
        return self.result["base_k"] if self.result else -1

    # -- the split ----------------------------------------------------------------------
    def _split(self, m: int, n: int) -> tuple[int, int]:
        return 1, 1

    def _bases(self, single_m: int, single_n: int, k: int) -> Optional[tuple[int, int, int]]:
        size_a, size_b = _SIZE[self.a_type[2]], _SIZE[self.b_type[2]]
        p = self.platform
        l0c = p.l0c_bytes if self.buffer_space[1] == -1 else self.buffer_space[1]
        fix_m, fix_n, fix_k = self.fix_split
        base_m = fix_m if fix_m != -1 else min(_align(single_m, 16), 128)
        base_n = fix_n if fix_n != -1 else min(_align(single_n, 16), 256)
        while base_m * base_n * 4 > l0c and base_n > 16 and fix_n == -1:  # float32 / int32 results in L0C
            base_n -= 16
        if base_m * base_n * 4 > l0c:
            return None
        k_unit = 32 // min(size_a, size_b)  # a whole C0 of the narrower type
        room = min(p.l0a_bytes // (2 * base_m * size_a), p.l0b_bytes // (2 * base_n * size_b))
        base_k = fix_k if fix_k != -1 else min(_align(k, k_unit), room // k_unit * k_unit)
        if base_k <= 0 or base_k > room:
            return None
        return base_m, base_n, base_k

    def get_tiling(self, tiling: Any) -> int:
        """Fills `tiling` (an asc.adv.TCubeTiling); 0 on success, -1 if no tiling fits."""
        shape = self.shape or (self.org[:3] if self.org else None)
        if shape is None or min(shape) <= 0:
            return -1
        m, n, k = shape
        org_m, org_n, org_ka, org_kb = self.org or (m, n, k, k)
        m_dim, n_dim = self._split(m, n)
        single_m, single_n, single_k = self.single_shape
        single_m = _ceil(m, m_dim) if single_m == -1 else single_m
        single_n = _ceil(n, n_dim) if single_n == -1 else single_n
        single_k = k if single_k == -1 else single_k
        bases = self._bases(single_m, single_n, single_k)
        if bases is None:
            return -1
        base_m, base_n, base_k = bases
        size_a, size_b = _SIZE[self.a_type[2]], _SIZE[self.b_type[2]]
        l1 = self.platform.l1_bytes if self.buffer_space[0] == -1 else self.buffer_space[0]
        bias_bytes = base_n * 4 if self.bias else 0
        share_l1 = base_m * base_k * size_a + base_n * base_k * size_b + bias_bytes
        if share_l1 > l1 or bias_bytes > self.platform.bt_bytes:
            return -1
        values = dict(
            used_core_num=m_dim * n_dim, m=org_m, n=org_n, k_a=org_ka, k_b=org_kb, single_core_m=single_m,
            single_core_n=single_n, single_core_k=single_k, base_m=base_m, base_n=base_n, base_k=base_k,
            depth_a1=1, depth_b1=1, step_m=1, step_n=1, is_bias=int(self.bias), trans_length=0,
            iterate_order=1 if self.traverse == MatrixTraverse.FIRSTN else 0, share_mode=0, share_l1_size=share_l1,
            share_l0c_size=base_m * base_n * 4, share_ub_size=0, batch_m=1, batch_n=1, single_batch_m=1,
            single_batch_n=1, step_k_a=1, step_k_b=1, db_l0a=2, db_l0b=2, db_l0c=1,
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
        self.core_split = (m_dim * n_dim, m_dim, n_dim)
        return 0


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
            key = (m_dim * n_dim, divides, -abs(sm - sn))
            if best_key is None or key > best_key:
                best, best_key = (m_dim, n_dim), key
        return best


class BatchMatmulTiling(MultiCoreMatmulTiling):
    """Tiles one matrix of a batch (every batch has the same shape); iterate_batch walks the batches with
    the layout fields and batch count set_a/b/c_layout, set_batch_num or set_batch_info_for_normal give."""

    def get_core_num(self) -> tuple[int, int, int, int, int]:  # type: ignore[override]
        """(dim, m_dim, n_dim, batch_core_m, batch_core_n): batches are not split over cores."""
        return (*super().get_core_num(), 1, 1)
