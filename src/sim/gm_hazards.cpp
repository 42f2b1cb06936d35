#include "sim/gm_hazards.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "sim/gm_checksum.h"
#include "support/error.h"

namespace asc::sim {
namespace {

// A recorded GM access, at host addresses.
struct Access {
  uint64_t lo, hi;
  uint64_t base;  // the host address of the argument's byte 0 as seen from this access's memory
  uint32_t block, arg, epoch, point;
  const Op* op;
  uint64_t hash;
  bool atomic, write;
  const GmWrite* whole = nullptr;  // a write: the block's whole write this piece is of
};

// Happens-before through the GM-workspace protocols (Block::release / acquire): access a of one block is ordered
// before access b of another when b's block knew a's point had passed when it made b.
class Order {
 public:
  explicit Order(const std::vector<BlockGmAccesses>& blocks) : blocks_(blocks) {}
  bool ordered(const Access& a, const Access& b) const { return before(a, b) || before(b, a); }

 private:
  bool before(const Access& a, const Access& b) const {
    const auto& clocks = blocks_[b.block].clocks;
    return b.point <= clocks.size() && a.block < clocks[b.point - 1].size() && clocks[b.point - 1][a.block] >= a.point;
  }
  const std::vector<BlockGmAccesses>& blocks_;
};

bool before(const Access& a, const Access& b) {
  return std::tie(a.epoch, a.lo, a.block, a.write) < std::tie(b.epoch, b.lo, b.block, b.write);
}

// Of the accesses swept so far (sorted by start): the one reaching furthest,
// and the furthest of any other block, so an access is checked against another
// block's.
struct Reach {
  const Access* best = nullptr;
  const Access* other = nullptr;

  const Access* overlapping(const Access& a) const {
    if (!best) return nullptr;
    const Access* r = best->block != a.block ? best : other;
    return r && a.lo < r->hi ? r : nullptr;
  }
  void add(const Access& a) {
    if (!best || a.hi > best->hi) {
      if (best && best->block != a.block) other = best;
      best = &a;
    } else if (a.block != best->block && (!other || a.hi > other->hi)) {
      other = &a;
    }
  }
};

uint64_t base_of(const std::vector<GmBuffer>& gm, uint32_t arg) {
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(gm[arg].ptr));
}

uint64_t host(const uint8_t* p) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)); }

// An access at host addresses: one piece in the caller's buffer, one in the padding (never another argument's).
template <typename F>
void at_host(const GmBuffer& b, uint64_t lo, uint64_t hi, F&& add) {
  for_each_piece(b, lo, std::min(hi, b.extent()),
                 [&](uint8_t* p, uint64_t off, uint64_t n) { add(host(p), host(p) + n, host(p) - off); });
}

// Whether every byte of a write is in GM as the block wrote it, after the launch: then any other block's write
// overlapping it wrote the same bytes there (or was overwritten by these, which is the same).
class Survivors {
 public:
  explicit Survivors(const std::vector<GmBuffer>& gm) : gm_(gm) {}
  bool survived(const GmWrite& w) {
    auto [it, fresh] = known_.emplace(&w, false);
    if (fresh) {
      std::vector<uint8_t> bytes(w.hi - w.lo);
      read_gm(gm_[w.arg], w.lo, w.hi, bytes.data());
      it->second = checksum(bytes.data(), bytes.size()) == w.hash;
    }
    return it->second;
  }

 private:
  const std::vector<GmBuffer>& gm_;
  std::map<const GmWrite*, bool> known_;
};

// Overlapping writes of two blocks in one epoch conflict unless they wrote the
// same bytes where they overlap, or both combined atomically.
void check_writes(std::vector<Access> writes, const std::vector<GmBuffer>& gm, const Order& order, bool strict,
                  std::vector<std::string>& warnings) {
  std::sort(writes.begin(), writes.end(), before);
  Survivors survivors(gm);
  auto same_bytes = [&](const Access& r, const Access& w) {
    if (r.lo == w.lo && r.hi == w.hi && r.hash == w.hash) return true;
    return survivors.survived(*r.whole) && survivors.survived(*w.whole);
  };
  bool repeated = false;  // one warning per launch
  auto repeat = [&](const Access& r, const Access& w) {
    std::string text = fmt::format(
        "memcheck: blocks {} and {} both write the same bytes to GM [{}, {}) of kernel argument {} ({} at {}); the "
        "result does not depend on their order, but the work is repeated",
        r.block, w.block, w.lo - w.base, std::min(r.hi, w.hi) - w.base, w.arg, w.op->info().name, w.op->loc.str());
    if (strict) fail(ASC_ERR_GM_CONFLICT, w.op->loc, "{} (strict mode)", text);
    if (!repeated) warnings.push_back(std::move(text));
    repeated = true;
  };
  auto conflict = [&](const Access& r, const Access& w) {
    const uint64_t b = w.base;
    std::string aliased;
    if (r.arg != w.arg)
      aliased = fmt::format(" (the same memory as argument {}: one buffer passed twice, or overlapping views)", r.arg);
    fail(ASC_ERR_GM_CONFLICT, w.op->loc,
         "memcheck: blocks {} and {} both write GM bytes [{}, {}) of kernel argument {}{} ({} at {}){}; blocks run "
         "in any order, so give each block its own slice",
         r.block, w.block, w.lo - b, std::min(w.hi, r.hi) - b, w.arg, aliased, r.op->info().name, r.op->loc.str(),
         r.atomic != w.atomic ? ", only one of them atomically (set_atomic_add...)" : "");
  };
  Reach plain, atomic;
  for (size_t i = 0; i < writes.size(); ++i) {
    const Access& w = writes[i];
    if (i > 0 && writes[i - 1].epoch != w.epoch) plain = atomic = Reach{};  // sync_all ordered the earlier ones
    if (const Access* r = plain.overlapping(w); r && !order.ordered(*r, w)) {
      if (w.atomic || r->atomic || !same_bytes(*r, w)) conflict(*r, w);
      repeat(*r, w);
    }
    if (const Access* r = atomic.overlapping(w); r && !w.atomic && !order.ordered(*r, w)) conflict(*r, w);
    (w.atomic ? atomic : plain).add(w);
  }
}

constexpr size_t kMaxRaceWarnings = 4;  // per launch: the first per pair of op locations

std::string race_warning(const Access& r, const Access& w, const std::vector<GmBuffer>& gm, const BlockLabel& label) {
  const uint64_t b = r.base;
  std::string through =
      w.arg != r.arg ? fmt::format(" through kernel argument {} (the same memory: one buffer passed twice)", w.arg)
                     : "";
  return fmt::format(
      "racecheck: {} reads GM bytes [{}, {}) of kernel argument {} ({} at {}) that {} writes{}{} ({} at {}) in the "
      "same launch, unordered: blocks run in any order, so it reads the old or the new bytes; order them (sync_all) "
      "or give each block its own slice",
      label(r.block), std::max(r.lo, w.lo) - b, std::min(r.hi, w.hi) - b, r.arg, r.op->info().name, r.op->loc.str(),
      label(w.block), w.atomic ? " atomically" : "", through, w.op->info().name, w.op->loc.str());
}

// A read and a write of two blocks in one epoch are unordered. Only reads of
// memory some block writes take part in the sweep.
void check_reads(std::vector<Access> accesses, const std::vector<GmBuffer>& gm, const Order& order,
                 const BlockLabel& label, std::vector<std::string>& warnings) {
  std::sort(accesses.begin(), accesses.end(), before);
  std::set<std::pair<std::string, std::string>> reported;  // (read, write) op locations
  Reach reads, writes;
  for (size_t i = 0; i < accesses.size() && reported.size() < kMaxRaceWarnings; ++i) {
    const Access& a = accesses[i];
    if (i > 0 && accesses[i - 1].epoch != a.epoch) reads = writes = Reach{};
    const Access* other = (a.write ? reads : writes).overlapping(a);
    if (other && !order.ordered(*other, a)) {
      const Access& r = a.write ? *other : a;
      const Access& w = a.write ? a : *other;
      if (reported.emplace(r.op->loc.str(), w.op->loc.str()).second) warnings.push_back(race_warning(r, w, gm, label));
    }
    (a.write ? writes : reads).add(a);
  }
}

bool uses_cross_core_flags(const Kernel& kernel) {
  if (!kernel.syncs_cores) return false;
  return std::any_of(kernel.ops.begin(), kernel.ops.end(), [](const Op* op) {
    return op->code == OpCode::CrossCoreSetFlag || op->code == OpCode::CrossCoreWaitFlag;
  });
}

}  // namespace

void check_gm_hazards(const Kernel& kernel, const std::vector<GmBuffer>& gm, std::vector<BlockGmAccesses>& blocks,
                      const BlockLabel& label, bool strict, std::vector<std::string>& warnings) {
  // Epochs order accesses only if every core passed every barrier: with
  // sync_all(is_aiv_only=True) in a mix kernel the cube cores pass none.
  bool epochs_order = std::all_of(blocks.begin(), blocks.end(),
                                  [&](const BlockGmAccesses& b) { return b.epochs == blocks.front().epochs; });
  auto epoch = [&](uint32_t e) { return epochs_order ? e : 0u; };
  std::vector<Access> accesses;
  std::vector<bool> written(gm.size(), false);
  for (uint32_t b = 0; b < blocks.size(); ++b)
    for (const GmWrite& w : blocks[b].writes) {
      at_host(gm[w.arg], w.lo, w.hi, [&](uint64_t lo, uint64_t hi, uint64_t base) {
        accesses.push_back({lo, hi, base, b, w.arg, epoch(w.epoch), w.point, w.op, w.hash, w.atomic, true, &w});
      });
      written[w.arg] = true;
    }
  if (accesses.empty()) return;
  const Order order(blocks);
  check_writes(accesses, gm, order, strict, warnings);
  if (!epochs_order || uses_cross_core_flags(kernel)) return;
  // Reads of an argument whose memory (by host address: aliases too) no block writes cannot race.
  std::vector<bool> hot(gm.size(), false);
  for (uint32_t a = 0; a < gm.size(); ++a)
    for (uint32_t w = 0; w < gm.size() && !hot[a]; ++w)
      hot[a] = written[w] && gm[a].size && gm[w].size && base_of(gm, a) < base_of(gm, w) + gm[w].size &&
               base_of(gm, w) < base_of(gm, a) + gm[a].size;
  const size_t n_writes = accesses.size();
  for (uint32_t b = 0; b < blocks.size(); ++b)
    for (const GmRead& r : blocks[b].reads)
      if (hot[r.arg])
        at_host(gm[r.arg], r.lo, r.hi, [&](uint64_t lo, uint64_t hi, uint64_t base) {
          accesses.push_back({lo, hi, base, b, r.arg, r.epoch, r.point, r.op, 0, false, false});
        });
  if (accesses.size() == n_writes) return;
  check_reads(std::move(accesses), gm, order, label, warnings);
}

}  // namespace asc::sim
