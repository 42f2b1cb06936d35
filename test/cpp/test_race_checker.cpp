// The sanitizer's shadow (src/sim/race_checker.cpp keeps byte ranges, cut and merged as accesses come) against a
// shadow of single bytes written for this test: random accesses on three pipes, ordered or not by random flags
// and barriers, must raise the same error at the same byte, and collect the same undefined bytes, as the
// byte-by-byte model of the same rules does.
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "sim/race_checker.h"
#include "support/error.h"

namespace asc::sim {
namespace {

constexpr std::array<Pipe, 3> kPipes = {Pipe::MTE2, Pipe::V, Pipe::MTE3};
constexpr uint32_t kMemoryPipes = 1u << 4 | 1u << 1 | 1u << 5;
constexpr uint32_t kUb = static_cast<uint32_t>(Memory::UB), kGm = static_cast<uint32_t>(kMemoryCount);
constexpr uint64_t kBytes = 96;  // per space: small, so accesses overlap, split and merge often

size_t at(Pipe p) { return static_cast<size_t>(p); }

// The rules of race_checker.h, one byte at a time.
class ByteModel {
 public:
  struct Outcome {
    std::string kind;  // "" (none), "write-after-write", ..., "initcheck"
    uint64_t lo = 0;
  };

  void tick(Pipe p) { ++clock_[at(p)][at(p)]; }
  void set_flag(Pipe src, int64_t key) {
    tick(src);
    fence_[at(src)] = clock_[at(src)][at(src)];
    flags_[key] = clock_[at(src)];
  }
  void wait_flag(Pipe dst, int64_t key) {
    if (auto it = flags_.find(key); it != flags_.end()) {
      for (size_t q = 0; q < kPipeSlots; ++q) clock_[at(dst)][q] = std::max(clock_[at(dst)][q], it->second[q]);
      flags_.erase(it);
    }
    tick(dst);
  }
  void barrier_all() {
    RaceChecker::Clock all{};
    for (const auto& c : clock_)
      for (size_t q = 0; q < kPipeSlots; ++q) all[q] = std::max(all[q], c[q]);
    for (auto& c : clock_) c = all;
    fence_ = all;
  }
  void barrier(Pipe p) { fence_[at(p)] = clock_[at(p)][at(p)]; }

  // The error the access raises first (races and undefined bytes of touched ranges in address order, then
  // untouched bytes), or none; `undefined` collects instead of raising initcheck errors.
  Outcome access(Pipe pipe, uint32_t space, uint64_t lo, uint64_t hi, bool write, std::set<uint64_t>* undefined) {
    const uint64_t seq = clock_[at(pipe)][at(pipe)];
    const bool initcheck = space == kUb && !write;
    std::optional<uint64_t> untouched;
    for (uint64_t b = lo; b < hi; ++b) {
      Byte& x = bytes_[space][b];
      if (!x.touched) {
        if (initcheck && !untouched) untouched = b;
        if (initcheck && undefined) undefined->insert(b);
        continue;
      }
      const bool own = x.writer_pipe == pipe && x.writer == seq;
      if (x.writer && !own && !ordered(x.writer_pipe, x.writer, pipe))
        return {write ? "write-after-write" : "read-after-write", b};
      if (write)
        for (Pipe p : kPipes)
          if (x.readers[at(p)] && (p != pipe || x.readers[at(p)] != seq) && !ordered(p, x.readers[at(p)], pipe))
            return {"write-after-read", b};
      if (initcheck && (!x.written || x.undefined_by >= 0)) {
        if (!undefined) return {"initcheck", b};
        undefined->insert(b);
      }
    }
    if (untouched && !undefined) return {"initcheck", *untouched};
    for (uint64_t b = lo; b < hi; ++b) {
      Byte& x = bytes_[space][b];
      x.touched = true;
      if (write) {
        x = Byte{};
        x.touched = x.written = true;
        x.writer_pipe = pipe;
        x.writer = seq;
      } else {
        x.readers[at(pipe)] = seq;
      }
    }
    return {};
  }
  void mark_undefined(uint64_t lo, uint64_t hi, int by) {
    for (uint64_t b = lo; b < hi; ++b)
      if (bytes_[kUb][b].touched) bytes_[kUb][b].undefined_by = by;
  }

 private:
  struct Byte {
    bool touched = false, written = false;
    Pipe writer_pipe = Pipe::S;
    uint64_t writer = 0;
    std::array<uint64_t, kPipeSlots> readers{};
    int undefined_by = -1;
  };
  bool ordered(Pipe earlier, uint64_t seq, Pipe later) const {
    if (earlier == later) return later != Pipe::V || fence_[at(Pipe::V)] >= seq;
    return clock_[at(later)][at(earlier)] >= seq;
  }
  std::array<RaceChecker::Clock, kPipeSlots> clock_{};
  RaceChecker::Clock fence_{};
  std::map<int64_t, RaceChecker::Clock> flags_;
  std::map<uint32_t, std::array<Byte, kBytes>> bytes_;
};

// The kind and first byte a RaceChecker error names.
ByteModel::Outcome outcome_of(const Error& e) {
  static const std::regex race("racecheck: (\\S+) race on .* bytes \\[(\\d+), "),
      init("initcheck: .* bytes \\[(\\d+), ");
  std::smatch m;
  const std::string what = e.what();
  if (std::regex_search(what, m, race)) return {m[1], std::stoull(m[2])};
  if (std::regex_search(what, m, init)) return {"initcheck", std::stoull(m[1])};
  ADD_FAILURE() << "unexpected error: " << what;
  return {};
}

TEST(RaceChecker, RangesAgreeWithAByteByByteShadow) {
  std::mt19937 rng(7);
  std::vector<Op> ops(256);
  for (size_t i = 0; i < ops.size(); ++i)
    ops[i].code = OpCode::CopyGmToLocal, ops[i].loc.line = static_cast<uint32_t>(i + 1);
  int collected = 0, steps = 0;
  std::map<std::string, int> kinds;  // errors raised
  for (int trial = 0; trial < 1500; ++trial) {
    RaceChecker checker(kMemoryPipes);
    ByteModel model;
    if (trial % 4) {  // most kernels start by filling their buffers
      checker.tick(Pipe::MTE2), model.tick(Pipe::MTE2);
      checker.access(ops[0], Pipe::MTE2, kUb, 0, kBytes, true);
      model.access(Pipe::MTE2, kUb, 0, kBytes, true, nullptr);
      checker.barrier(Pipe::All), model.barrier_all();
    }
    // How often an access is followed by an order: some trials race soon, others run long.
    const unsigned discipline = std::min(trial % 20, 16);
    std::vector<std::pair<Pipe, int64_t>> unwaited;  // flags set and not yet waited for
    for (int step = 0; step < 256; ++step) {
      const Pipe pipe = kPipes[rng() % kPipes.size()];
      ++steps;
      // Ranges on a 4-byte grid mostly (as tensors are), sometimes any byte.
      const uint64_t grain = rng() % 4 ? 4 : 1;
      uint64_t lo = rng() % (kBytes / grain) * grain, hi = lo + (1 + rng() % (kBytes / 3 / grain)) * grain;
      hi = std::min(hi, kBytes);
      const uint32_t space = rng() % 3 ? kUb : kGm;
      const bool write = rng() % 2, collect = discipline >= 12 || rng() % 2;
      const int op = step;
      checker.tick(pipe), model.tick(pipe);
      std::set<uint64_t> want_undefined;
      const ByteModel::Outcome want = model.access(pipe, space, lo, hi, write, collect ? &want_undefined : nullptr);
      ByteModel::Outcome got;
      RaceChecker::Ranges got_ranges;
      try {
        checker.access(ops[op], pipe, space, lo, hi, write, collect ? &got_ranges : nullptr);
      } catch (const Error& e) {
        got = outcome_of(e);
      }
      SCOPED_TRACE(::testing::Message() << "trial " << trial << " step " << step << ": " << pipe_name(pipe)
                                        << (write ? " writes " : " reads ") << "space " << space << " [" << lo << ", "
                                        << hi << ")");
      ASSERT_EQ(got.kind, want.kind);
      if (!want.kind.empty()) {
        ASSERT_EQ(got.lo, want.lo);
        kinds[want.kind]++;
        break;
      }
      if (collect) {
        std::set<uint64_t> got_undefined;
        for (auto [a, b] : got_ranges)
          for (uint64_t x = a; x < b; ++x) got_undefined.insert(x);
        ASSERT_EQ(got_undefined, want_undefined);
        collected += !want_undefined.empty();
      }
      if (write && space == kUb && rng() % 8 == 0) {  // some of what it wrote came from undefined bytes
        const uint64_t from = lo + rng() % (hi - lo), to = from + 1 + rng() % (hi - from);
        checker.mark_undefined(from, to, ops[op]), model.mark_undefined(from, to, op);
      }
      if (rng() % 2) {  // this pipe before another (itself: the fence a V op needs before the next)
        const Pipe to = kPipes[rng() % kPipes.size()];
        const int64_t key = static_cast<int64_t>(at(pipe) * 16 + at(to)) * 4 + rng() % 4;  // an event and an id
        checker.set_flag(pipe, key), model.set_flag(pipe, key);
        if (rng() % 3)
          checker.wait_flag(to, key), model.wait_flag(to, key);
        else
          unwaited.emplace_back(to, key);  // waited for later, after other sets (or set again first)
      }
      if (!unwaited.empty() && rng() % 3 == 0) {
        const size_t k = rng() % unwaited.size();
        checker.wait_flag(unwaited[k].first, unwaited[k].second);
        model.wait_flag(unwaited[k].first, unwaited[k].second);
        unwaited.erase(unwaited.begin() + static_cast<std::ptrdiff_t>(k));
      }
      if (rng() % 16 < discipline) checker.barrier(Pipe::All), model.barrier_all();
      if (rng() % 4 == 0) checker.barrier(pipe), model.barrier(pipe);
    }
  }
  // Every error was raised often, and long runs with collected undefined bytes happened (the shadow was swept).
  for (const char* kind : {"initcheck", "read-after-write", "write-after-read", "write-after-write"})
    EXPECT_GT(kinds[kind], 100) << kind;
  EXPECT_GT(collected, 1000);
  EXPECT_GT(steps, 50000);
}

// A flag set twice before its wait: the second set replaces the pending one, so the wait orders after it, and
// what the pipe wrote between the two sets is ordered too.
TEST(RaceChecker, AWaitJoinsTheLatestSetOfItsFlag) {
  Op copy, reader;
  copy.code = OpCode::CopyGmToLocal, reader.code = OpCode::CopyLocalToGm;
  constexpr int64_t kFlag = 7;
  // Two copies on MTE2, a set after the first (and, with `set_again`, after the second), a wait on V, then V
  // reads what both copied: the error that read raises, or none.
  auto read_after_two_copies = [&](bool set_again) -> ByteModel::Outcome {
    RaceChecker checker(kMemoryPipes);
    checker.tick(Pipe::MTE2);
    checker.access(copy, Pipe::MTE2, kUb, 0, 32, true);
    checker.set_flag(Pipe::MTE2, kFlag);
    checker.tick(Pipe::MTE2);
    checker.access(copy, Pipe::MTE2, kUb, 32, 64, true);
    if (set_again) checker.set_flag(Pipe::MTE2, kFlag);
    checker.wait_flag(Pipe::V, kFlag);
    checker.tick(Pipe::V);
    try {
      checker.access(reader, Pipe::V, kUb, 0, 64, false);
    } catch (const Error& e) {
      return outcome_of(e);
    }
    return {};
  };
  EXPECT_EQ(read_after_two_copies(true).kind, "");
  // Without the second set, the second copy is not ordered before the read.
  const ByteModel::Outcome once = read_after_two_copies(false);
  EXPECT_EQ(once.kind, "read-after-write");
  EXPECT_EQ(once.lo, 32u);
}

}  // namespace
}  // namespace asc::sim
