// Memory like the board's (docs/model-backend.md "Memory like the board's"):
// a GM argument is its allocation, padded as the runtime's allocator pads it,
// inside the segment the caching allocator maps for it;
// a local tensor is a view of one flat Unified Buffer. What the board runs,
// the Model runs with a memcheck warning; strict mode makes each an error.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "kernel_fixtures.h"
#include "sim/gm_memory.h"
#include "sim/launch.h"

namespace {

using namespace asc_test;

constexpr int64_t kN = 64;  // float32 elements copied: 256 bytes

// Params x, y, z (float32 GM); x and y copied into the UB, z written from it.
struct Kernel {
  asc::Module m;
  CoreWriter w{m, "board", std::vector<asc_type_t>(3, gm_addr_type(ASC_DTYPE_FLOAT32))};
  Value n = w.i32(kN), zero = w.i32(0);
  Value x_gm = w.global_tensor(w.param(0), zero, n), y_gm = w.global_tensor(w.param(1), zero, n);
  Value z_gm = w.global_tensor(w.param(2), zero, n);
  Value x = w.local_tensor(0, kN, ASC_DTYPE_FLOAT32, ASC_POS_VECIN, "x_local");
  Value y = w.local_tensor(kN * 4, kN, ASC_DTYPE_FLOAT32, ASC_POS_VECIN, "y_local");
  Value z = w.local_tensor(2 * kN * 4, kN, ASC_DTYPE_FLOAT32, ASC_POS_VECOUT, "z_local");
  std::vector<float> xs = random_values<float>(kN, 1, -10, 10), ys = random_values<float>(kN, 2, -10, 10);
  std::vector<float> zs = std::vector<float>(kN, 0.0f);
  uint64_t x_bytes = kN * 4, y_bytes = kN * 4, z_bytes = kN * 4;

  uint32_t read_line = 0;
  void copy_x_to_z() {
    w.data_copy(x, x_gm, n);
    read_line = w.last_line();
    w.sync(MTE2_MTE3, zero);
    w.data_copy(z_gm, x, n);
  }
  asc::sim::LaunchReport run(uint32_t blocks = 1, bool strict = false) {
    const asc::Platform* platform = asc::find_platform("Ascend910B1");
    std::vector<asc_arg_t> args{buffer_arg(xs, x_bytes), buffer_arg(ys, y_bytes), buffer_arg(zs, z_bytes)};
    asc::sim::LaunchOptions options;
    options.strict = strict;
    return asc::sim::run_kernel(w.finish(), *platform, blocks, args.data(), args.size(), options);
  }
};

std::vector<std::string> memchecks(const asc::sim::LaunchReport& r) {
  std::vector<std::string> out;
  for (const auto& w : r.warnings)
    if (w.rfind("memcheck:", 0) == 0) out.push_back(w);
  return out;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

TEST(BoardMemory, AllocationIsRoundedAsAclrtMallocDoes) {
  EXPECT_EQ(asc::sim::board_allocation_bytes(0), 0u);
  EXPECT_EQ(asc::sim::board_allocation_bytes(1), 64u);
  EXPECT_EQ(asc::sim::board_allocation_bytes(240), 288u);
  EXPECT_EQ(asc::sim::board_allocation_bytes(256), 288u);
  EXPECT_EQ(asc::sim::board_allocation_bytes(1000), 1056u);
}

// x's buffer is 60 floats (240 bytes): the copy of 64 reads 16 bytes of its padding, which read as 0xFF.
TEST(BoardMemory, ReadIntoThePaddingReadsPoisonAndWarnsOnce) {
  Kernel k;
  k.copy_x_to_z();
  k.x_bytes = 60 * 4;
  const std::vector<float> before = k.xs;
  asc::sim::LaunchReport r = k.run();
  const auto m = memchecks(r);
  ASSERT_EQ(m.size(), 1u) << (m.empty() ? "" : m[0]);
  EXPECT_TRUE(has(m[0], "reads GM bytes [240, 256) of kernel argument 0, past its 240 bytes")) << m[0];
  EXPECT_TRUE(has(m[0], "padding")) << m[0];
  EXPECT_TRUE(has(m[0], "rounds it up to 288")) << m[0];
  EXPECT_TRUE(has(m[0], "kernels.py:" + std::to_string(k.read_line))) << m[0];
  for (int64_t i = 0; i < kN; ++i) {
    if (i < 60)
      EXPECT_EQ(bits(k.zs[i]), bits(k.xs[i])) << i;
    else
      EXPECT_EQ(bits(k.zs[i]), 0xFFFFFFFFu) << i;
  }
  EXPECT_EQ(std::memcmp(k.xs.data(), before.data(), kN * 4), 0);  // the caller's bytes past 240 untouched
}

// z's buffer is 60 floats: the 4 floats after them are the caller's memory, which the write must not touch.
TEST(BoardMemory, WriteIntoThePaddingLeavesTheCallersMemoryAlone) {
  Kernel k;
  k.copy_x_to_z();
  constexpr float kGuard = -12345.0f;
  k.zs.assign(kN, kGuard);
  k.z_bytes = 60 * 4;
  asc::sim::LaunchReport r = k.run();
  const auto m = memchecks(r);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_TRUE(has(m[0], "writes GM bytes [240, 256) of kernel argument 2")) << m[0];
  EXPECT_TRUE(has(m[0], "kept them apart from your buffer")) << m[0];
  for (int64_t i = 0; i < kN; ++i) EXPECT_EQ(bits(k.zs[i]), bits(i < 60 ? k.xs[i] : kGuard)) << i;
}

// Every block of a launch crossing the end at the same op warns once, not once per block.
TEST(BoardMemory, ManyBlocksCrossingTheEndWarnOncePerOpAndArgument) {
  Kernel k;
  k.copy_x_to_z();
  k.x_bytes = 60 * 4;
  k.z_bytes = 62 * 4;
  std::vector<float> guard_z(kN, 7.0f);
  k.zs = guard_z;
  asc::sim::LaunchReport r = k.run(4);
  const auto m = memchecks(r);
  // x read, z written (padding), and the blocks repeating the same write: three warnings.
  ASSERT_EQ(m.size(), 3u) << m[0];
  EXPECT_TRUE(has(m[0], "kernel argument 0")) << m[0];
  EXPECT_TRUE(has(m[1], "kernel argument 2")) << m[1];
  EXPECT_TRUE(has(m[2], "both write the same bytes")) << m[2];
  EXPECT_EQ(bits(k.zs[62]), bits(7.0f));
  EXPECT_EQ(bits(k.zs[63]), bits(7.0f));
}

// x's buffer is one float: the copy of 64 reads past its 64-byte allocation into the rest of the caching
// allocator's segment, which the board maps (other tensors' memory or free): it runs, with a warning.
TEST(BoardMemory, ReadPastTheAllocationIntoTheSegmentRunsWithAWarning) {
  Kernel k;
  k.copy_x_to_z();
  k.x_bytes = 4;
  asc::sim::LaunchReport r = k.run();
  const auto m = memchecks(r);
  ASSERT_EQ(m.size(), 1u) << (m.empty() ? "" : m[0]);
  EXPECT_TRUE(has(m[0], "reads GM bytes [4, 256) of kernel argument 0, past its 4 bytes and its 64-byte allocation"))
      << m[0];
  EXPECT_TRUE(has(m[0], "2097152-byte segment")) << m[0];
  EXPECT_TRUE(has(m[0], "belong to other tensors or are free")) << m[0];
  EXPECT_EQ(bits(k.zs[0]), bits(k.xs[0]));
  for (int64_t i = 1; i < kN; ++i) EXPECT_EQ(bits(k.zs[i]), 0xFFFFFFFFu) << i;
}

TEST(BoardMemory, SegmentReachFollowsTheCachingAllocatorsSegments) {
  constexpr uint64_t kMiB = 1024 * 1024;
  EXPECT_EQ(asc::sim::board_reach_bytes(0), 0u);
  EXPECT_EQ(asc::sim::board_reach_bytes(4), 2 * kMiB);
  EXPECT_EQ(asc::sim::board_reach_bytes(kMiB - 32), 2 * kMiB);         // a 1 MiB block: a small one
  EXPECT_EQ(asc::sim::board_reach_bytes(kMiB - 31), 20 * kMiB);        // one more byte: a large segment
  EXPECT_EQ(asc::sim::board_reach_bytes(10 * kMiB), 12 * kMiB);        // 10 MiB + 512: rounded to 2 MiB
  EXPECT_EQ(asc::sim::board_reach_bytes(10 * kMiB - 600), 20 * kMiB);  // a block just under 10 MiB
  EXPECT_EQ(asc::sim::board_reach_bytes(10 * kMiB - 64), 10 * kMiB);   // a 10 MiB block: its own segment
}

// Past the allocator's segment it is the error it always was (the board faults), and nothing is written.
TEST(BoardMemory, PastTheSegmentIsStillOutOfBounds) {
  Kernel k;
  const Value far = k.w.i32((2 * 1024 * 1024 - 128) / 4);  // 64 floats from here end 128 bytes past the segment
  const Value z_far = k.w.global_tensor(k.w.param(2), far, k.n);
  k.w.data_copy(k.x, k.x_gm, k.n);
  k.w.sync(MTE2_MTE3, k.zero);
  k.w.data_copy(z_far, k.x, k.n);
  constexpr float kGuard = 3.0f;
  k.zs.assign(kN, kGuard);
  k.z_bytes = 48 * 4;
  auto e = error_of([&] { k.run(); });
  ASSERT_TRUE(is_error(e, ASC_ERR_OUT_OF_BOUNDS,
                       {"kernel argument 2", "only 192 bytes", "allocation on the board has 224", "ends at 2097152"}));
  for (int64_t i = 0; i < kN; ++i) EXPECT_EQ(bits(k.zs[i]), bits(kGuard)) << i;
}

TEST(BoardMemory, StrictModeMakesThePaddingAnError) {
  Kernel k;
  k.copy_x_to_z();
  k.x_bytes = 60 * 4;
  auto e = error_of([&] { k.run(1, true); });
  EXPECT_TRUE(is_error(e, ASC_ERR_OUT_OF_BOUNDS, {"kernel argument 0", "only 240 bytes", "strict mode"}));
}

// add over 64 elements of tensors declared with 32, inside the Unified Buffer: the board computes all 64.
struct Overuse : Kernel {
  Value xs32 = w.local_tensor(0, kN / 2, ASC_DTYPE_FLOAT32, ASC_POS_VECIN, "x_short");
  Value ys32 = w.local_tensor(kN * 4, kN / 2, ASC_DTYPE_FLOAT32, ASC_POS_VECIN, "y_short");
  Value zs32 = w.local_tensor(2 * kN * 4, kN / 2, ASC_DTYPE_FLOAT32, ASC_POS_VECOUT, "z_short");
  uint32_t add_line = 0;
  void emit() {
    w.data_copy(x, x_gm, n);
    w.data_copy(y, y_gm, n);
    w.sync(MTE2_V, zero);
    w.op("add", {zs32, xs32, ys32, n});
    add_line = w.last_line();
    w.sync(V_MTE3, zero);
    w.data_copy(z_gm, z, n);
  }
};

TEST(BoardMemory, VectorOpPastItsLocalTensorInsideTheUbRunsWithAWarning) {
  Overuse k;
  k.emit();
  asc::sim::LaunchReport r = k.run();
  const auto m = memchecks(r);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_TRUE(has(m[0], "of a local tensor of 128 bytes (past its end, still inside the Unified Buffer)")) << m[0];
  EXPECT_TRUE(has(m[0], "kernels.py:" + std::to_string(k.add_line))) << m[0];
  for (int64_t i = 0; i < kN; ++i) EXPECT_EQ(bits(k.zs[i]), bits(k.xs[i] + k.ys[i])) << i;
}

TEST(BoardMemory, StrictModeMakesLocalOveruseAnError) {
  Overuse k;
  k.emit();
  auto e = error_of([&] { k.run(1, true); });
  EXPECT_TRUE(is_error(e, ASC_ERR_OUT_OF_BOUNDS, {"add", "strict mode"}));
}

TEST(BoardMemory, VectorOpPastTheUnifiedBufferIsOutOfBounds) {
  Kernel k;
  const Value last = k.w.local_tensor(kUbBytes - 128, kN / 2, ASC_DTYPE_FLOAT32, ASC_POS_VECCALC, "last");
  k.w.op("duplicate", {last, k.w.constant_f(ASC_DTYPE_FLOAT32, 1.0), k.n});
  auto e = error_of([&] { k.run(); });
  EXPECT_TRUE(is_error(e, ASC_ERR_OUT_OF_BOUNDS, {"duplicate"}));
}

// Two blocks copying the same x into the same z: harmless in any order, but the work is repeated.
TEST(BoardMemory, IdenticalWritesOfTwoBlocksWarnOnce) {
  Kernel k;
  k.copy_x_to_z();
  asc::sim::LaunchReport r = k.run(2);
  const auto m = memchecks(r);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_TRUE(has(m[0], "blocks 0 and 1 both write the same bytes to GM [0, 256) of kernel argument 2")) << m[0];
  EXPECT_TRUE(has(m[0], "the work is repeated")) << m[0];
  EXPECT_EQ(std::memcmp(k.zs.data(), k.xs.data(), kN * 4), 0);
}

TEST(BoardMemory, StrictModeMakesIdenticalWritesAConflict) {
  Kernel k;
  k.copy_x_to_z();
  auto e = error_of([&] { k.run(2, true); });
  EXPECT_TRUE(is_error(e, ASC_ERR_GM_CONFLICT, {"both write the same bytes", "strict mode"}));
}

// Block b copies x[8b, 8b + 64) to z[8b, 8b + 64) (x and z of 64 + 8 floats): neighbouring blocks' writes
// overlap by 56 floats, with the same values there. Harmless in any order: a warning, not a conflict.
// With `shift_source` false every block copies x[0, 64) instead, so the overlapping values differ: a conflict.
struct ShiftedCopies : Kernel {
  explicit ShiftedCopies(bool shift_source) {
    const Value at = w.op("arith.mul", {w.cast(w.op("get_block_idx", {}), ASC_DTYPE_INT32), w.i32(8)});
    const Value x_at = w.global_tensor(w.param(0), shift_source ? at : zero, n);
    const Value z_at = w.global_tensor(w.param(2), at, n);
    w.data_copy(x, x_at, n);
    w.sync(MTE2_MTE3, zero);
    w.data_copy(z_at, x, n);
    xs = random_values<float>(kN + 8, 3, -10, 10);
    zs.assign(kN + 8, 0.0f);
    x_bytes = z_bytes = (kN + 8) * 4;
  }
};

TEST(BoardMemory, PartlyOverlappingWritesOfTheSameValuesWarn) {
  ShiftedCopies k(true);
  asc::sim::LaunchReport r = k.run(2);
  const auto m = memchecks(r);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_TRUE(has(m[0], "blocks 0 and 1 both write the same bytes to GM [32, 256) of kernel argument 2")) << m[0];
  EXPECT_EQ(std::memcmp(k.zs.data(), k.xs.data(), (kN + 8) * 4), 0);
}

TEST(BoardMemory, PartlyOverlappingWritesOfDifferentValuesConflict) {
  ShiftedCopies k(false);
  auto e = error_of([&] { k.run(2); });
  EXPECT_TRUE(is_error(e, ASC_ERR_GM_CONFLICT, {"blocks 0 and 1 both write GM bytes [32, 256) of kernel argument 2"}));
}

}  // namespace
