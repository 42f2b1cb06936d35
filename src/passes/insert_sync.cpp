// A happens-before analysis over the kernel in program order, with one vector
// clock per pipe: clock[P][Q] is the sequence number of the last op of pipe Q
// known to have completed when pipe P reaches its next op. Each op's memory
// effects come from the op table. When an op on pipe B touches memory that an
// earlier op `a` on pipe A wrote (or reads what B writes) and B does not yet
// know `a` completed, a set_flag/wait_flag pair is inserted right before the
// op. Its source is whichever pipe already knows `a` completed and ran most
// recently, so one flag covers as many dependences as possible (the way a
// hand-written MTE3->MTE2 flag also orders V's reads before the next copy-in).
// Loops are analysed iteration after iteration until no flag is added, which
// finds loop-carried dependences; `if` branches are analysed separately and
// their states merged. Existing flags (the user's, the framework's) are
// honoured. Event ids are reused only when the previous wait of that id is
// known complete on the setting pipe.
#include "passes/insert_sync.h"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <set>

#include "passes/insert_buffer_tokens.h"
#include "passes/local_refs.h"
#include "passes/rewriter.h"

namespace asc {
namespace {

using Clock = std::array<uint64_t, kPipeSlots>;
constexpr Pipe kPipes[] = {Pipe::S, Pipe::V, Pipe::M, Pipe::MTE1, Pipe::MTE2, Pipe::MTE3, Pipe::FIX};

size_t idx(Pipe p) { return static_cast<size_t>(p); }

struct Access {
  uint64_t seq;
  Pipe pipe;
  MemRef ref;
  bool write;
};

struct State {
  std::array<Clock, kPipeSlots> clock{};
  std::vector<Access> pending;
  std::map<std::pair<int, int64_t>, std::deque<Clock>> tokens;  // set_flag clocks not yet waited on
  std::map<std::pair<int, int64_t>, uint64_t> last_wait;        // seq of the last wait of (event, id)
  uint64_t v_barrier = 0;                                       // V ops up to here are barrier-ordered
};

State merge(const State& a, const State& b) {
  State m = a;
  // What a pipe knows of another is what both paths agree on; of itself, its last op on either path: a pipe runs
  // in order, so its next op follows whichever ran. (The least of the two would make a pipe_barrier(V) after the
  // merge cover only the older path's vector ops: each pending access of the newer path then asked for one more
  // barrier, and each loop pass and nesting level multiplied them.)
  for (size_t p = 0; p < kPipeSlots; ++p)
    for (size_t q = 0; q < kPipeSlots; ++q)
      m.clock[p][q] = p == q ? std::max(a.clock[p][q], b.clock[p][q]) : std::min(a.clock[p][q], b.clock[p][q]);
  std::set<uint64_t> seen;
  for (const Access& x : a.pending) seen.insert(x.seq);
  for (const Access& x : b.pending)
    if (!seen.count(x.seq)) m.pending.push_back(x);
  for (const auto& [key, seq] : b.last_wait) m.last_wait[key] = std::max(m.last_wait[key], seq);
  m.v_barrier = std::min(a.v_barrier, b.v_barrier);
  return m;
}

// Same knowledge: a loop whose body leaves the state as it found it needs no second pass.
bool same_state(const State& a, const State& b) {
  if (a.clock != b.clock || a.tokens != b.tokens || a.last_wait != b.last_wait || a.v_barrier != b.v_barrier ||
      a.pending.size() != b.pending.size())
    return false;
  for (size_t i = 0; i < a.pending.size(); ++i)
    if (a.pending[i].seq != b.pending[i].seq) return false;
  return true;
}

class SyncInserter {
 public:
  explicit SyncInserter(Kernel& k) : k_(k), refs_(k), rw_(k) {
    used_ids_ = constant_event_ids(k);
    for (int e = 0; e < kHardEventCount; ++e) used_ids_[e] |= k.reserved_event_ids[e];
  }

  void run() {
    State s;
    region(k_.body, s);
  }

 private:
  bool wanted(Pipe from, Pipe to) const {
    if (k_.options.insert_sync) return true;
    return k_.options.auto_sync && (from == Pipe::S || to == Pipe::S || (from == Pipe::V && to == Pipe::V));
  }

  // -- the analysis ------------------------------------------------------------
  uint64_t tick(State& s, Pipe p) {
    s.clock[idx(p)][idx(p)] = ++seq_;
    return seq_;
  }

  static void join(Clock& into, const Clock& from) {
    for (size_t q = 0; q < kPipeSlots; ++q) into[q] = std::max(into[q], from[q]);
  }

  bool known(const State& s, Pipe p, const Access& a) const { return s.clock[idx(p)][idx(a.pipe)] >= a.seq; }

  // Makes pipe `b` know that access `a` completed, inserting what is needed before the op.
  void order(State& s, const Access& a, Pipe b, OpList& out, const Location& loc) {
    if (a.pipe == b) {
      if (b == Pipe::V && s.v_barrier < a.seq && wanted(Pipe::V, Pipe::V)) {
        rw_.emit(out, OpCode::PipeBarrier, {}, {int_attr(static_cast<int64_t>(Pipe::V))}, loc);
        s.v_barrier = s.clock[idx(Pipe::V)][idx(Pipe::V)];
        ++k_.inserted_syncs;
      }
      return;
    }
    if (known(s, b, a) || !wanted(a.pipe, b)) return;
    Pipe source = a.pipe;
    if (k_.options.insert_sync) {  // the most recently active pipe that already knows `a` completed
      for (Pipe p : kPipes)
        if (p != b && known(s, p, a) && find_hard_event(p, b) >= 0 &&
            s.clock[idx(p)][idx(p)] > s.clock[idx(source)][idx(source)])
          source = p;
    }
    int event = find_hard_event(source, b);
    // No event joins the pipes, or every id of it is still pending (the setting pipe cannot know its earlier
    // waits are done: a long run of copies in, each with a flag of its own): a barrier orders everything.
    std::optional<int64_t> id = event < 0 ? std::nullopt : free_id(s, event);
    if (!id) {
      rw_.emit(out, OpCode::PipeBarrier, {}, {int_attr(static_cast<int64_t>(Pipe::All))}, loc);
      barrier_all(s);
      ++k_.inserted_syncs;
      return;
    }
    uint32_t id_value = rw_.const_int(out, DType::Int32, *id, loc);
    Op& set = rw_.emit(out, OpCode::SetFlag, {id_value}, {int_attr(event)}, loc);
    inserted_.insert(&set);
    flag_op(s, set, out);
    flag_op(s, rw_.emit(out, OpCode::WaitFlag, {id_value}, {int_attr(event)}, loc), out);
    ++k_.inserted_syncs;
  }

  // An id of `event` whose previous wait is known complete on the setting pipe, if any.
  std::optional<int64_t> free_id(const State& s, int event) const {
    const HardEventInfo& ev = hard_event(event);
    for (int64_t id = 0; id < kMaxEventIds; ++id) {
      if (used_ids_[event] & (1u << id)) continue;
      auto it = s.last_wait.find({event, id});
      if (it == s.last_wait.end() || wait_done(s, ev, it->second)) return id;
    }
    return std::nullopt;
  }

  bool wait_done(const State& s, const HardEventInfo& ev, uint64_t wait_seq) const {
    return ev.dst == Pipe::S || s.clock[idx(ev.src)][idx(ev.dst)] >= wait_seq;
  }

  void barrier_all(State& s) {
    Clock all{};
    for (const Clock& c : s.clock) join(all, c);
    for (Clock& c : s.clock) c = all;
    s.v_barrier = all[idx(Pipe::V)];
  }

  // An existing (or just inserted) set_flag / wait_flag / pipe_barrier.
  void flag_op(State& s, Op& op, OpList& out) {
    if (op.code == OpCode::PipeBarrier) {
      Pipe p = static_cast<Pipe>(op.attr_int(0));
      if (p == Pipe::All) barrier_all(s);
      if (p == Pipe::V) s.v_barrier = s.clock[idx(Pipe::V)][idx(Pipe::V)];
      return;
    }
    int event = static_cast<int>(op.attr_int(0));
    const HardEventInfo& ev = hard_event(event);
    auto id = refs_.const_of(op.operands[0]);
    std::pair<int, int64_t> key{event, id ? *id : -1};
    if (op.code == OpCode::SetFlag) {
      if (inserted_.count(&op) && id) {
        // Re-setting this id before its previous wait finished would set a set flag.
        auto it = s.last_wait.find(key);
        if (it != s.last_wait.end() && !wait_done(s, ev, it->second)) {
          Access previous_wait{it->second, ev.dst, {}, false};
          OpList guard;
          order_forced(s, previous_wait, ev.src, guard, op.loc);
          for (auto& g : guard) out.insert(out.end() - 1, std::move(g));  // before this set
        }
      }
      // A set executes once every earlier op of its pipe has finished, so on V
      // it also orders the vector ops before it against those after it.
      if (ev.src == Pipe::V) s.v_barrier = s.clock[idx(Pipe::V)][idx(Pipe::V)];
      tick(s, ev.src);
      s.tokens[key].push_back(s.clock[idx(ev.src)]);
    } else {
      auto& q = s.tokens[key];
      if (!q.empty()) {
        join(s.clock[idx(ev.dst)], q.front());
        q.pop_front();
      }
      s.last_wait[key] = tick(s, ev.dst);
    }
  }

  // order() without the auto_sync filter: used to make an id safe to reuse.
  void order_forced(State& s, const Access& a, Pipe b, OpList& out, const Location& loc) {
    CompileOptions saved = k_.options;
    k_.options.insert_sync = true;
    order(s, a, b, out, loc);
    k_.options = saved;
  }

  void pipe_op(State& s, std::unique_ptr<Op> op, OpList& out) {
    Pipe b = op_pipe(*op);
    auto effects = refs_.accesses(*op);
    for (const auto& [ref, write] : effects)
      for (size_t i = 0; i < s.pending.size(); ++i) {
        Access a = s.pending[i];  // copy: order() may grow pending
        if ((write || a.write) && overlap(a.ref, ref)) order(s, a, b, out, op->loc);
      }
    uint64_t seq = tick(s, b);
    for (const auto& [ref, write] : effects) add_pending(s, {seq, b, ref, write});
    prune(s);
    out.push_back(std::move(op));
  }

  // An access subsumes an earlier one of its pipe to the same memory that it writes if that one did: a pipe runs
  // in order, so whatever must wait for the earlier one conflicts with this one and waits for it, which implies
  // the earlier. Dropping those keeps the pending list (and the walk per op) from growing with a kernel that
  // works on one buffer over and over, which made the pass quadratic.
  static void add_pending(State& s, const Access& a) {
    auto subsumed = [&](const Access& old) {
      return old.pipe == a.pipe && old.ref.root == a.ref.root && old.ref.memory == a.ref.memory &&
             old.ref.lo == a.ref.lo && old.ref.hi == a.ref.hi && (a.write || !old.write);
    };
    s.pending.erase(std::remove_if(s.pending.begin(), s.pending.end(), subsumed), s.pending.end());
    s.pending.push_back(a);
  }

  // Drops accesses every pipe already knows completed (and, for V, are barrier-ordered).
  void prune(State& s) {
    std::vector<Access> keep;
    for (const Access& a : s.pending) {
      bool done = a.pipe != Pipe::V || s.v_barrier >= a.seq;
      for (Pipe p : kPipes) done = done && known(s, p, a);
      if (!done) keep.push_back(a);
    }
    s.pending = std::move(keep);
  }

  // Nested loops are re-walked per pass of each enclosing loop, and their states grow: bound the work (op visits
  // and merged accesses), never hang the compiler.
  void spend(uint64_t work, const Op& op) {
    work_ += work;
    if (work_ > kMaxWork)
      fail(ASC_ERR_UNSUPPORTED, op.loc,
           "insert_sync gave up: loops nested too deeply for its analysis ({} steps); synchronise this kernel by hand "
           "(auto_sync/insert_sync off) or nest fewer loops",
           kMaxWork);
  }

  // A loop's body analysed iteration after iteration until no flag is added; a body that leaves the state as it
  // found it needs one pass. Returns the state after the loop (the body ran any number of times, or not at all).
  State loop(Op& op, const State& entry) {
    State iter = entry;
    for (int pass = 0; pass < kMaxPasses; ++pass) {
      int before = k_.inserted_syncs;
      region(op.regions[0], iter);
      spend(entry.pending.size() + iter.pending.size(), op);  // what merging the two states costs
      if (k_.inserted_syncs != before) continue;
      State after = merge(entry, iter);
      if (pass > 0 || same_state(after, entry)) return after;
    }
    return merge(entry, iter);
  }

  void region(Region& r, State& s) {
    OpList out;
    for (auto& op_ptr : r.ops) {
      Op& op = *op_ptr;
      spend(1, op);
      switch (op.code) {
        case OpCode::For:
          s = loop(op, s);
          out.push_back(std::move(op_ptr));
          break;
        case OpCode::If: {
          State other = s;
          region(op.regions[0], s);
          region(op.regions[1], other);
          s = merge(s, other);
          out.push_back(std::move(op_ptr));
          break;
        }
        case OpCode::SetFlag:
        case OpCode::WaitFlag:
        case OpCode::PipeBarrier:
          out.push_back(std::move(op_ptr));
          flag_op(s, *out.back(), out);
          break;
        default:
          if (op.info().effects.empty())
            out.push_back(std::move(op_ptr));
          else
            pipe_op(s, std::move(op_ptr), out);
      }
    }
    r.ops = std::move(out);
  }

  static constexpr int kMaxPasses = 6;
  static constexpr uint64_t kMaxWork = 4'000'000;
  uint64_t work_ = 0;
  Kernel& k_;
  LocalRefs refs_;
  Rewriter rw_;
  uint64_t seq_ = 0;
  std::array<uint8_t, kHardEventCount> used_ids_{};
  std::set<const Op*> inserted_;
};

}  // namespace

void insert_sync(Kernel& kernel) {
  if (kernel.options.insert_sync && kernel.options.buffer_tokens)
    insert_buffer_tokens(kernel);
  else if (kernel.options.auto_sync || kernel.options.insert_sync)
    SyncInserter(kernel).run();
}

}  // namespace asc
