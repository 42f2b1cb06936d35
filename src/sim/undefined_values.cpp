// Values computed from on-chip bytes nothing wrote (initcheck). The board
// runs an instruction that reads stale Unified Buffer bytes; what it computes
// from them is garbage, and harmless until it reaches GM or the scalar unit.
// So the Model, like valgrind's memcheck, tracks definedness instead of
// stopping at the read: an instruction that writes only the Unified Buffer
// runs, with a warning, and the bytes it wrote that depend on the undefined
// ones are marked undefined in the race checker's shadow. Which bytes depend
// on them is found without a model of each instruction: the handler runs a
// second time with the undefined input bytes flipped, and the written bytes
// that differ between the two runs are the dependent ones. A read of
// undefined bytes by a copy to GM, the scalar unit or an op writing another
// memory stays the initcheck error, naming the op that computed them.
#include <algorithm>
#include <cstring>
#include <vector>

#include "ir/effects.h"
#include "sim/block.h"
#include "sim/handlers.h"

namespace asc::sim {
namespace {

// `ranges` sorted and merged, so that flipping each once flips every byte once.
RaceChecker::Ranges merged(RaceChecker::Ranges ranges) {
  std::sort(ranges.begin(), ranges.end());
  RaceChecker::Ranges out;
  for (auto [lo, hi] : ranges) {
    if (!out.empty() && lo <= out.back().second)
      out.back().second = std::max(out.back().second, hi);
    else
      out.emplace_back(lo, hi);
  }
  return out;
}

void flip(uint8_t* memory, const RaceChecker::Ranges& ranges) {
  for (auto [lo, hi] : ranges)
    for (uint64_t k = lo; k < hi; ++k) memory[k] = static_cast<uint8_t>(~memory[k]);
}

}  // namespace

bool Block::propagates_undefined(const Op& op, Pipe pipe, const RtValue* in) const {
  if (ctx_->options.strict || pipe == Pipe::S || op.result != kNoValue) return false;
  for (const MemEffect& e : op.info().effects) {
    if (effect_form(e) == EffectForm::DataDependent) return false;  // its accesses are made while it runs
    if (e.write && (!is_local_mem(in[e.tensor].mem) || memory_of(in[e.tensor]) != Memory::UB)) return false;
  }
  return true;
}

void Block::warn_undefined_reads(const Op& op) {
  if (!memcheck_first(op, UINT64_MAX - 1)) return;  // a key of its own: once per op per launch
  auto [lo, hi] = undefined_reads_.front();
  warnings_.push_back(fmt::format(
      "initcheck: {}: {} at {} reads Unified Buffer bytes [{}, {}) that hold no defined value (nothing wrote them in "
      "this launch, or they were computed from such bytes); the board reads whatever is there, so the Model marks "
      "what it computes from them undefined, an error if it reaches GM or the scalar unit (strict mode: an error "
      "here)",
      label(), op.info().name, op.loc.str(), lo, hi));
}

void Block::exec_op(const Op& op, const RtValue* in, RtValue* out) {
  if (undefined_reads_.empty()) {
    exec_fn(op.code)(*this, op, in, out);
    return;
  }
  uint8_t* ub = local_[static_cast<size_t>(Memory::UB)];
  struct Written {
    uint64_t lo, hi;
    std::vector<uint8_t> before, first;
  };
  std::vector<Written> written;
  const auto& effects = op.info().effects;
  for (size_t i = 0; i < effects.size(); ++i)
    if (effects[i].write) {
      auto [lo, hi] = effect_ranges_[i];
      written.push_back({lo, hi, std::vector<uint8_t>(ub + lo, ub + hi), {}});
    }
  exec_fn(op.code)(*this, op, in, out);
  uint64_t cmp_after_first[2] = {cmp_mask_[0], cmp_mask_[1]};
  const uint64_t remain_after_first = gather_mask_remain_;
  const size_t warnings_after_first = warnings_.size();
  for (Written& w : written) w.first.assign(ub + w.lo, ub + w.hi);
  for (const Written& w : written) std::memcpy(ub + w.lo, w.before.data(), w.before.size());
  const RaceChecker::Ranges inputs = merged(undefined_reads_);
  flip(ub, inputs);
  exec_fn(op.code)(*this, op, in, out);
  RaceChecker::Ranges dependent;
  for (const Written& w : written)
    for (uint64_t k = 0; k < w.first.size(); ++k)
      if (ub[w.lo + k] != w.first[k]) {
        if (!dependent.empty() && dependent.back().second == w.lo + k)
          ++dependent.back().second;
        else
          dependent.emplace_back(w.lo + k, w.lo + k + 1);
      }
  // Back to the first run's state: the inputs as they were, then what the op wrote.
  flip(ub, inputs);
  for (const Written& w : written) std::memcpy(ub + w.lo, w.first.data(), w.first.size());
  cmp_mask_[0] = cmp_after_first[0];
  cmp_mask_[1] = cmp_after_first[1];
  gather_mask_remain_ = remain_after_first;
  warnings_.resize(warnings_after_first);
  for (auto [lo, hi] : dependent) race().mark_undefined(lo, hi, op);
}

}  // namespace asc::sim
