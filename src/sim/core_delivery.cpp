// The receiving side of Ascend 950's writes between a group's cores: the cube core's fixpipe L0C -> UB into a
// vector core's Unified Buffer, and a vector core's UB -> L1 copy into its cube core's L1. The sender hands the
// bytes over through the CrossCore (under its lock); the receiver copies them into its own memory at the
// cross-core wait that makes them visible, on its own thread, so no host thread writes another core's memory and
// the bytes appear at a point a correctly synchronised kernel cannot tell from the board's (any time between the
// write and that wait). The race checker sees the write as an op on the sender's pipe (FIX or MTE3, one the
// receiver never runs) ordered after what this core published with the mode-2 sets the sender had waited for: an
// access of the bytes between those sets and the wait, or one the kernel never waits for at all (checked when the
// core ends), is reported as a race between the cores.
#include <algorithm>
#include <cstring>

#include "sim/block.h"

namespace asc::sim {

void Block::note_cross_set(int64_t flag) {
  if (ctx_->options.sanitize) cross_set_clocks_[flag].push_back(race().clock(running_pipe_));
}

void Block::receive(std::vector<CoreDelivery> deliveries, bool release) {
  for (const CoreDelivery& d : deliveries) {
    uint8_t* memory = local_[static_cast<size_t>(d.memory)];
    const uint8_t* from = d.data.data();
    for (auto [lo, hi] : d.runs) {  // bounds checked by the sender against the memory's size
      std::memcpy(memory + lo, from, hi - lo);
      from += hi - lo;
    }
    if (!ctx_->options.sanitize) continue;
    // The sender's n-th completed wait of a flag consumed this core's n-th set of it (one set per wait).
    RaceChecker::Clock known{};
    for (auto [flag, n] : d.waits) {
      auto it = cross_set_clocks_.find(flag);
      if (n <= 0 || it == cross_set_clocks_.end() || it->second.empty()) continue;
      const RaceChecker::Clock& c = it->second[std::min<size_t>(static_cast<size_t>(n), it->second.size()) - 1];
      for (size_t p = 0; p < kPipeSlots; ++p) known[p] = std::max(known[p], c[p]);
    }
    race().foreign_write(*d.op, d.pipe, d.memory, known, d.runs, release);
  }
}

void Block::require_group_write(const Op& op, const char* what, const char* written, CoreKind runs_on) const {
  KernelType type = kernel().options.kernel_type;
  if (type != KernelType::MixAic1_1 && type != KernelType::MixAic1_2)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "{} writes {}: it needs a mix kernel (KernelType.MIX_AIC_1_1 or MIX_AIC_1_2), not {}", what, written,
         kernel_type_name(type));
  if (core_.kind != runs_on)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{} runs on the {} (guard it with asc.ascend_is_{}())", what,
         runs_on == CoreKind::AIC ? "cube core" : "vector cores", runs_on == CoreKind::AIC ? "aic" : "aiv");
  if (!has_cross())
    fail(ASC_ERR_INTERNAL, op.loc, "{}: the launch runs its cores one after another; this needs them side by side",
         what);
}

}  // namespace asc::sim
