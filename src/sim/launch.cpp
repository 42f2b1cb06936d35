#include "sim/launch.h"

#include <algorithm>
#include <array>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "sim/block.h"
#include "sim/cross_core.h"
#include "sim/gm_hazards.h"
#include "sim/hbm_sharing.h"
#include "sim/scalar_math.h"
#include "sim/thread_pool.h"
#include "support/log.h"

namespace asc::sim {
namespace {

// Each on-chip memory's size on a platform: computed once a launch, not once a block.
using MemorySizes = std::array<uint64_t, kMemoryCount>;
MemorySizes memory_sizes(const Platform& platform) {
  MemorySizes out{};
  for (size_t m = 0; m < kMemoryCount; ++m) out[m] = memory_bytes(platform, static_cast<Memory>(m));
  return out;
}

// The launch's per-op cycles and counts: a table per host thread running its blocks, summed once they all ended
// (no locking, and no table per block).
class PerOpTables {
 public:
  // For a launch of `ops` ops on `threads` threads (reserve_threads adds more); the tables keep their capacity.
  void reset(size_t ops, size_t threads) {
    ops_ = ops;
    for (auto& t : tables_) t.clear();
    reserve_threads(threads);
  }
  void reserve_threads(size_t threads) {  // before those threads start
    if (tables_.size() < threads) tables_.resize(threads);
  }
  LineCost* of(size_t thread) {
    std::vector<LineCost>& t = tables_[thread];
    if (t.size() != ops_) t.assign(ops_, LineCost{});  // (once a launch: reset() emptied it)
    return t.data();
  }
  std::vector<LineCost> sum() {
    std::vector<LineCost> out(ops_);
    for (const auto& t : tables_)
      for (size_t i = 0; i < t.size(); ++i) {
        out[i].cycles += t[i].cycles;
        out[i].count += t[i].count;
      }
    return out;
  }

 private:
  size_t ops_ = 0;
  std::vector<std::vector<LineCost>> tables_;
};

// The arguments as GM buffers (by parameter index) and as a block's initial registers (`values`: every register of
// the kernel, the parameters' first; a block starts from a copy).
void bind_args(const Kernel& k, const asc_arg_t* args, size_t n_args, std::vector<GmBuffer>& gm,
               std::vector<RtValue>& values) {
  gm.resize(n_args);  // (each element set below: a scalar's to no buffer)
  values.assign(std::max(n_args, k.value_types.size()), RtValue{});
  for (size_t i = 0; i < n_args; ++i) {
    const Type& t = k.type_of(static_cast<uint32_t>(i));
    const asc_arg_t& a = args[i];
    if (t.is_scalar()) {
      gm[i] = GmBuffer{};
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

// `to` = take() when `has`, else emptied and its memory freed (a big launch's leftovers are not kept).
template <typename T, typename Take>
void take_or_clear(T& to, bool has, Take take) {
  if (has)
    to = take();
  else if (to.capacity())
    to = T{};
}

struct BlockResult {
  // (Kept by the calling thread from launch to launch: run_one sets every field of a block that ran, and a launch
  // with a block that did not run throws. User-provided: a defaulted constructor zeroed each whole first.)
  BlockResult() {}  // NOLINT(modernize-use-equals-default)
  uint64_t cycles = 0;
  bool busy_any;  // else `busy` is not set: all zero
  std::array<uint64_t, kPipeSlots> busy;
  std::vector<std::string> warnings;
  BlockGmAccesses gm;  // when sanitizing
  std::vector<TraceEvent> events;
  std::vector<GmFlow> gm_flows;
  HbmDemand hbm;       // gm_flows' demand, prepared on the block's thread
  bool holds = false;  // any of the vectors above may hold something (else a block that left nothing skips them)
};

// The working vectors of a launch, kept by the calling thread for its next launch: allocating them anew was a
// good part of a small launch. (A launch never starts another on its thread: one set per thread serves.)
struct LaunchScratch {
  std::vector<GmBuffer> gm;
  std::vector<RtValue> values;
  std::pair<KernelType, uint32_t> cores_of{KernelType::AivOnly, 0};
  std::vector<CoreInstance> cores;   // core_instances(cores_of)
  std::vector<BlockResult> results;  // each field set by the block's run (BlockResult has no reset of its own)
  std::vector<std::string> outputs;  // the blocks' printed text, each left empty after the launch
  PerOpTables per_op;
  std::vector<uint64_t> start;  // summarise's
  GmPadding padding;            // the board's allocation of each GM argument past the caller's bytes
};

// What each host thread keeps from launch to launch: one set of on-chip memories (at least the platform's sizes),
// the Block it runs its blocks on, restarted for each (making and taking apart a Block per block was most of a
// small block's time), and the working vectors of the launches it makes. One thread_local: each costs a call per
// block from a shared library.
struct HostCore {
  std::array<std::unique_ptr<uint8_t[]>, kMemoryCount> memories;
  MemorySizes sizes{};
  Block::Memories local{};
  std::optional<Block> block;
  LaunchScratch launch;
};

// (Not inlined: inlined, GCC looked the thread_local up again, a call each, for every use of its fields.)
[[gnu::noinline]] HostCore& host_core() {
  thread_local HostCore core;
  return core;
}

// A host thread's on-chip memories made at least `bytes` big (once a launch for each thread running its blocks).
void size_memories(HostCore& host, const MemorySizes& bytes) {
  for (size_t m = 0; m < kMemoryCount; ++m) {
    if (host.sizes[m] < bytes[m]) {
      host.memories[m] = std::make_unique<uint8_t[]>(bytes[m]);
      host.sizes[m] = bytes[m];
      host.local[m] = host.memories[m].get();
    }
  }
}

// A host thread's Block (its memories sized already), made `core` of the launch `ctx` describes.
Block& host_block(HostCore& host, const LaunchContext& ctx, const CoreInstance& core, LineCost* per_op) {
  if (host.block)
    host.block->restart(ctx, core, host.local, per_op);
  else
    host.block.emplace(ctx, core, host.local, per_op);
  return *host.block;
}

// Vector and cube cores run side by side; each kind's blocks beyond its core
// count run in waves.
LaunchReport summarise(const Platform& platform, std::vector<BlockResult>& blocks,
                       const std::vector<CoreInstance>& instances, std::vector<LineCost> per_op,
                       std::vector<uint64_t>& start) {
  LaunchReport r;
  const size_t n = blocks.size();  // (held: the loops below write through references the compiler cannot rule out)
  r.blocks = static_cast<uint32_t>(n);
  // When each block starts: its kind's earlier waves (both kinds in one pass over the blocks, which also collects
  // the HBM demands of the blocks that copied, for the clock below).
  start.resize(n);
  std::vector<HbmDemand> demands;
  std::vector<uint64_t> demand_start;
  struct Waves {
    uint32_t cores;
    uint64_t t = 0, wave = 0;  // the waves so far, and the longest block of the current one
    uint32_t in_wave = 0;      // this kind's blocks in the current wave
  };
  std::array<Waves, 2> waves{Waves{std::max(1u, platform.info.aiv_cores)},
                             Waves{std::max(1u, platform.info.aic_cores)}};
  for (size_t i = 0; i < n; ++i) {
    Waves& w = waves[instances[i].kind == CoreKind::AIC];
    if (w.in_wave == w.cores) {  // the next wave starts once this one's longest block ended
      w.t += w.wave;
      w.wave = 0;
      w.in_wave = 0;
    }
    start[i] = w.t;
    w.wave = std::max(w.wave, blocks[i].cycles);
    ++w.in_wave;
    if (blocks[i].holds && !blocks[i].gm_flows.empty()) {  // (a block that holds nothing copied nothing)
      demands.push_back(std::move(blocks[i].hbm));
      demand_start.push_back(start[i]);
    }
  }
  const uint64_t longest = std::max(waves[0].t + waves[0].wave, waves[1].t + waves[1].wave);
  // HBM shared in time by all the blocks' copies: the launch's clock. A copy's transfer takes as long as the shared
  // clock says; its latency, and everything else, its own time, started where the shared clock puts it. (Only the
  // blocks that copied: the others demand nothing, and the clock is the same without them.)
  const SharedHbmClock clock(demands, demand_start, platform.cost.gm_bytes_per_cycle, platform.cost.l2_bytes_per_cycle,
                             platform.cost.l2_bytes);
  const uint64_t launch = platform.cost.launch;
  size_t hint = 0;  // the clock's search position: a block's events and copies come about in time order
  for (size_t b = 0; b < n; ++b) {
    BlockResult& br = blocks[b];
    if (br.busy_any)
      for (size_t p = 0; p < kPipeSlots; ++p) r.busy[p] += br.busy[p];
    if (!br.holds) continue;     // no warnings, events or copies
    for (auto& w : br.warnings)  // blocks running the same code warn alike: once is enough
      if (std::find(r.warnings.begin(), r.warnings.end(), w) == r.warnings.end()) r.warnings.push_back(std::move(w));
    for (const TraceEvent& e : br.events) {
      uint64_t from = launch + clock(start[b] + e.start, hint);
      uint64_t to = from + (e.end - e.start) + clock.stretch(start[b] + e.moving, start[b] + e.end, hint);
      r.events.push_back({static_cast<uint32_t>(b), e.pipe, from, to, e.op});
    }
    for (const GmFlow& f : br.gm_flows) {  // the copies' stretch, where the trace counts it
      uint64_t longer = clock.stretch(start[b] + f.start, start[b] + f.end, hint);
      if (f.op < per_op.size()) per_op[f.op].cycles += longer;
      r.busy[static_cast<size_t>(f.pipe)] += longer;
    }
  }
  uint64_t t = launch + clock(longest);
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
constexpr uint64_t kInlineBudgetNs = 20'000;

// A kernel whose blocks took longer than that last time goes to the pool at
// once: a first block run alone would leave the other cores idle meanwhile.
// The clock is read after the 1st, 2nd, 4th, 8th... block (at most twice the
// budget runs inline): a clock read per block was a good part of a launch of
// small blocks. `start`: when the launch started.
// run_one(block, thread, host): `host` the calling thread's HostCore, or null on another thread.
template <typename RunOne>
void run_blocks(const Kernel& kernel, uint32_t count, RunOne& run_one, tick_clock::Ticks start, PerOpTables& per_op,
                HostCore& caller) {
  static const tick_clock::Ticks budget = tick_clock::from_ns(kInlineBudgetNs);
  uint32_t done = 0;
  const uint64_t block_ticks = kernel.block_ticks.load(std::memory_order_relaxed);
  const bool quick = block_ticks * count <= budget / 4;
  if (block_ticks <= budget) {
    while (done < count) {
      run_one(done++, 0u, &caller);
      // (When the last launch's blocks, all of them, took under a quarter of the budget, only the first block's
      // time is checked: the clock reads were a good part of a launch of small blocks.)
      if ((done & (done - 1)) == 0 && done < count && (done == 1 || !quick) && tick_clock::now() - start > budget)
        break;
    }
  }
  if (done < count) {
    ThreadPool& pool = ThreadPool::shared();
    per_op.reserve_threads(pool.concurrency());
    pool.run(count - done, [&](uint32_t i, unsigned worker) { run_one(done + i, worker, nullptr); });
  }
  kernel.block_ticks.store((tick_clock::now() - start) / count, std::memory_order_relaxed);
}

LaunchReport run_kernel(const Kernel& kernel, const Platform& platform, uint32_t block_dim, const asc_arg_t* args,
                        size_t n_args, const LaunchOptions& options) {
  HostCore& caller = host_core();
  LaunchScratch& scratch = caller.launch;
  std::vector<GmBuffer>& gm = scratch.gm;
  bind_args(kernel, args, n_args, gm, scratch.values);
  struct Padding {  // (released however the launch ends: a stray kernel's pad chunks are not kept)
    GmPadding& pads;
    ~Padding() { pads.release(); }
  } padding{scratch.padding};
  padding.pads.attach(gm);
  LaunchOnce memcheck_once;
  std::mutex gm_atomic;
  LaunchContext ctx{kernel, platform, block_dim, gm, scratch.values, options};
  ctx.gm_atomic = &gm_atomic;
  ctx.memcheck_once = &memcheck_once;
  const tick_clock::Ticks start = tick_clock::now();
  if (options.timeout_ns) ctx.deadline = start + std::min(tick_clock::from_ns(options.timeout_ns), ~start);
  std::atomic<uint64_t> printed{0};
  std::atomic<bool> output_cut{false};
  ctx.printed = &printed;
  ctx.output_cut = &output_cut;

  // The first failing block (lowest index) is reported; blocks not yet
  // started when a failure is seen are skipped.
  if (scratch.cores_of != std::make_pair(kernel.options.kernel_type, block_dim)) {
    scratch.cores = core_instances(kernel.options.kernel_type, block_dim);
    scratch.cores_of = {kernel.options.kernel_type, block_dim};
  }
  const std::vector<CoreInstance>& cores = scratch.cores;
  const auto count = static_cast<uint32_t>(cores.size());
  std::vector<BlockResult>& results = scratch.results;
  results.resize(count);
  const MemorySizes sizes = memory_sizes(platform);
  std::vector<std::string>& outputs = scratch.outputs;
  if (options.output && outputs.size() < count) outputs.resize(count);
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
  // A table per host thread: the pool's threads (run_blocks adds them) or, with cores side by side, one per core.
  PerOpTables& per_op = scratch.per_op;
  per_op.reset(kernel.num_ops, cross ? count : 1);
  size_memories(caller, sizes);
  auto run_one = [&](uint32_t block, unsigned thread, HostCore* on) {
    if (failed.load(std::memory_order_relaxed) && !cross) return;
    bool ended = false;  // this core has told the CrossCore its run ended
    HostCore& host = on ? *on : host_core();
    try {
      if (!on) size_memories(host, sizes);
      Block& b = host_block(host, ctx, cores[block], per_op.of(thread));
      try {
        b.run();
        // the other cores' writes into this core's memory it never waited for: its accesses of their bytes race
        // (taken once every core has ended, so that each such write is found whatever the threads' order)
        if (cross && options.sanitize) {
          ended = true;
          cross->finish_and_wait_for_all();
          b.receive(cross->take_deliveries(cores[block], true), false);
        }
      } catch (const Error&) {
        if (options.output && b.printed()) outputs[block] = b.take_output();
        throw;
      }
      if (options.output && b.printed()) outputs[block] = b.take_output();
      // The block's result, kept from the thread's last launch: every field is set. (Each moved only when it holds
      // something: most small blocks have no warnings, GM accesses or copies.)
      BlockResult& r = results[block];
      r.cycles = b.timeline().end();
      r.busy_any = b.timeline().recorded();
      if (r.busy_any) r.busy = b.timeline().busy();
      r.gm.epochs = b.epoch();
      const bool warned = !b.warnings().empty(), wrote = !b.gm_writes().empty(), read = !b.gm_reads().empty(),
                 clocked = b.has_clocks(), traced = !b.timeline().events().empty(), copied = b.timeline().copied();
      if (r.holds || warned || wrote || read || clocked || traced || copied) {
        take_or_clear(r.warnings, warned, [&] { return b.take_warnings(); });
        take_or_clear(r.gm.writes, wrote, [&] { return b.take_gm_writes(); });
        take_or_clear(r.gm.reads, read, [&] { return b.take_gm_reads(); });
        take_or_clear(r.gm.clocks, clocked, [&] { return b.take_clocks(); });
        take_or_clear(r.events, traced, [&] { return b.timeline().take_events(); });
        take_or_clear(r.gm_flows, copied, [&] { return b.timeline().take_gm_flows(); });
        if (copied) r.hbm = HbmDemand(r.gm_flows);  // (read only where there are flows)
        r.holds = warned || wrote || read || clocked || traced || copied;
      }
    } catch (const Error& e) {
      host.block.reset();  // (a failed run leaves nothing behind for the thread's next block)
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
    if (cross && !ended) cross->finished();
  };
  if (cross) {
    std::vector<std::thread> threads;
    for (uint32_t i = 0; i < count; ++i) threads.emplace_back(run_one, i, i, nullptr);
    for (auto& t : threads) t.join();
  } else {
    run_blocks(kernel, count, run_one, start, per_op, caller);
  }
  if (options.output) {  // in block order, up to the failing block
    options.output->clear();
    for (uint32_t b = 0; b < count; ++b) {
      if (outputs[b].empty()) continue;  // most blocks print nothing
      if (b <= first_block) {
        *options.output += outputs[b];
        if (outputs[b].back() != '\n') *options.output += '\n';
      }
      outputs[b] = std::string();  // (its memory freed: a big output is not kept)
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
  std::vector<std::string> hazards;
  // Hazards between blocks (when no block wrote GM, nothing can conflict or race: check_gm_hazards finds nothing)
  auto wrote_gm = [](const BlockResult& r) { return !r.gm.writes.empty(); };
  if (options.sanitize && count > 1 && std::any_of(results.begin(), results.end(), wrote_gm)) {
    std::vector<BlockGmAccesses> accesses(count);
    for (uint32_t b = 0; b < count; ++b) accesses[b] = std::move(results[b].gm);
    auto label = [&](uint32_t b) { return core_label(kernel.options.kernel_type, cores[b]); };
    check_gm_hazards(kernel, gm, accesses, label, options.strict, hazards);
  }
  LaunchReport report = summarise(platform, results, cores, per_op.sum(), scratch.start);
  for (auto& w : hazards) report.warnings.push_back(std::move(w));
  return report;
}

}  // namespace asc::sim
