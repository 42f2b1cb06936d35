// Rows of debugging output (printf, dump_tensor, dump_acc_chk_point, print_time_stamp, the msProf markers) and of
// the scalar unit's cache instructions.
#include "ir/op_rows.h"
#include "ir/printf_format.h"
#include "ir/row_rules.h"

namespace asc::rows {
namespace {

constexpr size_t kMaxPrintfArgs = 12;  // a pipe queue entry's operands

constexpr size_t kMaxDumpShapeDims = 8;

void check_printf(const OpView& v) {
  std::vector<FormatPiece> pieces;
  try {
    pieces = parse_printf_format(v.op.attr(0).s);
  } catch (const Error& e) {
    throw Error(e.status(), e.what(), v.op.loc);
  }
  size_t arg = 0;
  for (const FormatPiece& p : pieces) {
    if (!p.conversion) continue;
    if (arg >= v.op.operands.size())
      type_error(v, fmt::format("the format has more conversions than the {} values given", v.op.operands.size()));
    const Type& t = v.operand_type(arg);
    bool address = t.kind == TypeKind::GmAddr || t.kind == TypeKind::GlobalTensor;
    if (conversion_is_address(p.conversion) != address)
      type_error(v, fmt::format("{} (value {}) needs {}, got {}", p.text, arg + 1,
                                address ? "an integer or floating-point value" : "a GM address", t.str()));
    if (address) {
      ++arg;
      continue;
    }
    if (t.kind != TypeKind::Scalar) type_error(v, fmt::format("value {} is a {}, not a number", arg + 1, t.str()));
    DType d = t.dtype;
    bool integer = dtype_is_int(d) || d == DType::Bool;
    if (conversion_is_integer(p.conversion) != integer)
      type_error(v, fmt::format("{} (value {}) needs {} value, got {}", p.text, arg + 1,
                                integer ? "a floating-point" : "an integer", dtype_name(d)));
    ++arg;
  }
  if (arg != v.op.operands.size())
    type_error(v, fmt::format("the format has {} conversions but {} values are given", arg, v.op.operands.size()));
}

void check_dump_tensor(const OpView& v) {
  TypeKind k = v.operand_type(0).kind;
  if (k != TypeKind::LocalTensor && k != TypeKind::GlobalTensor)
    type_error(v, "the tensor must be a LocalTensor or a GlobalTensor");
}

void check_dump_acc_chk_point(const OpView& v) {
  TypeKind k = v.operand_type(0).kind;
  if (k != TypeKind::LocalTensor && k != TypeKind::GlobalTensor)
    type_error(v, "the tensor must be a LocalTensor or a GlobalTensor");
  if (k == TypeKind::LocalTensor) require_ub_position(v, 0, "the tensor");
}

constexpr int64_t kCacheLines = 2;  // CacheLine: SINGLE_CACHE_LINE, ENTIRE_DATA_CACHE
constexpr int64_t kDcciDsts = 4;    // DcciDst: CACHELINE_ALL, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC

void check_entire_type(const OpView& v) {
  int64_t e = v.op.attr_int(0);
  if (e < 0 || e >= kCacheLines) type_error(v, fmt::format("unknown CacheLine {}", e));
}

void check_dcci(const OpView& v) {
  check_entire_type(v);
  int64_t d = v.op.attr_int(1);
  if (d < 0 || d >= kDcciDsts) type_error(v, fmt::format("unknown DcciDst {}", d));
}

void check_data_cache_preload(const OpView& v) {
  if (v.operand_type(0).dtype != DType::UInt64)
    type_error(v, fmt::format("preloads through a GlobalTensor of uint64 (Ascend C's GlobalTensor<uint64_t>), got {}",
                              v.operand_type(0).str()));
}

}  // namespace

void define_debug_ops(OpTable& t) {
  // the format is a C string literal of the emitted file: hand-spelled
  t.def(OpCode::Printf, "printf")
      .operands(kMaxPrintfArgs, K::Any)  // numbers, and GM addresses for %s / %p
      .optional_from(0)
      .attr("format", ASC_ATTR_STRING)
      .check(check_printf)
      .ascendc("AscendC::printf");
  // dump_tensor(tensor, desc, count[, the dims of an optional ShapeInfo])
  t.def(OpCode::DumpTensor, "dump_tensor")
      .operands({K::Any, K::IntScalar, K::IntScalar})
      .operands(kMaxDumpShapeDims, K::IntScalar)
      .optional_from(3)
      .check(check_dump_tensor)
      .reads(0, count(2).unaligned())
      .cost(CostKind::ScalarMemory)
      .ascendc("AscendC::DumpTensor");
  // DumpAccChkPoint(tensor, index, countOff, dumpSize): dump_tensor's record of dumpSize elements from element
  // countOff on, index in place of desc; the header names both (pyasc basic/utils.py dump_acc_chk_point_docstring:
  // "unlike dump_tensor it dumps from an offset into the tensor")
  t.def(OpCode::DumpAccChkPoint, "dump_acc_chk_point")
      .operands({K::Any, K::IntScalar, K::IntScalar, K::IntScalar})
      .check(check_dump_acc_chk_point)
      .reads(0, Span::data_dependent().unaligned())
      .cost(CostKind::ScalarMemory)
      .ascendc("AscendC::DumpAccChkPoint", "{api}({0}, {1..:uint32_t});");
  // PrintTimeStamp(descId): "descId is D, rsv is 0, timeStamp is <the core's cycle>, pcPtr is P, entry is 0."
  // (https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/850/API/ascendcopapi/atlasascendc_api_07_00002.html);
  // the Model's cycle is the scalar unit's dispatch cycle of the instruction, it has no program counter (pcPtr 0)
  t.def(OpCode::PrintTimeStamp, "print_time_stamp")
      .operands({K::IntScalar})
      .cost(CostKind::ScalarMemory)
      .ascendc("AscendC::PrintTimeStamp", "{api}({0:uint32_t});");
  // msProf's range markers: the board's profiler samples between them; the Model times every instruction anyway
  t.def(OpCode::MetricsProfStart, "metrics_prof_start").ascendc("AscendC::MetricsProfStart", "{api}();");
  t.def(OpCode::MetricsProfStop, "metrics_prof_stop").ascendc("AscendC::MetricsProfStop", "{api}();");

  // The scalar unit's data cache in front of GM and the instruction cache. The Model's scalar unit reads and writes
  // GM directly (it has no cache to fall out of step with), so they change nothing; each costs a GM round trip.
  // DataCacheCleanAndInvalid<T, entireType[, dcciDst]>(dst): write back and invalidate the cache line of dst's
  // address (SINGLE_CACHE_LINE) or the whole data cache (ENTIRE_DATA_CACHE); dcciDst the memory kept coherent
  // (CACHELINE_ALL = CACHELINE_OUT: GM; CACHELINE_UB and CACHELINE_ATOMIC reserved) (pyasc basic/utils.py
  // data_cache_clean_and_invalid_docstring)
  t.def(OpCode::DataCacheCleanAndInvalid, "data_cache_clean_and_invalid")
      .operands({K::GlobalTensor})
      .attr("entire_type")
      .attr("dcci_dst")
      .check(check_dcci)
      .cost(CostKind::Cache)
      .ascendc("AscendC::DataCacheCleanAndInvalid", "{api}<{T:0}, {enum:entire_type}, {enum:dcci_dst}>({0});");
  t.def(OpCode::DataCacheCleanAndInvalidNoDst, "data_cache_clean_and_invalid.no_dst")
      .operands({K::GlobalTensor})
      .attr("entire_type")
      .check(check_entire_type)
      .cost(CostKind::Cache)
      .ascendc("AscendC::DataCacheCleanAndInvalid", "{api}<{T:0}, {enum:entire_type}>({0});");
  // DataCachePreload(const GlobalTensor<uint64_t>& src, T cacheOffset): fetch the line cacheOffset bytes past src
  t.def(OpCode::DataCachePreload, "data_cache_preload")
      .operands({K::GlobalTensor, K::IntScalar})
      .check(check_data_cache_preload)
      .cost(CostKind::Cache)
      .ascendc("AscendC::DataCachePreload", "{api}({0}, {1});");
  // ICachePreLoad(preFetchLen): prefetch instructions from the kernel's code in DDR
  t.def(OpCode::ICachePreload, "icache_preload")
      .operands({K::IntScalar})
      .cost(CostKind::Cache)
      .ascendc("AscendC::ICachePreLoad", "{api}({0:int64_t});");
  // GetICachePreloadStatus(): 0 idle, 1 busy; the Model's preload is done when issued: always 0
  t.def(OpCode::GetICachePreloadStatus, "get_icache_preload_status")
      .result(int64_result)
      .ascendc("AscendC::GetICachePreloadStatus", "int64_t {result} = {api}();");
}

}  // namespace asc::rows
