#include "passes/pipeline.h"

#include "passes/allocate_local.h"
#include "passes/common_values.h"
#include "passes/double_buffer.h"
#include "passes/insert_sync.h"
#include "passes/lower_framework.h"
#include "passes/split_cube_vector.h"
#include "passes/verifier.h"

namespace asc {

namespace {

void number_ops(Region& r, Kernel& k) {
  for (auto& op : r.ops) {
    op->index = static_cast<uint32_t>(k.ops.size());
    k.ops.push_back(op.get());
    switch (op->code) {
      case OpCode::CrossCoreSetFlag:
      case OpCode::CrossCoreWaitFlag:
      case OpCode::SyncAll:
      case OpCode::IbSet:
      case OpCode::IbWait:
      case OpCode::NotifyNextBlock:
      case OpCode::WaitPreBlock:
      case OpCode::SyncAllSoft:
      case OpCode::FixpipeToUb:  // writes another core's Unified Buffer: every core on a thread, memories apart
      case OpCode::CopyUbToL1:   // writes the cube core's L1 (and the next)
      case OpCode::CopyUbToL1Blocks: k.syncs_cores = true; break;
      default: break;
    }
    if (!op->info().effects.empty())
      k.memory_pipes |= 1u << static_cast<uint32_t>(op_runs_on_scalar_unit(*op) ? Pipe::S : op_pipe(*op));
    for (auto& sub : op->regions) number_ops(sub, k);
  }
}

}  // namespace

void run_pipeline(Kernel& kernel, const StageObserver& observe) {
  auto stage = [&](const char* name) {
    if (observe) observe(name, kernel);
  };
  stage("0-built");
  verify_kernel(kernel);
  split_cube_vector(kernel);  // a mix tile kernel's one program: the cube core's part and the vector cores'
  double_buffer(kernel);      // pairs the iterations of loops holding marked load buffers, before they are placed
  int64_t ub_start = allocate_local(kernel);
  stage("1-allocate_local");
  lower_framework(kernel, ub_start);
  stage("2-lower_framework");
  insert_sync(kernel);
  stage("3-insert_sync");
  merge_common_values(kernel);
  stage("4-common_values");
  verify_kernel(kernel);
  number_ops(kernel.body, kernel);
  kernel.num_ops = static_cast<uint32_t>(kernel.ops.size());
}

}  // namespace asc
