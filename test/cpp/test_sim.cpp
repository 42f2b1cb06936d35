// The Model simulator: results against host references computed here,
// synchronisation semantics and run-time errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <vector>

#include "kernel_fixtures.h"
#include "sim/bank_conflicts.h"
#include "sim/copy_bytes.h"
#include "sim/gm_checksum.h"
#include "sim/launch.h"
#include "support/tick_clock.h"
#include "target/platform.h"

namespace {

using namespace asc_test;

constexpr int32_t kI32Min = std::numeric_limits<int32_t>::min();
constexpr int32_t kI32Max = std::numeric_limits<int32_t>::max();

std::vector<asc_type_t> gm_params(asc_dtype_t d, size_t n) { return std::vector<asc_type_t>(n, gm_addr_type(d)); }

// ---- references and comparison -------------------------------------------------------

// An exact integer result wrapped to T's width (two's complement).
template <typename T>
T wrap(int64_t exact) {
  constexpr int64_t kRange = int64_t{1} << (8 * sizeof(T));
  int64_t r = ((exact % kRange) + kRange) % kRange;  // in [0, 2^bits)
  if (r > std::numeric_limits<T>::max()) r -= kRange;
  return static_cast<T>(r);
}

// The host reference for one lane. Floats: the result is computed in double
// and rounded once to T; double has more than 2p+2 bits for float and half, so
// this is the correctly rounded IEEE result of the operation in T.
template <typename T>
T reference(const std::string& op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    const int64_t x = a, y = b;
    if (op == "add") return wrap<T>(x + y);
    if (op == "sub") return wrap<T>(x - y);
    if (op == "mul") return wrap<T>(x * y);
  } else {
    const double x = static_cast<double>(a), y = static_cast<double>(b);
    if (op == "add") return static_cast<T>(x + y);
    if (op == "sub") return static_cast<T>(x - y);
    if (op == "mul") return static_cast<T>(x * y);
    if (op == "div") return static_cast<T>(x / y);
  }
  if (op == "max") return a < b ? b : a;
  if (op == "min") return b < a ? b : a;
  throw std::invalid_argument("no reference for " + op);
}

// got[begin, end) equals want[begin, end) bit for bit.
template <typename T>
::testing::AssertionResult same_bits(const std::vector<T>& got, const std::vector<T>& want, size_t begin = 0,
                                     size_t end = std::numeric_limits<size_t>::max()) {
  end = std::min({end, want.size(), got.size()});
  size_t bad = 0, first = 0;
  for (size_t i = begin; i < end; ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0 && bad++ == 0) first = i;
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << end - begin << " elements differ; first at [" << first
                                       << "]: got " << static_cast<double>(got[first]) << ", want "
                                       << static_cast<double>(want[first]);
}

template <typename T>
std::vector<T> head(const std::vector<T>& v, size_t n) {
  return std::vector<T>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n));
}

// ---- vadd, the tiled double-buffered kernel ------------------------------------------

class VaddTest : public ::testing::TestWithParam<uint32_t> {};

// The platform table marks each row's architecture: the A2/A3 rows dav-c220, PyAsc2's Ascend910_95xx and
// Ascend950PR_95xx rows dav-c310, whose bias table is 4 KiB (asc-devkit ASC_BT_SIZE for __NPU_ARCH__ 3510) and whose
// timing constants follow their HBM figures (1.6 TB/s on the 128 GB parts, scaled by the AKG notes' DDR ratio).
TEST(PlatformTable, ArchitectureBiasTableAndBandwidth) {
  size_t c310 = 0;
  for (const asc::Platform& p : asc::platforms()) {
    SCOPED_TRACE(p.name);
    std::string name = p.name;
    bool is_950 = name.rfind("Ascend950PR_95", 0) == 0 || name.rfind("Ascend910_95", 0) == 0;
    EXPECT_EQ(p.arch, is_950 ? asc::Arch::C310 : asc::Arch::C220);
    EXPECT_STREQ(asc::arch_name(p.arch), is_950 ? "c310" : "c220");
    EXPECT_EQ(asc::memory_bytes(p, asc::Memory::BT), is_950 ? 4096u : 1024u);
    EXPECT_EQ(asc::memory_bytes(p, asc::Memory::UB), is_950 ? 248u * 1024 : 192u * 1024);
    EXPECT_EQ(asc::memory_bytes(p, asc::Memory::L0C), is_950 ? 256u * 1024 : 128u * 1024);
    c310 += is_950;
  }
  EXPECT_EQ(c310, 11u);
  const asc::Platform& b1 = asc::platform_named("Ascend910B1");
  const asc::Platform& p9599 = asc::platform_named("Ascend950PR_9599");
  const asc::Platform& p957b = asc::platform_named("Ascend950PR_957b");
  const asc::Platform& p950z = asc::platform_named("Ascend950PR_950z");
  EXPECT_DOUBLE_EQ(p9599.cost.gm_bytes_per_cycle, 1.6e12 / 1.8e9);
  EXPECT_DOUBLE_EQ(p957b.cost.gm_bytes_per_cycle, 1.6e12 * 27 / 31 / 1.65e9);
  EXPECT_DOUBLE_EQ(p950z.cost.gm_bytes_per_cycle, 1.6e12 * 4 / 31 / 1.65e9);
  // per-cycle vector and cube rates as published are the same as dav-c220's
  EXPECT_EQ(p9599.cost.vector_repeat, b1.cost.vector_repeat);
  EXPECT_EQ(p9599.cost.cube_startup, b1.cost.cube_startup);
}

// copy_bytes is memmove with either store: every size around its thresholds and loop steps, any
// alignment (streaming needs 16 bytes and falls back below that), and ranges overlapping either way.
TEST(CopyBytes, IsMemmove) {
  std::vector<uint8_t> pattern(3 * 70000);
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<uint8_t>(i * 131 + 7);
  const size_t sizes[] = {0, 1, 31, 127, 128, 129, 4095, 4096, 4097, 8191, 32768, 32771, 65536 + 77};
  for (asc::sim::Store store : {asc::sim::Store::Cached, asc::sim::Store::Streaming})
    for (size_t n : sizes)
      for (size_t src : {size_t{0}, size_t{3}, size_t{64}, size_t{70000}})
        for (size_t dst : {size_t{0}, size_t{1}, size_t{16}, size_t{32}, size_t{40}, size_t{70000}, size_t{140001}}) {
          if (src + n > pattern.size() || dst + n > pattern.size()) continue;
          std::vector<uint8_t> want = pattern, got = pattern;
          std::memmove(want.data() + dst, want.data() + src, n);
          asc::sim::copy_bytes(got.data() + dst, got.data() + src, n, store);
          ASSERT_EQ(got, want) << "n=" << n << " src=" << src << " dst=" << dst;
        }
}

// The sanitizer's checksumming copy to GM copies like memcpy and hashes as checksum() does, with either store
// and its AVX2 path (from 4 KiB) or not; the checksum tells a changed byte or two swapped words apart.
TEST(CopyBytes, ChecksummedCopyMatchesChecksum) {
  std::vector<uint8_t> src(70000);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 131 + 7);
  for (asc::sim::Store store : {asc::sim::Store::Cached, asc::sim::Store::Streaming})
    for (size_t n : {size_t{0}, size_t{5}, size_t{32}, size_t{4095}, size_t{4096}, size_t{4096 + 17}, size_t{65536}})
      for (size_t dst_at : {size_t{0}, size_t{8}, size_t{16}}) {
        std::vector<uint8_t> dst(n + 32, 0xEE);
        const uint64_t hash = asc::sim::copy_checksummed(dst.data() + dst_at, src.data(), n, store);
        ASSERT_EQ(hash, asc::sim::checksum(src.data(), n)) << "n=" << n << " dst_at=" << dst_at;
        ASSERT_TRUE(std::equal(src.begin(), src.begin() + static_cast<std::ptrdiff_t>(n), dst.begin() + dst_at));
        ASSERT_EQ(dst[dst_at + n], 0xEE);
      }
  std::vector<uint8_t> changed(src.begin(), src.begin() + 8192);
  changed[5000] ^= 1;
  EXPECT_NE(asc::sim::checksum(changed.data(), 8192), asc::sim::checksum(src.data(), 8192));
  std::vector<uint8_t> swapped(src.begin(), src.begin() + 8192);
  std::swap_ranges(swapped.begin() + 64, swapped.begin() + 96, swapped.begin() + 96);
  EXPECT_NE(asc::sim::checksum(swapped.data(), 8192), asc::sim::checksum(src.data(), 8192));
}

// vector_beats against a count of every repeat's blocks per bank group (no period, no memo), over generated
// operand patterns (negative strides and first blocks included) issued in an order that mixes repeats of one
// pattern (the memo's hits) with changes of a single field (its misses).
TEST(BankConflicts, VectorBeatsCountsEveryRepeat) {
  auto counted = [](const std::vector<asc::sim::BlockPattern>& ops, int64_t repeats) {
    uint64_t beats = 0;
    for (int64_t r = 0; r < repeats; ++r) {
      int reads[16] = {}, writes[16] = {}, most = 1;
      for (const auto& p : ops)
        for (int64_t j = 0; j < p.per_repeat; ++j) {
          int64_t g = ((p.first + r * p.rep + j * p.blk) % 16 + 16) % 16;
          most = std::max(most, ++(p.write ? writes : reads)[g]);
        }
      beats += static_cast<uint64_t>(most);
    }
    return beats;
  };
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> field(-40, 300);
  std::vector<asc::sim::BlockPattern> ops;
  int64_t repeats = 1;
  for (int step = 0; step < 3000; ++step) {
    if (step % 3 == 0) {  // a new instruction shape: 1..5 operands, the last one written
      ops.assign(1 + rng() % 5, {});
      for (auto& p : ops) p = {field(rng), field(rng) % 9, field(rng), 1 + static_cast<int64_t>(rng() % 8), false};
      ops.back().write = true;
      repeats = 1 + static_cast<int64_t>(rng() % 70);
    } else if (step % 3 == 1) {  // one field of one operand changes (or the repeat count)
      auto& p = ops[rng() % ops.size()];
      switch (rng() % 5) {
        case 0: p.first += 1 + static_cast<int64_t>(rng() % 20); break;
        case 1: p.blk += 1; break;
        case 2: p.rep -= 1; break;
        case 3: p.write = !p.write; break;
        default: repeats = 1 + static_cast<int64_t>(rng() % 70);
      }
    }  // else: the same instruction again
    ASSERT_EQ(asc::sim::vector_beats(ops.data(), ops.size(), repeats), counted(ops, repeats)) << "step " << step;
  }
  EXPECT_EQ(asc::sim::vector_beats(ops.data(), ops.size(), 0), 0u);
}

TEST_P(VaddTest, MatchesHostReference) {
  const uint32_t blocks = GetParam();
  const TiledBinary k;  // float32 add, 2048 elements per block in 16 tiles of 128
  asc::Module m;
  CoreWriter w(m, "vadd", k.params());
  emit_tiled_binary(w, k);
  const asc::Kernel& kernel = w.finish();

  const size_t n = blocks * static_cast<size_t>(k.block_length);
  std::vector<float> x = random_values<float>(n, 100 + blocks, -1000, 1000);
  std::vector<float> y = random_values<float>(n, 200 + blocks, -1000, 1000);
  std::vector<float> z(n, std::nanf(""));
  run_model(kernel, blocks, {buffer_arg(x), buffer_arg(y), buffer_arg(z)});

  std::vector<float> want(n);
  for (size_t i = 0; i < n; ++i) want[i] = x[i] + y[i];
  EXPECT_TRUE(same_bits(z, want));
}

INSTANTIATE_TEST_SUITE_P(Blocks, VaddTest, ::testing::Values(1u, 8u, 48u));

TEST(Vadd, OtherOpsAndDtypesThroughTheTiledKernel) {
  TiledBinary k;
  k.op = "mul";
  k.dtype = ASC_DTYPE_INT16;
  k.block_length = 4096;  // 16 tiles of 256 int16 (512 bytes)
  asc::Module m;
  CoreWriter w(m, "vmul_i16", k.params());
  emit_tiled_binary(w, k);
  const asc::Kernel& kernel = w.finish();

  const size_t n = 4 * static_cast<size_t>(k.block_length);
  std::vector<int16_t> x = random_values<int16_t>(n, 1, -32768, 32767), y = random_values<int16_t>(n, 2, -32768, 32767);
  std::vector<int16_t> z(n, 0);
  run_model(kernel, 4, {buffer_arg(x), buffer_arg(y), buffer_arg(z)});
  std::vector<int16_t> want(n);
  for (size_t i = 0; i < n; ++i) want[i] = wrap<int16_t>(int64_t{x[i]} * int64_t{y[i]});
  EXPECT_TRUE(same_bits(z, want));
}

// ---- vector ops on data in the Unified Buffer, with tail counts ----------------------

// Runs emit_ub_binary on one block. x and y are padded with zeros, z starts as
// `sentinel` everywhere; returns z (padded_count(count) elements).
template <typename T>
std::vector<T> run_ub_binary(const std::string& op, std::vector<T> x, std::vector<T> y, int64_t count, T sentinel) {
  constexpr asc_dtype_t d = dtype_of<T>();
  asc::Module m;
  CoreWriter w(m, op, gm_params(d, 3));
  emit_ub_binary(w, {op, d, count});
  const size_t padded = static_cast<size_t>(padded_count(count, d));
  x.resize(padded, T{});
  y.resize(padded, T{});
  std::vector<T> z(padded, sentinel);
  run_model(w.finish(), 1, {buffer_arg(x), buffer_arg(y), buffer_arg(z)});
  return z;
}

struct VectorCase {
  std::string op;
  asc_dtype_t dtype;
  int64_t count;
};

const char* dtype_label(asc_dtype_t d) {
  switch (d) {
    case ASC_DTYPE_FLOAT32: return "float32";
    case ASC_DTYPE_FLOAT16: return "float16";
    case ASC_DTYPE_INT16: return "int16";
    case ASC_DTYPE_INT32: return "int32";
    default: return "other";
  }
}

void PrintTo(const VectorCase& c, std::ostream* os) { *os << c.op << " " << dtype_label(c.dtype) << " x" << c.count; }

std::vector<VectorCase> vector_cases() {
  const std::vector<std::string> float_ops = {"add", "sub", "mul", "div", "max", "min"};
  const std::vector<std::string> int_ops = {"add", "sub", "mul", "max", "min"};
  std::vector<VectorCase> cases;
  for (asc_dtype_t d : {ASC_DTYPE_FLOAT32, ASC_DTYPE_FLOAT16, ASC_DTYPE_INT16, ASC_DTYPE_INT32})
    for (const std::string& op : d == ASC_DTYPE_FLOAT32 || d == ASC_DTYPE_FLOAT16 ? float_ops : int_ops)
      for (int64_t count : {13, 300}) cases.push_back({op, d, count});
  return cases;
}

class VectorOpTest : public ::testing::TestWithParam<VectorCase> {
 protected:
  template <typename T>
  void check() {
    const VectorCase& c = GetParam();
    const size_t n = static_cast<size_t>(c.count);
    std::vector<T> x, y;
    if constexpr (std::is_integral_v<T>) {
      // The full range, so that add/sub/mul overflow often, plus the extremes.
      constexpr T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
      x = random_values<T>(n, 11, lo, hi);
      y = random_values<T>(n, 12, lo, hi);
      const T edge_x[] = {hi, lo, hi, lo}, edge_y[] = {1, 1, hi, -1};
      std::copy(std::begin(edge_x), std::end(edge_x), x.begin());
      std::copy(std::begin(edge_y), std::end(edge_y), y.begin());
    } else {
      x = random_values<T>(n, 11, -100, 100);
      y = random_values<T>(n, 12, 0.5, 100);  // divisors away from zero, both signs
      for (size_t i = 0; i < n; i += 2) y[i] = -y[i];
    }
    std::vector<T> want(n);
    for (size_t i = 0; i < n; ++i) want[i] = reference(c.op, x[i], y[i]);

    const T sentinel = static_cast<T>(77);
    std::vector<T> z = run_ub_binary(c.op, x, y, c.count, sentinel);
    EXPECT_TRUE(same_bits(z, want, 0, n));
    // The op writes exactly `count` elements: the rest of the copied blocks keep z's initial value.
    ASSERT_EQ(z.size(), static_cast<size_t>(padded_count(c.count, c.dtype)));
    EXPECT_TRUE(same_bits(z, std::vector<T>(z.size(), sentinel), n, z.size()));
  }
};

TEST_P(VectorOpTest, MatchesHostReferenceAndLeavesTheTail) {
  switch (GetParam().dtype) {
    case ASC_DTYPE_FLOAT32: return check<float>();
    case ASC_DTYPE_FLOAT16: return check<_Float16>();
    case ASC_DTYPE_INT16: return check<int16_t>();
    case ASC_DTYPE_INT32: return check<int32_t>();
    default: FAIL() << "no host type for this dtype";
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, VectorOpTest, ::testing::ValuesIn(vector_cases()),
                         [](const ::testing::TestParamInfo<VectorCase>& p) {
                           return p.param.op + "_" + dtype_label(p.param.dtype) + "_" + std::to_string(p.param.count);
                         });

// Hand-derived: the exact result modulo 2^32 (2^16), as a signed value.
TEST(VectorWrap, Int32LanesWrapOnOverflow) {
  auto run = [](const char* op, std::vector<int32_t> x, std::vector<int32_t> y) {
    const size_t n = x.size();
    return head(run_ub_binary<int32_t>(op, std::move(x), std::move(y), static_cast<int64_t>(n), 0), n);
  };
  EXPECT_EQ(run("add", {kI32Max, kI32Min, -5}, {1, -1, 3}), (std::vector<int32_t>{kI32Min, kI32Max, -2}));
  EXPECT_EQ(run("sub", {kI32Min, kI32Max, 5}, {1, -1, 7}), (std::vector<int32_t>{kI32Max, kI32Min, -2}));
  // 65536^2 = 2^32 -> 0; 46341^2 = 2147488281 -> 2147488281 - 2^32 = -2147479015.
  EXPECT_EQ(run("mul", {65536, 46341, kI32Min, -3}, {65536, 46341, -1, 7}),
            (std::vector<int32_t>{0, -2147479015, kI32Min, -21}));
  EXPECT_EQ(run("max", {kI32Min, 5}, {kI32Max, -5}), (std::vector<int32_t>{kI32Max, 5}));
  EXPECT_EQ(run("min", {kI32Min, 5}, {kI32Max, -5}), (std::vector<int32_t>{kI32Min, -5}));
}

TEST(VectorWrap, Int16LanesWrapOnOverflow) {
  auto run = [](const char* op, std::vector<int16_t> x, std::vector<int16_t> y) {
    const size_t n = x.size();
    return head(run_ub_binary<int16_t>(op, std::move(x), std::move(y), static_cast<int64_t>(n), 0), n);
  };
  EXPECT_EQ(run("add", {32767, -32768, 100}, {1, -1, -300}), (std::vector<int16_t>{-32768, 32767, -200}));
  EXPECT_EQ(run("sub", {-32768, 32767}, {1, -1}), (std::vector<int16_t>{32767, -32768}));
  // 300^2 = 90000 -> 90000 - 65536 = 24464; 256^2 = 2^16 -> 0.
  EXPECT_EQ(run("mul", {300, 256, -32768, -3}, {300, 256, -1, 7}), (std::vector<int16_t>{24464, 0, -32768, -21}));
}

TEST(VectorRounding, FloatLanesRoundToNearestEven) {
  // float32: 2^24 + 1 is a tie between 2^24 and 2^24 + 2 -> 2^24 (even).
  std::vector<float> f = run_ub_binary<float>("add", {16777216.0f, 16777216.0f}, {1.0f, 3.0f}, 2, 0.0f);
  EXPECT_EQ(f[0], 16777216.0f);
  EXPECT_EQ(f[1], 16777220.0f);  // 2^24 + 3 ties between +2 and +4 -> +4 (even)
  // float16: spacing 2 at 2048; 2048 + 1 -> 2048, 2048 + 3 -> 2052; 65504 + 32 reaches the overflow threshold,
  // and half results saturate on Atlas A2 (CTRL[48] = 0 by default): +65504, not inf.
  std::vector<_Float16> h = run_ub_binary<_Float16>("add", {_Float16(2048), _Float16(2048), _Float16(65504)},
                                                    {_Float16(1), _Float16(3), _Float16(32)}, 3, _Float16(0));
  EXPECT_EQ(static_cast<float>(h[0]), 2048.0f);
  EXPECT_EQ(static_cast<float>(h[1]), 2052.0f);
  EXPECT_EQ(static_cast<float>(h[2]), 65504.0f);
}

// ---- synchronisation -----------------------------------------------------------------

// A one-block kernel over x, y, z (64 float32 each) with the tensors in place;
// the test adds the body.
struct SyncKernel {
  static constexpr int64_t kN = 64;
  asc::Module m;
  CoreWriter w{m, "sync", gm_params(ASC_DTYPE_FLOAT32, 3)};
  Value n = w.i32(kN), zero = w.i32(0);
  Value x_gm = w.global_tensor(w.param(0), zero, n), y_gm = w.global_tensor(w.param(1), zero, n);
  Value z_gm = w.global_tensor(w.param(2), zero, n);
  Value x = w.local_tensor(0, kN, ASC_DTYPE_FLOAT32, ASC_POS_VECIN, "x_local");
  Value y = w.local_tensor(kN * 4, kN, ASC_DTYPE_FLOAT32, ASC_POS_VECIN, "y_local");
  Value z = w.local_tensor(2 * kN * 4, kN, ASC_DTYPE_FLOAT32, ASC_POS_VECOUT, "z_local");

  std::vector<float> xs = random_values<float>(kN, 1, -10, 10), ys = random_values<float>(kN, 2, -10, 10);
  std::vector<float> zs = std::vector<float>(kN, 0.0f);
  void run(asc::LaunchOptions options = {}) {
    run_model(w.finish(), 1, {buffer_arg(xs), buffer_arg(ys), buffer_arg(zs)}, std::move(options));
  }
};

TEST(Sync, WaitWithoutSetIsADeadlockAtTheWait) {
  SyncKernel k;
  k.w.data_copy(k.x, k.x_gm, k.n);
  k.w.wait_flag(MTE2_V, k.zero);
  const uint32_t wait_line = k.w.last_line();
  k.w.op("add", {k.z, k.x, k.x, k.n});
  auto e = error_of([&] { k.run(); });
  ASSERT_TRUE(is_error(e, ASC_ERR_DEADLOCK, {"MTE2_V", "block 0"}));
  EXPECT_EQ(e->loc().str(), "kernels.py:" + std::to_string(wait_line) + ":5");
}

// The vector pipe may reach a wait before the MTE2 pipe reaches the matching
// set: each pipe runs its own queue in order, so V just holds until MTE2 sets
// the flag. The add must see the copied data.
TEST(Sync, WaitOnAnotherPipeIssuedBeforeItsSetIsLegal) {
  SyncKernel k;
  k.w.wait_flag(MTE2_V, k.zero);
  k.w.op("add", {k.z, k.x, k.y, k.n});
  k.w.data_copy(k.x, k.x_gm, k.n);
  k.w.data_copy(k.y, k.y_gm, k.n);
  k.w.set_flag(MTE2_V, k.zero);
  k.w.sync(V_MTE3, k.zero);
  k.w.data_copy(k.z_gm, k.z, k.n);
  ASSERT_NO_THROW(k.run());
  std::vector<float> want(SyncKernel::kN);
  for (size_t i = 0; i < want.size(); ++i) want[i] = k.xs[i] + k.ys[i];
  EXPECT_TRUE(same_bits(k.zs, want));
}

// A wait whose destination is the scalar unit stalls program order, so a set
// that comes later in the program can never be issued.
TEST(Sync, ScalarWaitBeforeItsSetIsADeadlock) {
  SyncKernel k;
  k.w.wait_flag(MTE2_S, k.zero);
  const uint32_t wait_line = k.w.last_line();
  k.w.data_copy(k.x, k.x_gm, k.n);
  k.w.set_flag(MTE2_S, k.zero);
  auto e = error_of([&] { k.run(); });
  ASSERT_TRUE(is_error(e, ASC_ERR_DEADLOCK, {"MTE2_S"}));
  EXPECT_EQ(e->loc().line, wait_line);
}

TEST(Sync, SetTwiceWithoutWaitIsARuntimeError) {
  SyncKernel k;
  k.w.set_flag(MTE2_V, k.zero);
  const uint32_t first = k.w.last_line();
  k.w.set_flag(MTE2_V, k.zero);
  const uint32_t second = k.w.last_line();
  auto e = error_of([&] { k.run(); });
  ASSERT_TRUE(is_error(e, ASC_ERR_RUNTIME, {"MTE2_V", "kernels.py:" + std::to_string(first) + ":5"}));
  EXPECT_EQ(e->loc().line, second);
}

TEST(Sync, DistinctEventIdsAreIndependentFlags) {
  SyncKernel k;
  k.w.data_copy(k.x, k.x_gm, k.n);
  k.w.set_flag(MTE2_V, k.w.i32(0));
  k.w.data_copy(k.y, k.y_gm, k.n);
  k.w.set_flag(MTE2_V, k.w.i32(1));
  k.w.wait_flag(MTE2_V, k.w.i32(1));
  k.w.wait_flag(MTE2_V, k.w.i32(0));
  k.w.op("sub", {k.z, k.x, k.y, k.n});
  k.w.sync(V_MTE3, k.zero);
  k.w.data_copy(k.z_gm, k.z, k.n);
  ASSERT_NO_THROW(k.run());
  std::vector<float> want(SyncKernel::kN);
  for (size_t i = 0; i < want.size(); ++i) want[i] = k.xs[i] - k.ys[i];
  EXPECT_TRUE(same_bits(k.zs, want));
}

// ---- memory errors ------------------------------------------------------------------------

TEST(Memory, GmReadPastTheBufferIsOutOfBounds) {
  SyncKernel k;
  k.w.data_copy(k.x, k.x_gm, k.n);
  k.xs.resize(SyncKernel::kN / 2);  // the GlobalTensor claims 64 elements, the buffer has 32
  // Strict: the board reads on into its allocator's segment (test_board_memory.cpp).
  asc::LaunchOptions strict;
  strict.strict = true;
  EXPECT_TRUE(is_error(error_of([&] { k.run(strict); }), ASC_ERR_OUT_OF_BOUNDS, {"kernel argument 0", "128 bytes"}));
}

TEST(Memory, GmWritePastTheBufferWritesNothing) {
  SyncKernel k;
  k.w.data_copy(k.x, k.x_gm, k.n);
  k.w.sync(MTE2_MTE3, k.zero);
  k.w.data_copy(k.z_gm, k.x, k.n);
  // z's buffer is declared as 48 elements; the 16 after it are a guard region.
  constexpr float kGuard = -12345.0f;
  std::vector<float> z(SyncKernel::kN, kGuard);
  auto e = error_of([&] {
    asc::LaunchOptions strict;  // the board writes on into its allocator's segment (test_board_memory.cpp)
    strict.strict = true;
    run_model(k.w.finish(), 1, {buffer_arg(k.xs), buffer_arg(k.ys), buffer_arg(z, 48 * sizeof(float))}, strict);
  });
  EXPECT_TRUE(is_error(e, ASC_ERR_OUT_OF_BOUNDS, {"kernel argument 2", "192 bytes"}));
  EXPECT_TRUE(same_bits(z, std::vector<float>(z.size(), kGuard)));  // guard and buffer untouched
}

TEST(Memory, CopyLongerThanTheGlobalTensorIsOutOfBounds) {
  SyncKernel k;
  Value short_gm = k.w.global_tensor(k.w.param(0), k.zero, k.w.i32(32));
  k.w.data_copy(k.x, short_gm, k.n);
  EXPECT_TRUE(is_error(error_of([&] { k.run(); }), ASC_ERR_OUT_OF_BOUNDS, {"only 32 elements"}));
}

TEST(Memory, LocalTensorLargerThanTheUnifiedBufferNamesTheTensor) {
  constexpr int64_t kFloatsInUb = static_cast<int64_t>(kUbBytes / 4);
  {
    SyncKernel k;  // exactly the whole UB is fine
    k.w.local_tensor(0, kFloatsInUb, ASC_DTYPE_FLOAT32, ASC_POS_VECCALC, "whole_ub");
    EXPECT_NO_THROW(k.run());
  }
  SyncKernel k;
  const Value huge = k.w.local_tensor(32, kFloatsInUb, ASC_DTYPE_FLOAT32, ASC_POS_VECCALC, "huge_local");
  (void)huge;
  auto e = error_of([&] { k.run(); });
  ASSERT_TRUE(is_error(e, ASC_ERR_OUT_OF_BOUNDS, {"huge_local", "196608"}));
  EXPECT_EQ(e->loc().line, k.w.last_line());
}

// 2^62 float32 elements are 2^64 bytes: the byte size must not wrap to 0 and
// pass the Unified Buffer bound (with it wrapped, vector ops over such a tensor
// are accepted too and index far outside the host's UB allocation).
TEST(Memory, LocalTensorByteSizeOverflowIsOutOfBounds) {
  SyncKernel k;
  k.w.op("local_tensor.create", {k.zero, k.w.constant(ASC_DTYPE_INT64, int64_t{1} << 62)},
         {int_attr("dtype", ASC_DTYPE_FLOAT32), int_attr("position", ASC_POS_VECCALC), string_attr("name", "huge")});
  EXPECT_TRUE(is_error(error_of([&] { k.run(); }), ASC_ERR_OUT_OF_BOUNDS, {"huge"}));
}

// As on the NPU, a copy of a partial block moves only the whole 32-byte
// blocks, and the launch warns.
TEST(Memory, CopyOfPartialBlockCopiesWholeBlocksAndWarns) {
  SyncKernel k;
  k.w.data_copy(k.x, k.x_gm, k.w.i32(13));  // 52 bytes: one whole block
  k.w.sync(MTE2_MTE3, k.zero);
  k.w.data_copy(k.z_gm, k.x, k.w.i32(8));
  const asc::Platform* platform = asc::find_platform("Ascend910B1");
  std::vector<asc_arg_t> args{buffer_arg(k.xs), buffer_arg(k.ys), buffer_arg(k.zs)};
  asc::sim::LaunchReport r = asc::sim::run_kernel(k.w.finish(), *platform, 1, args.data(), args.size(), {});
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("13 elements of float32 is 52 bytes"), std::string::npos) << r.warnings[0];
  EXPECT_NE(r.warnings[0].find("only the first 32 bytes"), std::string::npos) << r.warnings[0];
  for (size_t i = 0; i < 16; ++i) EXPECT_EQ(k.zs[i], i < 8 ? k.xs[i] : 0.0f) << i;
}

TEST(Memory, UnalignedLocalSliceIsMisalignedAtRunTime) {
  SyncKernel k;
  k.w.data_copy(k.w.local_slice(k.x, k.w.i32(3)), k.x_gm, k.w.i32(8));  // UB address 12
  EXPECT_TRUE(is_error(error_of([&] { k.run(); }), ASC_ERR_MISALIGNED, {"address 12"}));
}

TEST(Memory, NegativeGmOffsetIsOutOfBounds) {
  SyncKernel k;
  Value before = k.w.global_tensor(k.w.param(0), k.w.i32(-8), k.n);
  k.w.data_copy(k.x, before, k.w.i32(8));
  EXPECT_TRUE(is_error(error_of([&] { k.run(); }), ASC_ERR_OUT_OF_BOUNDS, {"[-32, 0)"}));
}

TEST(Memory, FirstFailingBlockIsReported) {
  const TiledBinary k;
  asc::Module m;
  CoreWriter w(m, "vadd", k.params());
  emit_tiled_binary(w, k);
  const asc::Kernel& kernel = w.finish();
  const size_t n = 8 * static_cast<size_t>(k.block_length);
  std::vector<float> x(n, 1.0f), y(n, 2.0f), z(n, 0.0f);
  // z is 7 blocks long: only block 7 writes outside it.
  auto e = error_of([&] {
    asc::LaunchOptions strict;  // the board writes on into its allocator's segment (test_board_memory.cpp)
    strict.strict = true;
    run_model(kernel, 8, {buffer_arg(x), buffer_arg(y), buffer_arg(z, 7 * k.block_length * sizeof(float))}, strict);
  });
  EXPECT_TRUE(is_error(e, ASC_ERR_OUT_OF_BOUNDS, {"block 7:", "kernel argument 2"}));
}

// ---- launch arguments ------------------------------------------------------------------

class LaunchArgs : public ::testing::Test {
 protected:
  void SetUp() override {
    emit_tiled_binary(w_, k_);
    kernel_ = &w_.finish();
  }
  std::optional<asc::Error> launch(uint32_t blocks, std::vector<asc_arg_t> args) {
    return error_of([&] { run_model(*kernel_, blocks, std::move(args)); });
  }

  TiledBinary k_;
  asc::Module m_;
  CoreWriter w_{m_, "vadd", k_.params()};
  const asc::Kernel* kernel_ = nullptr;
  std::vector<float> x_ = std::vector<float>(2048), y_ = x_, z_ = x_;
};

TEST_F(LaunchArgs, WrongCountIsATypeError) {
  EXPECT_TRUE(is_error(launch(1, {buffer_arg(x_), buffer_arg(y_)}), ASC_ERR_TYPE, {"takes 3 argument(s), got 2"}));
}

TEST_F(LaunchArgs, WrongDtypeIsATypeError) {
  std::vector<_Float16> half(2048);
  EXPECT_TRUE(is_error(launch(1, {buffer_arg(x_), buffer_arg(half), buffer_arg(z_)}), ASC_ERR_TYPE,
                       {"argument 1", "float32", "float16"}));
}

TEST_F(LaunchArgs, ScalarForABufferIsATypeError) {
  EXPECT_TRUE(is_error(launch(1, {buffer_arg(x_), int_scalar_arg(ASC_DTYPE_FLOAT32, 1), buffer_arg(z_)}), ASC_ERR_TYPE,
                       {"argument 1", "must be a buffer"}));
}

TEST_F(LaunchArgs, BlockDimZeroIsInvalid) {
  EXPECT_TRUE(
      is_error(launch(0, {buffer_arg(x_), buffer_arg(y_), buffer_arg(z_)}), ASC_ERR_INVALID_ARGUMENT, {"block_dim"}));
}

TEST_F(LaunchArgs, CorrectArgumentsRun) {
  EXPECT_FALSE(launch(1, {buffer_arg(x_), buffer_arg(y_), buffer_arg(z_)}).has_value());
}

TEST(LaunchScalarArgs, ScalarParameterDrivesTheKernel) {
  // Copies the first `count` elements (a kernel argument) of x to z.
  asc::Module m;
  CoreWriter w(
      m, "copy_n",
      {gm_addr_type(ASC_DTYPE_INT32), gm_addr_type(ASC_DTYPE_INT32), {ASC_TYPE_SCALAR, ASC_DTYPE_INT32, ASC_POS_GM}});
  Value count = w.param(2), zero = w.i32(0);
  Value x = w.local_tensor(0, 64, ASC_DTYPE_INT32, ASC_POS_VECIN, "x_local");
  w.data_copy(x, w.global_tensor(w.param(0), zero, count), count);
  w.sync(MTE2_MTE3, zero);
  w.data_copy(w.global_tensor(w.param(1), zero, count), x, count);
  const asc::Kernel& kernel = w.finish();
  std::vector<int32_t> xs = random_values<int32_t>(64, 5, -1000, 1000), zs(64, -1);
  run_model(kernel, 1, {buffer_arg(xs), buffer_arg(zs), int_scalar_arg(ASC_DTYPE_INT32, 24)});
  EXPECT_TRUE(same_bits(zs, xs, 0, 24));
  EXPECT_TRUE(same_bits(zs, std::vector<int32_t>(64, -1), 24, 64));
}

// ---- scalar unit ------------------------------------------------------------------------

struct ScalarCase {
  const char* python;  // what Python (with the dtype's wrap-around) computes
  int32_t expected;    // derived by hand
  Value value;         // the kernel's int32 result
};

TEST(ScalarSemantics, MatchPythonWithFixedWidthWrap) {
  asc::Module m;
  CoreWriter w(m, "scalars", ScalarProbe::params());
  auto i32 = [&](int64_t v) { return w.i32(v); };
  auto i16 = [&](int64_t v) { return w.constant(ASC_DTYPE_INT16, v); };
  auto i64 = [&](int64_t v) { return w.constant(ASC_DTYPE_INT64, v); };
  auto u32 = [&](int64_t v) { return w.constant(ASC_DTYPE_UINT32, v); };
  auto f32 = [&](double v) { return w.constant_f(ASC_DTYPE_FLOAT32, v); };
  auto op = [&](const char* name, Value a, Value b) { return w.op(name, {a, b}); };
  auto as_i32 = [&](Value v) { return w.cast(v, ASC_DTYPE_INT32); };

  // x = 1; for i in range(4): x += i
  Value acc = w.op("var", {i32(1)});
  Value i = w.for_begin(i32(0), i32(4), i32(1));
  w.op("assign", {acc, op("arith.add", acc, i)});
  w.for_end();

  const std::vector<ScalarCase> cases = {
      {"0", 0, i32(0)},
      {"-1", -1, i32(-1)},
      // // rounds towards negative infinity; % takes the sign of the divisor.
      {"7 // 2", 3, op("arith.floordiv", i32(7), i32(2))},
      {"7 % 2", 1, op("arith.mod", i32(7), i32(2))},
      {"-7 // 2", -4, op("arith.floordiv", i32(-7), i32(2))},
      {"-7 % 2", 1, op("arith.mod", i32(-7), i32(2))},
      {"7 // -2", -4, op("arith.floordiv", i32(7), i32(-2))},
      {"7 % -2", -1, op("arith.mod", i32(7), i32(-2))},
      {"-7 // -2", 3, op("arith.floordiv", i32(-7), i32(-2))},
      {"-7 % -2", -1, op("arith.mod", i32(-7), i32(-2))},
      {"-8 // 2", -4, op("arith.floordiv", i32(-8), i32(2))},
      {"-8 % 2", 0, op("arith.mod", i32(-8), i32(2))},
      {"-1 // 10", -1, op("arith.floordiv", i32(-1), i32(10))},
      {"-1 % 10", 9, op("arith.mod", i32(-1), i32(10))},
      {"int16: -7 // 2", -4, as_i32(op("arith.floordiv", i16(-7), i16(2)))},
      {"int64: (get_block_idx() - 7) // 2", -4,
       as_i32(op("arith.floordiv", op("arith.sub", w.op("get_block_idx", {}), i64(7)), i64(2)))},
      // int32 arithmetic wraps modulo 2^32.
      {"int32: 2147483647 + 1", kI32Min, op("arith.add", i32(kI32Max), i32(1))},
      {"int32: -2147483648 - 1", kI32Max, op("arith.sub", i32(kI32Min), i32(1))},
      {"int32: 65536 * 65536", 0, op("arith.mul", i32(65536), i32(65536))},
      {"int32: 46341 * 46341", -2147479015, op("arith.mul", i32(46341), i32(46341))},
      {"int32: -(-2147483648)", kI32Min, w.op("arith.neg", {i32(kI32Min)})},
      {"int32: -2147483648 // -1", kI32Min, op("arith.floordiv", i32(kI32Min), i32(-1))},
      {"int32: -2147483648 % -1", 0, op("arith.mod", i32(kI32Min), i32(-1))},
      {"int16: 32767 + 1", -32768, as_i32(op("arith.add", i16(32767), i16(1)))},
      {"int32(int64 4294967297)", 1, as_i32(i64(4294967297))},
      // bit operations (>> is arithmetic, as in Python)
      {"-16 >> 2", -4, op("arith.shr", i32(-16), i32(2))},
      {"-1 >> 40", -1, op("arith.shr", i32(-1), i32(40))},
      {"int32: 1 << 31", kI32Min, op("arith.shl", i32(1), i32(31))},
      {"int32: 1 << 40", 0, op("arith.shl", i32(1), i32(40))},
      {"5 & 3", 1, op("arith.and", i32(5), i32(3))},
      {"5 | 3", 7, op("arith.or", i32(5), i32(3))},
      {"5 ^ 3", 6, op("arith.xor", i32(5), i32(3))},
      {"min(-3, 2)", -3, op("arith.min", i32(-3), i32(2))},
      {"max(-3, 2)", 2, op("arith.max", i32(-3), i32(2))},
      // comparisons give bool; unsigned dtypes compare as unsigned
      {"int(-1 < 1)", 1, as_i32(op("cmp.lt", i32(-1), i32(1)))},
      {"int(-1 > 1)", 0, as_i32(op("cmp.gt", i32(-1), i32(1)))},
      {"uint32: int(4294967295 > 1)", 1, as_i32(op("cmp.gt", u32(4294967295), u32(1)))},
      // floats: floor division and modulo as in Python, int() truncates
      {"int(-7.5 // 2.0)", -4, as_i32(op("arith.floordiv", f32(-7.5), f32(2.0)))},
      {"int((-7.5 % 2.0) * 4)", 2, as_i32(op("arith.mul", op("arith.mod", f32(-7.5), f32(2.0)), f32(4)))},
      {"int((7.5 % -2.0) * 4)", -2, as_i32(op("arith.mul", op("arith.mod", f32(7.5), f32(-2.0)), f32(4)))},
      {"int(7.0 / 2.0 * 2)", 7, as_i32(op("arith.mul", op("arith.truediv", f32(7), f32(2)), f32(2)))},
      {"int(-2.7)", -2, as_i32(f32(-2.7))},
      {"x = 1; for i in range(4): x += i", 7, acc},
  };
  ScalarProbe probe(w);
  for (const ScalarCase& c : cases) probe.observe(c.value);
  const asc::Kernel& kernel = w.finish();

  std::vector<int32_t> ones(ScalarProbe::kOnes, 1), out(ScalarProbe::out_elements(cases.size()), 0);
  run_model(kernel, 1, {buffer_arg(ones), buffer_arg(out)});
  for (size_t c = 0; c < cases.size(); ++c)
    EXPECT_EQ(ScalarProbe::decode(out, c), cases[c].expected) << cases[c].python;
}

TEST(ScalarSemantics, IntegerDivisionByZeroIsARuntimeError) {
  asc::Module m;
  CoreWriter w(m, "div0", {});
  w.op("arith.floordiv", {w.i32(7), w.i32(0)});
  const uint32_t line = w.last_line();
  auto e = error_of([&] { run_model(w.finish(), 1, {}); });
  ASSERT_TRUE(is_error(e, ASC_ERR_RUNTIME, {"division by zero"}));
  EXPECT_EQ(e->loc().line, line);
}

// ---- the region-proposal sorts, on a platform row that has them -----------------------------------------------
// No A2/A3 row has RpSort16, ProposalConcat, ProposalExtract or MrgSort4: the launch fails naming the platform.
// On a copy of the Ascend910B1 row with Platform::region_proposals set (as a row of the Atlas training series
// would be) they run on 8-element proposals [x1, y1, x2, y2, score, label, -, -], checked here against loops
// written from the documentation: proposal_concat into the score field, rp_sort16, proposal_extract back, and
// mrg_sort4 of the sorted groups.
template <typename T>
struct ProposalKernel {
  static constexpr int64_t kElements = 64;              // 4 repeats of 16
  static constexpr int64_t kProposals = kElements * 8;  // elements of the proposal buffers
  static constexpr asc_dtype_t kDtype = dtype_of<T>();
  asc::Module m;
  CoreWriter w{m, "proposals", gm_params(kDtype, 3)};
  Value zero = w.i32(0);
  Value x_gm = w.global_tensor(w.param(0), zero, w.i32(kElements));
  Value p_gm = w.global_tensor(w.param(1), zero, w.i32(kProposals));
  Value z_gm = w.global_tensor(w.param(2), zero, w.i32(kProposals));
  Value x = w.local_tensor(0, kElements, kDtype, ASC_POS_VECIN, "scores");
  Value p = w.local_tensor(4096, kProposals, kDtype, ASC_POS_VECCALC, "proposals");
  Value q = w.local_tensor(12288, kProposals, kDtype, ASC_POS_VECCALC, "sorted");
  Value z = w.local_tensor(20480, kProposals, kDtype, ASC_POS_VECOUT, "merged");
  std::vector<T> xs, ps, zs = std::vector<T>(kProposals, static_cast<T>(-7));

  ProposalKernel() {
    // few distinct scores (ties within and across the groups); the proposals' other fields are their number
    std::vector<int> draw = random_values<int>(kElements, 5, -4, 4);
    for (int v : draw) xs.push_back(static_cast<T>(v * 0.5));
    for (int64_t i = 0; i < kProposals; ++i) ps.push_back(static_cast<T>(i % 8 == 4 ? 0 : i / 8 + 0.25 * (i % 8)));
  }
  void build() {
    w.data_copy(x, x_gm, w.i32(kElements));
    w.data_copy(p, p_gm, w.i32(kProposals));
    w.data_copy(z, z_gm, w.i32(kProposals));
    w.sync(MTE2_V, zero);
    w.op("proposal_concat", {p, x, w.i32(4), w.i32(4)});
    w.op("pipe_barrier", {}, {int_attr("pipe", 1)});
    w.op("rp_sort16", {q, p, w.i32(4)});
    w.op("pipe_barrier", {}, {int_attr("pipe", 1)});
    const int64_t group = 16 * 8;  // elements of 16 proposals
    w.op("mrg_sort4",
         {z, q, w.local_slice(q, w.i32(group)), w.local_slice(q, w.i32(2 * group)), w.local_slice(q, w.i32(3 * group)),
          w.i32(16), w.i32(16), w.i32(16), w.i32(16), w.i32(15), w.i32(1)},
         {int_attr("if_exhausted_suspension", 0), int_attr("lists", 4)});
    w.op("pipe_barrier", {}, {int_attr("pipe", 1)});
    w.op("proposal_extract", {x, z, w.i32(4), w.i32(4)});
    w.sync(V_MTE3, zero);
    w.data_copy(z_gm, z, w.i32(kProposals));
    w.data_copy(x_gm, x, w.i32(kElements));
  }
  void run(const asc::Platform& platform) {
    std::vector<asc_arg_t> args{buffer_arg(xs), buffer_arg(ps), buffer_arg(zs)};
    asc::sim::LaunchReport r = asc::sim::run_kernel(w.finish(), platform, 1, args.data(), args.size(), {});
    (void)r;
  }
};

template <typename T>
void check_region_proposal_lane() {
  ProposalKernel<T> k;
  const std::vector<T> scores = k.xs, proposals = k.ps;
  k.build();
  asc::Platform with = *asc::find_platform("Ascend910B1");
  with.region_proposals = true;
  k.run(with);
  // the reference: concat the scores into field 4, sort each group of 16 (stable), merge the 4 groups
  struct P {
    float score;
    int64_t number;
  };
  std::vector<std::vector<P>> groups(4);
  for (int64_t i = 0; i < ProposalKernel<T>::kElements; ++i) groups[i / 16].push_back({float(scores[i]), i});
  for (auto& g : groups) std::stable_sort(g.begin(), g.end(), [](P a, P b) { return a.score > b.score; });
  std::vector<P> merged;
  size_t at[4] = {0, 0, 0, 0};
  for (int n = 0; n < 64; ++n) {
    int best = -1;
    for (int g = 0; g < 4; ++g)
      if (at[g] < 16 && (best < 0 || groups[g][at[g]].score > groups[best][at[best]].score)) best = g;
    merged.push_back(groups[best][at[best]++]);
  }
  for (int64_t j = 0; j < 64; ++j) {
    EXPECT_EQ(float(k.xs[j]), merged[j].score) << j;  // proposal_extract of the score field
    for (int f = 0; f < 8; ++f) {
      float want = f == 4 ? merged[j].score : float(proposals[merged[j].number * 8 + f]);
      EXPECT_EQ(float(k.zs[j * 8 + f]), want) << "proposal " << j << " field " << f;
    }
  }
}

TEST(RegionProposals, RunOnAPlatformThatHasThem) {
  check_region_proposal_lane<_Float16>();  // 16-byte proposals (the Atlas training series)
  check_region_proposal_lane<float>();     // 32-byte proposals (Atlas inference AI Core)
}

TEST(RegionProposals, AreAnErrorOnAtlasA2) {
  ProposalKernel<_Float16> k;
  k.build();
  EXPECT_TRUE(is_error(error_of([&] { k.run(*asc::find_platform("Ascend910B1")); }), ASC_ERR_UNSUPPORTED,
                       {"proposal_concat (Ascend C AscendC::ProposalConcat) is a region-proposal instruction",
                        "Ascend910B1 (Atlas A2/A3) does not have it"}));
}

}  // namespace

// ---- scatter, on a platform row that has it ---------------------------------------------------------------------
// No A2/A3 row has Scatter: the launch fails naming the platform. On a copy of the Ascend910B1 row with
// Platform::scatter set it puts src[i] at byte dst_base + dst_offset[i] of dst (count form; the mask form takes
// the selected elements of each repeat), checked against a loop written from the documentation.
namespace {
struct ScatterKernel {
  static constexpr int64_t kN = 128;  // float32: two repeats of 64
  asc::Module m;
  CoreWriter w{
      m, "scatter", {gm_addr_type(ASC_DTYPE_FLOAT32), gm_addr_type(ASC_DTYPE_UINT32), gm_addr_type(ASC_DTYPE_FLOAT32)}};
  std::vector<float> src = random_values<float>(kN, 11, -5, 5), dst = std::vector<float>(2 * kN, -1.0f);
  std::vector<uint32_t> offsets;
  explicit ScatterKernel(bool mask_form) {
    std::vector<uint32_t> slots(2 * kN);
    for (uint32_t i = 0; i < slots.size(); ++i) slots[i] = i;
    std::mt19937 rng(5);
    std::shuffle(slots.begin(), slots.end(), rng);
    for (int64_t i = 0; i < kN; ++i) offsets.push_back(slots[i] * 4);
    Value zero = w.i32(0);
    Value s_gm = w.global_tensor(w.param(0), zero, w.i32(kN));
    Value o_gm = w.global_tensor(w.param(1), zero, w.i32(kN));
    Value d_gm = w.global_tensor(w.param(2), zero, w.i32(2 * kN));
    Value s = w.local_tensor(0, kN, ASC_DTYPE_FLOAT32, ASC_POS_VECIN, "src");
    Value o = w.local_tensor(1024, kN, ASC_DTYPE_UINT32, ASC_POS_VECIN, "offsets");
    Value d = w.local_tensor(2048, 2 * kN, ASC_DTYPE_FLOAT32, ASC_POS_VECOUT, "dst");
    w.data_copy(s, s_gm, w.i32(kN));
    w.data_copy(o, o_gm, w.i32(kN));
    w.data_copy(d, d_gm, w.i32(2 * kN));
    w.sync(MTE2_V, zero);
    if (mask_form)  // the first 40 elements of each repeat; src repeats 8 blocks apart
      w.op("scatter.mask", {d, s, o, w.i32(0), w.i32(40), w.i32(0), w.i32(2), w.i32(8)}, {int_attr("mask_mode", 0)});
    else
      w.op("scatter", {d, s, o, w.i32(0), w.i32(kN)});
    w.sync(V_MTE3, zero);
    w.data_copy(d_gm, d, w.i32(2 * kN));
  }
  void run(const asc::Platform& platform) {
    std::vector<asc_arg_t> args{buffer_arg(src), buffer_arg(offsets), buffer_arg(dst)};
    (void)asc::sim::run_kernel(w.finish(), platform, 1, args.data(), args.size(), {});
  }
};
}  // namespace

TEST(Scatter, PutsEachElementAtItsByteOffset) {
  for (bool mask_form : {false, true}) {
    ScatterKernel k(mask_form);
    std::vector<float> want = k.dst;
    for (int64_t i = 0; i < ScatterKernel::kN; ++i)
      if (!mask_form || i % 64 < 40) want[k.offsets[i] / 4] = k.src[i];
    asc::Platform with = *asc::find_platform("Ascend910B1");
    with.scatter = true;
    k.run(with);
    EXPECT_EQ(k.dst, want) << (mask_form ? "mask form" : "count form");
  }
}

TEST(Scatter, IsAnErrorOnAtlasA2) {
  ScatterKernel k(false);
  auto e = error_of([&] { k.run(*asc::find_platform("Ascend910B1")); });
  EXPECT_TRUE(is_error(e, ASC_ERR_UNSUPPORTED, {"Ascend910B1 (Atlas A2/A3) has no Scatter instruction"}));
}

// ---- mmad's dtypes of the Atlas training series and inference AI Core ------------------------------------------
// float16 <- float16 (a float16 L0C: 16 x 16 x 2-byte fractals), uint32 / int32 <- uint8 and int32 <- uint8 x int8
// are not Atlas A2/A3's: the launch fails naming the platform. On a copy of the Ascend910B1 row with
// Platform::mmad_legacy_dtypes set they multiply, checked against sums written here: A (M x K) and B (K x N) go
// to GM already in L0A's Zz and L0B's Zn layouts, through L1 to L0A/L0B fractal by fractal, and L0C comes back
// to GM byte for byte (a fixpipe of it viewed as int32 rows of 16).
namespace {
template <typename A, typename B, typename C>
struct LegacyMmadKernel {
  static constexpr int64_t kM = 20, kN = 24, kK = 40;  // tails in every direction
  static constexpr int64_t kC0 = 32 / sizeof(A), kM1 = 2, kN1 = 2, kK1 = (kK + kC0 - 1) / kC0;
  static constexpr int64_t kA = kM1 * kK1 * 16 * kC0, kB = kK1 * kN1 * 16 * kC0;  // elements of the fractals
  static constexpr int64_t kCBytes = kM1 * kN1 * 256 * static_cast<int64_t>(sizeof(C));
  asc::Module m;
  CoreWriter w{
      m, "legacy_mmad", {gm_addr_type(dtype_of<A>()), gm_addr_type(dtype_of<B>()), gm_addr_type(ASC_DTYPE_INT32)}};
  std::vector<A> a = std::vector<A>(kA, A(0));
  std::vector<B> b = std::vector<B>(kB, B(0));
  std::vector<int32_t> c = std::vector<int32_t>(kCBytes / 4, 0);
  std::vector<double> am = std::vector<double>(kM * kK), bm = std::vector<double>(kK * kN);

  LegacyMmadKernel() {
    std::vector<int> av = random_values<int>(kM * kK, 3, std::is_signed_v<A> ? -6 : 0, 9);
    std::vector<int> bv = random_values<int>(kK * kN, 4, std::is_signed_v<B> ? -6 : 0, 9);
    for (int64_t i = 0; i < kM; ++i)
      for (int64_t k = 0; k < kK; ++k) {
        A v = static_cast<A>(std::is_floating_point_v<A> ? av[i * kK + k] * 0.25 : av[i * kK + k]);
        a[(((i / 16) * kK1 + k / kC0) * 16 + i % 16) * kC0 + k % kC0] = v;  // Zz
        am[i * kK + k] = static_cast<double>(v);
      }
    for (int64_t k = 0; k < kK; ++k)
      for (int64_t j = 0; j < kN; ++j) {
        B v = static_cast<B>(std::is_floating_point_v<B> ? bv[k * kN + j] * 0.5 : bv[k * kN + j]);
        b[(((k / kC0) * kN1 + j / 16) * 16 + j % 16) * kC0 + k % kC0] = v;  // Zn
        bm[k * kN + j] = static_cast<double>(v);
      }
    w.builder().set_option("kernel_type", static_cast<int64_t>(asc::KernelType::AicOnly));
    Value zero = w.i32(0);
    Value a_gm = w.global_tensor(w.param(0), zero, w.i32(kA));
    Value b_gm = w.global_tensor(w.param(1), zero, w.i32(kB));
    Value c_gm = w.global_tensor(w.param(2), zero, w.i32(kCBytes / 4));
    int64_t a_bytes = kA * sizeof(A);
    Value a1 = w.local_tensor(0, kA, dtype_of<A>(), ASC_POS_A1, "a1");
    Value b1 = w.local_tensor(a_bytes, kB, dtype_of<B>(), ASC_POS_B1, "b1");
    Value a2 = w.local_tensor(0, kA, dtype_of<A>(), ASC_POS_A2, "a2");
    Value b2 = w.local_tensor(0, kB, dtype_of<B>(), ASC_POS_B2, "b2");
    Value c1 = w.local_tensor(0, kCBytes / sizeof(C), dtype_of<C>(), ASC_POS_CO1, "c1");
    Value raw = w.local_tensor(0, kCBytes / 4, ASC_DTYPE_INT32, ASC_POS_CO1, "c1_as_int32");
    auto barrier = [&] { w.op("pipe_barrier", {}, {int_attr("pipe", 6)}); };
    // n_value 1, d_value all: a contiguous copy into L1
    for (auto [to, from, n] : {std::tuple{a1, a_gm, kA}, std::tuple{b1, b_gm, kB}})
      w.op("data_copy.nd2nz", {to, from, w.i32(1), w.i32(1), w.i32(n), zero, zero, w.i32(1), w.i32(1), zero});
    barrier();
    for (auto [to, from, n] : {std::tuple{a2, a1, kA * sizeof(A)}, std::tuple{b2, b1, kB * sizeof(B)}})
      w.op("load_data", {to, from, zero, w.i32(static_cast<int64_t>(n) / 512), w.i32(1), zero, zero, zero, zero});
    barrier();
    w.op(std::is_same_v<C, _Float16> ? "mmad.f16" : "mmad",
         {c1, a2, b2, w.i32(kM), w.i32(kN), w.i32(kK), w.i32(1), zero});
    barrier();
    w.op(
        "fixpipe",
        {c_gm, raw, w.i32(16), w.i32(kCBytes / 64), w.i32(kM1 * 16), w.i32(16), zero, zero, w.i32(1), zero, zero, zero},
        {int_attr("nz2nd", 1), int_attr("deq_register", 0)});
  }
  void run(const asc::Platform& platform) {
    std::vector<asc_arg_t> args{buffer_arg(a), buffer_arg(b), buffer_arg(c)};
    (void)asc::sim::run_kernel(w.finish(), platform, 1, args.data(), args.size(), {});
  }
  // L0C element (i, j): Nz of 16 x 16 fractals, column blocks kM1 * 16 rows apart
  C at(int64_t i, int64_t j) const {
    C v;
    std::memcpy(&v,
                reinterpret_cast<const uint8_t*>(c.data()) + ((j / 16) * kM1 * 16 * 16 + i * 16 + j % 16) * sizeof(C),
                sizeof(C));
    return v;
  }
  double want(int64_t i, int64_t j) const {
    double sum = 0;
    for (int64_t k = 0; k < kK; ++k) sum += am[i * kK + k] * bm[k * kN + j];
    return sum;
  }
};

template <typename A, typename B, typename C>
void check_legacy_mmad() {
  LegacyMmadKernel<A, B, C> k;
  asc::Platform with = *asc::find_platform("Ascend910B1");
  with.mmad_legacy_dtypes = true;
  k.run(with);
  for (int64_t i = 0; i < k.kM; ++i)
    for (int64_t j = 0; j < k.kN; ++j)
      if constexpr (std::is_same_v<C, _Float16>)  // the exact sum rounded once to float16
        ASSERT_EQ(static_cast<float>(k.at(i, j)), static_cast<float>(static_cast<_Float16>(k.want(i, j))))
            << i << ", " << j;
      else
        ASSERT_EQ(static_cast<int64_t>(k.at(i, j)), static_cast<int64_t>(k.want(i, j))) << i << ", " << j;
}
}  // namespace

TEST(LegacyMmad, RunsOnAPlatformThatHasTheDtypes) {
  check_legacy_mmad<_Float16, _Float16, _Float16>();  // both series
  check_legacy_mmad<uint8_t, uint8_t, uint32_t>();    // the Atlas training series
  check_legacy_mmad<uint8_t, uint8_t, int32_t>();     // Atlas inference AI Core
  check_legacy_mmad<uint8_t, int8_t, int32_t>();      // both
}

TEST(LegacyMmad, IsAnErrorOnAtlasA2) {
  LegacyMmadKernel<_Float16, _Float16, _Float16> k;
  auto e = error_of([&] { k.run(*asc::find_platform("Ascend910B1")); });
  EXPECT_TRUE(is_error(e, ASC_ERR_UNSUPPORTED,
                       {"mmad: Ascend910B1 (Atlas A2/A3) has no mmad of float16 x float16 into float16"}));
}

// ---- LoadData2dTransposeParamsV2, on a platform row that has it -------------------------------------------------
// Ascend 950's form: no A2/A3 row has it, and the launch fails naming the platform. On a copy of the Ascend910B1
// row with Platform::load_transpose_v2 set, L1 fractals (start_index, src_stride, src_frac_gap in 512-byte units)
// go transposed into L0B; an mmad by the identity reads L0B back as Zn, and the test compares it with the
// transposes written here. 2-byte: repeat i transposes fractal 1 + 2i; 1-byte: fractals 4i and 4i + 2 stacked into
// a 32 x 32 square, whose transpose's rows 0-15 and 16-31 land R fractals apart (dst_frac_gap R - 1).
namespace {
template <typename T, typename C>
struct TransposeV2Kernel {
  static constexpr int64_t kC0 = 32 / sizeof(T), kK1 = 2, kN1 = 2, kK = kK1 * kC0, kN = kN1 * 16, kM = kK;
  static constexpr int64_t kM1 = kM / 16, kFractals = kK1 * kN1, kRepeats = sizeof(T) == 1 ? kFractals / 2 : kFractals;
  static constexpr int64_t kSrcFractals = sizeof(T) == 1 ? 4 * kRepeats : 2 * kRepeats + 1;
  static constexpr int64_t kCBytes = kM1 * kN1 * 256 * 4;
  static constexpr int64_t kPer = 512 / sizeof(T);  // elements per fractal
  asc::Module m;
  CoreWriter w{
      m, "transpose_v2", {gm_addr_type(dtype_of<T>()), gm_addr_type(dtype_of<T>()), gm_addr_type(ASC_DTYPE_INT32)}};
  std::vector<T> src = std::vector<T>(kSrcFractals * kPer), eye = std::vector<T>(kM1 * kK1 * kPer, T(0));
  std::vector<int32_t> out = std::vector<int32_t>(kCBytes / 4, 0);

  TransposeV2Kernel() {
    std::vector<int> v = random_values<int>(src.size(), 9, -50, 50);
    for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<T>(v[i]);
    for (int64_t i = 0; i < kM; ++i)  // the identity in Zz
      eye[(((i / 16) * kK1 + i / kC0) * 16 + i % 16) * kC0 + i % kC0] = T(1);
    w.builder().set_option("kernel_type", static_cast<int64_t>(asc::KernelType::AicOnly));
    Value zero = w.i32(0), one = w.i32(1);
    Value s_gm = w.global_tensor(w.param(0), zero, w.i32(static_cast<int64_t>(src.size())));
    Value e_gm = w.global_tensor(w.param(1), zero, w.i32(static_cast<int64_t>(eye.size())));
    Value o_gm = w.global_tensor(w.param(2), zero, w.i32(kCBytes / 4));
    Value s1 = w.local_tensor(0, static_cast<int64_t>(src.size()), dtype_of<T>(), ASC_POS_B1, "src_l1");
    Value e1 = w.local_tensor(65536, static_cast<int64_t>(eye.size()), dtype_of<T>(), ASC_POS_A1, "eye_l1");
    Value b2 = w.local_tensor(0, kFractals * kPer, dtype_of<T>(), ASC_POS_B2, "l0b");
    Value a2 = w.local_tensor(0, static_cast<int64_t>(eye.size()), dtype_of<T>(), ASC_POS_A2, "l0a");
    Value c1 = w.local_tensor(0, kCBytes / 4, dtype_of<C>(), ASC_POS_CO1, "l0c");
    Value raw = w.local_tensor(0, kCBytes / 4, ASC_DTYPE_INT32, ASC_POS_CO1, "l0c_as_int32");
    auto barrier = [&] { w.op("pipe_barrier", {}, {int_attr("pipe", 6)}); };
    for (auto [to, from, n] : {std::tuple{s1, s_gm, src.size()}, std::tuple{e1, e_gm, eye.size()}})
      w.op("data_copy.nd2nz", {to, from, one, one, w.i32(static_cast<int64_t>(n)), zero, zero, one, one, zero});
    barrier();
    if (sizeof(T) == 1)  // start 0, stride 4, dst_gap 0, dst_frac_gap R - 1, src_frac_gap 1
      w.op("load_data_with_transpose.v2",
           {b2, s1, zero, w.i32(kRepeats), w.i32(4), zero, w.i32(kRepeats - 1), one, zero});
    else  // start 1, stride 2
      w.op("load_data_with_transpose.v2", {b2, s1, one, w.i32(kRepeats), w.i32(2), zero, zero, zero, zero});
    w.op("load_data", {a2, e1, zero, w.i32(static_cast<int64_t>(eye.size()) / kPer), one, zero, zero, zero, zero});
    barrier();
    w.op("mmad", {c1, a2, b2, w.i32(kM), w.i32(kN), w.i32(kK), one, zero});
    barrier();
    w.op("fixpipe",
         {o_gm, raw, w.i32(16), w.i32(kCBytes / 64), w.i32(kM1 * 16), w.i32(16), zero, zero, one, zero, zero, zero},
         {int_attr("nz2nd", 1), int_attr("deq_register", 0)});
  }
  void run(const asc::Platform& platform) {
    std::vector<asc_arg_t> args{buffer_arg(src), buffer_arg(eye), buffer_arg(out)};
    (void)asc::sim::run_kernel(w.finish(), platform, 1, args.data(), args.size(), {});
  }
  // L0B as the transposes say, element e of fractal f
  std::vector<double> l0b() const {
    std::vector<double> b(static_cast<size_t>(kFractals * kPer));
    for (int64_t i = 0; i < kRepeats; ++i) {
      if (sizeof(T) == 2) {
        const T* s = src.data() + (1 + 2 * i) * kPer;
        for (int64_t r = 0; r < 16; ++r)
          for (int64_t c = 0; c < 16; ++c) b[i * kPer + r * 16 + c] = static_cast<double>(s[c * 16 + r]);
        continue;
      }
      auto square = [&](int64_t r, int64_t c) {  // 32 x 32: fractal 4i over fractal 4i + 2
        return static_cast<double>(src[(4 * i + (r < 16 ? 0 : 2)) * kPer + (r % 16) * 32 + c]);
      };
      for (int64_t r = 0; r < 32; ++r)  // transpose row r -> fractal i (rows 0-15) or i + R (16-31)
        for (int64_t c = 0; c < 32; ++c) b[(i + (r < 16 ? 0 : kRepeats)) * kPer + (r % 16) * 32 + c] = square(c, r);
    }
    return b;
  }
  double c_at(int64_t i, int64_t j) const {
    C v;
    std::memcpy(&v, reinterpret_cast<const uint8_t*>(out.data()) + ((j / 16) * kM1 * 16 * 16 + i * 16 + j % 16) * 4, 4);
    return static_cast<double>(v);
  }
};

template <typename T, typename C>
void check_transpose_v2() {
  TransposeV2Kernel<T, C> k;
  asc::Platform with = *asc::find_platform("Ascend910B1");
  with.load_transpose_v2 = true;
  k.run(with);
  std::vector<double> b = k.l0b();
  constexpr int64_t c0 = k.kC0;
  for (int64_t i = 0; i < k.kK; ++i)  // I x B: element (i, j) of B, read from L0B's Zn
    for (int64_t j = 0; j < k.kN; ++j)
      ASSERT_EQ(k.c_at(i, j), b[(((i / c0) * k.kN1 + j / 16) * 16 + j % 16) * c0 + i % c0]) << i << ", " << j;
}
}  // namespace

TEST(TransposeV2, RunsOnAPlatformThatHasIt) {
  check_transpose_v2<_Float16, float>();
  check_transpose_v2<int8_t, int32_t>();
}

TEST(TransposeV2, IsAnErrorOnAtlasA2) {
  TransposeV2Kernel<_Float16, float> k;
  auto e = error_of([&] { k.run(*asc::find_platform("Ascend910B1")); });
  EXPECT_TRUE(is_error(e, ASC_ERR_UNSUPPORTED,
                       {"Ascend910B1 (Atlas A2/A3) has no LoadDataWithTranspose with LoadData2dTransposeParamsV2"}));
}

// The launch's clock (the inline budget, the time budget): its ticks measure what steady_clock measures.
TEST(TickClock, CountsWhatSteadyClockCounts) {
  namespace tc = asc::tick_clock;
  const auto t0 = std::chrono::steady_clock::now();
  const tc::Ticks c0 = tc::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const tc::Ticks c1 = tc::now();
  const auto t1 = std::chrono::steady_clock::now();
  ASSERT_GT(c1, c0);
  const auto steady_ns = static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
  const auto ticks_ns = static_cast<double>(tc::to_ns(c1 - c0));
  EXPECT_NEAR(ticks_ns, steady_ns, 0.05 * steady_ns);
  EXPECT_NEAR(static_cast<double>(tc::to_ns(tc::from_ns(1'000'000'000))), 1e9, 1e3);
  EXPECT_EQ(tc::from_ns(std::numeric_limits<uint64_t>::max()), std::numeric_limits<tc::Ticks>::max());
}
