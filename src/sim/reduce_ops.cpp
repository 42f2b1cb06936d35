// Reductions. reduce_* (count mode) reduce `count` contiguous elements into
// dst[0] (and, for max/min asked for two results, the index into dst[1]);
// whole_reduce_* reduce each repeat's masked elements into one result per
// repeat. Sums add within a 256-byte repeat as a binary tree of neighbours and
// across repeats in order (the Ascend C ReduceSum description), in float;
// max/min keep the first index on ties. Indices are stored as the bits of an
// unsigned integer of the element's width (uint32 for a 4-byte index).
#include <cstring>
#include <vector>

#include "sim/handlers.h"
#include "sim/scalar_math.h"
#include "sim/vector_mask.h"

namespace asc::sim {
namespace {

float load(const uint8_t* p, DType d) { return load_float(p, d); }

void store(uint8_t* p, DType d, float v) {
  if (d == DType::Float16) {
    _Float16 h = static_cast<_Float16>(v);
    std::memcpy(p, &h, 2);
  } else {
    std::memcpy(p, &v, 4);
  }
}

void store_index(uint8_t* p, size_t width, uint32_t index) {
  if (width == 2) {
    uint16_t i = static_cast<uint16_t>(index);
    std::memcpy(p, &i, 2);
  } else {
    std::memcpy(p, &index, 4);
  }
}

// Neighbours first: (v0+v1), (v2+v3), ... until one value is left.
float tree_sum(std::vector<float> v) {
  if (v.empty()) return 0.0f;
  while (v.size() > 1) {
    size_t half = (v.size() + 1) / 2;
    for (size_t i = 0; i < half; ++i) v[i] = 2 * i + 1 < v.size() ? v[2 * i] + v[2 * i + 1] : v[2 * i];
    v.resize(half);
  }
  return v[0];
}

struct Extreme {
  float value;
  uint32_t index;
};

// The max (or min) of `values`, first index on ties.
Extreme extreme(const std::vector<std::pair<float, uint32_t>>& values, bool max) {
  Extreme e{values.front().first, values.front().second};
  for (const auto& [v, i] : values)
    if (max ? v > e.value : v < e.value) e = {v, i};
  return e;
}

DType dtype_of(Block& b, const Op& op) { return b.kernel().type_of(op.operands[1]).dtype; }

void reduce_count(Block& b, const Op& op, const RtValue* in) {
  DType d = dtype_of(b, op);
  size_t size = dtype_size(d);
  int64_t n = in[3].i;
  const uint8_t* src = b.effect_ptr(0);
  uint8_t* dst = b.effect_ptr(1);
  if (n <= 0) return;
  if (op.code == OpCode::ReduceSum) {
    size_t per_repeat = 256 / size;
    float total = 0.0f;
    for (int64_t start = 0; start < n; start += static_cast<int64_t>(per_repeat)) {
      std::vector<float> chunk;
      for (int64_t i = start; i < std::min<int64_t>(n, start + per_repeat); ++i)
        chunk.push_back(load(src + i * size, d));
      total += tree_sum(std::move(chunk));
    }
    store(dst, d, total);
    return;
  }
  std::vector<std::pair<float, uint32_t>> values;
  for (int64_t i = 0; i < n; ++i) values.emplace_back(load(src + i * size, d), static_cast<uint32_t>(i));
  Extreme e = extreme(values, op.code == OpCode::ReduceMax);
  store(dst, d, e.value);
  if (in[4].i == 2) store_index(dst + size, size, e.index);
}

// Mask form (operands dst, src, tmp, mask0, mask1, repeat_time,
// src_rep_stride, results): element e of repeat r at r * src_rep_stride
// blocks + e. A sum adds each repeat as a tree (masked-off lanes add 0) and
// the repeat sums as a tree; max/min index = r * src_rep_stride * (32 / size) + e.
void reduce_mask(Block& b, const Op& op, const RtValue* in) {
  DType d = dtype_of(b, op);
  int64_t size = dtype_size(d), per_repeat = 256 / size, rep = in[6].i;
  RepeatMask mask = repeat_mask(b, op, in, 3, 5, d);
  const uint8_t* src = b.effect_ptr(0);
  uint8_t* dst = b.effect_ptr(1);
  if (mask.repeats <= 0) return;
  auto lane = [&](int64_t r, int64_t e) { return load(src + r * rep * 32 + e * size, d); };
  if (op.code == OpCode::ReduceSumMask) {
    std::vector<float> sums;
    for (int64_t r = 0; r < mask.repeats; ++r) {
      std::vector<float> lanes;
      for (int64_t e = 0; e < per_repeat; ++e) lanes.push_back(mask.selects(r, e) ? lane(r, e) : 0.0f);
      sums.push_back(tree_sum(std::move(lanes)));
    }
    store(dst, d, tree_sum(std::move(sums)));
    return;
  }
  std::vector<std::pair<float, uint32_t>> values;
  for (int64_t r = 0; r < mask.repeats; ++r)
    for (int64_t e = 0; e < per_repeat; ++e)
      if (mask.selects(r, e)) values.emplace_back(lane(r, e), static_cast<uint32_t>(r * rep * (32 / size) + e));
  if (values.empty()) return;
  Extreme e = extreme(values, op.code == OpCode::ReduceMaxMask);
  store(dst, d, e.value);
  if (in[7].i == 2) store_index(dst + size, static_cast<size_t>(size), e.index);
}

// The operands of a per-repeat reduction (whole_, block_, pair_reduce), resolved.
struct RepeatReduce {
  DType d;
  int64_t size, per_block, per_repeat, dst_rep, blk, rep, unit;
  RepeatMask mask;
  int64_t repeats;
  const uint8_t* src;
  uint8_t* dst;

  RepeatReduce(Block& b, const Op& op, const RtValue* in)
      : d(dtype_of(b, op)),
        size(dtype_size(d)),
        per_block(32 / size),
        per_repeat(256 / size),
        dst_rep(in[5].i),
        blk(in[6].i),
        rep(in[7].i),
        unit(op.info().result_elements(op, d)),
        src(b.effect_ptr(0)),
        dst(b.effect_ptr(1)) {
    mask = repeat_mask(b, op, in, 2, 4, d);
    repeats = mask.repeats;
  }
  bool selected(int64_t r, int64_t i) const { return mask.selects(r, i); }
  float lane(int64_t r, int64_t i) const {
    return load(src + (r * rep + (i / per_block) * blk) * 32 + (i % per_block) * size, d);
  }
  // Result k of repeat r (results of one repeat are contiguous; repeats dst_rep units apart).
  uint8_t* result(int64_t r, int64_t k) const { return dst + (r * dst_rep * unit + k) * size; }
};

void whole_reduce(Block& b, const Op& op, const RtValue* in) {
  RepeatReduce w(b, op, in);
  for (int64_t r = 0; r < w.repeats; ++r) {
    std::vector<std::pair<float, uint32_t>> lanes;
    std::vector<float> sum_lanes;
    for (int64_t i = 0; i < w.per_repeat; ++i) {
      bool on = w.selected(r, i);
      float v = on ? w.lane(r, i) : 0.0f;
      sum_lanes.push_back(v);  // masked-off lanes add nothing
      if (on) lanes.emplace_back(v, static_cast<uint32_t>(i));
    }
    uint8_t* out = w.result(r, 0);
    size_t size = static_cast<size_t>(w.size);
    if (op.code == OpCode::WholeReduceSum) {
      store(out, w.d, tree_sum(std::move(sum_lanes)));
      continue;
    }
    if (lanes.empty()) continue;  // nothing selected: nothing written
    Extreme e = extreme(lanes, op.code == OpCode::WholeReduceMax);
    switch (op.attr_int(1)) {
      case 0:  // ORDER_VALUE_INDEX
        store(out, w.d, e.value);
        store_index(out + size, size, e.index);
        break;
      case 1:  // ORDER_INDEX_VALUE
        store_index(out, size, e.index);
        store(out + size, w.d, e.value);
        break;
      case 2: store(out, w.d, e.value); break;  // ORDER_ONLY_VALUE
      default: std::memcpy(out, &e.index, 4);   // ORDER_ONLY_INDEX: a uint32
    }
  }
}

// block_reduce_*: one result per 32-byte block (over its selected elements),
// 8 per repeat; pair_reduce_sum: one per pair of neighbours. A group with no
// selected element writes nothing.
void grouped_reduce(Block& b, const Op& op, const RtValue* in, int64_t group) {
  RepeatReduce w(b, op, in);
  for (int64_t r = 0; r < w.repeats; ++r)
    for (int64_t g = 0; g < w.per_repeat / group; ++g) {
      std::vector<std::pair<float, uint32_t>> lanes;
      for (int64_t i = g * group; i < (g + 1) * group; ++i)
        if (w.selected(r, i)) lanes.emplace_back(w.lane(r, i), static_cast<uint32_t>(i));
      if (lanes.empty()) continue;
      if (op.code == OpCode::BlockReduceMax || op.code == OpCode::BlockReduceMin) {
        store(w.result(r, g), w.d, extreme(lanes, op.code == OpCode::BlockReduceMax).value);
      } else {
        std::vector<float> values;
        for (const auto& lane : lanes) values.push_back(lane.first);
        store(w.result(r, g), w.d, tree_sum(std::move(values)));
      }
    }
}

}  // namespace

void exec_BlockReduceSum(Block& b, const Op& op, const RtValue* in, RtValue*) {
  grouped_reduce(b, op, in, 32 / static_cast<int64_t>(dtype_size(dtype_of(b, op))));
}
void exec_BlockReduceMax(Block& b, const Op& op, const RtValue* in, RtValue*) {
  grouped_reduce(b, op, in, 32 / static_cast<int64_t>(dtype_size(dtype_of(b, op))));
}
void exec_BlockReduceMin(Block& b, const Op& op, const RtValue* in, RtValue*) {
  grouped_reduce(b, op, in, 32 / static_cast<int64_t>(dtype_size(dtype_of(b, op))));
}
void exec_PairReduceSum(Block& b, const Op& op, const RtValue* in, RtValue*) { grouped_reduce(b, op, in, 2); }

void exec_ReduceSum(Block& b, const Op& op, const RtValue* in, RtValue*) { reduce_count(b, op, in); }
void exec_ReduceSumMask(Block& b, const Op& op, const RtValue* in, RtValue*) { reduce_mask(b, op, in); }
void exec_ReduceMaxMask(Block& b, const Op& op, const RtValue* in, RtValue*) { reduce_mask(b, op, in); }
void exec_ReduceMinMask(Block& b, const Op& op, const RtValue* in, RtValue*) { reduce_mask(b, op, in); }
void exec_ReduceMax(Block& b, const Op& op, const RtValue* in, RtValue*) { reduce_count(b, op, in); }
void exec_ReduceMin(Block& b, const Op& op, const RtValue* in, RtValue*) { reduce_count(b, op, in); }
void exec_WholeReduceSum(Block& b, const Op& op, const RtValue* in, RtValue*) { whole_reduce(b, op, in); }
void exec_WholeReduceMax(Block& b, const Op& op, const RtValue* in, RtValue*) { whole_reduce(b, op, in); }
void exec_WholeReduceMin(Block& b, const Op& op, const RtValue* in, RtValue*) { whole_reduce(b, op, in); }

}  // namespace asc::sim
