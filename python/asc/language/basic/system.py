"""The scalar unit's system queries and controls: get_system_cycle, get_arch_version,
get_data_block_size_in_bytes, get_program_counter, get_task_ratio, trap, data_sync_barrier, init_soc_state,
get_store_atomic_config, set_hccl_context / get_hccl_context (Ascend C GetSystemCycle, GetArchVersion, ...).
Each is one row of the op table (src/ir/ops_system.cpp), which states its semantics; the Model's handlers are
src/sim/system_ops.cpp."""

from __future__ import annotations

from typing import Any

from ...codegen.context import current_builder
from ...errors import CodegenError
from ..core import dtype as dt
from ..core.enums import MemDsbT
from ..core.ir_value import Scalar, to_int
from ..core.param_structs import CheckLocalMemoryIAParam
from ..core.tensor import GlobalAddress
from .utils import builtin


def _query(name: str, dtype: dt.DataType, attrs: dict[str, int] | None = None) -> Scalar:
    return Scalar(current_builder().op(name, [], attrs or {}), dtype)


@builtin
def get_system_cycle() -> Scalar:
    """``AscendC::GetSystemCycle``: the system counter, which ticks at 50 MHz (cycles / 50 = microseconds), at
    the point the scalar unit has reached (int64). It is the scalar pipe's time: to time another pipe's work,
    put a pipe_barrier for it first. The Model's counter starts at 0 when the launch does."""
    return _query("get_system_cycle", dt.int64)


@builtin
def get_arch_version(core_version: Any = None) -> Scalar:
    """``AscendC::GetArchVersion``: the AI Core architecture version, to be read in hex (0x220 on the Atlas A2
    and A3 SoCs the Model has) (uint32). Ascend C writes it into its ``coreVersion`` reference; a Python int is
    passed by value, so here it is returned (pyasc's `core_version` argument is accepted and not changed)."""
    if core_version is not None and not (
        isinstance(core_version, Scalar)
        and core_version.dtype.is_int()
        or isinstance(core_version, int)
        and not isinstance(core_version, bool)
    ):
        raise CodegenError(f"get_arch_version: core_version must be an integer, got {type(core_version).__name__}")
    return _query("get_arch_version", dt.uint32)


@builtin
def get_data_block_size_in_bytes() -> Scalar:
    """``AscendC::GetDataBlockSizeInBytes``: the bytes of one data block, the unit of block strides (32) (int32)."""
    return _query("get_data_block_size_in_bytes", dt.int32)


@builtin
def get_program_counter() -> Scalar:
    """``AscendC::GetProgramCounter``: where the program is (int64). The Model has no instruction encoding: it
    reports the instruction's place in the kernel times 4 bytes, so the value grows along straight-line code and
    tells call sites apart."""
    return _query("get_program_counter", dt.int64)


@builtin
def get_task_ratio() -> Scalar:
    """``AscendC::GetTaskRatio``: how many cores of this kind an AI Core has for the kernel type: 2 on the vector
    cores of a MIX_AIC_1_2 kernel, 1 on every other core and kernel type (int64)."""
    return _query("get_task_ratio", dt.int64)


@builtin
def trap() -> None:
    """``AscendC::Trap``: stops the kernel. On the Model the launch fails with a KernelError naming this line and
    the core."""
    current_builder().op("trap", [])


@builtin
def data_sync_barrier(arg0: MemDsbT) -> None:
    """``AscendC::DataSyncBarrier<arg0>``: the instructions after it wait until the earlier accesses of that
    memory completed: MemDsbT.ALL every memory, DDR global memory (MTE2, MTE3, FIX), UB the Unified Buffer
    (vector, MTE2, MTE3). MemDsbT.SEQ is reserved in Ascend C and refused."""
    if not isinstance(arg0, MemDsbT):
        raise CodegenError(f"data_sync_barrier: expected an asc.MemDsbT, got {arg0!r}")
    current_builder().op("data_sync_barrier", [], {"mem": int(arg0)})


@builtin
def init_soc_state() -> None:
    """``AscendC::InitSocState``: puts the core's global state an earlier kernel may have changed back to its
    defaults: atomic writes off, the mask register in normal mode with every bit set."""
    current_builder().op("init_soc_state", [])


@builtin
def get_store_atomic_config() -> tuple[Scalar, Scalar]:
    """``AscendC::GetStoreAtomicConfig``: the atomic-write register as (atomic_type, atomic_op), int16 each.
    atomic_type: 0 none, 1 float, 2 half, 3 int16, 4 int32, 5 int8, 6 bfloat16; atomic_op: 0 sum (and, past the
    documented value, 1 max and 2 min, as set_atomic_max / set_atomic_min set them)."""
    return _query("get_store_atomic_config", dt.int16, {"field": 0}), _query(
        "get_store_atomic_config", dt.int16, {"field": 1}
    )


def _hccl_index(index: Any, fn: str) -> int:
    # a template argument in Ascend C: a compile-time 0 or 1
    if isinstance(index, bool) or not isinstance(index, int):
        raise CodegenError(f"{fn}: index must be a Python int (a compile-time 0 or 1), got {index!r}")
    if index not in (0, 1):
        raise CodegenError(f"{fn}: index must be 0 or 1 (two communication domains), got {index}")
    return index


@builtin
def set_hccl_context(index: int, context: GlobalAddress) -> None:
    """``AscendC::SetHcclContext<index>``: the context (message area) address of communication domain `index`
    (0 or 1) of a communication-fused kernel."""
    idx = _hccl_index(index, "set_hccl_context")
    if not isinstance(context, GlobalAddress):
        raise CodegenError(f"set_hccl_context: context must be a GM address, got {type(context).__name__}")
    if context.dtype != dt.uint8:
        context = context.reinterpret(dt.uint8)
    current_builder().op("set_hccl_context", [context.handle], {"index": idx})


@builtin
def get_hccl_context(index: int) -> GlobalAddress:
    """``AscendC::GetHcclContext<index>``: the context address of communication domain `index` (0 or 1), as a
    uint8 GM address. The Model runs no HCCL: the launch fails with a KernelError unless the kernel set that
    domain's context first."""
    idx = _hccl_index(index, "get_hccl_context")
    return GlobalAddress(current_builder().op("get_hccl_context", [], {"index": idx}), dt.uint8)


_IA_FIELDS = ("enable_bit", "start_addr", "end_addr", "is_scalar_read", "is_scalar_write", "is_vector_read",
              "is_vector_write", "is_mte_read", "is_mte_write", "is_enable")  # fmt: skip


@builtin
def check_local_memory_ia(check_params: CheckLocalMemoryIAParam) -> None:
    """``AscendC::CheckLocalMemoryIA``: watch register `enable_bit` (0..3) makes the access kinds the flags
    select (scalar, vector, MTE reads and writes) to Unified Buffer bytes [start_addr * 32, end_addr * 32) raise
    (on the board an exception; on the Model a KernelError naming the instruction and the core); is_enable=False
    turns the register off."""
    if not isinstance(check_params, CheckLocalMemoryIAParam):
        raise CodegenError(
            f"check_local_memory_ia: expected an asc.CheckLocalMemoryIAParam, got {type(check_params).__name__}"
        )
    values = []
    for field in _IA_FIELDS:
        value = getattr(check_params, field)
        values.append(to_int(int(value) if isinstance(value, bool) else value, f"CheckLocalMemoryIAParam.{field}"))
    current_builder().op("check_local_memory_ia", [v.handle for v in values])
