"""asc.adv.Matmul: C = A x B (+ bias) over a core's share of the problem, as a
TCubeTiling splits it, built from the cube basic API: data_copy with
Nd2NzParams (GM -> L1), load_data / load_data_with_transpose (L1 -> L0A/L0B),
mmad (one baseM x baseN block, K in baseK steps, the bias on the first) and
fixpipe (L0C -> GM). get_tensor_c into the Unified Buffer goes through the
workspace in GM, as on Atlas A2, which has no L0C -> UB path.

In a mix kernel the cube core stops at register_matmul and each vector core
runs its own Matmul on a cube unit of its own (on the NPU the group's cube
core serves its two vector cores' requests in turn); in a cube-only kernel
the cube core runs it. Blocks are computed one after another (pipes joined
between them), which is correct but does not overlap copies and mmads."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..basic.utils import builtin
from ..core import dtype as dt
from ..core.ir_value import Scalar, const
from ..core.tensor import GlobalTensor, LocalTensor
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
        if a.is_trans and a.dtype.sizeof() != 2:
            raise CodegenError("Matmul: a transposed A is supported for 2-byte types (float16, bfloat16) only yet")
        self.a_type, self.b_type, self.c_type, self.bias_type = a, b, c, bias or c
        self.tiling: Optional[TCubeTiling] = None
        self.workspace: Any = None
        self.a_gm = self.b_gm = self.bias_gm = None
        self.b_trans = b.is_trans
        self.a_trans = a.is_trans
        self.tails: tuple = (-1, -1, -1)
        self.org: Optional[tuple] = None
        # set_bias may sit under a run-time `if` (e.g. `if tiling.is_bias:`): whether the bias applies is a
        # run-time flag; has_bias says whether any set_bias was compiled at all
        builder = current_builder()
        self.bias_flag = Scalar(builder.op("var", [const(0, dt.int32).handle]), dt.int32)
        self.has_bias = False

    # -- set-up ------------------------------------------------------------------------
    @builtin
    def init(self, tiling: Any) -> None:
        if not isinstance(tiling, TCubeTiling):
            raise CodegenError(f"Matmul.init: expected an asc.adv.TCubeTiling, got {type(tiling).__name__}")
        self.tiling = tiling

    @builtin
    def set_tensor_a(self, tensor: Any, transpose: bool = False) -> None:
        if transpose and self.a_type.dtype.sizeof() != 2:
            raise CodegenError("Matmul.set_tensor_a: a transposed A is supported for 2-byte types only yet")
        self.a_gm = _global(tensor, "set_tensor_a")
        self.a_trans = bool(transpose) or self.a_type.is_trans

    @builtin
    def set_tensor_b(self, tensor: Any, transpose: bool = False) -> None:
        self.b_gm = _global(tensor, "set_tensor_b")
        self.b_trans = bool(transpose) or self.b_type.is_trans

    @builtin
    def set_bias(self, tensor: Any) -> None:
        if self.bias_gm is not None and tensor is not self.bias_gm:
            raise CodegenError("Matmul.set_bias: one bias tensor per Matmul")
        self.bias_gm = _global(tensor, "set_bias")
        self.has_bias = True
        current_builder().op("assign", [self.bias_flag.handle, const(1, dt.int32).handle])

    @builtin
    def disable_bias(self) -> None:
        current_builder().op("assign", [self.bias_flag.handle, const(0, dt.int32).handle])

    @builtin
    def set_tail(self, tail_m: Any = -1, tail_n: Any = -1, tail_k: Any = -1) -> None:
        self.tails = (tail_m, tail_n, tail_k)

    @builtin
    def set_org_shape(self, org_m: Any, org_n: Any, org_ka: Any, org_kb: Any = None, org_kc: Any = None) -> None:
        self.org = (org_m, org_n, org_ka, org_ka if org_kb is None else org_kb)

    @builtin
    def end(self) -> None:
        return None

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

    def _call(self, fn: Any, *args: Any) -> Any:
        builder = current_builder()
        return fn._inline(builder, [self, *args], {}, builder.loc)

    @builtin
    def iterate_all(self, tensor: Any, en_atomic: int = 0, sync: bool = True, en_sequential_write: Any = None,
                    wait_iterate_all: Any = None, fake_msg: Any = None) -> None:  # fmt: skip
        """This core's whole singleCoreM x singleCoreN result into the GlobalTensor `tensor` (row stride N)."""
        self._ready("iterate_all")
        if en_atomic:
            raise CodegenError("Matmul.iterate_all: atomic accumulation is not supported yet")
        self._call(_iterate_all, _global(tensor, "iterate_all"))

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
        if en_atomic:
            raise CodegenError("Matmul.get_tensor_c: atomic accumulation is not supported yet")
        if isinstance(tensor, LocalTensor):
            if self.workspace is None:
                raise CodegenError(
                    "Matmul.get_tensor_c into a LocalTensor needs the workspace given to register_matmul"
                )
            self._call(_block_to_ub, tensor)
        else:
            self._call(_block_to_gm, _global(tensor, "get_tensor_c"), bool(en_sequential_write))


class _Iterator:
    """The loop `with mm.iterate() as count` runs: mIter x nIter blocks, M first (iterate_order 0) or N first."""

    def __init__(self, mm: Matmul):
        self.mm = mm

    def __asc_loop__(self) -> tuple:
        mm = self.mm
        counts = mm._call(_block_counts)
        mm._iter_counts = counts

        def begin(count: Scalar) -> None:
            mm.current = mm._call(_begin_block, count, counts[0], counts[1])

        return counts[0] * counts[1], begin


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
    builder.op("matmul.server", [])


from .matmul_kernels import _begin_block, _block_counts, _block_to_gm, _block_to_ub, _iterate_all  # noqa: E402

__all__ = ["Matmul", "MatmulConfig", "MatmulType", "register_matmul"]
