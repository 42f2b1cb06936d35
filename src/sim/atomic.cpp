// Atomic GM writes. After set_atomic_add / set_atomic_max / set_atomic_min<T>
// the MTE3 and FIX pipes combine each element they write to GM with the one
// already there (old + new, max, min, computed in T) instead of overwriting
// it, until set_atomic_none. Blocks use it to accumulate into one result.
#include <algorithm>
#include <vector>

#include "sim/handlers.h"
#include "sim/scalar_math.h"

namespace asc::sim {

static void set_mode(Block& b, AtomicOp op, const Op& ir) {
  b.atomic_mode() = {op, static_cast<DType>(ir.attr_int(0))};
}

void exec_SetAtomicAdd(Block& b, const Op& op, const RtValue*, RtValue*) { set_mode(b, AtomicOp::Add, op); }
void exec_SetAtomicMax(Block& b, const Op& op, const RtValue*, RtValue*) { set_mode(b, AtomicOp::Max, op); }
void exec_SetAtomicMin(Block& b, const Op& op, const RtValue*, RtValue*) { set_mode(b, AtomicOp::Min, op); }
void exec_SetAtomicType(Block& b, const Op& op, const RtValue*, RtValue*) {
  b.atomic_mode().dtype = static_cast<DType>(op.attr_int(0));
}
void exec_SetAtomicNone(Block& b, const Op&, const RtValue*, RtValue*) { b.atomic_mode().op = AtomicOp::None; }

namespace {

// dst = dst (op) src, one element of `d`; integers wrap like the hardware's adders.
void combine(AtomicOp op, DType d, uint8_t* dst, const uint8_t* src) {
  RtValue old, now, result;
  load_scalar(old, d, dst);
  load_scalar(now, d, src);
  if (dtype_is_float(d)) {
    double sum = d == DType::Float32 ? static_cast<double>(static_cast<float>(old.f) + static_cast<float>(now.f))
                                     : old.f + now.f;  // exact in double, rounded once by set_float
    set_float(result, d,
              op == AtomicOp::Add   ? sum
              : op == AtomicOp::Max ? std::max(old.f, now.f)
                                    : std::min(old.f, now.f));
  } else {
    set_int(result, d,
            op == AtomicOp::Add   ? old.i + now.i
            : op == AtomicOp::Max ? std::max(old.i, now.i)
                                  : std::min(old.i, now.i));
  }
  store_scalar(dst, d, result);
}

// One GM destination of the op, staged: the handler writes into copies, never into GM itself.
struct Staged {
  size_t effect;
  const GmBuffer* gm;  // the argument's buffer (and padding)
  uint64_t lo, start;  // the effect's first byte; the first element's (lo rounded down to the element size)
  std::vector<uint8_t> old, over_old, over_flipped;
};

}  // namespace

bool Block::writes_gm(const Op& op, const RtValue* in) const {
  for (const MemEffect& e : op.info().effects)
    if (e.write && !is_local_mem(in[e.tensor].mem)) return true;
  return false;
}

// Which bytes an op writes is not one range in general (rows with gaps,
// fractals), so the handler runs twice: into a copy of the destination's old
// bytes and into their complement. A byte both runs agree on was written (an
// unwritten one differs, old vs ~old); each written element is then combined
// into GM. The lock makes the read-modify-write atomic across blocks.
void Block::exec_atomic(const Op& op, const Issued& entry, RtValue* out, size_t writes_from) {
  const AtomicMode mode = entry.atomic;
  const auto size = static_cast<uint64_t>(dtype_size(mode.dtype));
  std::lock_guard<std::mutex> lock(*ctx_->gm_atomic);
  std::vector<Staged> staged;
  const auto& effects = op.info().effects;
  for (size_t i = 0; i < effects.size(); ++i) {
    const RtValue& t = entry.args()[effects[i].tensor];
    if (!effects[i].write || is_local_mem(t.mem)) continue;
    auto [lo, hi] = effect_ranges_[i];
    const GmBuffer& gm = ctx_->gm[t.mem];
    uint64_t start = lo / size * size, end = std::min(gm.extent(), (hi + size - 1) / size * size);
    Staged s{i, &gm, lo, start, std::vector<uint8_t>(end - start), {}, {}};
    read_gm(gm, start, end, s.old.data());
    s.over_old = s.old;
    s.over_flipped = s.old;
    for (uint8_t& byte : s.over_flipped) byte = static_cast<uint8_t>(~byte);
    staged.push_back(std::move(s));
  }
  for (bool flipped : {false, true}) {
    for (Staged& s : staged) effect_ptrs_[s.effect] = (flipped ? s.over_flipped : s.over_old).data() + (s.lo - s.start);
    exec_fn(op.code)(*this, op, entry.args(), out);
  }
  // Which elements were written; all are checked before GM changes.
  std::vector<std::vector<bool>> written(staged.size());
  for (size_t i = 0; i < staged.size(); ++i) {
    Staged& s = staged[i];
    effect_ptrs_[s.effect] = nullptr;  // the handler ran; GM changes below
    for (uint64_t k = 0; k < s.old.size(); k += size) {
      uint64_t agree = 0;  // a buffer ending inside an element leaves it partial: written at all is an error
      for (uint64_t j = k; j < std::min(k + size, s.old.size()); ++j) agree += s.over_old[j] == s.over_flipped[j];
      if (agree != 0 && agree != size)
        fail(ASC_ERR_MISALIGNED, op.loc,
             "{}: an atomic write in {} must cover whole {}-byte elements; it writes part of the element at GM byte {}",
             op.info().name, dtype_name(mode.dtype), size, s.start + k);
      written[i].push_back(agree != 0);
    }
  }
  for (size_t i = 0; i < staged.size(); ++i)
    for (size_t e = 0; e < written[i].size(); ++e)
      if (written[i][e]) {  // through gm_memory: the element may lie in the allocation's padding
        const Staged& s = staged[i];
        const uint64_t at = s.start + e * size;
        uint8_t* combined = staged[i].old.data() + e * size;  // GM's bytes, read under the lock
        combine(mode.op, mode.dtype, combined, s.over_old.data() + e * size);
        write_gm(*s.gm, at, at + size, combined);
      }
  for (size_t k = writes_from; k < gm_writes_.size(); ++k) gm_writes_[k].atomic = true;
}

}  // namespace asc::sim
