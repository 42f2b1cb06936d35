"""asc.adv.Matmul: C = A x B (+ bias) over a core's share of the problem, as a
TCubeTiling splits it, built from the cube basic API: data_copy with
Nd2NzParams (GM -> L1), load_data / load_data_with_transpose (L1 -> L0A/L0B),
mmad (one baseM x baseN block, K in baseK steps, the bias on the first) and
fixpipe (L0C -> GM). get_tensor_c into the Unified Buffer goes through the
workspace in GM, as on Atlas A2, which has no L0C -> UB path.

In a mix kernel the cube core stops at register_matmul and each vector core
runs its own Matmul on a cube unit of its own (on the NPU the group's cube
core serves its two vector cores' requests in turn); in a cube-only kernel
the cube core runs it. Each call is marked in the IR (matmul.call, with the
expansion up to matmul.call_end) so that the Ascend C emitter can spell a mix
kernel's calls as Ascend C's Matmul object's. Blocks are computed one after another (pipes joined
between them), which is correct but does not overlap copies and mmads."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..basic.utils import builtin
from ..core import dtype as dt
from ..core.enums import LayoutMode
from ..core.ir_value import Scalar, const
from ..core.tensor import GlobalAddress, GlobalTensor, LocalTensor
from .tiling import TCubeTiling


@dataclass(frozen=True)
class MatmulType:
    """Where a Matmul operand lives, its format and dtype, and whether it is stored transposed."""

    __asc_builtin__ = True

    position: Any
    format: Any
    dtype: Any
    is_trans: bool = False
    layout: Any = 0


class MatmulConfig:
    """Accepted for compatibility: the Model runs every configuration as CFG_NORM."""

    __asc_builtin__ = True

    def __init__(self, **options: Any):
        self.options = options


class Matmul:
    """``Matmul(a=MatmulType(...), b=..., c=..., bias=None)`` then ``register_matmul(pipe, workspace, mm, tiling)``,
    ``set_tensor_a/b``, ``set_bias``, ``set_tail``, ``iterate_all(c)`` or ``with mm.iterate() as count:
    mm.get_tensor_c(t)``, ``end()``."""

    __asc_builtin__ = True

    def __init__(self, a: MatmulType, b: MatmulType, c: MatmulType, bias: Optional[MatmulType] = None,
                 matmul_config: Any = None, matmul_policy: int = 0):  # fmt: skip
        for name, t in (("a", a), ("b", b), ("c", c)):
            if not isinstance(t, MatmulType):
                raise CodegenError(f"Matmul: {name} must be an asc.adv.MatmulType, got {type(t).__name__}")
        if a.dtype != b.dtype:
            raise CodegenError(f"Matmul: A is {a.dtype.name} but B is {b.dtype.name}")
        if a.dtype not in (dt.float16, dt.bfloat16, dt.float32, dt.int8):
            raise CodegenError(
                f"Matmul: A and B of {a.dtype.name} are not supported (float16, bfloat16, float32, int8)"
            )
        self.a_type, self.b_type, self.c_type, self.bias_type = a, b, c, bias or c
        self.tiling: Optional[TCubeTiling] = None
        self.workspace: Any = None
        self.a_gm = self.b_gm = self.bias_gm = None
        self.b_trans = b.is_trans
        self.a_trans = a.is_trans
        self.tails: tuple = (-1, -1, -1)
        self.org: Optional[tuple] = None
        self.rows: Optional[tuple] = None
        self.batch_num: Optional[tuple] = None  # set_batch_num
        self.bias_per_batch = bool(getattr(matmul_config, "options", {}).get("is_bias_batch", True))
        # set_bias may sit under a run-time `if` (e.g. `if tiling.is_bias:`): whether the bias applies is a
        # run-time flag; has_bias says whether any set_bias was compiled at all
        builder = current_builder()
        self.bias_flag = Scalar(builder.op("var", [const(0, dt.int32).handle]), dt.int32)
        self.has_bias = False
        self.id = getattr(builder, "matmul_count", 0)  # which Matmul object of the kernel
        builder.matmul_count = self.id + 1

    def _api(self, api: str, operands: tuple = (), flag: int = 0, sequential: int = 0,
             expansion: Optional[Callable[[], Any]] = None) -> Any:  # fmt: skip
        """Marks Ascend C's call `api` in the IR; `expansion` builds what computes it on the Model."""
        builder = current_builder()
        handles = [(const(v, dt.int32) if isinstance(v, int) else v).handle for v in operands]
        attrs = {"id": self.id, "api": api, "flag": int(flag), "sequential": int(sequential)}
        builder.op("matmul.call", handles, attrs)
        if expansion is None:
            return None
        result = expansion()
        builder.op("matmul.call_end", [])
        return result

    # -- set-up ------------------------------------------------------------------------
    @builtin
    def init(self, tiling: Any) -> None:
        if not isinstance(tiling, TCubeTiling):
            raise CodegenError(f"Matmul.init: expected an asc.adv.TCubeTiling, got {type(tiling).__name__}")
        self.tiling = tiling

    @builtin
    def set_tensor_a(self, tensor: Any, transpose: bool = False) -> None:
        self.a_gm = _global(tensor, "set_tensor_a")
        self.a_trans = bool(transpose) or self.a_type.is_trans
        self._api("SetTensorA", (self.a_gm,), flag=self.a_trans)

    @builtin
    def set_tensor_b(self, tensor: Any, transpose: bool = False) -> None:
        self.b_gm = _global(tensor, "set_tensor_b")
        self.b_trans = bool(transpose) or self.b_type.is_trans
        self._api("SetTensorB", (self.b_gm,), flag=self.b_trans)

    @builtin
    def set_bias(self, tensor: Any) -> None:
        if self.bias_gm is not None and tensor is not self.bias_gm:
            raise CodegenError("Matmul.set_bias: one bias tensor per Matmul")
        self.bias_gm = _global(tensor, "set_bias")
        self.has_bias = True
        current_builder().op("assign", [self.bias_flag.handle, const(1, dt.int32).handle])
        self._api("SetBias", (self.bias_gm,))

    @builtin
    def disable_bias(self) -> None:
        current_builder().op("assign", [self.bias_flag.handle, const(0, dt.int32).handle])
        self._api("DisableBias")

    @builtin
    def set_tail(self, tail_m: Any = -1, tail_n: Any = -1, tail_k: Any = -1) -> None:
        self.tails = (tail_m, tail_n, tail_k)
        self._api("SetTail", self.tails)

    @builtin
    def set_org_shape(self, org_m: Any, org_n: Any, org_ka: Any, org_kb: Any = None, org_kc: Any = None) -> None:
        self.org = (org_m, org_n, org_ka, org_ka if org_kb is None else org_kb)
        self._api("SetOrgShape", self.org)

    @builtin
    def end(self) -> None:
        self._api("End")

    # -- computing ----------------------------------------------------------------------
    def _ready(self, what: str) -> TCubeTiling:
        if self.tiling is None:
            raise CodegenError(f"Matmul.{what}: no tiling (pass it to register_matmul or call init)")
        if self.a_gm is None or self.b_gm is None:
            raise CodegenError(f"Matmul.{what}: set_tensor_a and set_tensor_b first")
        return self.tiling

    # The row lengths in GM: A's (Ka), B's (N, or Kb when B is transposed) and C's (N), from set_org_shape
    # or else the tiling.
    @property
    def org_m(self) -> Any:
        return self.org[0] if self.org else self.tiling.m

    @property
    def org_ka(self) -> Any:
        return self.org[2] if self.org else self.tiling.k_a

    @property
    def org_kb(self) -> Any:
        return self.org[3] if self.org else self.tiling.k_b

    @property
    def org_n(self) -> Any:
        return self.org[1] if self.org else self.tiling.n

    # The row lengths the device functions use: A's (Ka, or M when A is stored transposed), B's (N, or Kb
    # when B is stored transposed) and C's (N); a batch layout overrides them (_batch_rows).
    @property
    def a_row(self) -> Any:
        return self.rows[0] if self.rows else self.org_m if self.a_trans else self.org_ka

    @property
    def b_row(self) -> Any:
        return self.rows[1] if self.rows else self.org_kb if self.b_trans else self.org_n

    @property
    def c_row(self) -> Any:
        return self.rows[2] if self.rows else self.org_n

    def _call(self, fn: Any, *args: Any) -> Any:
        builder = current_builder()
        return fn.inline(builder, [self, *args], {}, builder.loc)

    @builtin
    def iterate_all(self, tensor: Any, en_atomic: int = 0, sync: bool = True, en_sequential_write: Any = None,
                    wait_iterate_all: Any = None, fake_msg: Any = None) -> None:  # fmt: skip
        """This core's whole singleCoreM x singleCoreN result into the GlobalTensor `tensor` (row stride N)."""
        self._ready("iterate_all")
        c_gm = _global(tensor, "iterate_all")
        atomic = _atomic(en_atomic, "iterate_all")
        self._api("IterateAll", (c_gm,), atomic, expansion=lambda: self._call(_iterate_all, self.a_gm, self.b_gm, 0,
                                                                              c_gm, atomic))  # fmt: skip

    @builtin
    def iterate(self, en_partial_sum: bool = False, sync: bool = True, local_c_matrix: Any = None) -> _Iterator:
        """``with mm.iterate() as count:`` — one baseM x baseN block per iteration, read with get_tensor_c."""
        self._ready("iterate")
        return _Iterator(self)

    @builtin
    def get_tensor_c(self, tensor: Any, en_atomic: int = 0, en_sequential_write: bool = False, sync: bool = True,
                     optional_tensor: Any = None) -> None:  # fmt: skip
        """The block the current iteration computed: into a GlobalTensor at its place in C (or at the start
        with en_sequential_write), or densely into a Unified Buffer tensor."""
        atomic = _atomic(en_atomic, "get_tensor_c")
        if isinstance(tensor, LocalTensor):
            if self.workspace is None:
                raise CodegenError(
                    "Matmul.get_tensor_c into a LocalTensor needs the workspace given to register_matmul"
                )
            self._api("GetTensorC", (tensor,), atomic, bool(en_sequential_write),
                      lambda: self._call(_block_to_ub, tensor))  # fmt: skip
        else:
            c_gm = _global(tensor, "get_tensor_c")
            sequential = bool(en_sequential_write)
            self._api("GetTensorC", (c_gm,), atomic, sequential,
                      lambda: self._call(_block_to_gm, c_gm, sequential, atomic))  # fmt: skip

    @builtin
    def set_batch_num(self, batch_a: Any, batch_b: Any) -> None:
        """The batch counts iterate_batch's (tensor, en_partial_sum, en_atomic, en_sequential_write) form uses."""
        self.batch_num = (batch_a, batch_b)

    @builtin
    def iterate_batch(self, tensor: Any, *args: Any, **kwargs: Any) -> None:
        """``iterate_batch(c, batch_a, batch_b, en_sequential_write, matrix_stride_a=0, matrix_stride_b=0,
        matrix_stride_c=0, en_partial_sum=False, en_atomic=0, sync=True, wait_iterate_batch=None)`` or, after
        set_batch_num, ``iterate_batch(c, en_partial_sum, en_atomic, en_sequential_write, matrix_stride_a=0,
        matrix_stride_b=0, matrix_stride_c=0)``: max(batch_a, batch_b) matrix products in one call, the
        smaller batch broadcast (batch i uses A i // (batch_c / batch_a)), laid out as the MatmulTypes'
        `layout` says (LayoutMode.NORMAL, BSNGD, SBNGD, BNGS1S2) with the tiling's layout fields."""
        self._ready("iterate_batch")
        p = _batch_arguments(self, args, kwargs)
        if isinstance(tensor, LocalTensor):
            raise CodegenError(
                "Matmul.iterate_batch: C in the Unified Buffer is not supported yet; give a GlobalTensor"
            )
        c_gm = _global(tensor, "iterate_batch")
        if p["en_sequential_write"] is True:
            raise CodegenError("Matmul.iterate_batch: en_sequential_write must be False when C is in GM")
        if p["en_partial_sum"] is True:
            raise CodegenError("Matmul.iterate_batch: en_partial_sum is not supported yet")
        steps, self.rows = _batch_layout(self, p["matrix_stride_a"], p["matrix_stride_b"])
        atomic = _atomic(p["en_atomic"], "iterate_batch")
        try:
            self._api("IterateBatch", (c_gm,), atomic, expansion=lambda: self._call(
                _iterate_batch, c_gm, p["batch_a"], p["batch_b"], steps, atomic))  # fmt: skip
        finally:
            self.rows = None

    @builtin
    def wait_iterate_batch(self) -> None:
        """iterate_batch always runs synchronously on the Model: nothing to wait for."""
        return None


_BATCH_FORM_1 = ("batch_a", "batch_b", "en_sequential_write", "matrix_stride_a", "matrix_stride_b",
                 "matrix_stride_c", "en_partial_sum", "en_atomic", "sync", "wait_iterate_batch")  # fmt: skip
_BATCH_FORM_2 = ("en_partial_sum", "en_atomic", "en_sequential_write", "matrix_stride_a", "matrix_stride_b",
                 "matrix_stride_c", "sync")  # fmt: skip


def _batch_arguments(mm: Matmul, args: tuple, kwargs: dict) -> dict:
    """Binds iterate_batch's arguments to one of its two forms: the second (no batch counts, from
    set_batch_num) when batch_a is absent and the first positional argument is a bool."""
    second = "batch_a" not in kwargs and (not args or isinstance(args[0], bool))
    names = _BATCH_FORM_2 if second else _BATCH_FORM_1
    if len(args) > len(names):
        raise CodegenError(f"Matmul.iterate_batch takes at most {len(names) + 1} arguments, got {len(args) + 1}")
    p = {"matrix_stride_a": 0, "matrix_stride_b": 0, "matrix_stride_c": 0, "en_partial_sum": False, "en_atomic": 0}
    p.update(zip(names, args))
    for key, value in kwargs.items():
        if key not in names:
            raise CodegenError(f"Matmul.iterate_batch: unexpected argument {key!r}")
        p[key] = value
    if second:
        if mm.batch_num is None:
            raise CodegenError("Matmul.iterate_batch without batch counts needs set_batch_num(batch_a, batch_b) first")
        p["batch_a"], p["batch_b"] = mm.batch_num
    for key in ("batch_a", "batch_b", "en_sequential_write"):
        if key not in p:
            raise CodegenError(f"Matmul.iterate_batch: missing argument {key!r}")
    return p


def _batch_layout(mm: Matmul, stride_a: Any, stride_b: Any) -> tuple[tuple, tuple]:
    """The elements from one matrix to the next in A, B, C and the bias, and the row lengths of A, B and C,
    from the MatmulTypes' layouts and the tiling's layout fields (or, for NORMAL, the matrices' sizes)."""
    t = mm.tiling
    a_layout = LayoutMode(mm.a_type.layout or LayoutMode.NORMAL)
    b_layout = LayoutMode(mm.b_type.layout or LayoutMode.NORMAL)
    c_layout = LayoutMode(mm.c_type.layout or LayoutMode.NORMAL)
    if (a_layout == LayoutMode.NORMAL) != (b_layout == LayoutMode.NORMAL):
        raise CodegenError(f"Matmul.iterate_batch: A and B must have the same layout, got {a_layout.name} and "
                           f"{b_layout.name}")  # fmt: skip

    def operand(layout: LayoutMode, fields: tuple, normal_rows: Any, normal_size: Any, stride: Any) -> tuple:
        b, s, n, g, d = fields
        if layout == LayoutMode.NORMAL:
            return (normal_size if _is_zero(stride) else stride), normal_rows
        if layout == LayoutMode.BSNGD:
            return d, n * g * d
        if layout == LayoutMode.SBNGD:
            return d, b * n * g * d
        return s * d, d  # BNGS1S2

    a_fields = (t.a_layout_info_b, t.a_layout_info_s, t.a_layout_info_n, t.a_layout_info_g, t.a_layout_info_d)
    b_fields = (t.b_layout_info_b, t.b_layout_info_s, t.b_layout_info_n, t.b_layout_info_g, t.b_layout_info_d)
    c_fields = (t.c_layout_info_b, t.c_layout_info_s1, t.c_layout_info_n, t.c_layout_info_g, t.c_layout_info_s2)
    a_step, a_row = operand(a_layout, a_fields, mm.a_row, mm.org_m * mm.org_ka, stride_a)
    b_step, b_row = operand(b_layout, b_fields, mm.b_row, mm.org_kb * mm.org_n, stride_b)
    c_step, c_row = operand(c_layout, c_fields, mm.c_row, mm.org_m * mm.org_n, 0)
    bias_step = (t.n if c_layout == LayoutMode.NORMAL else t.c_layout_info_s2) if mm.bias_per_batch else 0
    return (a_step, b_step, c_step, bias_step), (a_row, b_row, c_row)


def _is_zero(value: Any) -> bool:
    return isinstance(value, int) and value == 0


class _Iterator:
    """The loop `with mm.iterate() as count` runs: mIter x nIter blocks, M first (iterate_order 0) or N first."""

    def __init__(self, mm: Matmul):
        self.mm = mm

    def __asc_loop__(self) -> tuple:
        mm = self.mm
        # Ascend C's `while (mm.Iterate())` has no count: the Model's block counts are work of the Matmul's own
        counts, total = mm._api("Prepare", expansion=lambda: _counts_and_total(mm))
        mm._iter_counts = counts

        def begin(count: Scalar) -> None:
            mm.current = mm._api("Iterate", expansion=lambda: mm._call(_begin_block, count, counts[0], counts[1]))

        return total, begin


def _counts_and_total(mm: Matmul) -> tuple:
    counts = mm._call(_block_counts)
    return counts, counts[0] * counts[1]


def _atomic(en_atomic: Any, what: str) -> int:
    """en_atomic: 0 writes C, 1 adds to what GM holds, 2 / 3 keep the max / min (a compile-time int)."""
    value = 0 if en_atomic is None else en_atomic
    if isinstance(value, bool) or not isinstance(value, int) or value not in (0, 1, 2, 3):
        raise CodegenError(f"Matmul.{what}: en_atomic must be 0, 1 (add), 2 (max) or 3 (min) at compile time, "
                           f"got {en_atomic!r}")  # fmt: skip
    return value


def _global(tensor: Any, what: str) -> GlobalTensor:
    if not isinstance(tensor, GlobalTensor):
        raise CodegenError(f"Matmul.{what}: expected a GlobalTensor, got {type(tensor).__name__}")
    tensor._require()
    return tensor


@builtin
def register_matmul(pipe: Any, workspace: Any, matmul: Any, tiling: Any = None) -> None:
    """REGIST_MATMUL_OBJ: binds the workspace (and the tiling) to the Matmul; in a mix kernel the cube core
    stops here."""
    if not isinstance(matmul, Matmul):
        raise CodegenError(f"register_matmul: expected an asc.adv.Matmul, got {type(matmul).__name__}")
    matmul.workspace = workspace
    if tiling is not None:
        matmul.init(tiling)
    builder = current_builder()
    builder.uses_matmul = True  # a kernel with a Matmul is a mix kernel unless it says otherwise
    operands: list = []
    attrs: dict[str, Any] = {"id": matmul.id}
    if isinstance(workspace, GlobalAddress) and isinstance(tiling, TCubeTiling):  # what Ascend C's macro takes
        fields = tiling.fields()
        operands = [workspace.handle]
        for name, _ in fields:
            value = getattr(tiling, name)
            operands.append((const(value, dt.int32) if isinstance(value, int) else value).handle)
        attrs["fields"] = ",".join(field.c_name for _, field in fields)
        for prefix, t in (("a", matmul.a_type), ("b", matmul.b_type), ("c", matmul.c_type), ("bias", matmul.bias_type)):
            attrs.update({f"{prefix}_position": int(t.position), f"{prefix}_format": int(t.format),
                          f"{prefix}_dtype": t.dtype.code, f"{prefix}_trans": int(bool(t.is_trans))})  # fmt: skip
    builder.op("matmul.server", operands, attrs)


from .matmul_kernels import (  # noqa: E402
    _begin_block,
    _block_counts,
    _block_to_gm,
    _block_to_ub,
    _iterate_all,
    _iterate_batch,
)

__all__ = ["Matmul", "MatmulConfig", "MatmulType", "register_matmul"]
