"""TCubeTiling: the Matmul tiling a host computes and a kernel receives by
value, with Ascend C's field order (49 int32 fields)."""

from __future__ import annotations

from ..core import dtype as dt
from ..core.struct import Field, Struct

_I32 = dt.int32


class TCubeTiling(Struct):
    used_core_num = Field(_I32, 0, "usedCoreNum")
    m = Field(_I32, 0, "M")
    n = Field(_I32, 0, "N")
    k_a = Field(_I32, 0, "Ka")
    k_b = Field(_I32, 0, "Kb")
    single_core_m = Field(_I32, 0, "singleCoreM")
    single_core_n = Field(_I32, 0, "singleCoreN")
    single_core_k = Field(_I32, 0, "singleCoreK")
    base_m = Field(_I32, 0, "baseM")
    base_n = Field(_I32, 0, "baseN")
    base_k = Field(_I32, 0, "baseK")
    depth_a1 = Field(_I32, 0, "depthA1")
    depth_b1 = Field(_I32, 0, "depthB1")
    step_m = Field(_I32, 0, "stepM")
    step_n = Field(_I32, 0, "stepN")
    is_bias = Field(_I32, 0, "isBias")
    trans_length = Field(_I32, 0, "transLength")
    iterate_order = Field(_I32, 0, "iterateOrder")
    share_mode = Field(_I32, 0, "shareMode")
    share_l1_size = Field(_I32, 0, "shareL1Size")
    share_l0c_size = Field(_I32, 0, "shareL0CSize")
    share_ub_size = Field(_I32, 0, "shareUbSize")
    batch_m = Field(_I32, 0, "batchM")
    batch_n = Field(_I32, 0, "batchN")
    single_batch_m = Field(_I32, 0, "singleBatchM")
    single_batch_n = Field(_I32, 0, "singleBatchN")
    step_k_a = Field(_I32, 0, "stepKa")
    step_k_b = Field(_I32, 0, "stepKb")
    depth_a_l1_cache_ub = Field(_I32, 0, "depthAL1CacheUB")
    depth_b_l1_cache_ub = Field(_I32, 0, "depthBL1CacheUB")
    db_l0a = Field(_I32, 0, "dbL0A")
    db_l0b = Field(_I32, 0, "dbL0B")
    db_l0c = Field(_I32, 0, "dbL0C")
    a_layout_info_b = Field(_I32, 0, "ALayoutInfoB")
    a_layout_info_s = Field(_I32, 0, "ALayoutInfoS")
    a_layout_info_n = Field(_I32, 0, "ALayoutInfoN")
    a_layout_info_g = Field(_I32, 0, "ALayoutInfoG")
    a_layout_info_d = Field(_I32, 0, "ALayoutInfoD")
    b_layout_info_b = Field(_I32, 0, "BLayoutInfoB")
    b_layout_info_s = Field(_I32, 0, "BLayoutInfoS")
    b_layout_info_n = Field(_I32, 0, "BLayoutInfoN")
    b_layout_info_g = Field(_I32, 0, "BLayoutInfoG")
    b_layout_info_d = Field(_I32, 0, "BLayoutInfoD")
    c_layout_info_b = Field(_I32, 0, "CLayoutInfoB")
    c_layout_info_s1 = Field(_I32, 0, "CLayoutInfoS1")
    c_layout_info_n = Field(_I32, 0, "CLayoutInfoN")
    c_layout_info_g = Field(_I32, 0, "CLayoutInfoG")
    c_layout_info_s2 = Field(_I32, 0, "CLayoutInfoS2")
    batch_num = Field(_I32, 0, "BatchNum")


# SoftMax's and RmsNorm's tilings (Ascend C SoftMaxTiling / RmsNormTiling, uint32 fields there; pyasc declares
# them int32, the same bytes for every valid value). asc.lib.host's softmax_tiling_func and
# get_rms_norm_tiling_info fill them; the adv functions read the shape from them when the tensors carry none.
class SoftmaxTiling(Struct):
    src_m = Field(_I32, 0, "srcM")
    src_k = Field(_I32, 0, "srcK")
    src_size = Field(_I32, 0, "srcSize")
    out_max_m = Field(_I32, 0, "outMaxM")
    out_max_k = Field(_I32, 0, "outMaxK")
    out_max_size = Field(_I32, 0, "outMaxSize")
    split_m = Field(_I32, 0, "splitM")
    split_k = Field(_I32, 0, "splitK")
    split_size = Field(_I32, 0, "splitSize")
    reduce_m = Field(_I32, 0, "reduceM")
    reduce_k = Field(_I32, 0, "reduceK")
    reduce_size = Field(_I32, 0, "reduceSize")
    range_m = Field(_I32, 0, "rangeM")
    tail_m = Field(_I32, 0, "tailM")
    tail_split_size = Field(_I32, 0, "tailSplitSize")
    tail_reduce_size = Field(_I32, 0, "tailReduceSize")


class RmsNormTiling(Struct):
    b_length = Field(_I32, 0, "bLength")
    s_length = Field(_I32, 0, "sLength")
    h_length = Field(_I32, 0, "hLength")
    original_h_length = Field(_I32, 0, "originalHLength")
    reciprocal_of_h_length = Field(dt.float32, 0.0, "reciprocalOfHLength")
    main_bsh_length = Field(_I32, 0, "mainBshLength")
    main_bs_length = Field(_I32, 0, "mainBsLength")
    main_bs_length_align = Field(_I32, 0, "mainBsLengthAlign")
    loop_round = Field(_I32, 0, "loopRound")
    input_tail_pos = Field(_I32, 0, "inputTailPos")
    tail_bsh_length = Field(_I32, 0, "tailBshLength")
    tail_bs_length = Field(_I32, 0, "tailBsLength")
