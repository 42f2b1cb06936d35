// Buffer tokens instead of event flags. A get_buf waits for every earlier (program-order) acquisition of its id to
// be released, so wrapping each access of a buffer in a pair orders all of them: no dependence analysis, no event
// ids to allocate. The buffers are the kernel's local allocations; accesses of overlapping byte ranges of one
// memory must share an id, so ranges are merged into buffers before ids are handed out in order of first use. With
// more than 32 buffers ids are shared, which orders more than needed but cannot deadlock: every acquisition waits
// only for earlier ones, and the earliest outstanding one can always proceed.
//
// Consecutive ops of one pipe on the same buffers share one pair (PyAsc2's fuse_bufid_sync), unless an op depends
// on an earlier op of the group: a pipe does not order its own instructions' memory accesses (pipe_barrier does),
// so a dependent op starts a new pair, whose get_buf waits for the release after the op it depends on.
#include "passes/insert_buffer_tokens.h"

#include <algorithm>
#include <map>
#include <set>

#include "ir/pipes.h"
#include "passes/local_refs.h"
#include "passes/rewriter.h"

namespace asc {
namespace {

// An op whose only effect is its result (constants, scalar arithmetic, tensor views): holding a token across it
// costs nothing. Anything else that touches no local memory (flags, barriers, cross-core sync, printing) ends a
// group, so that a token is never held while its pipe waits for something else.
bool pure(const Op& op) { return op.result != kNoValue && op.info().effects.empty() && op.regions.empty(); }

class TokenInserter {
 public:
  explicit TokenInserter(Kernel& k) : k_(k), refs_(k), rw_(k) {}

  void run() {
    collect(k_.body);
    assign_ids();
    region(k_.body);
  }

 private:
  // -- buffers and their ids ------------------------------------------------------
  void collect(const Region& r) {
    for (const auto& op : r.ops) {
      for (const MemRef& ref : refs_.tensors(*op)) seen_.push_back(ref);
      for (const auto& sub : op->regions) collect(sub);
    }
  }

  // Absolute ranges of one memory that overlap form one buffer; every other root is a buffer of its own. Ids go to
  // buffers in order of first use, round robin over the 32.
  void assign_ids() {
    std::map<Memory, std::vector<std::pair<uint64_t, uint64_t>>> ranges;
    for (const MemRef& r : seen_)
      if (r.root == 0) ranges[r.memory].emplace_back(r.lo, r.hi);
    for (auto& [memory, list] : ranges) {
      std::sort(list.begin(), list.end());
      for (const auto& [lo, hi] : list) {
        auto& merged = spans_[memory];
        if (!merged.empty() && lo < merged.back().hi)
          merged.back().hi = std::max(merged.back().hi, hi);
        else
          merged.push_back({lo, hi, -1});
      }
    }
    int64_t next = 0;
    for (const MemRef& r : seen_) {
      int64_t& id = slot(r);
      if (id < 0) id = next++ % kBufferTokens;
    }
  }

  struct Span {
    uint64_t lo, hi;
    int64_t id;
  };

  int64_t& slot(const MemRef& r) {
    if (r.root != 0) return root_ids_.try_emplace(r.root, -1).first->second;
    auto& merged = spans_[r.memory];
    auto it =
        std::upper_bound(merged.begin(), merged.end(), r.lo, [](uint64_t lo, const Span& s) { return lo < s.lo; });
    return std::prev(it)->id;  // the span that starts at or before r.lo holds it: spans cover every range seen
  }

  // -- wrapping ---------------------------------------------------------------------
  struct Group {
    Pipe pipe = Pipe::All;
    std::set<int64_t> ids;
    std::vector<uint32_t> id_values;                // the constants get_buf took, for rls_buf
    std::vector<std::pair<MemRef, bool>> accesses;  // of the ops in the group
    size_t last = 0;                                // position in `out` of its last op
    Location loc;
    bool open = false;
  };

  bool depends(const Group& g, const std::vector<std::pair<MemRef, bool>>& accesses) const {
    for (const auto& [ref, write] : accesses)
      for (const auto& [earlier, earlier_write] : g.accesses)
        if ((write || earlier_write) && overlap(ref, earlier)) return true;
    return false;
  }

  void close(Group& g, OpList& out) {
    if (!g.open) return;
    OpList releases;
    for (auto v = g.id_values.rbegin(); v != g.id_values.rend(); ++v)
      rw_.emit(releases, OpCode::RlsBuf, {*v}, {int_attr(static_cast<int64_t>(g.pipe)), int_attr(0)}, g.loc);
    auto at = out.begin() + static_cast<std::ptrdiff_t>(g.last + 1);
    out.insert(at, std::make_move_iterator(releases.begin()), std::make_move_iterator(releases.end()));
    g = Group{};
  }

  void open(Group& g, Pipe pipe, std::set<int64_t> ids, OpList& out, const Location& loc) {
    g.pipe = pipe;
    g.ids = std::move(ids);
    g.loc = loc;
    g.open = true;
    for (int64_t id : g.ids) {
      uint32_t v = rw_.const_int(out, DType::Int32, id, loc);
      rw_.emit(out, OpCode::GetBuf, {v}, {int_attr(static_cast<int64_t>(pipe)), int_attr(0)}, loc);
      g.id_values.push_back(v);
    }
    ++k_.inserted_syncs;
  }

  void region(Region& r) {
    OpList out;
    Group g;
    for (auto& op_ptr : r.ops) {
      Op& op = *op_ptr;
      std::vector<MemRef> tensors = refs_.tensors(op);
      if (tensors.empty()) {
        if (!pure(op)) close(g, out);
        for (auto& sub : op.regions) region(sub);
        out.push_back(std::move(op_ptr));
        continue;
      }
      Pipe pipe = op_runs_on_scalar_unit(op) ? Pipe::S : op_pipe(op);
      std::set<int64_t> ids;
      for (const MemRef& ref : tensors) ids.insert(slot(ref));
      auto accesses = refs_.accesses(op);
      if (!g.open || g.pipe != pipe || g.ids != ids || depends(g, accesses)) {
        close(g, out);
        open(g, pipe, std::move(ids), out, op.loc);
      }
      g.accesses.insert(g.accesses.end(), accesses.begin(), accesses.end());
      g.last = out.size();
      g.loc = op.loc;
      for (auto& sub : op.regions) region(sub);
      out.push_back(std::move(op_ptr));
    }
    close(g, out);
    r.ops = std::move(out);
  }

  Kernel& k_;
  LocalRefs refs_;
  Rewriter rw_;
  std::vector<MemRef> seen_;
  std::map<Memory, std::vector<Span>> spans_;
  std::map<uint32_t, int64_t> root_ids_;
};

}  // namespace

void insert_buffer_tokens(Kernel& kernel) { TokenInserter(kernel).run(); }

}  // namespace asc
