#include "sim/launch.h"

#include <memory>
#include <mutex>

#include "sim/block.h"
#include "sim/scalar_math.h"
#include "sim/thread_pool.h"
#include "support/log.h"

namespace asc::sim {
namespace {

// Each host thread keeps one Unified Buffer; a block gets it for its run.
uint8_t* thread_ub(uint64_t bytes) {
  thread_local std::unique_ptr<uint8_t[]> ub;
  thread_local uint64_t size = 0;
  if (size < bytes) {
    ub = std::make_unique<uint8_t[]>(bytes);
    size = bytes;
  }
  return ub.get();
}

const char* kind_name(uint32_t kind) { return kind == ASC_ARG_BUFFER ? "a buffer" : "a scalar"; }

void bind_args(const Kernel& k, const asc_arg_t* args, size_t n_args, std::vector<GmBuffer>& gm,
               std::vector<RtValue>& values) {
  if (n_args != k.num_params)
    fail(ASC_ERR_TYPE, "kernel '{}' takes {} argument(s), got {}", k.name, k.num_params, n_args);
  if (n_args && !args) fail(ASC_ERR_INVALID_ARGUMENT, "args is null");
  gm.assign(n_args, GmBuffer{nullptr, 0});
  values.assign(n_args, RtValue{});
  for (size_t i = 0; i < n_args; ++i) {
    const Type& t = k.type_of(static_cast<uint32_t>(i));
    const asc_arg_t& a = args[i];
    bool wants_buffer = t.kind != TypeKind::Scalar;
    if (a.kind != (wants_buffer ? ASC_ARG_BUFFER : ASC_ARG_SCALAR))
      fail(ASC_ERR_TYPE, "argument {} of '{}' must be {}, got {}", i, k.name, wants_buffer ? "a buffer" : "a scalar",
           kind_name(a.kind));
    if (a.dtype != static_cast<uint32_t>(t.dtype))
      fail(ASC_ERR_TYPE, "argument {} of '{}' must have dtype {}, got {}", i, k.name, dtype_name(t.dtype),
           dtype_valid(a.dtype) ? dtype_name(static_cast<DType>(a.dtype)) : "an unknown dtype");
    if (!wants_buffer) {
      if (dtype_is_float(t.dtype))
        set_float(values[i], t.dtype, a.f);
      else
        set_int(values[i], t.dtype, a.i);
      continue;
    }
    if (!a.ptr && a.size)
      fail(ASC_ERR_INVALID_ARGUMENT, "argument {} of '{}' is a null buffer of {} bytes", i, k.name, a.size);
    gm[i] = GmBuffer{static_cast<uint8_t*>(a.ptr), a.size};
    values[i].mem = static_cast<uint32_t>(i);
    values[i].addr = 0;
    values[i].len = t.kind == TypeKind::GlobalTensor ? a.size / dtype_size(t.dtype) : kUnknownLength;
  }
}

}  // namespace

void run_kernel(const Kernel& kernel, const Platform& platform, uint32_t block_dim, const asc_arg_t* args,
                size_t n_args) {
  if (block_dim == 0 || block_dim > 65535)
    fail(ASC_ERR_INVALID_ARGUMENT, "block_dim must be 1..65535, got {}", block_dim);
  std::vector<GmBuffer> gm;
  std::vector<RtValue> values;
  bind_args(kernel, args, n_args, gm, values);
  LaunchContext ctx{kernel, platform, block_dim, gm, values};

  // The first failing block (lowest index) is reported; blocks not yet
  // started when a failure is seen are skipped.
  std::mutex error_mutex;
  std::unique_ptr<Error> first_error;
  uint32_t first_block = UINT32_MAX;
  std::atomic<bool> failed{false};
  ThreadPool::shared().run(block_dim, [&](uint32_t block, unsigned) {
    if (failed.load(std::memory_order_relaxed)) return;
    try {
      Block(ctx, block, thread_ub(platform.info.ub_bytes)).run();
    } catch (const Error& e) {
      failed = true;
      std::lock_guard<std::mutex> lock(error_mutex);
      if (block < first_block) {
        first_block = block;
        first_error = std::make_unique<Error>(e);
      }
    }
  });
  if (first_error) {
    log().debug("kernel {} failed in block {}: {}", kernel.name, first_block, first_error->what());
    throw Error(first_error->status(), fmt::format("block {}: {}", first_block, first_error->what()),
                first_error->loc());
  }
}

}  // namespace asc::sim
