// One block (core) of a Model launch: the scalar unit walks the kernel in
// program order and dispatches every non-scalar op to its pipe's queue. Each
// pipe executes its queue in order; wait_flag holds a pipe until the matching
// set_flag has executed on the source pipe. Queues are drained eagerly, which
// is one legal hardware interleaving; a wait no set can satisfy is a deadlock.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <vector>

#include "ir/ir.h"
#include "sim/platform.h"
#include "sim/value.h"

namespace asc::sim {

struct GmBuffer {
  uint8_t* ptr;
  uint64_t size;  // bytes
};

struct LaunchContext {
  const Kernel& kernel;
  const Platform& platform;
  uint32_t block_dim;
  const std::vector<GmBuffer>& gm;           // by kernel parameter index (unused for scalars)
  const std::vector<RtValue>& param_values;  // initial registers of the parameters
};

constexpr size_t kMaxIssuedOperands = 4;

// An op waiting in a pipe queue, with its operands captured at issue time.
struct Issued {
  const Op* op;
  std::array<RtValue, kMaxIssuedOperands> in;
};

class Block {
 public:
  Block(const LaunchContext& ctx, uint32_t block_idx, uint8_t* ub);
  void run();  // throws asc::Error

  // Accessors used by the op handlers.
  uint32_t block_idx() const { return block_idx_; }
  uint32_t block_dim() const { return ctx_.block_dim; }
  const Kernel& kernel() const { return ctx_.kernel; }
  const Platform& platform() const { return ctx_.platform; }
  RtValue& reg(uint32_t v) { return regs_[v]; }
  // Checked pointer to the bytes of the op's i-th memory effect (op table
  // order), valid while a pipe op's handler runs.
  uint8_t* effect_ptr(size_t i) const { return effect_ptrs_[i]; }

  void set_flag(const Op& op, int64_t event, int64_t id);

 private:
  void region(const Region& r);
  void scalar_op(const Op& op);
  void issue(const Op& op);
  bool step(Pipe p);
  void drain();
  void wait_on_scalar(const Op& op, int64_t event, int64_t id);
  void barrier_all(const Op& op);
  [[noreturn]] void deadlock(const Issued& blocked);
  void check_effects(const Op& op, const RtValue* in);
  uint8_t* memory(const Op& op, const RtValue& tensor, DType dtype, int64_t offset, int64_t count, const MemEffect& e);

  const LaunchContext& ctx_;
  uint32_t block_idx_;
  uint8_t* ub_;
  std::vector<RtValue> regs_;
  std::array<std::deque<Issued>, kPipeSlots> queues_;
  // One flag per (HardEvent, event id): the set_flag op that set it, or null.
  std::vector<const Op*> flags_;
  std::array<uint8_t*, 4> effect_ptrs_{};
};

}  // namespace asc::sim
