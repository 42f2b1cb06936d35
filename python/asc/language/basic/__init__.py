"""asc.language.basic: the instruction-level API."""

from .atomic import (
    set_atomic_add,
    set_atomic_max,
    set_atomic_min,
    set_atomic_none,
    set_atomic_type,
    set_store_atomic_config,
)
from .cache import data_cache_clean_and_invalid, data_cache_preload, get_icache_preload_status, icache_preload
from .cast import cast
from .compare import compare, compare_scalar, get_cmp_mask, select, set_cmp_mask
from .core_sync import cross_core_set_flag, cross_core_wait_flag, sync_all
from .cube import fixpipe, load_data, load_data_with_transpose, mmad, set_fix_pipe_pre_quant_flag
from .data_copy import data_copy, data_copy_pad
from .debug import dump_acc_chk_point, dump_tensor, metrics_prof_start, metrics_prof_stop, print_time_stamp, printf
from .gather import brcb, gather, gather_mask, scatter
from .layout import transpose
from .list_tensor import ListTensorDesc, TensorDesc
from .mask import MASK_PLACEHOLDER, reset_mask, set_mask_count, set_mask_norm, set_vector_mask
from .reduce import (
    block_reduce_max,
    block_reduce_min,
    block_reduce_sum,
    pair_reduce_sum,
    reduce_max,
    reduce_min,
    reduce_sum,
    repeat_reduce_sum,
    whole_reduce_max,
    whole_reduce_min,
    whole_reduce_sum,
)
from .scalar import (
    count_bits_cnt_same_as_sign_bit,
    scalar_cast,
    scalar_count_leading_zero,
    scalar_get_count_of_value,
    scalar_get_sff_value,
)
from .sync import pipe_barrier, set_flag, wait_flag
from .sys_var import ascend_is_aic, ascend_is_aiv, get_block_idx, get_block_num, get_sub_block_idx, get_sub_block_num
from .vec_ops import *  # noqa: F403  (every vector instruction, generated from the op table)
from .vec_ops import __all__ as _vec_ops_all
from .workspace import get_sys_workspace, set_sys_workspace

__all__ = [
    "TensorDesc",
    "ListTensorDesc",
    "data_cache_clean_and_invalid",
    "data_cache_preload",
    "icache_preload",
    "get_icache_preload_status",
    "dump_acc_chk_point",
    "print_time_stamp",
    "metrics_prof_start",
    "metrics_prof_stop",
    "scalar_cast",
    "scalar_get_sff_value",
    "scalar_get_count_of_value",
    "scalar_count_leading_zero",
    "count_bits_cnt_same_as_sign_bit",
    "set_atomic_add",
    "set_atomic_max",
    "set_atomic_min",
    "set_atomic_none",
    "set_atomic_type",
    "set_store_atomic_config",
    "MASK_PLACEHOLDER",
    "reset_mask",
    "set_mask_count",
    "set_mask_norm",
    "set_vector_mask",
    "get_sys_workspace",
    "set_sys_workspace",
    "cross_core_set_flag",
    "cross_core_wait_flag",
    "sync_all",
    "ascend_is_aic",
    "ascend_is_aiv",
    "get_sub_block_idx",
    "get_sub_block_num",
    "fixpipe",
    "load_data",
    "load_data_with_transpose",
    "mmad",
    "set_fix_pipe_pre_quant_flag",
    "get_cmp_mask",
    "set_cmp_mask",
    "dump_tensor",
    "printf",
    "brcb",
    "gather",
    "gather_mask",
    "scatter",
    "transpose",
    "block_reduce_max",
    "block_reduce_min",
    "block_reduce_sum",
    "cast",
    "compare",
    "compare_scalar",
    "data_copy",
    "data_copy_pad",
    "get_block_idx",
    "get_block_num",
    "pair_reduce_sum",
    "pipe_barrier",
    "reduce_max",
    "reduce_min",
    "reduce_sum",
    "repeat_reduce_sum",
    "select",
    "set_flag",
    "wait_flag",
    "whole_reduce_max",
    "whole_reduce_min",
    "whole_reduce_sum",
    *_vec_ops_all,
]
