// Rows of the sorting instructions. Atlas A2/A3 sort (score, index) pairs held in 8-byte structures: Sort32
// sorts groups of 32, MrgSort merges up to four sorted lists of them, GetMrgSortResult reads how much of each list
// the last merge took, and the advanced Sort / MrgSort and GetSortLen / GetSortOffset build on them. The Atlas
// training and inference series' region-proposal instructions (8-element proposals: MrgSort4, RpSort16,
// ProposalConcat, ProposalExtract) have rows so kernels written for them compile as Ascend C does for A2 (where
// CANN declares them "an unsupported API on current device"); the Model runs them on a platform row that has them
// (Platform::region_proposals; no A2/A3 row does) and reports them on the others.
//
// Documentation (CANN asc-devkit, docs/zh/api/SIMD-API/基础API/Memory矢量计算/排序组合（ISASI）/ and
// .../高阶API/排序操作/; https://gitcode.com/cann/asc-devkit/blob/9.0.0-beta.2/docs/api/context/Sort32.md):
// - Sort32(dst, src0, src1, repeatTime): per repeat 32 scores (half or float, src0) and their uint32 indices
//   (src1) are sorted by score, largest first; dst gets (score, index) structures of 8 bytes: the score in the
//   low 4 bytes (float) or low 2 bytes (half, the next 2 reserved), the index in the high 4. src0/src1 advance 32
//   elements and dst 256 bytes per repeat; repeatTime in [0, 255], 0 a NOP. "If score[i] == score[j] and i > j,
//   score[j] is taken first"; repeats are not sorted against each other.
// - MrgSort(dst, MrgSortSrcList(src1..src4), MrgSort4Info(elementLengths[4], ifExhaustedSuspension, validBit,
//   repeatTimes)): merges the first 2, 3 or 4 lists (validBit 3, 7, 15) of elementLengths[i] structures (each in
//   [0, 4095]) into dst, largest score first; ifExhaustedSuspension stops the merge when a list runs out. repeat
//   r merges the lists at r times their total length (only with 4 equal, contiguous lists, validBit 15 and no
//   suspension). dst 32-byte aligned, sources 8-byte aligned; no overlap of sources and dst.
// - GetMrgSortResult(l1, l2, l3, l4): how many structures of each list the last MrgSort took (VMS4_SR).
// - Sort<T, isFullSort>(dst, concat, index, tmp, repeatTime) on A2/A3: Sort32 of each repeat; isFullSort: all
//   repeatTime * 32 elements sorted as one (ties keep the input order). MrgSort<T, isExhaustedSuspension>(dst,
//   list, elementCountList[4], sortedNum[4], validBit, repeatTime): the merge above.
// - GetSortLen<T>(n) / GetSortOffset<T>(n): n structures counted in elements of T (CANN's
//   kernel_operator_proposal_intf_impl.h on dav-c220: 4 per structure for half, 2 for float).
// - MrgSort4, RpSort16, ProposalConcat, ProposalExtract: "Atlas A2 训练系列产品/Atlas A2 推理系列产品：不支持" (and
//   A3); supported on the Atlas training series (half) and Atlas inference AI Core (half, float). A region
//   proposal is 8 elements [x1, y1, x2, y2, score, label, reserved, reserved] (16 bytes of half, 32 of float);
//   RpSort16 sorts 16 per repeat by score (ties: the earlier first), ProposalConcat writes 16 elements per repeat
//   into field modeNumber (0 x1 .. 4 score, 5 label) of 16 proposals, ProposalExtract reads them back, MrgSort4
//   merges up to 4 sorted lists of proposals (MrgSort4Info as MrgSort's).
#include <tuple>

#include "ir/op_rows.h"
#include "ir/row_rules.h"

namespace asc::rows {
namespace {

constexpr int64_t kSortGroup = 32;   // Sort32: elements per repeat
constexpr int64_t kStructBytes = 8;  // a (score, index) structure
constexpr int64_t kMaxListLength = 4095;

void require_const_range(const OpView& v, size_t i, const char* what, int64_t lo, int64_t hi) {
  int64_t value;
  if (v.operand_const_int(i, &value) && (value < lo || value > hi))
    type_error(v, fmt::format("{} must be in [{}, {}], got {}", what, lo, hi, value));
}

void require_uint32_indices(const OpView& v, size_t i, const char* role) {
  require_ub_position(v, i, role);
  if (v.operand_type(i).dtype != DType::UInt32)
    type_error(v, fmt::format("{} must be a LocalTensor of uint32 indices, got {}", role, v.operand_type(i).str()));
}

// sort32: dst, src0 (scores), src1 (uint32 indices), repeat_time
void check_sort32(const OpView& v) {
  check_ub_same_dtype(v);
  require_uint32_indices(v, 2, "src1");
  require_const_range(v, 3, "repeat_time", 0, 255);
}

// sort: dst, concat (scores), index (uint32), tmp, repeat_time; attr is_full_sort
void check_sort(const OpView& v) {
  check_ub_same_dtype(v);
  require_uint32_indices(v, 2, "index");
  require_ub_position(v, 3, "tmp");
  require_same_dtype(v, 0, 3);
  require_const_range(v, 4, "repeat_time", 0, 255);
}

// mrg_sort, mrg_sort.counts, mrg_sort4: dst, src1..src4, length0..length3, valid_bit, repeat; attrs suspension,
// lists
void check_mrg_sort(const OpView& v) {
  require_ub_position(v, 0, "dst");
  require_row_dtype(v, 0);
  for (size_t i = 1; i <= 4; ++i) {
    std::string role = fmt::format("src{}", i);
    require_ub_position(v, i, role.c_str());
    require_same_dtype(v, 0, i);
  }
  for (size_t i = 5; i < 9; ++i) {
    std::string what = fmt::format("element length {}", i - 5);
    require_const_range(v, i, what.c_str(), 0, kMaxListLength);
  }
  int64_t valid = 0, repeat = 1;
  bool valid_known = v.operand_const_int(9, &valid);
  if (valid_known && valid != 3 && valid != 7 && valid != 15)
    type_error(v, fmt::format("valid_bit must be 3 (2 lists), 7 (3 lists) or 15 (4 lists), got {}", valid));
  require_const_range(v, 10, "repeat_times", 0, 255);
  const bool suspension = v.op.attr_int(0) != 0;
  const int64_t lists = v.op.attr_int(1);
  if (lists < 2 || lists > 4) type_error(v, fmt::format("a MrgSortSrcList holds 2 to 4 lists, not {}", lists));
  if (valid_known && (valid == 15 ? 4 : valid == 7 ? 3 : 2) > lists)
    type_error(v, fmt::format("valid_bit {} merges {} lists, the MrgSortSrcList has {}", valid,
                              valid == 15  ? 4
                              : valid == 7 ? 3
                                           : 2,
                              lists));
  if (v.operand_const_int(10, &repeat) && repeat > 1 && (suspension || (valid_known && valid != 15)))
    type_error(v, fmt::format("repeat_times {} needs 4 valid lists (valid_bit 15) and if_exhausted_suspension "
                              "False; merge one group per call otherwise",
                              repeat));
}

// mrg_sort, mrg_sort.counts, mrg_sort4: effects 0..3 read the four lists (valid ones), 4 writes dst (how much
// depends on the data when the merge may stop early: checked per structure).
int64_t mrg_sort_extent(const Op& op, const int64_t* in, size_t index, int64_t size) {
  // a (score, index) structure, or (mrg_sort4) a region proposal of 8 elements
  const int64_t bytes = op.code == OpCode::MrgSort4 ? 8 * size : kStructBytes;
  int64_t valid = in[9], repeats = in[10];
  if (repeats < 0 || repeats > 255)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: repeat_times {} must be 0..255", op.info().name, repeats);
  if (valid != 3 && valid != 7 && valid != 15)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: valid_bit must be 3, 7 or 15, got {}", op.info().name, valid);
  int64_t total = 0;
  for (int k = 0; k < 4; ++k) {
    if (in[5 + k] < 0 || in[5 + k] > kMaxListLength)
      fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: element length {} is {}, not in [0, {}]", op.info().name, k,
           in[5 + k], kMaxListLength);
    if ((valid >> k) & 1) total += in[5 + k];
  }
  if (repeats == 0 || !((valid >> index) & 1)) return 0;
  return ((repeats - 1) * total + in[5 + index]) * bytes;
}

// sort32 / sort: effect 0 reads the scores, 1 the indices, 2 writes dst (and sort's 3, tmp).
int64_t sort_extent(const Op& op, const int64_t* in, size_t index, int64_t size) {
  int64_t repeats = in[op.code == OpCode::Sort32 ? 3 : 4];
  if (repeats < 0 || repeats > 255)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: repeat_time {} must be 0..255", op.info().name, repeats);
  int64_t n = repeats * kSortGroup;
  return index == 0 ? n * size : index == 1 ? n * 4 : n * kStructBytes;
}

// rp_sort16: dst, src, repeat_time; proposal_concat / proposal_extract: dst, src, repeat_time, mode_number
void check_proposal(const OpView& v) {
  check_ub_same_dtype(v);
  require_const_range(v, 2, "repeat_time", 0, 255);
  if (v.op.operands.size() == 4) require_const_range(v, 3, "mode_number", 0, 5);
}

// Region proposals of 8 elements, 16 per repeat: rp_sort16 reads and writes 16 proposals, proposal_concat reads
// 16 elements and writes 16 proposals, proposal_extract the reverse. Effect 0 reads src, 1 writes dst.
int64_t proposal_extent(const Op& op, const int64_t* in, size_t index, int64_t size) {
  int64_t repeats = in[2];
  if (repeats < 0 || repeats > 255)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: repeat_time {} must be 0..255", op.info().name, repeats);
  int64_t proposals = repeats * 16 * 8 * size, elements = repeats * 16 * size;
  if (op.code == OpCode::RpSort16) return proposals;
  bool reads_proposals = op.code == OpCode::ProposalExtract;
  return (index == 0) == reads_proposals ? proposals : elements;
}

void check_sort_size(const OpView& v) {
  check_dtype_attr(v);
  auto d = static_cast<DType>(v.op.attr_int(0));
  if (d != DType::Float16 && d != DType::Float32)
    type_error(v, fmt::format("counts structures of float16 or float32 scores, not {}", dtype_name(d)));
  if (v.operand_type(0).dtype != DType::UInt32)
    type_error(v, fmt::format("takes a uint32 scalar, got {}", v.operand_type(0).str()));
}

void check_mrg_sort_result(const OpView& v) {
  int64_t list = v.op.attr_int(0);
  if (list < 0 || list > 3) type_error(v, fmt::format("list must be 0..3, got {}", list));
}

Type uint16_result(const OpView&) { return Type::scalar(DType::UInt16); }
Type uint32_result(const OpView&) { return Type::scalar(DType::UInt32); }

// The merge's spelling: the element lengths as the uint16_t[4] both forms take, then the call.
std::string mrg_sort_spelling(const char* call) {
  return std::string("{{ const uint16_t asc_lengths[4] = {{{5..9:uint16_t}}}; ") + call + " }}";
}

}  // namespace

void define_sort_ops(OpTable& t) {
  t.def(OpCode::Sort32, "sort32")
      .pipe(Pipe::V)
      .operands(3, K::LocalTensor)
      .operands({K::IntScalar})
      .check(check_sort32)
      .reads(1, extent())
      .reads(2, extent())
      .writes(0, extent())
      .extent(sort_extent)
      .dtypes(kFLOAT)
      .cost(CostKind::Vector)
      .ascendc("AscendC::Sort32", "{api}({0..3}, {3:int32_t});");
  t.def(OpCode::Sort, "sort")
      .pipe(Pipe::V)
      .operands(4, K::LocalTensor)
      .operands({K::IntScalar})
      .attr("is_full_sort")
      .check(check_sort)
      .reads(1, extent())
      .reads(2, extent())
      .writes(0, extent())
      .writes(3, extent())
      .extent(sort_extent)
      .dtypes(kFLOAT)
      .cost(CostKind::Vector)
      .ascendc("AscendC::Sort", "{api}<{T:0}, {bool:is_full_sort}>({0..4}, {4:int32_t});");
  // The merges: dst, src1..src4, the four element lengths, valid_bit, repeat_times.
  auto merge = [&](OpCode code, const char* name, const char* attr) -> Row& {
    return t.def(code, name)
        .pipe(Pipe::V)
        .operands(5, K::LocalTensor)
        .operands(6, K::IntScalar)
        .attr(attr)
        .attr("lists")  // how many the MrgSortSrcList holds (the absent ones are src1 again: not read)
        .check(check_mrg_sort)
        .reads(1, extent().unaligned())
        .reads(2, extent().unaligned())
        .reads(3, extent().unaligned())
        .reads(4, extent().unaligned())
        .writes(0, Span::data_dependent().aligned())
        .extent(mrg_sort_extent)
        .dtypes(kFLOAT)
        .cost(CostKind::Vector);
  };
  merge(OpCode::MrgSort, "mrg_sort", "if_exhausted_suspension")
      .ascendc("AscendC::MrgSort",
               mrg_sort_spelling("{api}({0}, AscendC::MrgSortSrcList<{T:0}>({1..5}), AscendC::MrgSort4Info("
                                 "asc_lengths, {bool:if_exhausted_suspension}, {9:uint16_t}, {10:uint16_t}));"));
  merge(OpCode::MrgSortCounts, "mrg_sort.counts", "is_exhausted_suspension")
      .ascendc("AscendC::MrgSort",
               mrg_sort_spelling("uint32_t asc_sorted_num[4]; {api}<{T:0}, {bool:is_exhausted_suspension}>({0}, "
                                 "AscendC::MrgSortSrcList<{T:0}>({1..5}), asc_lengths, asc_sorted_num, {9:uint16_t}, "
                                 "{10:int32_t});"));
  merge(OpCode::MrgSort4, "mrg_sort4", "if_exhausted_suspension")
      .ascendc("AscendC::MrgSort4",
               mrg_sort_spelling("{api}({0}, AscendC::MrgSortSrcList<{T:0}>({1..5}), AscendC::MrgSort4Info("
                                 "asc_lengths, {bool:if_exhausted_suspension}, {9:uint16_t}, {10:uint16_t}));"));
  // One of the four counts of the merge result register; the scalar unit waits for the vector pipe's earlier
  // merges (the Model's reading of a pipe-V op's result).
  t.def(OpCode::GetMrgSortResult, "get_mrg_sort_result")
      .pipe(Pipe::V)
      .attr("list")
      .result(uint16_result)
      .check(check_mrg_sort_result)
      .cost(CostKind::Vector)
      .ascendc("AscendC::GetMrgSortResult",
               "uint16_t {result} = 0;\n{{ uint16_t asc_mrg[4] = {{0, 0, 0, 0}}; {api}(asc_mrg[0], asc_mrg[1], "
               "asc_mrg[2], asc_mrg[3]); {result} = asc_mrg[{attr:list}]; }}");
  for (auto [code, name, api] : {std::tuple{OpCode::GetSortLen, "get_sort_len", "AscendC::GetSortLen"},
                                 std::tuple{OpCode::GetSortOffset, "get_sort_offset", "AscendC::GetSortOffset"}})
    t.def(code, name)
        .operands({K::IntScalar})
        .attr("dtype")
        .result(uint32_result)
        .check(check_sort_size)
        .ascendc(api, "{T:result} {result} = {api}<{T:dtype}>({0});");
  t.def(OpCode::RpSort16, "rp_sort16")
      .pipe(Pipe::V)
      .operands(2, K::LocalTensor)
      .operands({K::IntScalar})
      .check(check_proposal)
      .reads(1, extent())
      .writes(0, extent())
      .extent(proposal_extent)
      .dtypes(kFLOAT)
      .cost(CostKind::Vector)
      .ascendc("AscendC::RpSort16", "{api}({0}, {1}, {2:int32_t});");
  for (auto [code, name, api] : {std::tuple{OpCode::ProposalConcat, "proposal_concat", "AscendC::ProposalConcat"},
                                 std::tuple{OpCode::ProposalExtract, "proposal_extract", "AscendC::ProposalExtract"}})
    t.def(code, name)
        .pipe(Pipe::V)
        .operands(2, K::LocalTensor)
        .operands(2, K::IntScalar)
        .check(check_proposal)
        .reads(1, extent())
        .writes(0, extent())
        .extent(proposal_extent)
        .dtypes(kFLOAT)
        .cost(CostKind::Vector)
        .ascendc(api, "{api}({0}, {1}, {2:int32_t}, {3:int32_t});");
}

}  // namespace asc::rows
