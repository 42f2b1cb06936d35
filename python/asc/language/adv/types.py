"""The adv library's types (pyasc's asc.language.adv.types): the softmax family's SoftMaxShapeInfo (the shape of
a call's src, passed by value as Ascend C's struct), SoftmaxConfig and SoftmaxMode, AscendQuant's QuantConfig,
and Matmul's MatmulConfig with the parameter groups of get_mm_config and the getters of Ascend C's preset
configurations (GetNormalConfig, GetMDLConfig, ...). The configs are compile-time values: Ascend C takes them as
``constexpr`` template arguments.

A Matmul configuration chooses how the board's Matmul schedules its copies and mmads (NORM, MDL, BasicBlock,
IBShare, unit flags, preloads): the result is the same. The Model computes every configuration the same way,
reading only the fields that change what is computed (iterate_order, is_bias_batch); the emitted Ascend C passes
the whole configuration on as the Matmul object's template argument, so the board runs the schedule asked for."""

from __future__ import annotations

from enum import IntEnum
from typing import Any

from ...errors import CodegenError
from ..basic.utils import builtin
from ..core import dtype as dt
from ..core.enums import BatchMode, BatchOutMode, IterateMode, IterateOrder, MatmulConfigMode, ScheduleType
from ..core.struct import Field, Struct


class SoftmaxMode(IntEnum):
    """How the softmax functions lay out their per-row outputs (sum, max, exp_max): SOFTMAX_NORMAL broadcasts
    each row's value over a 32-byte block; SOFTMAX_OUTPUT_WITHOUT_BRC writes one value per row."""

    SOFTMAX_NORMAL = 0
    SOFTMAX_OUTPUT_WITHOUT_BRC = 1


class SoftMaxShapeInfo(Struct):
    """``SoftMaxShapeInfo(src_m, src_k, ori_src_m, ori_src_k)``: src is src_m rows of src_k elements (src_k
    32-byte aligned); the data is the first ori_src_m x ori_src_k of it (the rest padding). All 0: the shape
    comes from src's set_shape_info, or else the tiling."""

    src_m = Field(dt.uint32, 0, "srcM")
    src_k = Field(dt.uint32, 0, "srcK")
    ori_src_m = Field(dt.uint32, 0, "oriSrcM")
    ori_src_k = Field(dt.uint32, 0, "oriSrcK")

    def __init__(self, src_m: Any = 0, src_k: Any = 0, ori_src_m: Any = 0, ori_src_k: Any = 0) -> None:
        super().__init__(src_m=src_m, src_k=src_k, ori_src_m=ori_src_m, ori_src_k=ori_src_k)


class SoftmaxConfig:
    """Ascend C's SoftmaxConfig, a compile-time template argument: ``check_tiling`` (the API checks the tiling
    against the shape), a constant shape ``src_m`` x ``src_k`` (0: from the call), and ``mode``."""

    __asc_builtin__ = True

    def __init__(self, check_tiling: bool = True, src_m: int = 0, src_k: int = 0,
                 mode: SoftmaxMode = SoftmaxMode.SOFTMAX_NORMAL) -> None:  # fmt: skip
        for name, value in (("src_m", src_m), ("src_k", src_k)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise CodegenError(f"SoftmaxConfig: {name} must be a non-negative int known while compiling")
        if not isinstance(check_tiling, bool):
            raise CodegenError("SoftmaxConfig: check_tiling must be a Python bool")
        self.check_tiling, self.src_m, self.src_k = check_tiling, src_m, src_k
        self.mode = SoftmaxMode(int(mode))

    def is_default(self) -> bool:
        return self.check_tiling and self.src_m == 0 and self.src_k == 0 and self.mode == SoftmaxMode.SOFTMAX_NORMAL

    def spelled(self) -> str:
        """The C++ initializer of Ascend C's constexpr SoftmaxConfig (braces doubled for library_call)."""
        check = "true" if self.check_tiling else "false"
        return f"{{{{{check}, {self.src_m}, {self.src_k}, AscendC::SoftmaxMode::{self.mode.name}}}}}"


_U32 = 2**32


def _uint32(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise CodegenError(f"{what} must be a Python int (a compile-time constant), got {value!r}")
    if not 0 <= value < _U32:
        raise CodegenError(f"{what} must be a uint32 (0 .. 2**32 - 1), got {value}")
    return value


class QuantConfig:
    """Ascend C's ``AscendQuantConfig`` (the ``config`` template argument of AscendQuant): compile-time counts that
    rule over the call's arguments. Per tensor, with ``calc_count`` and ``work_local_size`` non-zero: ``calc_count``
    elements in chunks of the first ``work_local_size`` bytes of the temporary buffer. Per channel, with
    ``scale_count`` and ``calc_count`` non-zero: ``calc_count / scale_count`` rows of ``scale_count`` channels
    (chunks of ``work_local_size`` bytes when it is non-zero). ``offset_count`` must equal ``scale_count`` (forms
    with an offset tensor) and ``scale_count`` be a multiple of 32."""

    __asc_builtin__ = True

    def __init__(self, calc_count: int = 0, offset_count: int = 0, scale_count: int = 0,
                 work_local_size: int = 0) -> None:  # fmt: skip
        self.calc_count = _uint32(calc_count, "QuantConfig calc_count")
        self.offset_count = _uint32(offset_count, "QuantConfig offset_count")
        self.scale_count = _uint32(scale_count, "QuantConfig scale_count")
        self.work_local_size = _uint32(work_local_size, "QuantConfig work_local_size")

    def fields(self) -> tuple[int, int, int, int]:
        """calcCount, offsetCount, scaleCount, workLocalSize: the struct's field order."""
        return self.calc_count, self.offset_count, self.scale_count, self.work_local_size

    def __repr__(self) -> str:
        return "QuantConfig({}, {}, {}, {})".format(*self.fields())


# (name, default, Ascend C MatmulConfig member), in pyasc's positional order
CONFIG_FIELDS: tuple[tuple[str, Any, str], ...] = (
    ("do_norm", True, "doNorm"),
    ("do_basic_block", False, "doBasicBlock"),
    ("do_multi_data_load", False, "doMultiDataLoad"),
    ("basic_m", 0, "basicM"),
    ("basic_n", 0, "basicN"),
    ("basic_k", 0, "basicK"),
    ("intrinsics_check", False, "intrinsicsCheck"),
    ("is_n_batch", False, "isNBatch"),
    ("en_vec_nd2nz", False, "enVecND2NZ"),
    ("do_special_basic_block", False, "doSpecialBasicBlock"),
    ("do_mte2_preload", 0, "doMTE2Preload"),
    ("single_core_m", 0, "singleCoreM"),
    ("single_core_n", 0, "singleCoreN"),
    ("single_core_k", 0, "singleCoreK"),
    ("step_m", 0, "stepM"),
    ("step_n", 0, "stepN"),
    ("base_mn", 0, "baseMN"),
    ("single_core_mn", 0, "singleCoreMN"),
    ("en_unit_flag", True, "enUnitFlag"),
    ("is_per_tensor", False, "isPerTensor"),
    ("has_anti_quant_offset", False, "hasAntiQuantOffset"),
    ("do_ib_share_norm", False, "doIBShareNorm"),
    ("do_special_mdl", False, "doSpecialMDL"),
    ("enable_init", True, "enableInit"),
    ("batch_mode", BatchMode.BATCH_LESS_THAN_L1, "batchMode"),
    ("enable_end", True, "enableEnd"),
    ("enable_get_tensor_c", True, "enableGetTensorC"),
    ("enable_set_org_shape", True, "enableSetOrgShape"),
    ("enable_set_bias", True, "enableSetBias"),
    ("enable_set_tail", True, "enableSetTail"),
    ("enable_quant_vector", True, "enableQuantVector"),
    ("enable_set_define_data", True, "enableSetDefineData"),
    ("iterate_mode", IterateMode.ITERATE_MODE_DEFAULT, "iterateMode"),
    ("enable_reuse", True, "enableReuse"),
    ("enable_ub_reuse", False, "enableUBReuse"),
    ("enable_l1_cache_ub", False, "enableL1CacheUB"),
    ("intra_block_part_sum", False, "intraBlockPartSum"),
    ("iterate_order", IterateOrder.UNDEF, "iterateOrder"),
    ("schedule_type", ScheduleType.INNER_PRODUCT, "scheduleType"),
    ("enable_double_cache", False, "enableDoubleCache"),
    ("is_bias_batch", True, "isBiasBatch"),
    ("enable_static_pad_zeros", False, "enableStaticPadZeros"),
    ("is_partial_output", False, "isPartialOutput"),
    ("enable_mix_dual_master", False, "enableMixDualMaster"),
    ("is_a2b2_shared", False, "isA2B2Shared"),
    ("is_enable_channel_split", False, "isEnableChannelSplit"),
    ("enable_kdim_reorder_load", False, "enableKdimReorderLoad"),
    ("is_co1_shared", False, "isCO1Shared"),
    ("shared_co1_buffer_size", 64 * 1024, "sharedCO1BufferSize"),
    ("batch_out_mode", BatchOutMode.SINGLE_BATCH, "batchOutMode"),
)
_NAMES = tuple(name for name, _, _ in CONFIG_FIELDS)


def _constant(value: Any, where: str) -> int:
    """A configuration is a template argument: every field a compile-time bool, int or enum."""
    if isinstance(value, bool) or isinstance(value, int):  # IntEnum included
        return int(value)
    raise CodegenError(f"{where} must be known at compile time (a bool, int or enum), got {type(value).__name__}")


class MatmulConfig:
    """``MatmulConfig(do_norm=True, do_basic_block=False, ...)``: Ascend C's MatmulConfig, every member by
    pyasc's name, positionally in pyasc's order or by keyword; unset members keep Ascend C's defaults."""

    __asc_builtin__ = True

    def __init__(self, *args: Any, **kwargs: Any):
        if len(args) > len(_NAMES):
            raise CodegenError(f"MatmulConfig takes at most {len(_NAMES)} arguments, got {len(args)}")
        values = dict(zip(_NAMES, args))
        for key, value in kwargs.items():
            if key not in _NAMES:
                raise CodegenError(f"MatmulConfig has no member {key!r}")
            if key in values:
                raise CodegenError(f"MatmulConfig: {key!r} given twice")
            values[key] = value
        for name, default, _ in CONFIG_FIELDS:
            value = values.get(name, default)
            object.__setattr__(self, name, _constant(default if value is None else value, f"MatmulConfig.{name}"))

    @property
    def options(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in _NAMES}

    def members(self) -> list[tuple[str, int]]:
        """(Ascend C member, value) of every member, in declaration order: what the emitter writes."""
        return [(c_name, getattr(self, name)) for name, _, c_name in CONFIG_FIELDS]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MatmulConfig) and self.options == other.options

    def __hash__(self) -> int:
        return hash(tuple(self.options.values()))

    def __repr__(self) -> str:
        changed = [f"{n}={v}" for (n, d, _), v in zip(CONFIG_FIELDS, self.options.values()) if int(d) != v]
        return f"MatmulConfig({', '.join(changed)})"


class MatmulShapeParams:
    """get_mm_config's shape group: the single-core and base block sizes known at compile time (0: not)."""

    __asc_builtin__ = True

    def __init__(self, single_core_m: int = 0, single_core_n: int = 0, single_core_k: int = 0, basic_m: int = 0,
                 basic_n: int = 0, basic_k: int = 0) -> None:  # fmt: skip
        self.single_core_m, self.single_core_n, self.single_core_k = single_core_m, single_core_n, single_core_k
        self.basic_m, self.basic_n, self.basic_k = basic_m, basic_n, basic_k


class MatmulQuantParams:
    """get_mm_config's quantisation group."""

    __asc_builtin__ = True

    def __init__(self, is_per_tensor: bool = False, has_anti_quant_offset: bool = False) -> None:
        self.is_per_tensor, self.has_anti_quant_offset = is_per_tensor, has_anti_quant_offset


class MatmulBatchParams:
    """get_mm_config's batch group (is_b_batch is MatmulConfig's is_n_batch)."""

    __asc_builtin__ = True

    def __init__(self, is_b_batch: bool = False, batch_mode: Any = BatchMode.BATCH_LESS_THAN_L1,
                 is_bias_batch: bool = False) -> None:  # fmt: skip
        self.is_n_batch, self.batch_mode, self.is_bias_batch = is_b_batch, batch_mode, is_bias_batch


class MatmulFuncParams:
    """get_mm_config's function group."""

    __asc_builtin__ = True

    def __init__(self, intrinsics_limit: bool = False, en_vec_nd2_nz: bool = False, enable_double_cache: bool = False,
                 enable_l1_cache: bool = False, do_mte2_pre_load: int = 0, iterate_order: Any = IterateOrder.ORDER_M,
                 schedule_type: Any = ScheduleType.INNER_PRODUCT, enable_reuse: bool = True,
                 enable_ub_reuse: bool = False, is_partial_output: bool = False, is_a2_b2_shared: bool = False,
                 is_enable_channel_split: bool = False, enable_kdim_reorder_load: bool = False) -> None:  # fmt: skip
        self.intrinsics_limit, self.en_vec_nd2_nz = intrinsics_limit, en_vec_nd2_nz
        self.enable_double_cache = enable_double_cache
        self.enable_l1_cache, self.do_mte2_pre_load, self.iterate_order = (
            enable_l1_cache,
            do_mte2_pre_load,
            iterate_order,
        )
        self.schedule_type, self.enable_reuse, self.enable_ub_reuse = schedule_type, enable_reuse, enable_ub_reuse
        self.is_partial_output, self.is_a2_b2_shared = is_partial_output, is_a2_b2_shared
        self.is_enable_channel_split, self.enable_kdim_reorder_load = is_enable_channel_split, enable_kdim_reorder_load


def _choice(value: Any, allowed: tuple, what: str) -> Any:
    if int(value) not in allowed:
        raise CodegenError(f"get_mm_config: {what} must be one of {list(allowed)}, got {value!r}")
    return value


@builtin
def get_mm_config(*args: Any, **kwargs: Any) -> MatmulConfig:
    """``GetMMConfig<mode>(shape, quant, batch, func)``: a MatmulConfigMode (CONFIG_NORM by default) and any
    of MatmulShapeParams, MatmulQuantParams, MatmulBatchParams, MatmulFuncParams, in any order."""
    values: dict[str, Any] = {"is_bias_batch": False, "iterate_order": IterateOrder.ORDER_M, "enable_reuse": False}
    mode = MatmulConfigMode.CONFIG_NORM
    for arg in (*args, *kwargs.values()):
        if isinstance(arg, MatmulConfigMode):
            mode = arg
        elif isinstance(arg, MatmulShapeParams):
            values.update(single_core_m=arg.single_core_m, single_core_n=arg.single_core_n,
                          single_core_k=arg.single_core_k, basic_m=arg.basic_m, basic_n=arg.basic_n,
                          basic_k=arg.basic_k)  # fmt: skip
        elif isinstance(arg, MatmulQuantParams):
            values.update(is_per_tensor=arg.is_per_tensor, has_anti_quant_offset=arg.has_anti_quant_offset)
        elif isinstance(arg, MatmulBatchParams):
            values.update(is_n_batch=arg.is_n_batch, batch_mode=_choice(arg.batch_mode, (1, 2, 3), "batch_mode"),
                          is_bias_batch=arg.is_bias_batch)  # fmt: skip
        elif isinstance(arg, MatmulFuncParams):
            values.update(intrinsics_check=arg.intrinsics_limit, en_vec_nd2nz=arg.en_vec_nd2_nz,
                          enable_double_cache=arg.enable_double_cache, enable_l1_cache_ub=arg.enable_l1_cache,
                          do_mte2_preload=_choice(arg.do_mte2_pre_load, (0, 1, 2), "do_mte2_pre_load"),
                          iterate_order=_choice(arg.iterate_order, (0, 1, 2), "iterate_order"),
                          schedule_type=_choice(arg.schedule_type, (0, 1), "schedule_type"),
                          enable_reuse=arg.enable_reuse, enable_ub_reuse=arg.enable_ub_reuse,
                          is_partial_output=arg.is_partial_output, is_a2b2_shared=arg.is_a2_b2_shared,
                          is_enable_channel_split=arg.is_enable_channel_split,
                          enable_kdim_reorder_load=arg.enable_kdim_reorder_load)  # fmt: skip
        else:
            raise CodegenError(
                "get_mm_config: expected a MatmulConfigMode, MatmulShapeParams, MatmulQuantParams, "
                f"MatmulBatchParams or MatmulFuncParams, got {type(arg).__name__}"
            )
    values.update(do_norm=mode == MatmulConfigMode.CONFIG_NORM, do_multi_data_load=mode == MatmulConfigMode.CONFIG_MDL,
                  do_special_mdl=mode == MatmulConfigMode.CONFIG_SPECIALMDL,
                  do_ib_share_norm=mode == MatmulConfigMode.CONFIG_IBSHARE)  # fmt: skip
    return MatmulConfig(**values)


@builtin
def get_normal_config(intrinsics_limit: Any = False, batch_loop: Any = False, is_vec_nd2_nz: Any = False,
                      bmm_mode: Any = BatchMode.BATCH_LESS_THAN_L1, is_msg_reuse: Any = True,
                      iterate_order: Any = IterateOrder.ORDER_M, schedule_type: Any = ScheduleType.INNER_PRODUCT,
                      en_unit_flag: Any = True) -> MatmulConfig:  # fmt: skip
    """``GetNormalConfig``: CFG_NORM, the schedule of one base block at a time."""
    return MatmulConfig(intrinsics_check=intrinsics_limit, is_n_batch=batch_loop, en_vec_nd2nz=is_vec_nd2_nz,
                        batch_mode=bmm_mode, enable_reuse=is_msg_reuse, iterate_order=iterate_order,
                        schedule_type=schedule_type, en_unit_flag=en_unit_flag)  # fmt: skip


@builtin
def get_mdl_config(intrinsics_limit: Any = False, batch_loop: Any = False, do_mte2_preload: Any = 0,
                   is_vec_nd2_nz: Any = False, is_per_tensor: Any = False, has_anti_quant_offset: Any = False,
                   en_unit_flag: Any = False, is_msg_reuse: Any = True, enable_ub_reuse: Any = True,
                   enable_l1_cache_ub: Any = False, enable_mix_dual_master: Any = False,
                   enable_kdim_reorder_load: Any = False) -> MatmulConfig:  # fmt: skip
    """``GetMDLConfig``: CFG_MDL, several base blocks per copy into L1 (multi-data load)."""
    return MatmulConfig(do_norm=False, do_multi_data_load=True, intrinsics_check=intrinsics_limit,
                        is_n_batch=batch_loop, do_mte2_preload=do_mte2_preload, en_vec_nd2nz=is_vec_nd2_nz,
                        is_per_tensor=is_per_tensor, has_anti_quant_offset=has_anti_quant_offset,
                        en_unit_flag=en_unit_flag, enable_reuse=is_msg_reuse, enable_ub_reuse=enable_ub_reuse,
                        enable_l1_cache_ub=enable_l1_cache_ub, enable_mix_dual_master=enable_mix_dual_master,
                        enable_kdim_reorder_load=enable_kdim_reorder_load)  # fmt: skip


@builtin
def get_special_mdl_config(intrinsics_limit: Any = False, batch_loop: Any = False, do_mte2_pre_load: Any = 0,
                           is_vec_nd2_nz: Any = False, is_per_tensor: Any = False,
                           has_anti_quant_offset: Any = False) -> MatmulConfig:  # fmt: skip
    """``GetSpecialMDLConfig``: SpecialMDL, MDL with stepN of 2 base blocks."""
    return MatmulConfig(do_norm=False, do_special_mdl=True, intrinsics_check=intrinsics_limit,
                        is_n_batch=batch_loop, do_mte2_preload=do_mte2_pre_load, en_vec_nd2nz=is_vec_nd2_nz,
                        is_per_tensor=is_per_tensor, has_anti_quant_offset=has_anti_quant_offset)  # fmt: skip


@builtin
def get_basic_config(basic_m: Any, basic_n: Any, basic_k: Any, intrinsics_limit: Any = False,
                     batch_loop: Any = False,
                     bmm_mode: Any = BatchMode.BATCH_LESS_THAN_L1) -> MatmulConfig:  # fmt: skip
    """``GetBasicConfig``: BasicBlock, the base block fixed at compile time to basic_m x basic_n x basic_k."""
    return MatmulConfig(do_norm=False, do_basic_block=True, basic_m=basic_m, basic_n=basic_n, basic_k=basic_k,
                        intrinsics_check=intrinsics_limit, is_n_batch=batch_loop, batch_mode=bmm_mode)  # fmt: skip


@builtin
def get_special_basic_config(basic_m: Any, basic_n: Any, basic_k: Any, single_core_m: Any, single_core_n: Any,
                             single_core_k: Any, step_m: Any, step_n: Any, intrinsics_limit: Any = False,
                             batch_loop: Any = False,
                     bmm_mode: Any = BatchMode.BATCH_LESS_THAN_L1) -> MatmulConfig:  # fmt: skip
    """``GetSpecialBasicConfig``: SpecialBasicBlock, the base block and the single-core shape fixed."""
    return MatmulConfig(do_norm=False, do_special_basic_block=True, basic_m=basic_m, basic_n=basic_n,
                        basic_k=basic_k, single_core_m=single_core_m, single_core_n=single_core_n,
                        single_core_k=single_core_k, step_m=step_m, step_n=step_n,
                        intrinsics_check=intrinsics_limit, is_n_batch=batch_loop, batch_mode=bmm_mode)  # fmt: skip


@builtin
def get_ib_share_norm_config(intrinsics_limit: Any = False, batch_loop: Any = False, is_vec_nd2_nz: Any = False,
                             bmm_mode: Any = BatchMode.BATCH_LESS_THAN_L1, is_double_cache: Any = False,
                             en_unit_flag: Any = True) -> MatmulConfig:  # fmt: skip
    """``GetIBShareNormConfig``: IBShare, A or B shared in L1 by the group's two vector cores."""
    return MatmulConfig(do_norm=False, do_ib_share_norm=True, intrinsics_check=intrinsics_limit,
                        is_n_batch=batch_loop, en_vec_nd2nz=is_vec_nd2_nz, batch_mode=bmm_mode,
                        enable_double_cache=is_double_cache, en_unit_flag=en_unit_flag)  # fmt: skip
