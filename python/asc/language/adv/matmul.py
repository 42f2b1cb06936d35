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
from ..core.ir_value import Scalar, cast, const, minmax, to_scalar
from ..core.struct import Field, Struct
from ..core.tensor import GlobalAddress, GlobalTensor, LocalTensor
from .tiling import MatmulApiStaticTiling, TCubeTiling
from .types import MatmulConfig


@dataclass(frozen=True)
class MatmulType:
    """Where a Matmul operand lives, its format and dtype, and whether it is stored transposed."""

    __asc_builtin__ = True

    position: Any
    format: Any
    dtype: Any
    is_trans: bool = False
    layout: Any = 0


class SparseMatmulType(MatmulType):
    """``SparseMatmulType(position, index_position, format, dtype, is_trans=False, layout=0, ibshare=False)``:
    Ascend C's AscendC::SparseMatmulType, the B of a 4:2 sparse Matmul: B is the 4:2-densified int8 matrix
    (two of every four K values of the original sparse B), stored transposed (N rows of K/2, ISTRANS true,
    the only form Ascend C supports), in GM; its index matrix (set_sparse_index) is in GM too (index_position).
    https://www.hiascend.com/document/detail/zh/canncommercial/850/ (Matmul, 4:2 稀疏矩阵乘 / Sparse Matmul)"""

    index_position: Any = None
    ibshare: bool = False

    def __init__(self, position: Any, index_position: Any, format: Any, dtype: Any, is_trans: bool = False,  # noqa: A002
                 layout: Any = 0, ibshare: bool = False):  # fmt: skip
        for name, value in (("position", position), ("format", format), ("dtype", dtype), ("is_trans", is_trans),
                            ("layout", layout), ("index_position", index_position), ("ibshare", ibshare)):  # fmt: skip
            object.__setattr__(self, name, value)


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
        self.b_sparse = isinstance(b, SparseMatmulType)
        if self.b_sparse:
            _check_sparse(a, b, c)
        self.sparse_index: Optional[GlobalTensor] = None
        self.tiling: Optional[TCubeTiling] = None
        self.workspace: Any = None
        self.a_gm = self.b_gm = self.bias_gm = None
        self.b_trans = b.is_trans
        self.a_trans = a.is_trans
        self.tails: tuple = (-1, -1, -1)
        self.org: Optional[tuple] = None
        self.rows: Optional[tuple] = None
        self.batch_num: Optional[tuple] = None  # set_batch_num
        # the template configuration: a MatmulConfig, or get_matmul_api_tiling's MatmulApiStaticTiling
        self.static_tiling: Optional[MatmulApiStaticTiling] = None
        if isinstance(matmul_config, MatmulApiStaticTiling):
            self.static_tiling, matmul_config = matmul_config, matmul_config.cfg
        if matmul_config is not None and not isinstance(matmul_config, MatmulConfig):
            raise CodegenError(f"Matmul: matmul_config must be an asc.adv.MatmulConfig (or get_matmul_api_tiling's "
                               f"MatmulApiStaticTiling), got {type(matmul_config).__name__}")  # fmt: skip
        self.config: Optional[MatmulConfig] = matmul_config
        if self.b_sparse and (matmul_config is None or not matmul_config.do_multi_data_load):
            raise CodegenError("Matmul: a SparseMatmulType B needs the MDL template (matmul_config="
                               "asc.adv.get_mdl_config()), the only one Ascend C's Sparse Matmul has")  # fmt: skip
        self.bias_per_batch = bool(matmul_config.is_bias_batch) if matmul_config else True
        # a configured iterate_order (not UNDEF) overrides the tiling's
        order = matmul_config.iterate_order if matmul_config else 2
        self.config_order: Optional[int] = None if order == 2 else int(order)
        if self.config_order is None and self.static_tiling is not None and self.static_tiling.iterate_order >= 0:
            self.config_order = int(self.static_tiling.iterate_order)  # GetMatmulApiTiling's constant order
        self.a_scalar: Optional[Scalar] = None  # set_tensor_a(scalar): every element of A is this value
        self.b_scalar: Optional[Scalar] = None
        self.quant: Optional[tuple] = None  # ("scalar", uint64 Scalar) or ("vector", GlobalTensor of uint64)
        self.user_workspace: Optional[GlobalAddress] = None  # set_workspace
        self.current: Optional[tuple] = None  # the block of the iteration being compiled (m0, n0, cm, cn, L0C)
        self.n_batch: Optional[tuple] = None  # iterate_n_batch's (batch_a, batch_b, results so far variable)
        # set_bias may sit under a run-time `if` (e.g. `if tiling.is_bias:`): whether the bias applies is a
        # run-time flag; has_bias says whether any set_bias was compiled at all
        builder = current_builder()
        self.bias_flag = Scalar(builder.op("var", [const(0, dt.int32).handle]), dt.int32)
        self.has_bias = False
        self.id = getattr(builder, "matmul_count", 0)  # which Matmul object of the kernel
        builder.matmul_count = self.id + 1

    def _api(self, api: str, operands: tuple = (), flag: int = 0, sequential: int = 0,
             expansion: Optional[Callable[[], Any]] = None, error: str = "") -> Any:  # fmt: skip
        """Marks Ascend C's call `api` in the IR; `expansion` builds what computes it on the Model."""
        builder = current_builder()
        handles = [(const(int(v), dt.int32) if isinstance(v, int) else v).handle for v in operands]
        attrs = {"id": self.id, "api": api, "flag": int(flag), "sequential": int(sequential)}
        if error:
            attrs["error"] = error
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
        self.tiling = tiling if self.static_tiling is None else _ConstantTiling(tiling, self.static_tiling)

    @builtin
    def set_tensor_a(self, tensor: Any = None, transpose: bool = False, scalar: Any = None) -> None:
        """``set_tensor_a(gm, transpose=False)``, or ``set_tensor_a(scalar)``: A is a matrix all of whose
        elements are `scalar` (float16 / float32 A only)."""
        if _is_scalar(tensor) or scalar is not None:
            self.a_scalar = _matrix_scalar(self.a_type, scalar if scalar is not None else tensor, "set_tensor_a")
            self._api("SetTensorAScalar", (self.a_scalar,))
            return
        self.a_gm = _global(tensor, "set_tensor_a")
        self.a_scalar = None
        self.a_trans = bool(transpose) or self.a_type.is_trans
        self._api("SetTensorA", (self.a_gm,), flag=self.a_trans)

    @builtin
    def set_tensor_b(self, tensor: Any = None, transpose: bool = False, scalar: Any = None) -> None:
        """``set_tensor_b(gm, transpose=False)``, or ``set_tensor_b(scalar)``: every element of B is `scalar`."""
        if _is_scalar(tensor) or scalar is not None:
            self.b_scalar = _matrix_scalar(self.b_type, scalar if scalar is not None else tensor, "set_tensor_b")
            self._api("SetTensorBScalar", (self.b_scalar,))
            return
        self.b_gm = _global(tensor, "set_tensor_b")
        self.b_scalar = None
        self.b_trans = bool(transpose) or self.b_type.is_trans
        self._api("SetTensorB", (self.b_gm,), flag=self.b_trans)

    @builtin
    def set_bias(self, tensor: Any) -> None:
        """The bias row (N elements): a GlobalTensor, or a LocalTensor in the Unified Buffer, which the Model
        stages through the workspace to reach L1 (as on Atlas A2, which has no UB -> L1 path)."""
        if self.b_sparse:  # mmad_with_sparse has no bias-table operand; Ascend C's sparse bias is not modelled yet
            raise CodegenError("Matmul.set_bias with a SparseMatmulType B is not supported by the Model yet")
        if isinstance(tensor, LocalTensor):
            if self.tiling is None:
                raise CodegenError("Matmul.set_bias with a LocalTensor needs the tiling first (its singleCoreN "
                                   "elements are staged)")  # fmt: skip
            self._need_workspace("set_bias with a LocalTensor")
            staged = self._api("SetBiasLocal", (tensor,), expansion=lambda: self._call(_bias_from_ub, tensor))
        else:
            staged = _global(tensor, "set_bias")
            self._api("SetBias", (staged,))
        if self.bias_gm is not None and staged is not self.bias_gm and not isinstance(tensor, LocalTensor):
            raise CodegenError("Matmul.set_bias: one bias tensor per Matmul")
        self.bias_gm = staged
        self.has_bias = True
        current_builder().op("assign", [self.bias_flag.handle, const(1, dt.int32).handle])

    @builtin
    def disable_bias(self) -> None:
        current_builder().op("assign", [self.bias_flag.handle, const(0, dt.int32).handle])
        self._api("DisableBias")

    @builtin
    def set_tail(self, tail_m: Any = -1, tail_n: Any = -1, tail_k: Any = -1) -> None:
        self.tails = (tail_m, tail_n, tail_k)
        self._api("SetTail", self.tails)

    @builtin
    def set_single_shape(self, single_m: Any, single_n: Any, single_k: Any) -> None:
        """``SetSingleShape``: this core's singleCoreM / N / K from now on (SetTail's successor)."""
        self.tails = (single_m, single_n, single_k)
        self._api("SetSingleShape", self.tails)

    @builtin
    def set_org_shape(self, org_m: Any, org_n: Any, org_ka: Any, org_kb: Any = None, org_kc: Any = None) -> None:
        self.org = (org_m, org_n, org_ka, org_ka if org_kb is None else org_kb)
        self._api("SetOrgShape", self.org)

    @builtin
    def set_workspace(self, addr: Any, size: Any = None) -> None:
        """``SetWorkspace``: the GM buffer that iterate_n_batch and get_tensor_c() (no argument) leave results
        in: a GlobalTensor, or a GlobalAddress and its size in elements."""
        if isinstance(addr, GlobalTensor):
            addr._require()
            self.user_workspace = addr.get_phy_addr()
            self._api("SetWorkspace", (addr,))
        elif isinstance(addr, GlobalAddress):
            self.user_workspace = addr
            self._api("SetWorkspaceAddr", (addr, 0 if size is None else size), flag=size is not None)
        else:
            raise CodegenError(f"Matmul.set_workspace: expected a GlobalTensor or a GlobalAddress, got "
                               f"{type(addr).__name__}")  # fmt: skip

    @builtin
    def set_hf32(self, enable_hf32: Any = False, trans_mode: Any = 0) -> None:
        """``SetHF32``: float32 A and B rounded to HF32 before each mmad (trans_mode, the rounding: 1 ties
        towards zero, 0 to even); set_hf32(False) goes back to float32. Ascend C has it in cube-only kernels:
        the Model computes it in mix kernels too, but the emitter refuses it there."""
        self._api("SetHF32", (enable_hf32, trans_mode),
                  expansion=lambda: _set_hf32(self, enable_hf32, trans_mode))  # fmt: skip

    @builtin
    def set_quant_scalar(self, quant_scalar: Any) -> None:
        """``SetQuantScalar``: one (de)quantisation factor for all of C, a uint64 holding float32 bits, applied
        as C leaves L0C: int8 A and B into float16 C (DEQF16) or int8 C (REQ8), float16 / bfloat16 into int8
        C (QF322B8_PRE). Other dtype pairs have no quantisation: the factor is not used."""
        value = to_scalar(quant_scalar, dt.uint64) if not isinstance(quant_scalar, Scalar) else quant_scalar
        self.quant = ("scalar", value)
        self._api("SetQuantScalar", (value,))

    @builtin
    def set_quant_vector(self, quant_vector: Any) -> None:
        """``SetQuantVector``: one factor per column of C (a GlobalTensor of N uint64), the vector forms of
        set_quant_scalar's modes (VDEQF16, VREQ8, VQF322B8_PRE)."""
        gm = _global(quant_vector, "set_quant_vector")
        if gm.dtype != dt.uint64:
            raise CodegenError(f"Matmul.set_quant_vector: the quant vector must be uint64, got {gm.dtype.name}")
        self.quant = ("vector", gm)
        self._api("SetQuantVector", (gm,))

    @builtin
    def set_self_define_data(self, data_ptr: Any) -> Any:
        """``SetSelfDefineData``: data for the Matmul's user callbacks (MatmulCallBackFunc). The Model has no
        callbacks: it computes nothing with it; the board's callbacks receive it."""
        value = data_ptr if isinstance(data_ptr, (GlobalAddress, Scalar)) else to_scalar(data_ptr, dt.uint64)
        self._api("SetSelfDefineData", (value,))
        return data_ptr

    @builtin
    def set_user_def_info(self, tiling_ptr: Any) -> Any:
        """``SetUserDefInfo``: the user's tiling pointer for the Matmul's callbacks (none on the Model)."""
        if not isinstance(tiling_ptr, GlobalAddress):
            raise CodegenError(f"Matmul.set_user_def_info: expected a GlobalAddress, got {type(tiling_ptr).__name__}")
        self._api("SetUserDefInfo", (tiling_ptr,))
        return tiling_ptr

    @builtin
    def set_sparse_index(self, index_global: Any) -> None:
        """``SetSparseIndex``: the index matrix of a 4:2 sparse B (B a SparseMatmulType; cube-only, MDL): uint8,
        four 2-bit indices a byte (the first in the lowest bits), in the NZ layout of the dense Bᵀ (N x K/2):
        fractals of 16 rows x 32 indices (128 bytes), N rounded up to 16, K/2 in blocks of 32 outermost. The
        Model multiplies A by the sparse B through load_data_with_sparse and mmad_with_sparse. With a dense
        MatmulType B (pyasc compiles that) the index is only recorded: the product is the dense one."""
        gm = _global(index_global, "set_sparse_index")
        if self.b_sparse and gm.dtype != dt.uint8:
            raise CodegenError(f"Matmul.set_sparse_index: the index matrix must be uint8 (four 2-bit indices a "
                               f"byte), got {gm.dtype.name}")  # fmt: skip
        self.sparse_index = gm
        self._api("SetSparseIndex", (gm,))

    @builtin
    def end(self) -> None:
        self._api("End")

    # -- computing ----------------------------------------------------------------------
    def _ready(self, what: str) -> TCubeTiling:
        if self.tiling is None:
            raise CodegenError(f"Matmul.{what}: no tiling (pass it to register_matmul or call init)")
        if (self.a_gm is None and self.a_scalar is None) or (self.b_gm is None and self.b_scalar is None):
            raise CodegenError(f"Matmul.{what}: set_tensor_a and set_tensor_b first")
        if self.b_sparse and self.sparse_index is None:
            raise CodegenError(f"Matmul.{what}: B is a SparseMatmulType: set_sparse_index(index) first")
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
        if self.b_sparse:  # the densified Bᵀ: N rows of two values for every four K
            return (self.org_kb + 3) // 4 * 2
        return self.rows[1] if self.rows else self.org_kb if self.b_trans else self.org_n

    @property
    def c_row(self) -> Any:
        return self.rows[2] if self.rows else self.org_n

    @property
    def a_is_scalar(self) -> bool:
        return self.a_scalar is not None

    @property
    def b_is_scalar(self) -> bool:
        return self.b_scalar is not None

    def _call(self, fn: Any, *args: Any) -> Any:
        builder = current_builder()
        return fn.inline(builder, [self, *args], {}, builder.loc)

    @builtin
    def iterate_all(self, tensor: Any, en_atomic: int = 0, sync: bool = True, en_sequential_write: Any = None,
                    wait_iterate_all: Any = None, fake_msg: Any = None) -> None:  # fmt: skip
        """This core's whole singleCoreM x singleCoreN result into the GlobalTensor `tensor` (row stride N), or
        densely into a LocalTensor. The Model computes it at once: sync=False and wait_iterate_all change when
        the board's vector core waits, not what it gets."""
        self._ready("iterate_all")
        atomic = _atomic(en_atomic, "iterate_all")
        if wait_iterate_all is True and sync is True:
            raise CodegenError("Matmul.iterate_all: wait_iterate_all=True needs sync=False")
        if isinstance(tensor, LocalTensor):
            for name, value in (("en_sequential_write", en_sequential_write), ("wait_iterate_all", wait_iterate_all),
                                ("fake_msg", fake_msg)):  # fmt: skip
                if value is not None:
                    raise CodegenError(f"Matmul.iterate_all into a LocalTensor takes no {name}")
            self._need_workspace("iterate_all into a LocalTensor")
            self._api("IterateAll", (tensor,), atomic, expansion=lambda: self._call(_iterate_all_to_ub, tensor))
            return
        c_gm = _global(tensor, "iterate_all")
        # bit 0: asynchronous (IterateAll<false>), bit 1: waited for by wait_iterate_all, bit 2: en_sequential_write
        mode = int(sync is False) | int(wait_iterate_all is True) << 1 | int(en_sequential_write is True) << 2
        self._api("IterateAll", (c_gm,), atomic, mode,
                  expansion=lambda: self._call(_iterate_all, self.a_gm, self.b_gm, 0, c_gm, atomic))  # fmt: skip

    @builtin
    def wait_iterate_all(self) -> None:
        """``WaitIterateAll``: waits for an iterate_all(sync=False, wait_iterate_all=True); the Model's is done."""
        self._api("WaitIterateAll")

    @builtin
    def iterate(self, en_partial_sum: bool = False, sync: bool = True, local_c_matrix: Any = None) -> _Iterator:
        """``with mm.iterate() as count:`` — one baseM x baseN block per iteration, read with get_tensor_c."""
        self._ready("iterate")
        return _Iterator(self)

    def _need_workspace(self, what: str) -> None:
        if self.workspace is None and self.user_workspace is None:
            raise CodegenError(f"Matmul.{what} needs the workspace given to register_matmul (or set_workspace)")

    def _block(self, api: str, operands: tuple = (), flag: int = 0, sequential: int = 0) -> Optional[tuple]:
        """The current iteration's block, or None outside `with mm.iterate()` (before it, or after its loop):
        pyasc compiles such a call,
        but nothing has computed a block for it, so the call's marker fails the Model's launch with a
        KernelError at the user's line (the emitted Ascend C still makes the call)."""
        if self.current is not None:
            return self.current
        what = _SNAKE.get(api, "get_tensor_c")
        self._api(api, operands, flag, sequential, error=f"Matmul.{what} is called outside `with mm.iterate()` "
                                                         "(before iterate, or after its loop): no block has been "
                                                         "computed for it to read")  # fmt: skip
        return None

    @builtin
    def get_tensor_c(self, tensor: Any = None, en_atomic: int = 0, en_sequential_write: bool = False, sync: bool = True,
                     optional_tensor: Any = None) -> Any:  # fmt: skip
        """The block the current iteration computed: into a GlobalTensor at its place in C (or at the start
        with en_sequential_write), or densely into a Unified Buffer tensor; with `optional_tensor` (a
        LocalTensor) into both. ``get_tensor_c(en_atomic=0, en_sequential_write=False, sync=False)`` with no
        tensor returns a GlobalTensor over the workspace, where the block was left."""
        if tensor is None or _is_scalar(tensor):
            if tensor is not None:  # get_tensor_c(en_atomic, en_sequential_write, sync) positionally
                en_atomic, en_sequential_write, sync = tensor, en_atomic, en_sequential_write
            if sync is not False:
                raise CodegenError("Matmul.get_tensor_c with no tensor returns the block in the workspace: it "
                                   "needs sync=False")  # fmt: skip
            atomic = _atomic(en_atomic, "get_tensor_c")
            self._need_workspace("get_tensor_c()")
            out = asc_global_tensor(self, self.c_type.dtype)
            if self._block("GetTensorCReturn", (out,), atomic, bool(en_sequential_write)) is None:
                return out
            self._api("GetTensorCReturn", (out,), atomic, bool(en_sequential_write),
                      lambda: self._call(_block_to_workspace, out))  # fmt: skip
            return out
        atomic = _atomic(en_atomic, "get_tensor_c")
        for t in (tensor, optional_tensor):
            if t is not None and t.dtype not in _C_DTYPES:
                raise CodegenError(f"Matmul.get_tensor_c: C of {t.dtype.name} is not supported "
                                   f"({', '.join(d.name for d in _C_DTYPES)})")  # fmt: skip
        both = isinstance(tensor, GlobalTensor) and isinstance(optional_tensor, LocalTensor)
        if optional_tensor is not None and not both:
            raise CodegenError("Matmul.get_tensor_c into GM and the Unified Buffer at once takes a GlobalTensor "
                               "first and a LocalTensor as optional_tensor")  # fmt: skip
        if isinstance(tensor, LocalTensor):
            self._need_workspace("get_tensor_c into a LocalTensor")
            if self._block("GetTensorC", (tensor,), atomic, bool(en_sequential_write)) is None:
                return None
            self._api("GetTensorC", (tensor,), atomic, bool(en_sequential_write),
                      lambda: self._call(_block_to_ub, tensor))  # fmt: skip
            return None
        c_gm = _global(tensor, "get_tensor_c")
        sequential = bool(en_sequential_write)
        api, operands = ("GetTensorC", (c_gm,))
        if optional_tensor is not None:
            api, operands = "GetTensorCBoth", (c_gm, optional_tensor)
        if self._block(api, operands, atomic, sequential) is None:
            return None
        if optional_tensor is not None:
            self._need_workspace("get_tensor_c into a LocalTensor")
            self._api("GetTensorCBoth", (c_gm, optional_tensor), atomic, sequential,
                      lambda: (self._call(_block_to_gm, c_gm, sequential, atomic),
                               self._call(_block_to_ub, optional_tensor)))  # fmt: skip
            return None
        self._api("GetTensorC", (c_gm,), atomic, sequential,
                  lambda: self._call(_block_to_gm, c_gm, sequential, atomic))  # fmt: skip
        return None

    @builtin
    def async_get_tensor_c(self, c: Any) -> None:
        """``AsyncGetTensorC``: the current block into the LocalTensor `c`; on the Model it is there at once
        (wait_get_tensor_c has nothing to wait for)."""
        if not isinstance(c, LocalTensor):
            raise CodegenError(f"Matmul.async_get_tensor_c: expected a LocalTensor, got {type(c).__name__}")
        self._need_workspace("async_get_tensor_c")
        if self._block("AsyncGetTensorC", (c,)) is None:
            return
        self._api("AsyncGetTensorC", (c,), expansion=lambda: self._call(_block_to_ub, c))

    @builtin
    def wait_get_tensor_c(self) -> None:
        """``WaitGetTensorC``: waits for async_get_tensor_c; the Model's copy is done."""
        self._api("WaitGetTensorC")

    @builtin
    def get_offset_c(self) -> MatrixOffset:
        """``GetOffsetC``: where the current block lies in this core's C: offset (m0 * N + n0, elements), row
        and col (its first row and column), height and width (its rows and columns)."""
        out = MatrixOffset(0, 0, 0, 0, 0)
        fields = (out.offset, out.row, out.col, out.height, out.width)
        if self._block("GetOffsetC", fields) is None:
            return out
        self._api("GetOffsetC", fields, expansion=lambda: _offset_of_block(self, fields))
        return out

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
        if self.b_sparse:
            raise CodegenError("Matmul.iterate_batch: a SparseMatmulType B has no batch (its LAYOUT is NONE)")
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
        """``WaitIterateBatch``: iterate_batch runs synchronously on the Model: nothing to wait for."""
        self._api("WaitIterateBatch")

    @builtin
    def iterate_n_batch(self, batch_loop: Any, batch_a: Any, batch_b: Any, en_sequential_write: Any,
                        matrix_stride_a: Any = 0, matrix_stride_b: Any = 0, matrix_stride_c: Any = 0,
                        sync: Any = True, wait_iterate_batch: Any = False) -> None:  # fmt: skip
        """``IterateNBatch``: batch_loop iterate_batch calls of max(batch_a, batch_b) products each, call l
        reading A's matrices from l * batch_a and B's from l * batch_b; every result, singleCoreM x
        singleCoreN and dense, goes to the workspace (set_workspace, else register_matmul's, at this core's
        slice), one after another, where get_batch_tensor_c reads them."""
        self._ready("iterate_n_batch")
        if self.b_sparse:
            raise CodegenError("Matmul.iterate_n_batch: a SparseMatmulType B has no batch (its LAYOUT is NONE)")
        if wait_iterate_batch is True and sync is True:
            raise CodegenError("Matmul.iterate_n_batch: wait_iterate_batch=True needs sync=False")
        self._need_workspace("iterate_n_batch")
        steps, rows = _batch_layout(self, matrix_stride_a, matrix_stride_b)
        sm, sn = self._single("m"), self._single("n")
        ws = asc_global_tensor(self, self.c_type.dtype)
        read = Scalar(current_builder().op("var", [const(0, dt.int32).handle]), dt.int32)
        read._mutable = True
        self.n_batch = (batch_a, batch_b, read, ws)
        self.rows = (rows[0], rows[1], sn)
        try:
            self._api("IterateNBatch", (batch_loop, batch_a, batch_b, matrix_stride_a, matrix_stride_b,
                                        matrix_stride_c), flag=bool(en_sequential_write),  # fmt: skip
                      sequential=int(sync is not False) | int(wait_iterate_batch is True) << 1,
                      expansion=lambda: self._call(_iterate_n_batch, ws, batch_loop, batch_a, batch_b,
                                                   (steps[0], steps[1], sm * sn, steps[3])))  # fmt: skip
        finally:
            self.rows = None

    @builtin
    def get_batch_tensor_c(self, *args: Any, **kwargs: Any) -> Any:
        """``get_batch_tensor_c(batch_a, batch_b, en_sequential_write=False, sync=False)`` returns the next
        iterate_n_batch result group (max(batch_a, batch_b) x singleCoreM x singleCoreN) as a GlobalTensor
        over the workspace; ``get_batch_tensor_c(local, batch_a, batch_b, ...)`` copies it into `local`.
        Only sync=False exists (Ascend C)."""
        tensor = None
        if args and isinstance(args[0], LocalTensor):
            tensor, args = args[0], args[1:]
        elif "tensor" in kwargs:
            tensor = kwargs.pop("tensor")
        names = ("batch_a", "batch_b", "en_sequential_write", "sync")
        if len(args) > len(names):
            raise CodegenError(f"Matmul.get_batch_tensor_c takes at most {len(names)} arguments after the tensor")
        p = {"en_sequential_write": False, "sync": True, **dict(zip(names, args))}
        for key, value in kwargs.items():
            if key not in names:
                raise CodegenError(f"Matmul.get_batch_tensor_c: unexpected argument {key!r}")
            p[key] = value
        for key in ("batch_a", "batch_b"):
            if key not in p:
                raise CodegenError(f"Matmul.get_batch_tensor_c: missing argument {key!r}")
        if p["sync"] is not False:
            raise CodegenError("Matmul.get_batch_tensor_c exists only in the asynchronous form: pass sync=False")
        if tensor is not None and not isinstance(tensor, LocalTensor):
            raise CodegenError(f"Matmul.get_batch_tensor_c: expected a LocalTensor, got {type(tensor).__name__}")
        self._need_workspace("get_batch_tensor_c")
        out = asc_global_tensor(self, self.c_type.dtype)
        if self.n_batch is not None:  # where the next group lies, outside the expansion: the call sets it
            batch_c = _max(p["batch_a"], p["batch_b"])
            group = batch_c * self._single("m") * self._single("n")
            out = GlobalTensor()
            out.set_global_buffer(self.n_batch[3].get_phy_addr() + self.n_batch[2] * group)
        operands = (p["batch_a"], p["batch_b"], tensor if tensor is not None else out)
        api = "GetBatchTensorCLocal" if tensor is not None else "GetBatchTensorC"
        if self.n_batch is None:
            self._api(api, operands, flag=bool(p["en_sequential_write"]),
                      error="Matmul.get_batch_tensor_c is called before iterate_n_batch: no results in the "
                            "workspace to read")  # fmt: skip
            return None if tensor is not None else out
        self._api(api, operands, flag=bool(p["en_sequential_write"]),
                  expansion=lambda: self._next_batch(p["batch_a"], p["batch_b"], out, tensor))  # fmt: skip
        return None if tensor is not None else out

    def _next_batch(self, batch_a: Any, batch_b: Any, out: GlobalTensor, local: Any) -> None:
        if local is not None:
            self._call(_batch_to_ub, batch_a, batch_b, out, local)
        read = self.n_batch[2]
        current_builder().op("assign", [read.handle, (read + 1).handle])

    def _single(self, axis: str) -> Any:
        """singleCoreM / N / K: set_tail's or set_single_shape's when given, else the tiling's."""
        i = "mnk".index(axis)
        tail = self.tails[i]
        if isinstance(tail, int) and tail == -1:
            return getattr(self.tiling, f"single_core_{axis}")
        return tail


class MatrixOffset(Struct):
    """get_offset_c's result: Ascend C's MatrixOffset {offset, row, col, height, width} (int32)."""

    offset = Field(dt.int32, 0, "offset")
    row = Field(dt.int32, 0, "row")
    col = Field(dt.int32, 0, "col")
    height = Field(dt.int32, 0, "height")
    width = Field(dt.int32, 0, "width")

    def __init__(self, offset: Any = 0, row: Any = 0, col: Any = 0, height: Any = 0, width: Any = 0, **kw: Any):
        super().__init__(offset=offset, row=row, col=col, height=height, width=width, **kw)


_C_DTYPES = (dt.int32, dt.float32, dt.float16, dt.int8, dt.bfloat16)
_SNAKE = {"AsyncGetTensorC": "async_get_tensor_c", "GetOffsetC": "get_offset_c"}


def _check_sparse(a: MatmulType, b: SparseMatmulType, c: MatmulType) -> None:
    """What Ascend C's Sparse Matmul allows: int8 A and B into int32 C, B and its index in GM, B transposed,
    no batch layout, no IBShare."""
    from ..core.enums import TPosition

    if a.dtype != dt.int8 or c.dtype != dt.int32:
        raise CodegenError(f"Matmul: a SparseMatmulType B multiplies int8 A and B into int32 C, got {a.dtype.name} "
                           f"A and {c.dtype.name} C")  # fmt: skip
    if b.position != TPosition.GM or b.index_position != TPosition.GM:
        raise CodegenError("Matmul: a SparseMatmulType B and its index matrix must be at TPosition.GM")
    if not b.is_trans:
        raise CodegenError("Matmul: a SparseMatmulType B must be stored transposed (is_trans=True, N rows of the "
                           "densified K/2): the only form Ascend C supports")  # fmt: skip
    if int(b.layout or 0) != 0 or b.ibshare:
        raise CodegenError("Matmul: a SparseMatmulType B takes no batch layout and no IBShare")


def _max(a: Any, b: Any) -> Any:
    return max(a, b) if isinstance(a, int) and isinstance(b, int) else minmax("max", [a, b])


def _is_scalar(value: Any) -> bool:
    return isinstance(value, (int, float, Scalar)) and not isinstance(value, bool)


def _matrix_scalar(t: MatmulType, value: Any, what: str) -> Scalar:
    """set_tensor_a/b(scalar): the value in the operand's dtype (Ascend C takes half and float only)."""
    if t.dtype not in (dt.float16, dt.float32):
        raise CodegenError(f"Matmul.{what} with a scalar needs a float16 or float32 operand, not {t.dtype.name}")
    return cast(value, t.dtype) if isinstance(value, Scalar) else to_scalar(value, t.dtype)


def asc_global_tensor(mm: Matmul, dtype: dt.DataType) -> GlobalTensor:
    """A GlobalTensor of `dtype` over this core's slice of the workspace (set_workspace's from its start),
    where the Model leaves what get_tensor_c() and iterate_n_batch return."""
    from ..basic.sys_var import get_block_idx

    out = GlobalTensor()
    if mm.user_workspace is not None:
        out.set_global_buffer(mm.user_workspace.reinterpret(dtype))
    else:
        base = mm.workspace.reinterpret(dtype)
        out.set_global_buffer(base + get_block_idx() * (WORKSPACE_BLOCK // dtype.sizeof()))
    return out


@builtin
def get_matmul_api_tiling(mm_cfg: Any, l1_size: Any = None, a_type: Any = None, b_type: Any = None,
                          c_type: Any = None, bias_type: Any = None) -> MatmulApiStaticTiling:  # fmt: skip
    """``GetMatmulApiTiling<A, B, C, Bias>(mmCFG, l1Size)``: the tiling fields fixed at compile time by the
    configuration, for Matmul's matmul_config, by Ascend C's rules (_static_tiling_values): with the
    single-core shape unset only the base sizes, dbL0A / dbL0B and isBias; with it, also M, N, Ka, Kb, the
    L1 factors (stepM / stepN / stepKa / stepKb, depthA1 / depthB1, iterateOrder), dbL0C, transLength,
    shareMode and the share sizes; -1 where Ascend C leaves a field open. l1_size is the L1 the Matmul may
    use (default: all of it, 512 KiB)."""
    if not isinstance(mm_cfg, MatmulConfig):
        raise CodegenError(f"get_matmul_api_tiling: mm_cfg must be an asc.adv.MatmulConfig, got "
                           f"{type(mm_cfg).__name__}")  # fmt: skip
    for name, t in (("a_type", a_type), ("b_type", b_type), ("c_type", c_type)):
        if not isinstance(t, MatmulType):
            raise CodegenError(f"get_matmul_api_tiling: {name} must be an asc.adv.MatmulType, got {type(t).__name__}")
    if l1_size is None:
        l1_size = 512 * 1024
    if isinstance(l1_size, bool) or not isinstance(l1_size, int) or not 0 < l1_size <= 512 * 1024:
        raise CodegenError(f"get_matmul_api_tiling: l1_size must be a compile-time int in (0, 524288], got "
                           f"{l1_size!r}")  # fmt: skip
    values = _static_tiling_values(mm_cfg, l1_size, a_type, b_type, c_type, bias_type or c_type)
    out = MatmulApiStaticTiling.__new__(MatmulApiStaticTiling)
    for name, f in MatmulApiStaticTiling._fields:
        object.__setattr__(out, name, values.get(name, f.default))
    object.__setattr__(out, "_in_kernel", False)
    object.__setattr__(out, "cfg", mm_cfg)
    object.__setattr__(out, "l1_size", l1_size)
    object.__setattr__(out, "types", (a_type, b_type, c_type, bias_type or c_type))
    return out


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _align(a: int, b: int) -> int:
    return _cdiv(a, b) * b


def _tdiv(a: int, b: int) -> int:
    """C's integer division, truncating towards zero (Python's // floors)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _nearest_factor(base: int, factor: int) -> int:
    res = factor
    while res > base or (res > 0 and base % res != 0):
        res -= 1
    return res


_INVALID = (0, 0, 0, 0, 0, 0, 2**31 - 1)


def _static_tiling_values(c: MatmulConfig, l1_size: int, a_type: MatmulType, b_type: MatmulType,
                          c_type: MatmulType, bias_type: MatmulType) -> dict:  # fmt: skip
    """MatmulApiStaticTiling's fields as Ascend C's GetMatmulApiTiling computes them
    (asc-devkit include/adv_api/matmul/constant_tiling.h and impl/adv_api/tiling/matmul/
    matmul_constant_tiling_impl.h, _utils.h): the L1 factors from the first of "A and B both whole in L1",
    "A whole", "B whole" that fits, else "neither whole" (GetL1Factor's order; CalcAL1FullLoadTiling first for
    single-core shapes of at most 16 x 16). Not computed: the MX scale types (Ascend 950), and "neither whole"
    with A or B already in L1 (Ascend C's status is then all zeros), whose L1 fields stay -1."""
    from ..core.enums import TPosition

    def in_l1(t: MatmulType) -> bool:
        return t.position in (TPosition.A1, TPosition.B1, TPosition.C1)

    def in_ub(t: MatmulType) -> bool:
        return t.position in (TPosition.VECIN, TPosition.VECCALC, TPosition.VECOUT)

    a_size, b_size, c_size, bias_size = (t.dtype.sizeof() for t in (a_type, b_type, c_type, bias_type))
    bm, bn, bk = c.basic_m, c.basic_n, c.basic_k
    sm, sn, sk = c.single_core_m, c.single_core_n, c.single_core_k
    out: dict = {"share_l1_size": l1_size}
    l0a_db = 1 if bm * bk * a_size > 65536 // 2 else 2  # GetL0ADb / GetL0BDb: 64 KiB L0A, L0B
    l0b_db = 1 if bn * bk * b_size > 65536 // 2 else 2
    if sm == 0 or sn == 0 or sk == 0:
        if bm and bn and bk:
            out.update(
                base_m=bm, base_n=bn, base_k=bk, db_l0a=l0a_db, db_l0b=l0b_db, is_bias=int(bool(c.enable_set_bias))
            )
        out["share_l1_size"] = -1
        return out
    reduce = 32 // a_size  # GetReduceC0Size: K elements per 32 bytes
    k = _cdiv(sk, reduce)
    kl0, ml0, nl0 = _cdiv(bk, reduce), _cdiv(bm, 16), _cdiv(bn, 16)
    max_mal1, max_nbl1 = _cdiv(_cdiv(sm, 16), ml0), _cdiv(_cdiv(sn, 16), nl0)
    mte1_loop = 32 // ((1 if nl0 == 1 else kl0) + (1 if kl0 == 1 else ml0))
    max_kal1 = max(((32 + ml0 - 1) // ml0 + kl0 - 1) // kl0, mte1_loop)
    max_kbl1 = max(((32 + nl0 - 1) // nl0 + kl0 - 1) // kl0, mte1_loop)
    ka_align = 2 if a_size == 4 and a_type.is_trans else 1
    kb_align = 2 if b_size == 4 and not b_type.is_trans else 1
    bias_on = bool(c.enable_set_bias)
    channel_wise = (2 if bias_size == 4 else 1) if bias_on else 0

    # an L1Status: [kAL1, kBL1, mAL1, nBL1, dbAL1, dbBL1, loadSize]
    def bias_l1(st: list) -> int:
        return 0 if not bias_on or in_l1(bias_type) else st[3] * bn * channel_wise * st[5] * bias_size

    def dequant(st: list) -> int:
        return st[3] * bn * 8 if c.enable_quant_vector else 0

    def a_l1(st: list) -> int:
        if in_l1(a_type):
            return 0
        if in_ub(a_type):
            return sm * sk * a_size
        return st[4] * st[2] * bm * _cdiv(st[0], kl0) * _align(bk, ka_align * reduce) * a_size

    def b_l1(st: list) -> int:
        if in_l1(b_type):
            return 0
        if in_ub(b_type):
            return sk * sn * b_size
        return st[5] * st[3] * bn * _cdiv(st[1], kl0) * _align(bk, kb_align * (32 // b_size)) * b_size

    def used(st: list) -> int:
        return a_l1(st) + b_l1(st) + bias_l1(st) + dequant(st)

    def max_len(left: int, st: list, align: int, kind: str) -> int:
        if kind == "ka":
            return left // (st[4] * st[2] * bm * _align(bk, align * reduce) * a_size) * kl0
        if kind == "kb":
            return left // (st[5] * st[3] * bn * _align(bk, align * (32 // b_size)) * b_size) * kl0
        if kind == "m":
            return left // (_align(st[0], align) * bm * st[4] * 32)
        return left // (_align(st[1], align) * bn * st[5] * 32 + channel_wise * bn * 32)

    outer = (c.do_norm and int(a_type.layout or 0) == 0) or c.do_multi_data_load
    outer = outer and int(c.schedule_type) == 1  # OUTER_PRODUCT

    def both() -> list:
        kal1 = _align(k, kl0)
        if in_l1(a_type) and in_l1(b_type):
            return [kal1, kal1, 1, 1, 1, 1, 0]
        st = [kal1, kal1, max_mal1, max_nbl1, 1, 1, 0]
        if used(st) <= l1_size:
            st[6] = (0 if in_l1(a_type) else _cdiv(sm, 16)) + (0 if in_l1(b_type) else _cdiv(sn, 16))
            return st
        return list(_INVALID)

    def a_full() -> list:
        st = [_align(k, kl0), kl0, max_mal1, 1, 1, 1, 0]
        if outer and int(c.iterate_order) == 0:
            st[3] = 2
        if used(st) > l1_size:
            return list(_INVALID)
        m16 = _cdiv(sm, 16)
        a_bytes = max(max_mal1 * bm, m16 * 16) * _cdiv(k, kl0) * _align(bk, ka_align * reduce) * a_size
        left = l1_size if in_l1(a_type) else l1_size - a_bytes
        st[5] = 2
        st[5] = 1 if used(st) > l1_size else 2
        st[1] = min(max_len(left - bias_l1(st) - dequant(st), st, kb_align, "kb"), k)
        times = _nearest_factor(_cdiv(k, kl0), min(st[1] // kl0, max_kbl1))
        st[1] = times * kl0
        if st[1] == k:
            st[3] = _nearest_factor(_cdiv(sn, bn), min(max_len(left, st, kb_align, "n"), max_nbl1))
            if st[3] * bn == sn:
                st[5] = 1
        bad = st[3] == 0 or st[1] == 0
        m_repeat = 1 if st[1] == k else _cdiv(sm, bm)
        st[6] = 2**31 - 1 if bad else (0 if in_l1(a_type) else m16) + m_repeat * _cdiv(sn, 16)
        return st

    def b_full() -> list:
        st = [kl0, _align(k, kl0), 1, max_nbl1, 1, 1, 0]
        if outer and int(c.iterate_order) == 1:
            st[2] = 2
        if used(st) > l1_size:
            return list(_INVALID)
        n16 = _cdiv(sn, 16)
        b_bytes = max(max_nbl1 * bn, n16 * 16) * _cdiv(k, kl0) * _align(bk, kb_align * reduce) * b_size
        left = l1_size if in_l1(b_type) else l1_size - b_bytes
        st[4] = 2
        st[4] = 1 if used(st) > l1_size else 2
        st[0] = min(max_len(left - bias_l1(st) - dequant(st), st, ka_align, "ka"), k)
        times = _nearest_factor(_cdiv(k, kl0), min(st[0] // kl0, max_kal1))
        st[0] = times * kl0
        if st[0] == k:
            st[2] = _nearest_factor(_cdiv(sm, bm), min(max_len(left - bias_l1(st), st, ka_align, "m"), max_mal1))
            if st[2] * bm == sm:
                st[4] = 1
        bad = st[2] == 0 or st[0] == 0
        n_repeat = 1 if st[0] == k else _cdiv(sn, bn)
        st[6] = 2**31 - 1 if bad else (0 if in_l1(b_type) else n16) + n_repeat * _cdiv(sm, 16)
        return st

    def neither() -> list:
        """GetL1StatusNeitherFullLoad: both operands in K steps; the buffering first (GetL1DbNeitherFullLoad),
        then kAL1 / kBL1 along the axis the layouts favour (GetKL1NeitherFullLoad), made multiples of each
        other, then mAL1 / nBL1."""
        st = [kl0, 2, 1, 1, 2, 2, 0]
        if outer and int(c.iterate_order) == 0:
            st[3] = 2
        elif outer and int(c.iterate_order) == 1:
            st[2] = 2
        if used(st) > l1_size:
            st[5] = 1
            if used(st) > l1_size:
                st[4] = 1
        st[1] = k  # both double-buffered when B's whole K would not fit and M, K take several base blocks
        again = _cdiv(sm, 16) != ml0 and sk > bk and used(st) > l1_size
        st[1] = kl0
        if again:
            st[4] = st[5] = 2
            if used(st) > l1_size:
                st[5] = 1
                if used(st) > l1_size:
                    st[4] = 1
        bias, deq = bias_l1(st), dequant(st)
        a_times = _cdiv(k, kl0)
        axis = (0 if not b_type.is_trans else 2) if a_type.is_trans else (1 if not b_type.is_trans or bm > bn else 2)
        if axis == 0:  # GetKL1NeitherFullLoadForNZ
            st[1] = k
            if used(st) <= l1_size:
                st[0] = min(max_len(l1_size - b_l1(st) - bias - deq, st, ka_align, "ka"), k)
                st[0] = _nearest_factor(a_times, max(min(_tdiv(st[0], kl0), max_mal1), 1)) * kl0
            else:
                per_k = min(_tdiv(_tdiv(l1_size - bias - deq, (bm * st[4] + bn * st[5]) * 32), kl0) * kl0, k)
                a_bytes = st[2] * bm * _align(per_k, ka_align) * st[4] * a_size
                b_bytes = st[3] * bn * _align(per_k, kb_align) * st[5] * b_size
                if a_type.dtype.name == "float32" and a_bytes + b_bytes + deq + bias > l1_size:
                    per_k -= 1
                times = _nearest_factor(a_times, min(_tdiv(per_k, kl0), max(max_kal1, max_kbl1)))
                st[0] = st[1] = min(times, a_times) * kl0
        elif axis == 1:  # A's K first from what B's single base K block leaves, then B's
            st[1] = kl0
            st[0] = min(_tdiv(l1_size - b_l1(st) - bias - deq, st[2] * bm * st[4] * 32), k)
            st[0] = _nearest_factor(a_times, max(_tdiv(st[0], kl0), 1)) * kl0
            left = l1_size - st[0] * st[2] * bm * 32 * st[4]
            st[1] = min(_tdiv(left - deq - bias, st[3] * bn * st[5] * bk * kl0 * b_size), k)
            st[1] = _nearest_factor(a_times, max(min(_tdiv(st[1], kl0), max_kbl1), 1)) * kl0
        else:  # B's K first, then A's
            st[0] = kl0
            st[1] = min(_tdiv(l1_size - a_l1(st) - bias - deq, st[3] * bn * st[5] * 32), k)
            st[1] = _nearest_factor(a_times, max(_tdiv(st[1], kl0), 1)) * kl0
            left = l1_size - st[1] * st[3] * bn * 32 * st[5]
            st[0] = min(_tdiv(left - deq - bias, st[2] * bm * st[4] * bk * kl0 * a_size), k)
            st[0] = _nearest_factor(a_times, max(min(_tdiv(st[0], kl0), max_kal1), 1)) * kl0
        if st[0] > st[1] and st[0] % st[1] != 0:  # the larger K step a multiple of the smaller
            while st[0] % st[1] != 0 or (st[0] != st[1] and k % st[0] != 0):
                st[0] -= 1
        if st[0] < st[1] and st[1] % st[0] != 0:
            while st[1] % st[0] != 0 or (st[0] != st[1] and k % st[1] != 0):
                st[1] -= 1
        m16, n16 = _cdiv(sm, 16), _cdiv(sn, 16)
        m_rep, n_rep = _cdiv(sm, bm), _cdiv(sn, bn)
        if st[0] >= k and st[1] >= k:  # both Ks whole: M first or N first, whichever loads less
            bias, deq = bias_l1(st), dequant(st)
            mf = list(st)  # GetL1StatusMFirst
            mf[2] = max(min(max_len(l1_size - b_l1(mf) - bias - deq, mf, ka_align, "m"), max_mal1, m_rep), 1)
            mf[2] = _nearest_factor(m_rep, mf[2])
            mf[3] = max(min(max_len(l1_size - a_l1(mf) - bias - deq, mf, kb_align, "n"), max_nbl1, n_rep), 1)
            mf[3] = _nearest_factor(m_rep, mf[3])  # (sic: Ascend C takes M's repeat here)
            mf[6] = m16 + n16 * _cdiv(m16, mf[2] * ml0)
            nf = list(st)  # GetL1StatusNFirst
            nf[3] = max(min(max_len(l1_size - a_l1(nf) - bias - deq, st, kb_align, "n"), max_nbl1, n_rep), 1)
            nf[3] = _nearest_factor(n_rep, nf[3])
            nf[2] = max(min(max_len(l1_size - b_l1(nf) - bias - deq, nf, ka_align, "m"), max_mal1, m_rep), 1)
            nf[2] = _nearest_factor(m_rep, nf[2])
            nf[3] = _nearest_factor(m_rep, nf[3])
            nf[6] = n16 + m16 * _cdiv(n16, nf[3] * nl0)
            st = mf if nf[6] > mf[6] else nf
        elif st[0] >= k:
            st[3] = 1
        elif st[1] >= k:
            st[2] = 1
        else:
            st[2] = st[3] = 1
            st[6] = m16 * _cdiv(n16, nl0) + n16 * _cdiv(m16, nl0)
        return st

    nd = int(a_type.format) == 0 and int(b_type.format) == 0  # CubeFormat.ND

    def k_whole(kl1: int) -> bool:
        return not nd or (kl1 > 0 and _cdiv(k, kl1) == 1)

    st = both()
    if not (st[6] != _INVALID[6] and k_whole(st[0]) and k_whole(st[1])):
        st = a_full() if not in_l1(b_type) else list(_INVALID)
        if not (st[6] != _INVALID[6] and k_whole(st[0])):
            st = b_full() if not in_l1(a_type) else list(_INVALID)
            if not (st[6] != _INVALID[6] and k_whole(st[1])):
                # neither whole; with A or B already in L1 Ascend C's status is all zeros (no usable
                # tiling): its fields stay -1
                st = neither() if not in_l1(a_type) and not in_l1(b_type) else None
    out.update(m=sm, n=sn, k_a=sk, k_b=sk, single_core_m=sm, single_core_n=sn, single_core_k=sk, base_m=bm,
               base_n=bn, base_k=bk, is_bias=int(bias_on), db_l0a=l0a_db, db_l0b=l0b_db, db_l0c=1, share_mode=0,
               share_l0c_size=bm * bn * 4, share_ub_size=0)  # fmt: skip
    if st is None:
        out["share_l1_size"] = -1
        return out
    out.update(step_m=st[2], step_n=st[3])
    if not _al1_full_load(out, l1_size, a_size, b_size, ka_align * reduce, kb_align * (32 // b_size)):
        out.update(step_k_a=_cdiv(st[0], kl0), step_k_b=_cdiv(st[1], kl0), depth_a1=_cdiv(st[0], kl0) * st[2] * st[4],
                   depth_b1=_cdiv(st[1], kl0) * st[3] * st[5])  # fmt: skip
    full_a, full_b = sk <= st[0] * reduce, sk <= st[1] * reduce  # GetIterateOrder
    if full_a and full_b:
        m_loop, n_loop = _cdiv(sm, st[2] * bm), _cdiv(sn, st[3] * bn)
        out["iterate_order"] = 1 if sm + sn * m_loop < sn + sm * n_loop else 0
    else:
        out["iterate_order"] = 1 if full_a else 0
    c_nd = int(c_type.format) == 0 or c_type.position == TPosition.GM  # GetTransLength: C's ND2NZ, the bias
    lengths = [bm * bn * c_size if c_nd else 0, bias_l1(st)]
    if int(a_type.format) == 0 and in_ub(a_type):
        lengths.append(sm * sk * a_size)
    if int(b_type.format) == 0 and in_ub(b_type):
        lengths.append(sk * sn * a_size)
    out["trans_length"] = max(lengths)
    share = 0 if in_l1(a_type) else out.get("depth_a1", -1) * bm * bk * a_size  # GetL1UsedSize
    share += 0 if in_l1(b_type) else out.get("depth_b1", -1) * bn * bk * (b_size if a_size == b_size else a_size)
    share += bn * bias_size if bias_on and not in_l1(bias_type) else 0
    out["share_l1_size"] = share + dequant(st)
    return out


def _al1_full_load(out: dict, l1_size: int, a_size: int, b_size: int, ka_unit: int, kb_unit: int) -> bool:
    """CalcAL1FullLoadTiling: a single-core shape of at most 16 x 16 keeps all of A's K in L1 (stepKa,
    depthA1) and as much of B's as the rest holds, double-buffered (stepKb, depthB1)."""
    sm, sn, sk, bm, bn, bk = (out[f] for f in ("single_core_m", "single_core_n", "single_core_k", "base_m",
                                                "base_n", "base_k"))  # fmt: skip
    if sm > 16 or sn > 16:
        return False
    l1 = l1_size - 1024 // 8 if out["is_bias"] else l1_size
    ka, kb = _align(bk, ka_unit), _align(bk, kb_unit)
    base_a, base_b = bm * ka * a_size, bn * kb * b_size
    depth_a1 = (l1 - 2 * base_b) // base_a
    if depth_a1 * bm * ka < sm * sk:
        return False
    depth_a1 = max(sm, bm) * max(sk, ka) // bm // ka
    out.update(depth_a1=depth_a1, step_k_a=depth_a1)
    step_kb = (l1 - depth_a1 * base_a) // base_b // 2
    if step_kb * 2 * base_b > sk * sn:
        step_kb = max(sk, kb) * max(sn, bn) // bn // kb // 2
    if step_kb < 1:
        out.update(depth_b1=1, step_k_b=1)
        return True
    while depth_a1 % step_kb != 0 and step_kb % depth_a1 != 0 and step_kb > 1:
        step_kb -= 1
    out.update(depth_b1=step_kb * 2, step_k_b=step_kb)
    return True


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

    def __asc_loop_end__(self) -> None:
        self.mm.current = None  # the block was the loop body's: after the loop there is none to read


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
        if matmul.config is not None:  # the Matmul object's template configuration, member by member
            attrs["config"] = ",".join(str(v) for _, v in matmul.config.members())
            attrs["static_l1"] = matmul.static_tiling.l1_size if matmul.static_tiling is not None else 0
        # the batch layouts (LayoutMode) of A, B and C: MatmulType's LAYOUT template argument
        attrs["layouts"] = ",".join(str(int(t.layout or 0)) for t in (matmul.a_type, matmul.b_type, matmul.c_type))
        if matmul.b_sparse:  # B is a SparseMatmulType: its index matrix's position, plus one (0: a MatmulType)
            attrs["b_index_position"] = int(matmul.b_type.index_position) + 1
    builder.op("matmul.server", operands, attrs)


class _ConstantTiling:
    """The tiling a Matmul with get_matmul_api_tiling's MatmulApiStaticTiling computes by: each field the constant
    tiling fixes (>= 0) is that compile-time constant, over the run-time TCubeTiling's, as Ascend C's constant
    tiling makes them; the others are the run-time tiling's."""

    def __init__(self, runtime: TCubeTiling, constant: MatmulApiStaticTiling):
        self._runtime, self._constant = runtime, constant

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._constant, name, -1) if name in dict(MatmulApiStaticTiling._fields) else -1
        return value if isinstance(value, int) and value >= 0 else getattr(self._runtime, name)


def _set_hf32(mm: Matmul, enable: Any, trans_mode: Any) -> None:
    from ..basic.cube_extras import set_hf32_mode, set_hf32_trans_mode

    set_hf32_mode(enable)
    set_hf32_trans_mode(trans_mode if isinstance(trans_mode, Scalar) else bool(trans_mode))


def _offset_of_block(mm: Matmul, fields: tuple) -> None:
    m0, n0, cm, cn, _ = mm.current
    builder = current_builder()
    for var, value in zip(fields, (m0 * mm.c_row + n0, m0, n0, cm, cn)):
        builder.op("assign", [var.handle, cast(value, dt.int32).handle])


from .matmul_kernels import (  # noqa: E402
    WORKSPACE_BLOCK,
    _batch_to_ub,
    _begin_block,
    _bias_from_ub,
    _block_counts,
    _block_to_gm,
    _block_to_ub,
    _block_to_workspace,
    _iterate_all,
    _iterate_all_to_ub,
    _iterate_batch,
    _iterate_n_batch,
)

__all__ = [
    "Matmul",
    "MatmulConfig",
    "MatmulType",
    "MatrixOffset",
    "SparseMatmulType",
    "get_matmul_api_tiling",
    "register_matmul",
]
