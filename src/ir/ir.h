// The IR: a kernel is a list of ops in regions over typed values.
//
// Values are numbered per kernel; parameters are values 0..n-1. The IR is SSA
// except for the explicit `var`/`assign` pair, which models a mutable local
// (a Python name re-bound inside a loop or branch).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ir/op_table.h"
#include "support/error.h"

namespace asc {

constexpr uint32_t kNoValue = ASC_NO_VALUE;

struct Attr {
  asc_attr_kind_t kind = ASC_ATTR_INT;
  int64_t i = 0;
  double f = 0;
  std::string s;
};

struct Region;

struct Op {
  OpCode code;
  std::vector<uint32_t> operands;
  uint32_t result = kNoValue;
  uint32_t index = 0;       // position in the finished kernel (0 .. Kernel::num_ops-1), for per-op tables
  std::vector<Attr> attrs;  // in the op table's AttrSpec order
  Location loc;
  std::vector<Region> regions;

  const OpInfo& info() const { return op_info(code); }
  int64_t attr_int(size_t i) const { return attrs[i].i; }
  const Attr& attr(size_t i) const { return attrs[i]; }
};

struct Region {
  std::vector<std::unique_ptr<Op>> ops;
};

// The pipe an op runs on.
inline Pipe op_pipe(const Op& op) {
  const OpInfo& info = op.info();
  return info.pipe_fn ? info.pipe_fn(op) : info.pipe;
}
// Scalar-unit ops run in program order on the issuing core; all others are dispatched to their pipe's queue.
inline bool op_runs_on_scalar_unit(const Op& op) { return op_pipe(op) == Pipe::S && op.code != OpCode::PipeBarrier; }

// pyasc's KernelType: which cores a launch's blocks run on.
enum class KernelType : uint8_t {
  AivOnly = 0,
  AicOnly = 1,
  MixAivHardSync = 2,
  MixAicHardSync = 3,
  MixAiv1_0 = 4,
  MixAic1_0 = 5,
  MixAic1_1 = 6,
  MixAic1_2 = 7,
};
constexpr int64_t kKernelTypeCount = 8;
const char* kernel_type_name(KernelType t);  // pyasc's name: "AIV_ONLY" ... "MIX_AIC_1_2"

struct CompileOptions {
  bool auto_sync = true;           // order S<->MTE2/MTE3/V and V<->V dependences
  bool insert_sync = false;        // order every local-memory dependence between pipes
  bool buffer_tokens = false;      // with insert_sync: with get_buf / rls_buf (Ascend 950), not event flags
  bool split_cube_vector = false;  // a mix tile kernel: one program, split over the cube and vector cores
  // With split_cube_vector: bit f set when cross-core flag f hands a buffer back (the part setting it starts with
  // one set, the part waiting for it ends with one wait)
  uint32_t split_credits = 0;
  KernelType kernel_type = KernelType::AivOnly;
};

struct Kernel {
  std::string name;
  CompileOptions options;
  // Event ids the framework lowering reserved, per HardEvent (bit i = id i).
  std::array<uint8_t, kHardEventCount> reserved_event_ids{};
  // Number of syncs (set_flag/wait_flag pairs and barriers) the passes inserted.
  int inserted_syncs = 0;
  uint32_t num_ops = 0;  // set when the kernel is finished
  // Also set then, so that launches need not walk the regions: every op by Op::index, and
  // whether any synchronises cores (such launches run a thread per core).
  std::vector<const Op*> ops;
  bool syncs_cores = false;
  uint32_t memory_pipes = 0;  // bit p: an op on pipe p reads or writes memory (the race checker's pipes)
  // Host time per block of the kernel's last launch on the Model, in tick_clock ticks (how the next one spreads
  // its blocks).
  mutable std::atomic<uint64_t> block_ticks{0};
  // Launches of this kernel queued on asynchronous streams and not yet run (its module is not destroyed while any).
  mutable std::atomic<uint32_t> queued{0};
  // The object files NPU devices' compilers (asc_device_set_npu_compiler) built for it, by platform name: the
  // kernel is compiled at its first launch on an NPU of that platform, not at every launch.
  mutable std::mutex npu_mutex;
  mutable std::map<std::string, std::string> npu_objects;
  size_t num_params = 0;
  std::vector<Type> value_types;     // indexed by value id
  std::vector<const Op*> value_def;  // defining op, nullptr for parameters and loop ivs
  Region body;

  const Type& type_of(uint32_t v) const { return value_types[v]; }
  uint32_t new_value(const Type& t, const Op* def) {
    value_types.push_back(t);
    value_def.push_back(def);
    return static_cast<uint32_t>(value_types.size() - 1);
  }
};

struct Module {
  // Kernels are finished into the module from any thread (a builder each).
  Kernel* add(std::unique_ptr<Kernel> kernel) {
    std::lock_guard<std::mutex> lock(mutex);
    kernels.push_back(std::move(kernel));
    return kernels.back().get();
  }
  std::mutex mutex;
  std::vector<std::unique_ptr<Kernel>> kernels;
};

// Attribute lookup by name (for printing and diagnostics).
int attr_index(const OpInfo& info, std::string_view name);

}  // namespace asc
