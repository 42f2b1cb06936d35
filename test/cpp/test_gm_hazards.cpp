// Cross-block GM hazards on the Model's sanitizer: a block reading GM bytes
// another block writes in the same launch is a racecheck warning, unless a
// sync_all orders them; writes in different sync_all epochs do not conflict.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel_fixtures.h"
#include "sim/launch.h"

namespace {

using namespace asc_test;

constexpr int64_t kSlice = 32;  // float32 elements per block: 128 bytes

// Two blocks; params x, y, z (float32, 2 * kSlice each). Each block copies its
// slice of y into its slice of x, then (after a sync_all, optionally) copies a
// slice of x (its own or the other block's) into its slice of z.
struct TwoBlocks {
  asc::Module m;
  CoreWriter w{m, "hazards", std::vector<asc_type_t>(3, gm_addr_type(ASC_DTYPE_FLOAT32))};
  Value n = w.i32(kSlice), zero = w.i32(0);
  Value idx = w.cast(w.op("get_block_idx", {}), ASC_DTYPE_INT32);
  Value own = w.op("arith.mul", {idx, n});
  Value other = w.op("arith.mul", {w.op("arith.sub", {w.i32(1), idx}), n});
  Value local = w.local_tensor(0, kSlice, ASC_DTYPE_FLOAT32, ASC_POS_VECIN, "t");
  uint32_t write_line = 0, read_line = 0;

  std::vector<float> xs = std::vector<float>(2 * kSlice, 0.0f), ys = random_values<float>(2 * kSlice, 3, -5, 5),
                     zs = std::vector<float>(2 * kSlice, 0.0f);

  void copy_in(Value from) {
    w.data_copy(local, w.global_tensor(w.param(1), from, n), n);
    w.sync(MTE2_MTE3, zero);
  }
  void write_x(Value at) {
    w.data_copy(w.global_tensor(w.param(0), at, n), local, n);
    write_line = w.last_line();
    w.sync(MTE3_MTE2, zero);
  }
  void sync_all() { w.op("sync_all", {}, {int_attr("aiv_only", 1)}); }
  void read_x_to_z(Value from) {
    w.data_copy(local, w.global_tensor(w.param(0), from, n), n);
    read_line = w.last_line();
    w.sync(MTE2_MTE3, zero);
    w.data_copy(w.global_tensor(w.param(2), own, n), local, n);
    w.sync(MTE3_MTE2, zero);
  }
  asc::sim::LaunchReport run() {
    const asc::Platform* platform = asc::find_platform("Ascend910B1");
    std::vector<asc_arg_t> args{buffer_arg(xs), buffer_arg(ys), buffer_arg(zs)};
    return asc::sim::run_kernel(w.finish(), *platform, 2, args.data(), args.size(), {});
  }
  std::string at(uint32_t line) const { return "kernels.py:" + std::to_string(line); }
};

std::vector<std::string> racechecks(const asc::sim::LaunchReport& r) {
  std::vector<std::string> out;
  for (const auto& w : r.warnings)
    if (w.rfind("racecheck:", 0) == 0) out.push_back(w);
  return out;
}

TEST(GmHazards, ReadingWhatAnotherBlockWritesWarnsOnceNamingBothOps) {
  TwoBlocks k;
  k.copy_in(k.own);
  k.write_x(k.own);
  k.read_x_to_z(k.other);  // the other block's slice, written by it in the same epoch
  std::vector<std::string> found = racechecks(k.run());
  // Both blocks race the same way (the same pair of ops): one warning.
  ASSERT_EQ(found.size(), 1u);
  const std::string& w = found[0];
  EXPECT_NE(w.find("reads GM bytes ["), std::string::npos) << w;
  EXPECT_NE(w.find("of kernel argument 0 (data_copy.gm_to_local at " + k.at(k.read_line)), std::string::npos) << w;
  EXPECT_NE(w.find("writes (data_copy.local_to_gm at " + k.at(k.write_line)), std::string::npos) << w;
  EXPECT_NE(w.find("unordered"), std::string::npos) << w;
}

TEST(GmHazards, EachBlockReadingItsOwnSliceIsFine) {
  TwoBlocks k;
  k.copy_in(k.own);
  k.write_x(k.own);
  k.read_x_to_z(k.own);
  EXPECT_TRUE(racechecks(k.run()).empty());
  EXPECT_EQ(k.zs, k.ys);
}

TEST(GmHazards, SyncAllOrdersTheWriteBeforeTheRead) {
  TwoBlocks k;
  k.copy_in(k.own);
  k.write_x(k.own);
  k.sync_all();
  k.read_x_to_z(k.other);
  EXPECT_TRUE(racechecks(k.run()).empty());
  for (int64_t i = 0; i < 2 * kSlice; ++i) EXPECT_EQ(k.zs[i], k.ys[(i + kSlice) % (2 * kSlice)]) << i;
}

// A read before the sync_all and the other block's write after it are ordered too.
TEST(GmHazards, SyncAllOrdersTheReadBeforeTheWrite) {
  TwoBlocks k;
  k.read_x_to_z(k.other);
  k.sync_all();
  k.copy_in(k.own);
  k.write_x(k.own);
  EXPECT_TRUE(racechecks(k.run()).empty());
}

// Both blocks write x's first slice with different bytes: a conflict in one
// epoch, ordered (the last one wins) across a sync_all.
TEST(GmHazards, WritesInDifferentSyncAllEpochsDoNotConflict) {
  {
    TwoBlocks k;
    k.copy_in(k.own);
    k.write_x(k.zero);
    EXPECT_TRUE(is_error(error_of([&] { k.run(); }), ASC_ERR_GM_CONFLICT, {"both write GM bytes [0, 128)"}));
  }
  TwoBlocks k;
  k.copy_in(k.own);
  k.write_x(k.own);
  k.sync_all();
  k.write_x(k.other);  // block 1 now writes the slice block 0 wrote before the barrier
  asc::sim::LaunchReport r;
  ASSERT_NO_THROW(r = k.run());
  EXPECT_TRUE(racechecks(r).empty());
  for (int64_t i = 0; i < 2 * kSlice; ++i) EXPECT_EQ(k.xs[i], k.ys[(i + kSlice) % (2 * kSlice)]) << i;
}

// A loop reading a tensor tile by tile keeps one merged range: the warning
// names the whole overlap.
TEST(GmHazards, TileByTileReadsMergeIntoOneRange) {
  TwoBlocks k;
  k.copy_in(k.own);
  k.write_x(k.own);
  Value i = k.w.for_begin(k.w.i32(0), k.w.i32(4), k.w.i32(1));
  {
    Value at = k.w.op("arith.add", {k.other, k.w.op("arith.mul", {i, k.w.i32(8)})});
    k.w.data_copy(k.local, k.w.global_tensor(k.w.param(0), at, k.w.i32(8)), k.w.i32(8));
    k.w.sync(MTE2_MTE3, k.zero);
  }
  k.w.for_end();
  std::vector<std::string> found = racechecks(k.run());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("GM bytes [0, 128)"), std::string::npos) << found[0];
}

// Atomic accumulation is still a write: a read of the sum another block adds to is unordered.
TEST(GmHazards, ReadingBytesAnotherBlockAddsToAtomicallyWarns) {
  TwoBlocks k;
  k.copy_in(k.own);
  k.w.op("set_atomic_add", {}, {int_attr("dtype", ASC_DTYPE_FLOAT32)});
  k.write_x(k.zero);  // both blocks add into x's first slice: no write conflict
  k.w.op("set_atomic_none", {});
  k.read_x_to_z(k.zero);
  asc::sim::LaunchReport r;
  ASSERT_NO_THROW(r = k.run());
  std::vector<std::string> found = racechecks(r);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("writes atomically (data_copy.local_to_gm at " + k.at(k.write_line)), std::string::npos)
      << found[0];
}

// Reads with gaps (no merging) past the cap of a block's read list: the list is
// coarsened, the race is still found, and the launch stays quick.
TEST(GmHazards, ManyScatteredReadsStayBoundedAndStillWarn) {
  constexpr int64_t kReads = 3 * static_cast<int64_t>(asc::sim::Block::kMaxGmReads);
  TwoBlocks k;
  k.xs.assign(static_cast<size_t>(4 * kReads * 8), 0.0f);
  // x is in two halves, one per block; block b writes the last slice of its
  // half and reads every other 32 bytes of the other half.
  Value half = k.w.i32(2 * kReads * 8);
  Value own_half = k.w.op("arith.mul", {k.idx, half});
  Value other_half = k.w.op("arith.mul", {k.w.op("arith.sub", {k.w.i32(1), k.idx}), half});
  k.copy_in(k.own);
  k.write_x(k.w.op("arith.add", {own_half, k.w.i32(2 * kReads * 8 - kSlice)}));
  Value i = k.w.for_begin(k.w.i32(0), k.w.i32(kReads), k.w.i32(1));
  {
    Value at = k.w.op("arith.add", {other_half, k.w.op("arith.mul", {i, k.w.i32(16)})});  // 8 read, 8 skipped
    k.w.data_copy(k.local, k.w.global_tensor(k.w.param(0), at, k.w.i32(8)), k.w.i32(8));
    k.w.sync(MTE2_MTE3, k.zero);
  }
  k.w.for_end();
  std::vector<std::string> found = racechecks(k.run());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("reads GM bytes ["), std::string::npos) << found[0];
}

}  // namespace
