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

uint64_t RaceChecker::ordered_through(Pipe earlier, Pipe later) const {
  if (earlier == later) {
    // Pipes run their own instructions in order; dependent vector instructions
    // additionally need a barrier (or a set_flag on V) between them.
    return later != Pipe::V ? UINT64_MAX : fence_[idx(Pipe::V)];
  }
  return clock_[idx(later)][idx(earlier)];
}

bool RaceChecker::ordered(Pipe earlier_pipe, uint64_t earlier_seq, Pipe later) const {
  return earlier_seq <= ordered_through(earlier_pipe, later);
}

// Keeps the shadow small on long kernels: segments whose every use is settled hold nothing but "written"
// (initcheck); GM ones are dropped and neighbouring Unified Buffer ones merged.
void RaceChecker::sweep() {
  // A use on pipe q is settled once every pipe that touches memory is ordered after it (clocks and fences only
  // grow): it can never take part in a race again. Its horizon is the least ordered_through(q, p) over those
  // pipes p: one compare per use, not one per pipe.
  std::array<uint64_t, kPipeSlots> horizon;
  for (size_t q = 0; q < kPipeSlots; ++q) {
    horizon[q] = UINT64_MAX;
    for (size_t p = 0; p < kPipeSlots; ++p)
      if (memory_pipes_ >> p & 1)
        horizon[q] = std::min(horizon[q], ordered_through(static_cast<Pipe>(q), static_cast<Pipe>(p)));
  }
  auto settled = [&](Pipe pipe, const Use& use) { return use.seq <= horizon[idx(pipe)]; };  // (seq 0: no use)
  segments_ = 0;
  for (size_t space = 0; space < spaces_.size(); ++space) {
    Segments& segs = spaces_[space];
    const bool local = space < kMemoryCount;
    size_t kept = 0;
    for (size_t i = 0; i < segs.size(); ++i) {
      Segment& s = segs[i];
      bool idle = settled(s.writer_pipe, s.writer);
      for (size_t p = 0; idle && p < kPipeSlots; ++p)
        idle = !(s.readers_set >> p & 1) || settled(static_cast<Pipe>(p), s.readers[p]);
      if (idle) {
        if (!local) continue;
        s.writer = {};
        s.readers_set = 0;
        if (kept > 0) {  // merge into an idle, adjacent, equally written left neighbour
          Segment& l = segs[kept - 1];
          if (l.end == s.start && l.written == s.written && l.undefined_by == s.undefined_by && !l.writer.seq &&
              !l.readers_set) {
            l.end = s.end;
            continue;
          }
        }
      }
      if (kept != i) segs[kept] = s;
      ++kept;
    }
    segs.resize(kept);
    segments_ += kept;
  }
  sweep_at_ = std::max<size_t>(64, 2 * segments_);
}

void RaceChecker::tick(Pipe pipe) { ++clock_[idx(pipe)][idx(pipe)]; }

RaceChecker::Segments& RaceChecker::new_space(uint32_t space) {
  spaces_.resize(space + 1);
  return spaces_[space];
}

size_t RaceChecker::first_ending_after(const Segments& segs, uint64_t at) {
  if (segs.empty() || segs.back().end <= at) return segs.size();  // past them all: a kernel walking GM tile by tile
  auto it = std::partition_point(segs.begin(), segs.end(), [&](const Segment& s) { return s.end <= at; });
  return static_cast<size_t>(it - segs.begin());
}

template <typename Gap, typename Inside>
size_t RaceChecker::cut(const Segments& segs, size_t from, uint64_t lo, uint64_t hi, Gap&& gap, Inside&& inside) {
  pieces_.clear();
  uint64_t cursor = lo;
  size_t to = from;
  for (; to < segs.size() && segs[to].start < hi; ++to) {
    const Segment& s = segs[to];
    if (s.start < lo) pieces_.push_back(s), pieces_.back().end = lo;
    if (s.start > cursor) gap(cursor, s.start);
    pieces_.push_back(s);
    pieces_.back().start = std::max(s.start, lo);
    pieces_.back().end = std::min(s.end, hi);
    inside(pieces_.back());
    cursor = pieces_.back().end;
    if (s.end > hi) pieces_.push_back(s), pieces_.back().start = hi;
  }
  if (cursor < hi) gap(cursor, hi);
  return to;
}

void RaceChecker::splice(Segments& segs, size_t from, size_t to) {
  const size_t old = to - from, now = pieces_.size();
  if (now > old)
    segs.insert(segs.begin() + static_cast<std::ptrdiff_t>(to), now - old, Segment{});
  else if (now < old)
    segs.erase(segs.begin() + static_cast<std::ptrdiff_t>(from + now), segs.begin() + static_cast<std::ptrdiff_t>(to));
  std::copy(pieces_.begin(), pieces_.end(), segs.begin() + static_cast<std::ptrdiff_t>(from));
  segments_ = segments_ + now - old;
}

void RaceChecker::race(const char* kind, const Op& op, Pipe pipe, const Op& other, Pipe other_pipe, uint32_t space,
                       uint64_t lo, uint64_t hi) const {
  bool local = space < kMemoryCount;
  std::string where = local ? std::string(memory_name(static_cast<Memory>(space)))
                            : fmt::format("kernel argument {} GM", space - kMemoryCount);
  auto is = [&](OpCode c) { return op.code == c || other.code == c; };
  bool to_l1 = is(OpCode::CopyUbToL1) || is(OpCode::CopyUbToL1Blocks);
  if (to_l1 || is(OpCode::FixpipeToUb)) {  // another core's write into this one (core_delivery.cpp)
    const char* how =
        to_l1 ? "the cube core reads what a vector core's UB -> L1 copy wrote after a cross_core_wait_flag (mode 2) "
                "for a flag the vector cores set after it, and the vector cores wait for a flag the cube core sets "
                "once done with the bytes before the next copy overwrites them"
              : "the vector core reads what the cube core's fixpipe L0C -> UB wrote after a cross_core_wait_flag "
                "(mode 2) for a flag the cube core sets after it, and the cube core waits for a flag the vector core "
                "sets once done with the bytes before the next fixpipe overwrites them";
    fail(ASC_ERR_RACE, op.loc,
         "racecheck: {} race on {} bytes [{}, {}) of {}: {} here and {} on pipe {} at {} are not ordered between the "
         "cores; {}",
         kind, where, lo, hi, to_l1 ? "a cube core" : "a vector core", op.info().name, other.info().name,
         pipe_name(other_pipe), other.loc.str(), how);
  }
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

void RaceChecker::mark_undefined(uint64_t lo, uint64_t hi, const Op& by) {
  if (lo >= hi) return;
  Segments& segs = segments(static_cast<uint32_t>(Memory::UB));
  const size_t from = first_ending_after(segs, lo);
  // Bytes nothing touched stay so: a later read of them fails as unwritten, not as computed from such bytes.
  const size_t to = cut(
      segs, from, lo, hi, [](uint64_t, uint64_t) {}, [&](Segment& inside) { inside.undefined_by = &by; });
  splice(segs, from, to);
}

void RaceChecker::check(const Visit& v, const Segment& s, uint64_t lo, uint64_t hi) const {
  const bool own_write = s.writer_pipe == v.pipe && s.writer.seq == v.seq;  // this op wrote it (an earlier effect)
  if (s.writer.seq && !own_write && !ordered(s.writer_pipe, s.writer.seq, v.pipe))
    race(v.write ? "write-after-write" : "read-after-write", v.op, v.pipe, *s.writer.op, s.writer_pipe, v.space, lo,
         hi);
  if (v.write)
    for (size_t p = 0; p < kPipeSlots; ++p)
      if ((s.readers_set >> p & 1) && (p != idx(v.pipe) || s.readers[p].seq != v.seq) &&
          !ordered(static_cast<Pipe>(p), s.readers[p].seq, v.pipe))
        race("write-after-read", v.op, v.pipe, *s.readers[p].op, static_cast<Pipe>(p), v.space, lo, hi);
  if (v.initcheck && !v.write && (!s.written || s.undefined_by)) {
    if (!v.undefined) undefined_read(v.op, lo, hi, s.written ? s.undefined_by : nullptr);
    v.undefined->emplace_back(lo, hi);
  }
}

void RaceChecker::record(const Visit& v, Segment& s) {
  if (v.write) {
    s.writer_pipe = v.pipe;
    s.writer = {v.seq, &v.op};
    s.readers_set = 0;
    s.written = true;
    s.undefined_by = nullptr;
  } else {
    s.readers[idx(v.pipe)] = {v.seq, &v.op};
    s.readers_set = static_cast<uint16_t>(s.readers_set | 1u << idx(v.pipe));
  }
}

void RaceChecker::access(const Op& op, Pipe pipe, uint32_t space, uint64_t lo, uint64_t hi, bool write,
                         Ranges* undefined) {
  if (lo >= hi) return;
  // The Unified Buffer only: GM holds the caller's data, and cube memories
  // legitimately hold unwritten padding rows inside the fractals mmad reads.
  const Visit v{op,       pipe, space, clock_[idx(pipe)][idx(pipe)], write, space == static_cast<uint32_t>(Memory::UB),
                undefined};
  if (segments_ >= sweep_at_) sweep();
  Segments& segs = segments(space);
  const size_t from = first_ending_after(segs, lo);
  auto untouched = [pipe](uint64_t a, uint64_t b) { return Segment{a, b, pipe, {}, 0, {}, false, nullptr}; };
  gaps_.clear();
  if (from < segs.size() && segs[from].start == lo && segs[from].end == hi) {  // the bytes of one segment
    check(v, segs[from], lo, hi);
    record(v, segs[from]);
  } else if (from == segs.size() || segs[from].start >= hi) {  // untouched bytes
    gaps_.emplace_back(lo, hi);
    segs.insert(segs.begin() + static_cast<std::ptrdiff_t>(from), untouched(lo, hi));
    ++segments_;
    record(v, segs[from]);
  } else {  // cut the segments at lo and hi; check each piece inside and fill the gaps between them
    const size_t to = cut(
        segs, from, lo, hi,
        [&](uint64_t a, uint64_t b) {
          gaps_.emplace_back(a, b);
          pieces_.push_back(untouched(a, b));
          record(v, pieces_.back());
        },
        [&](Segment& inside) {
          check(v, inside, inside.start, inside.end);
          record(v, inside);
        });
    splice(segs, from, to);
  }
  if (v.initcheck && !write && !gaps_.empty()) {  // after the races: the checks of the touched bytes come first
    if (!undefined) undefined_read(op, gaps_.front().first, gaps_.front().second, nullptr);
    for (auto [a, b] : gaps_) undefined->emplace_back(a, b);
  }
}

RaceChecker::PendingFlags::iterator RaceChecker::pending_flag(int64_t key) {
  for (auto it = flags_.end(); it != flags_.begin();)
    if ((--it)->first == key) return it;
  return flags_.end();
}

void RaceChecker::set_flag(Pipe src, int64_t key) {
  tick(src);
  fence_[idx(src)] = clock_[idx(src)][idx(src)];  // a set waits for its pipe's earlier work
  auto it = pending_flag(key);
  if (it != flags_.end())
    it->second = clock_[idx(src)];
  else
    flags_.emplace_back(key, clock_[idx(src)]);
}

void RaceChecker::wait_flag(Pipe dst, int64_t key) {
  auto it = pending_flag(key);
  if (it != flags_.end()) {
    for (size_t q = 0; q < kPipeSlots; ++q) clock_[idx(dst)][q] = std::max(clock_[idx(dst)][q], it->second[q]);
    *it = flags_.back();
    flags_.pop_back();
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
