// The sorting instructions (rows and documentation in ir/ops_sort.cpp). Atlas A2/A3 hold a sorted element as an
// 8-byte (score, index) structure: the score (float32, or float16 followed by 2 reserved bytes) in the low 4
// bytes, the uint32 index in the high 4. Scores order largest first; equal scores keep their order (the earlier
// element, or the earlier list of a merge, first). NaN scores, which the documentation does not order, count as
// larger than every number.
#include <algorithm>
#include <cstring>
#include <vector>

#include "sim/handlers.h"
#include "sim/scalar_math.h"
#include "target/scalar_arith.h"

namespace asc::sim {
namespace {

constexpr int64_t kGroup = 32;  // Sort32's elements per repeat
constexpr int64_t kStruct = 8;  // bytes of a (score, index) structure

DType operand_dtype(const Block& b, const Op& op, size_t i) { return b.kernel().type_of(op.operands[i]).dtype; }

// Whether score a goes before score b.
bool before(float a, float b) { return a > b || (a != a && b == b); }

struct Pair {
  float score;
  uint32_t index;
  const uint8_t* score_bytes;  // the score as stored (2 or 4 bytes)
};

// Sorts `count` (score, index) pairs, largest score first, ties in input order, into 8-byte structures at dst:
// the reserved bytes of float16 structures keep what dst held.
void sort_pairs(const uint8_t* scores, const uint8_t* indices, int64_t count, DType d, uint8_t* dst) {
  const size_t size = dtype_size(d);
  std::vector<Pair> pairs(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    const uint8_t* s = scores + i * static_cast<int64_t>(size);
    uint32_t index;
    std::memcpy(&index, indices + i * 4, 4);
    pairs[static_cast<size_t>(i)] = {load_float(s, d), index, s};
  }
  std::stable_sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) { return before(a.score, b.score); });
  std::vector<uint8_t> out(static_cast<size_t>(count * kStruct));
  std::memcpy(out.data(), dst, out.size());  // the sources may overlap dst: sort from copies, write once
  for (size_t i = 0; i < pairs.size(); ++i) {
    std::memcpy(out.data() + i * kStruct, pairs[i].score_bytes, size);
    std::memcpy(out.data() + i * kStruct + 4, &pairs[i].index, 4);
  }
  std::memcpy(dst, out.data(), out.size());
}

}  // namespace

// Each repeat sorts its 32 scores with their indices into 32 structures (256 bytes of dst).
void exec_Sort32(Block& b, const Op& op, const RtValue* in, RtValue*) {
  DType d = operand_dtype(b, op, 0);
  const int64_t size = static_cast<int64_t>(dtype_size(d));
  std::vector<uint8_t> scores(b.effect_ptr(0), b.effect_ptr(0) + b.effect_bytes(0));
  std::vector<uint8_t> indices(b.effect_ptr(1), b.effect_ptr(1) + b.effect_bytes(1));
  for (int64_t r = 0; r < in[3].i; ++r)
    sort_pairs(scores.data() + r * kGroup * size, indices.data() + r * kGroup * 4, kGroup, d,
               b.effect_ptr(2) + r * kGroup * kStruct);
}

// The advanced Sort on A2/A3: Sort32 per repeat, or (is_full_sort) every repeat_time * 32 elements as one. tmp is
// the board's scratch space, its contents afterwards unspecified: the Model leaves a copy of dst there.
void exec_Sort(Block& b, const Op& op, const RtValue* in, RtValue*) {
  DType d = operand_dtype(b, op, 0);
  const int64_t size = static_cast<int64_t>(dtype_size(d)), repeats = in[4].i;
  std::vector<uint8_t> scores(b.effect_ptr(0), b.effect_ptr(0) + b.effect_bytes(0));
  std::vector<uint8_t> indices(b.effect_ptr(1), b.effect_ptr(1) + b.effect_bytes(1));
  const int64_t group = op.attr_int(0) ? repeats * kGroup : kGroup;
  for (int64_t first = 0; first < repeats * kGroup; first += group)
    sort_pairs(scores.data() + first * size, indices.data() + first * 4, group, d, b.effect_ptr(2) + first * kStruct);
  std::memmove(b.effect_ptr(3), b.effect_ptr(2), static_cast<size_t>(b.effect_bytes(2)));
}

namespace {

struct List {
  const uint8_t* p;
  int64_t length, taken;
};

// The merge of mrg_sort, mrg_sort.counts and mrg_sort4: operands dst, src1..src4, four element lengths, valid_bit,
// repeat_times; attributes if_exhausted_suspension and how many lists the MrgSortSrcList holds. A structure is
// `bytes` long with its score `score_at` bytes in: (score, index) structures (8, 0) or region proposals (8
// elements, the score the fifth).
void merge(Block& b, const Op& op, const RtValue* in, int64_t bytes, int64_t score_at) {
  const DType d = operand_dtype(b, op, 0);
  const int64_t valid = in[9].i, repeats = in[10].i;
  const bool suspension = op.attr_int(0) != 0;
  const size_t dst_effect = 4;
  const int64_t needed = valid == 15 ? 4 : valid == 7 ? 3 : 2;  // valid_bit is 3, 7 or 15 (the extent checked)
  if (needed > op.attr_int(1))
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: valid_bit {} merges {} lists, the MrgSortSrcList has {}",
         op.info().name, valid, needed, op.attr_int(1));
  int64_t total = 0, lists = 0;
  for (int k = 0; k < 4; ++k)
    if ((valid >> k) & 1) {
      total += in[5 + k].i;
      ++lists;
      if (in[1 + k].addr % bytes != 0)
        fail(ASC_ERR_MISALIGNED, op.loc, "{}: src{} starts at byte {} of the Unified Buffer, not {}-byte aligned",
             op.info().name, k + 1, in[1 + k].addr, bytes);
    }
  if (repeats > 1) {
    // the documented condition for repeats: four lists of one length, each right after the one before
    if (suspension || valid != 15)
      fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
           "{}: repeat_times {} needs valid_bit 15 and if_exhausted_suspension False (got {} and {})", op.info().name,
           repeats, valid, suspension ? "True" : "False");
    for (int k = 1; k < 4; ++k)
      if (in[5 + k].i != in[5].i || in[1 + k].addr != in[1].addr + k * in[5].i * bytes)
        fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
             "{}: repeat_times {} needs four lists of one length stored one after another: list {} has {} "
             "structures at byte {}, list 1 {} at byte {}",
             op.info().name, repeats, k + 1, in[5 + k].i, in[1 + k].addr, in[5].i, in[1].addr);
  }
  // sources and dst must not overlap (both are in the Unified Buffer)
  const int64_t dst_lo = in[0].addr, dst_hi = dst_lo + repeats * total * bytes;
  for (int k = 0; k < 4; ++k) {
    int64_t lo = in[1 + k].addr, hi = lo + static_cast<int64_t>(b.effect_bytes(k));
    if ((valid >> k) & 1 && hi > lo && dst_hi > dst_lo && in[1 + k].mem == in[0].mem && lo < dst_hi && dst_lo < hi)
      fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
           "{}: src{} (bytes [{}, {})) overlaps dst (bytes [{}, {})); the merge needs them apart", op.info().name,
           k + 1, lo, hi, dst_lo, dst_hi);
  }
  uint16_t* result = b.mrg_sort_result();
  for (int64_t r = 0; r < repeats; ++r) {
    List list[4];
    for (int k = 0; k < 4; ++k)
      list[k] = {b.effect_ptr(static_cast<size_t>(k)) + r * total * bytes, (valid >> k) & 1 ? in[5 + k].i : 0, 0};
    int64_t out = r * total * bytes;
    // with suspension the merge stops when a list runs out: a valid list of length 0 has before it starts
    bool stop = false;
    for (int k = 0; k < lists; ++k) stop = stop || (suspension && list[k].length == 0);
    while (!stop) {
      int best = -1;
      float best_score = 0;
      for (int k = 0; k < 4; ++k) {
        if (list[k].taken == list[k].length) continue;
        float s = load_float(list[k].p + list[k].taken * bytes + score_at, d);
        if (best < 0 || before(s, best_score)) best = k, best_score = s;  // ties: the earlier list
      }
      if (best < 0) break;
      List& from = list[best];
      std::memcpy(b.dynamic_access(dst_effect, out, bytes), from.p + from.taken * bytes, static_cast<size_t>(bytes));
      out += bytes;
      ++from.taken;
      stop = suspension && from.taken == from.length;
    }
    for (int k = 0; k < 4; ++k) result[k] = static_cast<uint16_t>(list[k].taken);
  }
}

// The region-proposal instructions: on a platform without them (every A2/A3 row) the launch fails here.
void require_region_proposals(const Block& b, const Op& op) {
  if (b.platform().region_proposals) return;
  fail(ASC_ERR_UNSUPPORTED, op.loc,
       "{} (Ascend C {}) is a region-proposal instruction of the Atlas training series and Atlas inference AI Core; "
       "{} (Atlas A2/A3) does not have it (CANN: \"an unsupported API on current device\"). Sort (score, index) "
       "structures with sort32 or sort and merge them with mrg_sort",
       op.info().name, op.info().ascendc, b.platform().name);
}

}  // namespace

void exec_MrgSort(Block& b, const Op& op, const RtValue* in, RtValue*) { merge(b, op, in, kStruct, 0); }
void exec_MrgSortCounts(Block& b, const Op& op, const RtValue* in, RtValue*) { merge(b, op, in, kStruct, 0); }

// The merge result register: how many structures of list `list` the last merge took.
void exec_GetMrgSortResult(Block& b, const Op& op, const RtValue*, RtValue* out) {
  set_int(*out, DType::UInt16, b.mrg_sort_result()[op.attr_int(0)]);
}

// A structure is 8 bytes: 4 float16 or 2 float32 elements.
void exec_GetSortLen(Block&, const Op& op, const RtValue* in, RtValue* out) {
  int64_t per = static_cast<DType>(op.attr_int(0)) == DType::Float16 ? 4 : 2;
  set_int(*out, DType::UInt32, static_cast<int64_t>(static_cast<uint32_t>(in[0].i) * static_cast<uint32_t>(per)));
}
void exec_GetSortOffset(Block& b, const Op& op, const RtValue* in, RtValue* out) { exec_GetSortLen(b, op, in, out); }

namespace {
// Region proposals: 8 elements [x1, y1, x2, y2, score, label, -, -], 16 per repeat (16 or 32 bytes each).
constexpr int64_t kProposal = 8, kScoreField = 4, kPerRepeat = 16;
}  // namespace

// The merge of region proposals, as mrg_sort's (whole proposals move; the score is the fifth element).
void exec_MrgSort4(Block& b, const Op& op, const RtValue* in, RtValue*) {
  require_region_proposals(b, op);
  const int64_t size = static_cast<int64_t>(dtype_size(operand_dtype(b, op, 0)));
  merge(b, op, in, kProposal * size, kScoreField * size);
}

// Each repeat sorts 16 proposals by score, largest first, equal scores in input order.
void exec_RpSort16(Block& b, const Op& op, const RtValue* in, RtValue*) {
  require_region_proposals(b, op);
  const DType d = operand_dtype(b, op, 0);
  const int64_t bytes = kProposal * static_cast<int64_t>(dtype_size(d));
  std::vector<uint8_t> src(b.effect_ptr(0), b.effect_ptr(0) + b.effect_bytes(0));
  uint8_t* dst = b.effect_ptr(1);
  for (int64_t r = 0; r < in[2].i; ++r) {
    const uint8_t* group = src.data() + r * kPerRepeat * bytes;
    int64_t order[kPerRepeat];
    for (int64_t i = 0; i < kPerRepeat; ++i) order[i] = i;
    auto score = [&](int64_t i) { return load_float(group + i * bytes + kScoreField * bytes / kProposal, d); };
    std::stable_sort(order, order + kPerRepeat, [&](int64_t x, int64_t y) { return before(score(x), score(y)); });
    for (int64_t i = 0; i < kPerRepeat; ++i)
      std::memcpy(dst + (r * kPerRepeat + i) * bytes, group + order[i] * bytes, static_cast<size_t>(bytes));
  }
}

namespace {
// proposal_concat: element r * 16 + i of src into field mode_number of proposal r * 16 + i (the other fields keep
// their values); proposal_extract: the reverse.
void proposal_field(Block& b, const Op& op, const RtValue* in, bool into_proposals) {
  require_region_proposals(b, op);
  const int64_t mode = in[3].i, size = static_cast<int64_t>(dtype_size(operand_dtype(b, op, 0)));
  if (mode < 0 || mode > 5)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: mode_number {} is not a field 0..5 (x1, y1, x2, y2, score, label)",
         op.info().name, mode);
  std::vector<uint8_t> src(b.effect_ptr(0), b.effect_ptr(0) + b.effect_bytes(0));
  uint8_t* dst = b.effect_ptr(1);
  for (int64_t e = 0; e < in[2].i * kPerRepeat; ++e) {
    const int64_t field = (e * kProposal + mode) * size, element = e * size;
    std::memcpy(dst + (into_proposals ? field : element), src.data() + (into_proposals ? element : field),
                static_cast<size_t>(size));
  }
}
}  // namespace

void exec_ProposalConcat(Block& b, const Op& op, const RtValue* in, RtValue*) { proposal_field(b, op, in, true); }
void exec_ProposalExtract(Block& b, const Op& op, const RtValue* in, RtValue*) { proposal_field(b, op, in, false); }

}  // namespace asc::sim
