// Cross-block GM hazards, checked after a launch from every block's recorded
// GM accesses (LaunchOptions::sanitize). Blocks run in any order on the NPU:
//   * two blocks writing the same bytes conflict (ASC_ERR_GM_CONFLICT), unless
//     they wrote the same values there (a memcheck warning: the work is
//     repeated; strict: the conflict error), or both atomically;
//   * a block reading bytes another block writes reads the old or the new ones
//     (a racecheck warning: the board runs it).
// Accesses are compared by host address (aliased arguments are one memory);
// bytes in an allocation's padding by the address of the launch's padding.
// sync_all orders every core's accesses before it with every core's after it:
// accesses are only compared within the same barrier epoch. Kernels using
// cross_core_set_flag / wait_flag order cores pairwise, which epochs do not
// capture: the read check is skipped for them. The GM-workspace protocols
// (ib_set / ib_wait, notify_next_block / wait_pre_block, the software
// sync_all) order them pairwise too, and do say so: accesses a block's clock
// orders after another's are not compared.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "sim/block.h"

namespace asc::sim {

struct BlockGmAccesses {
  std::vector<GmWrite> writes;
  std::vector<GmRead> reads;
  uint32_t epochs = 0;                        // sync_all barriers the block passed
  std::vector<std::vector<uint32_t>> clocks;  // Block::take_clocks: happens-before through GM-workspace protocols
};

// Throws ASC_ERR_GM_CONFLICT on a write/write conflict; appends racecheck warnings (a few at most) to `warnings`.
// `label` names a block (core_label) by its index into `blocks`; called only for a warning.
using BlockLabel = std::function<std::string(uint32_t block)>;
void check_gm_hazards(const Kernel& kernel, const std::vector<GmBuffer>& gm, std::vector<BlockGmAccesses>& blocks,
                      const BlockLabel& label, bool strict, std::vector<std::string>& warnings);

}  // namespace asc::sim
