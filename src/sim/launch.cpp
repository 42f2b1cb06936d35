#include "sim/launch.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <tuple>

#include "sim/block.h"
#include "sim/cross_core.h"
#include "sim/scalar_math.h"
#include "sim/thread_pool.h"
#include "support/log.h"

namespace asc::sim {
namespace {

// Each host thread keeps one set of on-chip memories; a block gets them for its run.
std::array<uint8_t*, kMemoryCount> thread_memories(const PlatformInfo& info) {
  thread_local std::array<std::unique_ptr<uint8_t[]>, kMemoryCount> memories;
  thread_local std::array<uint64_t, kMemoryCount> sizes{};
  std::array<uint8_t*, kMemoryCount> out{};
  for (size_t m = 0; m < kMemoryCount; ++m) {
    uint64_t bytes = memory_bytes(info, static_cast<Memory>(m));
    if (sizes[m] < bytes) {
      memories[m] = std::make_unique<uint8_t[]>(bytes);
      sizes[m] = bytes;
    }
    out[m] = memories[m].get();
  }
  return out;
}

void bind_args(const Kernel& k, const asc_arg_t* args, size_t n_args, std::vector<GmBuffer>& gm,
               std::vector<RtValue>& values) {
  gm.assign(n_args, GmBuffer{nullptr, 0});
  values.assign(n_args, RtValue{});
  for (size_t i = 0; i < n_args; ++i) {
    const Type& t = k.type_of(static_cast<uint32_t>(i));
    const asc_arg_t& a = args[i];
    if (t.is_scalar()) {
      if (dtype_is_float(t.dtype))
        set_float(values[i], t.dtype, a.f);
      else
        set_int(values[i], t.dtype, a.i);
      continue;
    }
    gm[i] = GmBuffer{static_cast<uint8_t*>(a.ptr), a.size};
    values[i].mem = static_cast<uint32_t>(i);
    values[i].addr = 0;
    values[i].len = t.kind == TypeKind::GlobalTensor ? a.size / dtype_size(t.dtype) : kUnknownLength;
  }
}

// Two blocks writing the same GM bytes race on the NPU (blocks run in any
// order). Checked after the launch from every block's recorded writes:
// overlapping writes of two blocks conflict unless both wrote exactly the same
// range with the same bytes, or both combined atomically (set_atomic_add...).
// The writes reaching furthest so far (of one argument): the furthest, and
// the furthest of any other block, so a write is checked against another block.
struct Reach {
  using Write = std::pair<uint32_t, GmWrite>;
  const Write* best = nullptr;
  const Write* other = nullptr;

  const Write* overlapping(const Write& w) const {
    if (!best) return nullptr;
    const Write* r = best->first != w.first ? best : other;
    return r && w.second.lo < r->second.hi ? r : nullptr;
  }
  void add(const Write& w) {
    if (!best || w.second.hi > best->second.hi) {
      if (best && best->first != w.first) other = best;
      best = &w;
    } else if (w.first != best->first && (!other || w.second.hi > other->second.hi)) {
      other = &w;
    }
  }
};

// Writes are compared by host address, not by argument: the same buffer passed as two arguments (or two
// overlapping views of one) is one memory.
void check_gm_conflicts(std::vector<std::pair<uint32_t, GmWrite>> writes, const std::vector<GmBuffer>& gm) {
  using Write = Reach::Write;
  auto base = [&](uint32_t arg) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(gm[arg].ptr)); };
  for (Write& w : writes) {
    w.second.lo += base(w.second.arg);
    w.second.hi += base(w.second.arg);
  }
  std::sort(writes.begin(), writes.end(), [](const Write& a, const Write& b) { return a.second.lo < b.second.lo; });
  auto conflict = [&](const Write& r, const Write& w) {
    const uint64_t b = base(w.second.arg);
    std::string aliased;
    if (r.second.arg != w.second.arg)
      aliased =
          fmt::format(" (the same memory as argument {}: one buffer passed twice, or overlapping views)", r.second.arg);
    fail(ASC_ERR_GM_CONFLICT, w.second.op->loc,
         "memcheck: blocks {} and {} both write GM bytes [{}, {}) of kernel argument {}{} ({} at {}){}; blocks run "
         "in any order, so give each block its own slice",
         r.first, w.first, w.second.lo - b, std::min(w.second.hi, r.second.hi) - b, w.second.arg, aliased,
         r.second.op->info().name, r.second.op->loc.str(),
         r.second.atomic != w.second.atomic ? ", only one of them atomically (set_atomic_add...)" : "");
  };
  Reach plain, atomic;
  for (const Write& w : writes) {
    if (const Write* r = plain.overlapping(w)) {
      bool same = r->second.lo == w.second.lo && r->second.hi == w.second.hi && r->second.hash == w.second.hash;
      if (w.second.atomic || !same) conflict(*r, w);
    }
    if (const Write* r = atomic.overlapping(w); r && !w.second.atomic) conflict(*r, w);
    (w.second.atomic ? atomic : plain).add(w);
  }
}

struct BlockResult {
  uint64_t cycles = 0;
  std::array<uint64_t, kPipeSlots> busy{};
  std::vector<std::string> warnings;
  std::vector<GmWrite> gm_writes;
  std::vector<LineCost> per_op;  // by Op::index
  std::vector<TraceEvent> events;
};

// Vector and cube cores run side by side; each kind's blocks beyond its core
// count run in waves.
LaunchReport summarise(const Kernel& kernel, const Platform& platform, std::vector<BlockResult>& blocks,
                       const std::vector<CoreInstance>& instances) {
  LaunchReport r;
  r.blocks = static_cast<uint32_t>(blocks.size());
  // When each block starts: its kind's earlier waves.
  std::vector<uint64_t> start(blocks.size(), 0);
  uint64_t longest = 0;
  for (CoreKind kind : {CoreKind::AIV, CoreKind::AIC}) {
    std::vector<size_t> mine;
    for (size_t i = 0; i < instances.size(); ++i)
      if (instances[i].kind == kind) mine.push_back(i);
    uint32_t cores = std::max(1u, kind == CoreKind::AIV ? platform.info.aiv_cores : platform.info.aic_cores);
    uint64_t t = 0;
    for (size_t first = 0; first < mine.size(); first += cores) {
      uint64_t wave = 0;
      for (size_t k = first; k < std::min(mine.size(), first + cores); ++k) {
        start[mine[k]] = t;
        wave = std::max(wave, blocks[mine[k]].cycles);
      }
      t += wave;
    }
    longest = std::max(longest, t);
  }
  const uint64_t launch = platform.cost.launch;
  std::vector<LineCost> per_op(kernel.num_ops);  // summed over blocks
  for (size_t b = 0; b < blocks.size(); ++b) {
    BlockResult& br = blocks[b];
    for (size_t p = 0; p < kPipeSlots; ++p) r.busy[p] += br.busy[p];
    for (auto& w : br.warnings)  // blocks running the same code warn alike: once is enough
      if (std::find(r.warnings.begin(), r.warnings.end(), w) == r.warnings.end()) r.warnings.push_back(std::move(w));
    for (const TraceEvent& e : br.events)
      r.events.push_back(
          {static_cast<uint32_t>(b), e.pipe, launch + start[b] + e.start, launch + start[b] + e.end, e.op});
    for (size_t i = 0; i < br.per_op.size() && i < per_op.size(); ++i) {
      per_op[i].cycles += br.per_op[i].cycles;
      per_op[i].count += br.per_op[i].count;
    }
  }
  uint64_t t = launch + longest;
  r.cycles = t;
  r.duration_us = static_cast<double>(t) / (platform.info.clock_ghz * 1000.0);
  r.per_op = std::move(per_op);
  return r;
}

}  // namespace

constexpr uint32_t kMaxCrossCoreInstances = 256;

// Blocks run on the calling thread while they are quick: waking the pool's
// threads costs more than a launch of a few small blocks takes. Once the
// blocks run so far took longer than that, the pool takes the rest.
constexpr std::chrono::microseconds kInlineBudget{20};

// A kernel whose blocks took longer than that last time goes to the pool at
// once: a first block run alone would leave the other cores idle meanwhile.
template <typename RunOne>
void run_blocks(const Kernel& kernel, uint32_t count, RunOne& run_one) {
  const auto start = std::chrono::steady_clock::now();
  uint32_t done = 0;
  if (kernel.block_time_ns.load(std::memory_order_relaxed) <= static_cast<uint64_t>(kInlineBudget.count()) * 1000) {
    while (done < count) {
      run_one(done++, 0u);
      if (std::chrono::steady_clock::now() - start > kInlineBudget) break;
    }
  }
  if (done < count)
    ThreadPool::shared().run(count - done, [&](uint32_t i, unsigned worker) { run_one(done + i, worker); });
  const auto spent = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);
  kernel.block_time_ns.store(static_cast<uint64_t>(spent.count()) / count, std::memory_order_relaxed);
}

LaunchReport run_kernel(const Kernel& kernel, const Platform& platform, uint32_t block_dim, const asc_arg_t* args,
                        size_t n_args, const LaunchOptions& options) {
  std::vector<GmBuffer> gm;
  std::vector<RtValue> values;
  bind_args(kernel, args, n_args, gm, values);
  std::mutex gm_atomic;
  LaunchContext ctx{kernel, platform, block_dim, gm, values, options};
  ctx.gm_atomic = &gm_atomic;
  if (options.timeout_ns)
    ctx.deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(options.timeout_ns);
  std::atomic<uint64_t> printed{0};
  std::atomic<bool> output_cut{false};
  ctx.printed = &printed;
  ctx.output_cut = &output_cut;

  // The first failing block (lowest index) is reported; blocks not yet
  // started when a failure is seen are skipped.
  const std::vector<CoreInstance> cores = core_instances(kernel.options.kernel_type, block_dim);
  const auto count = static_cast<uint32_t>(cores.size());
  std::vector<BlockResult> results(count);
  std::vector<std::string> outputs(options.output ? count : 0);
  std::mutex error_mutex;
  std::unique_ptr<Error> first_error;
  uint32_t first_block = UINT32_MAX;
  bool first_secondary = true;
  std::atomic<bool> failed{false};
  // Cores that wait for each other all run at once, a thread each.
  std::unique_ptr<CrossCore> cross;
  if (kernel.syncs_cores) {
    if (count > kMaxCrossCoreInstances)
      fail(ASC_ERR_UNSUPPORTED,
           "a kernel that synchronises cores runs at most {} cores on the Model, this launch has {}",
           kMaxCrossCoreInstances, count);
    cross = std::make_unique<CrossCore>(cores);
    ctx.cross = cross.get();
  }
  auto run_one = [&](uint32_t block, unsigned) {
    if (failed.load(std::memory_order_relaxed) && !cross) return;
    try {
      Block b(ctx, cores[block], thread_memories(platform.info));
      try {
        b.run();
      } catch (const Error&) {
        if (options.output) outputs[block] = b.take_output();
        throw;
      }
      if (options.output) outputs[block] = b.take_output();
      BlockResult& r = results[block];
      r.cycles = b.timeline().end();
      r.busy = b.timeline().busy();
      r.warnings = b.take_warnings();
      r.gm_writes = b.take_gm_writes();
      r.per_op = b.timeline().take_per_op();
      r.events = b.timeline().take_events();
    } catch (const Error& e) {
      failed = true;
      if (cross) cross->abort();
      std::lock_guard<std::mutex> lock(error_mutex);
      // A core that only stopped because another failed is reported only if nothing else is.
      bool secondary = std::string(e.what()).find(CrossCore::kAbandoned) != std::string::npos;
      if (block < first_block ? !(first_secondary == false && secondary) : (first_secondary && !secondary)) {
        first_block = block;
        first_error = std::make_unique<Error>(e);
        first_secondary = secondary;
      }
    }
    if (cross) cross->finished();
  };
  if (cross) {
    std::vector<std::thread> threads;
    for (uint32_t i = 0; i < count; ++i) threads.emplace_back(run_one, i, 0u);
    for (auto& t : threads) t.join();
  } else {
    run_blocks(kernel, count, run_one);
  }
  if (options.output) {  // in block order, up to the failing block
    options.output->clear();
    for (uint32_t b = 0; b < count && b <= first_block; ++b) {
      *options.output += outputs[b];
      if (!outputs[b].empty() && outputs[b].back() != '\n') *options.output += '\n';
    }
    if (output_cut.load())
      *options.output += fmt::format(
          "[asc: the printed output of kernel '{}' was cut at {} bytes (stream option max_output, ASC_MAX_OUTPUT)]\n",
          kernel.name, options.max_output);
  }
  if (first_error) {
    log().debug("kernel {} failed in block {}: {}", kernel.name, first_block, first_error->what());
    throw Error(first_error->status(),
                fmt::format("{}: {}", core_label(kernel.options.kernel_type, cores[first_block]), first_error->what()),
                first_error->loc());
  }
  if (options.sanitize) {
    std::vector<std::pair<uint32_t, GmWrite>> writes;
    for (uint32_t b = 0; b < count; ++b)
      for (const GmWrite& w : results[b].gm_writes) writes.emplace_back(b, w);
    check_gm_conflicts(std::move(writes), gm);
  }
  return summarise(kernel, platform, results, cores);
}

}  // namespace asc::sim
