// The launch-wide L2 mix (src/sim/hbm_sharing.cpp): which bytes L2 serves, by the accesses' cache hints, checked
// through the bandwidth the launch's flows are shared at, against the mix computed by hand for each case.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "sim/hbm_sharing.h"

namespace asc::sim {
namespace {

constexpr double kHbm = 10, kL2 = 40, kL2Bytes = 1000;  // bytes per cycle; L2's capacity in bytes

GmFlow flow(uint32_t mem, uint64_t lo, uint64_t hi, bool write = false, L2Policy l2 = L2Policy::Normal) {
  return GmFlow{0, 100, hi - lo, 0, Pipe::MTE2, GmSpan{mem, lo, hi, write, l2}};
}

// `n` reads of the same span.
void reads(std::vector<GmFlow>& flows, uint32_t mem, uint64_t bytes, int n, L2Policy l2 = L2Policy::Normal) {
  for (int i = 0; i < n; ++i) flows.push_back(flow(mem, 0, bytes, false, l2));
}

// The bandwidth of `total` bytes of which `from_l2` come from L2.
double mixed(double total, double from_l2) { return total / ((total - from_l2) / kHbm + from_l2 / kL2); }

double shared(const std::vector<GmFlow>& flows) { return SharedHbmClock(flows, kHbm, kL2, kL2Bytes).bytes_per_cycle(); }

TEST(L2Mix, ReReadsThatFitComeFromL2) {
  std::vector<GmFlow> f;
  reads(f, 0, 400, 4);  // 1600 bytes, 400 of them first touches
  EXPECT_DOUBLE_EQ(shared(f), mixed(1600, 1200));
}

TEST(L2Mix, AFootprintPastL2IsServedInProportion) {
  std::vector<GmFlow> f;
  reads(f, 0, 2000, 3);  // half of the 2000-byte footprint fits: half the 4000 re-read bytes hit
  EXPECT_DOUBLE_EQ(shared(f), mixed(6000, 2000));
}

TEST(L2Mix, DisabledReadsAndWritesBypassL2) {
  std::vector<GmFlow> f;
  reads(f, 0, 400, 4, L2Policy::Bypass);
  f.push_back(flow(1, 0, 400, true, L2Policy::Bypass));
  EXPECT_DOUBLE_EQ(shared(f), kHbm);
}

TEST(L2Mix, WritesAreHeldAsFarAsTheReadsLeaveRoom) {
  std::vector<GmFlow> f;
  reads(f, 0, 600, 2);                 // footprint 600, 600 re-read bytes from L2
  f.push_back(flow(1, 0, 800, true));  // 400 bytes of room left: half the writes held
  EXPECT_DOUBLE_EQ(shared(f), mixed(2000, 600 + 400));
}

TEST(L2Mix, PersistentReadsClaimRoomBeforeNormalOnes) {
  std::vector<GmFlow> normal_first, persistent;
  reads(normal_first, 0, 800, 2);  // both normal: footprint 1600, each re-read byte hits with odds 1000/1600
  reads(normal_first, 1, 800, 2);
  EXPECT_DOUBLE_EQ(shared(normal_first), mixed(3200, 1600 * 1000.0 / 1600));
  reads(persistent, 0, 800, 2, L2Policy::Persistent);  // all 800 of its re-reads hit; the other gets 200 / 800
  reads(persistent, 1, 800, 2);
  EXPECT_DOUBLE_EQ(shared(persistent), mixed(3200, 800 + 800 * 200.0 / 800));
}

TEST(L2Mix, LastReadsGetWhatNormalOnesLeave) {
  std::vector<GmFlow> f;
  reads(f, 0, 800, 2, L2Policy::Last);
  reads(f, 1, 800, 2);  // normal first: all 800 hit; LAST's 800 re-reads get 200 / 800
  EXPECT_DOUBLE_EQ(shared(f), mixed(3200, 800 + 200));
}

TEST(L2Mix, LastWritesAreHeldAfterTheOthers) {
  std::vector<GmFlow> f;
  f.push_back(flow(0, 0, 600, true, L2Policy::Last));
  f.push_back(flow(1, 0, 600, true));  // held whole; LAST's get the 400 bytes left
  EXPECT_DOUBLE_EQ(shared(f), mixed(1200, 600 + 400));
}

// The launch builds its clock from each block's demand, prepared on the block's thread, merged at the end: the same
// clock as one built from every flow shifted by its block's start, to the cycle, on random overlapping flows.
TEST(SharedClock, BlocksDemandsMergeToTheClockOfAllTheirFlows) {
  std::mt19937_64 rng(7);
  auto draw = [&](uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng); };
  const L2Policy policies[] = {L2Policy::Normal, L2Policy::Bypass, L2Policy::Persistent, L2Policy::Last};
  for (int round = 0; round < 20; ++round) {
    std::vector<HbmDemand> demands;
    std::vector<uint64_t> start;
    std::vector<GmFlow> all;
    const uint64_t blocks = 1 + draw(9);
    for (uint64_t b = 0; b < blocks; ++b) {
      start.push_back(draw(4) * 5000);  // blocks of later waves start later; some start together
      std::vector<GmFlow> mine;
      for (uint64_t i = 0, n = draw(40); i < n; ++i) {
        uint64_t from = draw(20000), lo = draw(4096);
        GmFlow f{from,
                 from + draw(3000),
                 1 + draw(8192),
                 0,
                 Pipe::MTE2,
                 GmSpan{static_cast<uint32_t>(draw(3)), lo, lo + draw(2048), draw(2) == 1, policies[draw(4)]}};
        mine.push_back(f);
        f.start += start.back();
        f.end += start.back();
        all.push_back(f);
      }
      demands.emplace_back(mine);
    }
    const SharedHbmClock merged(demands, start, kHbm, kL2, kL2Bytes), whole(all, kHbm, kL2, kL2Bytes);
    EXPECT_EQ(merged.bytes_per_cycle(), whole.bytes_per_cycle());
    for (uint64_t t = 0; t < 45000; t += 97) ASSERT_EQ(merged(t), whole(t)) << "round " << round << ", cycle " << t;
    // The search from a hint (the launch's summary reads the clock so) finds the same, in any order of calls.
    size_t hint = 0;
    for (int i = 0; i < 400; ++i) {
      const uint64_t t = i % 3 == 0 ? draw(45000) : i * 110;  // jumps among an increasing run
      ASSERT_EQ(whole(t, hint), whole(t)) << "round " << round << ", cycle " << t;
    }
    EXPECT_GT(whole(44000), 44000u) << "the flows exceed HBM's bandwidth somewhere";
  }
}

}  // namespace
}  // namespace asc::sim
