// Costs seen by a C ABI user of libasc.so: a bare call, a kernel launch, an IR
// build, and simulating vadd on the Model, with a memcpy of the same data and the
// same data staged as the Model stages it (BM_AddStaged) as same-run baselines. bytes_processed counts the bytes of the
// kernel's arrays read plus written (vadd: x and y read, z written; memcpy: src read, dst written).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "../test/cpp/kernel_fixtures.h"

namespace {

using namespace asc_test;

constexpr std::string_view kPlatform = "Ascend910B1";

// One Model device and stream for the whole run.
struct Model {
  asc_device_t* device = nullptr;
  asc_stream_t* stream = nullptr;
  Model() {
    check(asc_device_create(ASC_BACKEND_MODEL, kPlatform.data(), kPlatform.size(), 0, &device), "asc_device_create");
    check(asc_stream_create(device, &stream), "asc_stream_create");
  }
  ~Model() {
    asc_stream_destroy(stream);
    asc_device_destroy(device);
  }
};

Model& model() {
  static Model m;
  return m;
}

// Runs `body`, turning a libasc failure into a skipped benchmark.
template <typename F>
void guarded(benchmark::State& state, F&& body) {
  try {
    body();
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

// vadd over n float32 on `blocks` blocks, with the largest tiles that fit x, y
// and z, double buffered, in the Unified Buffer (8192 elements).
TiledBinary vadd_shape(int64_t n, int64_t blocks) {
  TiledBinary k;
  k.block_length = n / blocks;
  const int64_t max_tile = static_cast<int64_t>(kUbBytes / (3 * k.buffer_num * sizeof(float)));
  k.tile_num = std::max<int64_t>(1, k.block_length / (k.buffer_num * max_tile));
  return k;
}

void BM_BareCall(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(asc_abi_version());
}
BENCHMARK(BM_BareCall)->MinTime(0.05);

// A kernel with one GM parameter and no ops, and its argument.
struct NoopKernel {
  CapiModule module;
  asc_kernel_t* kernel = CapiWriter(module.get(), "noop", {gm_addr_type(ASC_DTYPE_FLOAT32)}).finish();
  std::vector<float> buffer = std::vector<float>(8);
  asc_arg_t arg = buffer_arg(buffer);
};

// Argument binding, block dispatch and the C ABI guard: a synchronous launch's round trip.
void BM_LaunchNoop(benchmark::State& state) {
  guarded(state, [&] {
    NoopKernel k;
    const auto blocks = static_cast<uint32_t>(state.range(0));
    for (auto _ : state) check(asc_launch(k.kernel, model().stream, blocks, &k.arg, 1), "asc_launch");
  });
}
BENCHMARK(BM_LaunchNoop)->Arg(1)->Arg(8)->MinTime(0.1)->UseRealTime();

// The launch bench.py's launch row makes through cffi: a no-op kernel of three GM buffers and an int, launched
// with its stats filled (asc_launch_with_stats), so the C side of that row measured alone.
void BM_LaunchNoopStats(benchmark::State& state) {
  guarded(state, [&] {
    CapiModule module;
    const asc_type_t int32 = {ASC_TYPE_SCALAR, ASC_DTYPE_INT32, ASC_POS_GM};
    const asc_type_t gm = gm_addr_type(ASC_DTYPE_FLOAT32);
    asc_kernel_t* kernel = CapiWriter(module.get(), "noop4", {gm, gm, gm, int32}).finish();
    std::vector<float> a(8), b(8), c(8);
    const asc_arg_t args[] = {buffer_arg(a), buffer_arg(b), buffer_arg(c), int_scalar_arg(ASC_DTYPE_INT32, 8)};
    asc_launch_stats_t stats{};
    const auto blocks = static_cast<uint32_t>(state.range(0));
    for (auto _ : state)
      check(asc_launch_with_stats(kernel, model().stream, blocks, args, 4, &stats), "asc_launch_with_stats");
  });
}
BENCHMARK(BM_LaunchNoopStats)->Arg(1)->Arg(8)->MinTime(0.1)->UseRealTime();

// The same launch on an asynchronous stream: asc_launch checks and queues it
// (the stream's thread runs it). Synchronised every 64 launches, untimed.
void BM_LaunchEnqueue(benchmark::State& state) {
  guarded(state, [&] {
    NoopKernel k;
    asc_stream_t* stream = nullptr;
    check(asc_stream_create(model().device, &stream), "asc_stream_create");
    check(asc_stream_set_option(stream, "async", 5, 1), "async");
    const auto blocks = static_cast<uint32_t>(state.range(0));
    int64_t queued = 0;
    for (auto _ : state) {
      check(asc_launch(k.kernel, stream, blocks, &k.arg, 1), "asc_launch");
      if (++queued % 64 == 0) {
        state.PauseTiming();
        check(asc_stream_synchronize(stream), "asc_stream_synchronize");
        state.ResumeTiming();
      }
    }
    check(asc_stream_synchronize(stream), "asc_stream_synchronize");
    asc_stream_destroy(stream);
  });
}
BENCHMARK(BM_LaunchEnqueue)->Arg(1)->Arg(8)->MinTime(0.1);

// Building the vadd IR op by op through the C ABI (each op is checked as it is
// added) and finishing it (whole-kernel verification).
void BM_BuildAddKernel(benchmark::State& state) {
  guarded(state, [&] {
    uint32_t ops = 0;
    for (auto _ : state) {
      CapiModule module;
      CapiWriter w(module.get(), "vadd", TiledBinary{}.params());
      emit_tiled_binary(w, TiledBinary{});
      benchmark::DoNotOptimize(w.finish());
      ops = w.last_line();  // one source line per op
    }
    state.counters["ops"] = ops;
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * ops);
  });
}
BENCHMARK(BM_BuildAddKernel)->MinTime(0.1);

void BM_SimAdd(benchmark::State& state) {
  const int64_t n = state.range(0), blocks = state.range(1);
  guarded(state, [&] {
    const TiledBinary k = vadd_shape(n, blocks);
    CapiModule module;
    CapiWriter w(module.get(), "vadd", k.params());
    emit_tiled_binary(w, k);
    asc_kernel_t* kernel = w.finish();

    std::vector<float> x(static_cast<size_t>(n)), y(x.size()), z(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      x[i] = static_cast<float>(i % 1024);
      y[i] = 0.5f * static_cast<float>(i % 512);
    }
    const asc_arg_t args[] = {buffer_arg(x), buffer_arg(y), buffer_arg(z)};
    for (auto _ : state)
      check(asc_launch(kernel, model().stream, static_cast<uint32_t>(blocks), args, 3), "asc_launch");

    for (size_t i = 0; i < x.size(); ++i)
      if (z[i] != x[i] + y[i]) throw std::runtime_error("vadd computed a wrong result");
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 3 * n * static_cast<int64_t>(sizeof(float)));
    state.counters["tile"] = static_cast<double>(k.tile_length());
  });
}
BENCHMARK(BM_SimAdd)
    ->Args({1 << 20, 8})
    ->Args({1 << 24, 8})
    ->MinTime(0.2)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

void BM_MemcpyBaseline(benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  std::vector<float> src(n, 1.0f), dst(n, 0.0f);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), n * sizeof(float));
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * 2 * n * sizeof(float)));
}
BENCHMARK(BM_MemcpyBaseline)->Arg(1 << 20)->Arg(1 << 24)->MinTime(0.2)->Unit(benchmark::kMillisecond);

// The Model's copies (sim/copy_bytes.h): a vector loop, not glibc's memcpy, whose `rep movsb` is slow on some
// hosts for blocks of this size; stores that bypass the cache for outputs of 8 MiB or more.
template <bool kStream>
void copy_floats(float* dst, const float* src, size_t n) {
  size_t i = 0;
#if defined(__x86_64__)
  for (; i + 4 <= n; i += 4) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    if constexpr (kStream)
      _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), v);
    else
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), v);
  }
  if constexpr (kStream) _mm_sfence();
#endif
  std::memcpy(dst + i, src + i, (n - i) * sizeof(float));
}

// What BM_SimAdd's data alone costs in the Model's design, without the Model: the blocks split over the host's
// threads as the Model splits them, each tile of x and y copied into a Unified Buffer of the thread's own, added
// there, the sum copied out. The Model's Add cannot be faster than this; the gap is the Model's own work.
void BM_AddStaged(benchmark::State& state) {
  const int64_t n = state.range(0), blocks = state.range(1);
  const TiledBinary k = vadd_shape(n, blocks);
  const auto tile = static_cast<size_t>(k.tile_length()), tiles = static_cast<size_t>(k.tile_num * k.buffer_num);
  const auto threads =
      std::min<unsigned>(static_cast<unsigned>(blocks), std::max(1u, std::thread::hardware_concurrency()));
  std::vector<float> x(static_cast<size_t>(n)), y(x.size()), z(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>(i % 1024);
    y[i] = 0.5f * static_cast<float>(i % 512);
  }
  auto run = [&](unsigned t) {
    std::vector<float> ub(3 * 2 * tile);  // x, y and z tiles, double-buffered
    for (auto b = static_cast<size_t>(t); b < static_cast<size_t>(blocks); b += threads)
      for (size_t i = 0; i < tiles; ++i) {
        const size_t at = b * static_cast<size_t>(k.block_length) + i * tile, buf = i % 2 * tile;
        float *xl = ub.data() + buf, *yl = xl + 2 * tile, *zl = yl + 2 * tile;
        copy_floats<false>(xl, x.data() + at, tile);
        copy_floats<false>(yl, y.data() + at, tile);
        for (size_t e = 0; e < tile; ++e) zl[e] = xl[e] + yl[e];
        copy_floats<true>(z.data() + at, zl, tile);  // z is 64 MiB, 16-byte aligned (std::vector's allocation)
      }
  };
  for (auto _ : state) {
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(run, t);
    run(0);
    for (auto& th : pool) th.join();
  }
  for (size_t i = 0; i < x.size(); ++i)
    if (z[i] != x[i] + y[i]) throw std::runtime_error("the staged add computed a wrong result");
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 3 * n * static_cast<int64_t>(sizeof(float)));
  state.counters["threads"] = threads;
}
// numpy's add as C: one thread, one pass over the arrays.
void BM_AddLoop(benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  std::vector<float> x(n, 1.0f), y(n, 2.0f), z(n, 0.0f);
  for (auto _ : state) {
    for (size_t i = 0; i < n; ++i) z[i] = x[i] + y[i];
    benchmark::DoNotOptimize(z.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * 3 * n * sizeof(float)));
}
BENCHMARK(BM_AddLoop)->Arg(1 << 24)->MinTime(0.2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AddStaged)->Args({1 << 24, 8})->MinTime(0.2)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
