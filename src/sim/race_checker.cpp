#include "sim/race_checker.h"

#include <algorithm>

namespace asc::sim {
namespace {

size_t idx(Pipe p) { return static_cast<size_t>(p); }

// The HardEvent to suggest for ordering `from` before `to`.
std::string fix_hint(Pipe from, Pipe to, bool local) {
  if (from == to)
    return fmt::format("put asc.pipe_barrier(asc.PipeID.PIPE_{}) between them (auto_sync does this)", pipe_name(to));
  int event = find_hard_event(from, to);
  if (event < 0) return "order them with asc.pipe_barrier(asc.PipeID.PIPE_ALL)";
  const char* name = hard_event(event).name;
  return fmt::format(
      "put asc.set_flag(asc.HardEvent.{0}, id) after the first and asc.wait_flag(asc.HardEvent.{0}, id) before the "
      "second{1}",
      name, local ? " (or compile with insert_sync=True)" : "");
}

}  // namespace

bool RaceChecker::ordered(Pipe earlier_pipe, uint64_t earlier_seq, Pipe later) const {
  if (earlier_pipe == later) {
    // Pipes run their own instructions in order; dependent vector instructions
    // additionally need a barrier (or a set_flag on V) between them.
    return later != Pipe::V || fence_[idx(Pipe::V)] >= earlier_seq;
  }
  return clock_[idx(later)][idx(earlier_pipe)] >= earlier_seq;
}

// A use every pipe that touches memory is already ordered after stays so (clocks and fences only
// grow): it can never take part in a race again.
bool RaceChecker::settled(Pipe pipe, const Use& use) const {
  if (!use.seq) return true;
  for (size_t p = 0; p < kPipeSlots; ++p)
    if ((memory_pipes_ >> p & 1) && !ordered(pipe, use.seq, static_cast<Pipe>(p))) return false;
  return true;
}

// Keeps the shadow map small on long kernels: segments whose every use is
// settled hold nothing but "written" (initcheck); GM ones are dropped and
// neighbouring Unified Buffer ones merged.
void RaceChecker::sweep() {
  for (auto it = shadow_.begin(); it != shadow_.end();) {
    Segment& s = it->second;
    bool idle = settled(s.writer_pipe, s.writer);
    for (size_t p = 0; idle && p < kPipeSlots; ++p) idle = settled(static_cast<Pipe>(p), s.readers[p]);
    if (!idle) {
      ++it;
      continue;
    }
    s.writer = {};
    s.readers = {};
    const bool local = (it->first >> 48) < kMemoryCount;
    if (!local) {
      it = shadow_.erase(it);
      continue;
    }
    if (it != shadow_.begin()) {  // merge into an idle, adjacent, equally written left neighbour
      auto left = std::prev(it);
      const Segment& l = left->second;
      if (l.end == it->first && l.written == s.written && l.undefined_by == s.undefined_by && !l.writer.seq &&
          std::all_of(l.readers.begin(), l.readers.end(), [](const Use& u) { return !u.seq; })) {
        left->second.end = s.end;
        it = shadow_.erase(it);
        continue;
      }
    }
    ++it;
  }
  sweep_at_ = std::max<size_t>(64, 2 * shadow_.size());
}

std::pmr::memory_resource* RaceChecker::thread_pool() {
  thread_local std::pmr::unsynchronized_pool_resource pool;
  return &pool;
}

void RaceChecker::tick(Pipe pipe) { ++clock_[idx(pipe)][idx(pipe)]; }

void RaceChecker::split(uint64_t at) {
  auto it = shadow_.upper_bound(at);
  if (it == shadow_.begin()) return;
  --it;
  if (it->first < at && at < it->second.end) {
    Segment right = it->second;
    it->second.end = at;
    shadow_.emplace(at, right);
  }
}

void RaceChecker::race(const char* kind, const Op& op, Pipe pipe, const Op& other, Pipe other_pipe, uint32_t space,
                       uint64_t lo, uint64_t hi) const {
  bool local = space < kMemoryCount;
  std::string where = local ? std::string(memory_name(static_cast<Memory>(space)))
                            : fmt::format("kernel argument {} GM", space - kMemoryCount);
  bool to_l1 = op.code == OpCode::CopyUbToL1 || op.code == OpCode::CopyUbToL1Blocks ||
               other.code == OpCode::CopyUbToL1 || other.code == OpCode::CopyUbToL1Blocks;
  if (to_l1)
    fail(ASC_ERR_RACE, op.loc,
         "racecheck: {} race on {} bytes [{}, {}) of a cube core: {} here and {} on pipe {} at {} are not ordered "
         "between the cores; the cube core reads what a vector core's UB -> L1 copy wrote after a "
         "cross_core_wait_flag (mode 2) for a flag the vector cores set after it, and the vector cores wait for a "
         "flag the cube core sets once done with the bytes before the next copy overwrites them",
         kind, where, lo, hi, op.info().name, other.info().name, pipe_name(other_pipe), other.loc.str());
  if (op.code == OpCode::FixpipeToUb || other.code == OpCode::FixpipeToUb)
    fail(ASC_ERR_RACE, op.loc,
         "racecheck: {} race on {} bytes [{}, {}) of a vector core: {} here and {} on pipe {} at {} are not ordered "
         "between the cores; the vector core reads what the cube core's fixpipe L0C -> UB wrote after a "
         "cross_core_wait_flag (mode 2) for a flag the cube core sets after it, and the cube core waits for a flag "
         "the vector core sets once done with the bytes before the next fixpipe overwrites them",
         kind, where, lo, hi, op.info().name, other.info().name, pipe_name(other_pipe), other.loc.str());
  fail(ASC_ERR_RACE, op.loc,
       "racecheck: {} race on {} bytes [{}, {}): {} on pipe {} here and {} on pipe {} at {} are not "
       "ordered by any set_flag/wait_flag/pipe_barrier; {}",
       kind, where, lo, hi, op.info().name, pipe_name(pipe), other.info().name, pipe_name(other_pipe), other.loc.str(),
       fix_hint(other_pipe, pipe, local));
}

// The initcheck error of a read of bytes [lo, hi) of the Unified Buffer.
[[noreturn]] static void undefined_read(const Op& op, uint64_t lo, uint64_t hi, const Op* computed_by) {
  if (computed_by)
    fail(ASC_ERR_UNINITIALIZED, op.loc,
         "initcheck: {} reads {} bytes [{}, {}) that hold no defined value: {} at {} computed them from bytes "
         "nothing wrote in this launch; copy or compute those first",
         op.info().name, memory_name(Memory::UB), lo, hi, computed_by->info().name, computed_by->loc.str());
  fail(ASC_ERR_UNINITIALIZED, op.loc,
       "initcheck: {} reads {} bytes [{}, {}) that nothing wrote in this launch; copy or compute them first",
       op.info().name, memory_name(Memory::UB), lo, hi);
}

void RaceChecker::mark_undefined(uint64_t lo_in, uint64_t hi_in, const Op& by) {
  if (lo_in >= hi_in) return;
  const uint64_t base = static_cast<uint64_t>(Memory::UB) << 48, lo = base + lo_in, hi = base + hi_in;
  split(lo);
  split(hi);
  for (auto it = shadow_.lower_bound(lo); it != shadow_.end() && it->first < hi; ++it) it->second.undefined_by = &by;
}

void RaceChecker::access(const Op& op, Pipe pipe, uint32_t space, uint64_t lo_in, uint64_t hi_in, bool write,
                         Ranges* undefined) {
  if (lo_in >= hi_in) return;
  // The Unified Buffer only: GM holds the caller's data, and cube memories
  // legitimately hold unwritten padding rows inside the fractals mmad reads.
  const bool initcheck = space == static_cast<uint32_t>(Memory::UB);
  const uint64_t base = static_cast<uint64_t>(space) << 48;  // no memory reaches 2^48 bytes
  const uint64_t lo = base + lo_in, hi = base + hi_in;
  uint64_t seq = clock_[idx(pipe)][idx(pipe)];
  if (shadow_.size() >= sweep_at_) sweep();
  split(lo);
  split(hi);
  // Check every byte range already known inside [lo, hi), and find the gaps.
  uint64_t cursor = lo;
  std::vector<std::pair<uint64_t, uint64_t>>& gaps = gaps_;
  gaps.clear();
  for (auto it = shadow_.lower_bound(lo); it != shadow_.end() && it->first < hi; ++it) {
    Segment& s = it->second;
    if (it->first > cursor) gaps.emplace_back(cursor, it->first);
    cursor = s.end;
    bool own_write = s.writer_pipe == pipe && s.writer.seq == seq;  // this op wrote it (an earlier effect)
    if (s.writer.seq && !own_write && !ordered(s.writer_pipe, s.writer.seq, pipe))
      race(write ? "write-after-write" : "read-after-write", op, pipe, *s.writer.op, s.writer_pipe, space,
           it->first - base, s.end - base);
    if (write)
      for (size_t p = 0; p < kPipeSlots; ++p)
        if (s.readers[p].seq && (p != idx(pipe) || s.readers[p].seq != seq) &&
            !ordered(static_cast<Pipe>(p), s.readers[p].seq, pipe))
          race("write-after-read", op, pipe, *s.readers[p].op, static_cast<Pipe>(p), space, it->first - base,
               s.end - base);
    if (initcheck && !write && (!s.written || s.undefined_by)) {
      if (!undefined) undefined_read(op, it->first - base, s.end - base, s.written ? s.undefined_by : nullptr);
      undefined->emplace_back(it->first - base, s.end - base);
    }
  }
  if (cursor < hi) gaps.emplace_back(cursor, hi);
  if (initcheck && !write && !gaps.empty()) {
    if (!undefined) undefined_read(op, gaps.front().first - base, gaps.front().second - base, nullptr);
    for (auto [a, b] : gaps) undefined->emplace_back(a - base, b - base);
  }
  for (auto [a, b] : gaps) shadow_.emplace(a, Segment{b, pipe, {}, {}, false});
  for (auto it = shadow_.lower_bound(lo); it != shadow_.end() && it->first < hi; ++it) {
    Segment& s = it->second;
    if (write) {
      s.writer_pipe = pipe;
      s.writer = {seq, &op};
      s.readers = {};
      s.written = true;
      s.undefined_by = nullptr;
    } else {
      s.readers[idx(pipe)] = {seq, &op};
    }
  }
}

void RaceChecker::set_flag(Pipe src, int64_t key) {
  tick(src);
  fence_[idx(src)] = clock_[idx(src)][idx(src)];  // a set waits for its pipe's earlier work
  flags_[key] = clock_[idx(src)];
}

void RaceChecker::wait_flag(Pipe dst, int64_t key) {
  auto it = flags_.find(key);
  if (it != flags_.end()) {
    for (size_t q = 0; q < kPipeSlots; ++q) clock_[idx(dst)][q] = std::max(clock_[idx(dst)][q], it->second[q]);
    flags_.erase(it);
  }
  tick(dst);
}

void RaceChecker::foreign_write(const Op& op, Pipe pipe, Memory memory, const Clock& known, const Ranges& ranges,
                                bool release) {
  Clock& mine = clock_[idx(pipe)];
  uint64_t own = mine[idx(pipe)];
  mine = known;
  mine[idx(pipe)] = std::max(own, known[idx(pipe)]);
  tick(pipe);
  for (auto [lo, hi] : ranges) access(op, pipe, static_cast<uint32_t>(memory), lo, hi, true);
  if (!release) return;
  for (Clock& c : clock_) c[idx(pipe)] = std::max(c[idx(pipe)], mine[idx(pipe)]);
  fence_[idx(pipe)] = mine[idx(pipe)];
}

void RaceChecker::barrier(Pipe pipe) {
  if (pipe != Pipe::All) {
    fence_[idx(pipe)] = clock_[idx(pipe)][idx(pipe)];
    return;
  }
  Clock all{};
  for (const Clock& c : clock_)
    for (size_t q = 0; q < kPipeSlots; ++q) all[q] = std::max(all[q], c[q]);
  for (Clock& c : clock_) c = all;
  for (size_t p = 0; p < kPipeSlots; ++p) fence_[p] = all[p];
}

}  // namespace asc::sim
