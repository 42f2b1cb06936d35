// One block (core) of a Model launch: the scalar unit walks the kernel in
// program order and dispatches every non-scalar op to its pipe's queue. Each
// pipe executes its queue in order; wait_flag holds a pipe until the matching
// set_flag has executed on the source pipe. Queues are drained eagerly, which
// is one legal hardware interleaving; a wait no set can satisfy is a deadlock.
// Every executed op also goes through the race checker (when sanitizing) and
// the timeline (always).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "sim/cross_core.h"
#include "sim/gm_memory.h"
#include "sim/race_checker.h"
#include "sim/timing.h"
#include "sim/value.h"
#include "support/tick_clock.h"
#include "target/cores.h"
#include "target/platform.h"

namespace asc::sim {

struct LaunchOptions {
  bool sanitize = true;  // racecheck, initcheck, synccheck, GM write conflicts
  bool record = false;   // keep every op's start/end for a trace
  // A block that runs more ops than this (loop iterations count too) fails:
  // a kernel whose loop never ends is an error, not a hang. 0: no limit.
  uint64_t max_ops = uint64_t{1} << 32;
  // Where printf / dump_tensor text goes, in block order; filled even when the
  // launch fails (with the blocks up to the failing one). Null: discarded.
  std::string* output = nullptr;
  // Wall-clock budget of the launch (0: none): a block still running past it fails (ASC_ERR_RUNTIME).
  uint64_t timeout_ns = 0;
  // Cancellation: the launch stops (ASC_ERR_RUNTIME, "interrupted") once *cancel differs from cancel_epoch.
  const std::atomic<uint64_t>* cancel = nullptr;
  uint64_t cancel_epoch = 0;
  // Bytes of printf / dump_tensor text one launch keeps (0: no limit); past it the text is cut, and says so.
  uint64_t max_output = uint64_t{1} << 20;
  // What the board runs but a careful kernel avoids (GM padding, a local tensor used past its end, blocks
  // repeating each other's writes) fails instead of warning (ASC_STRICT=1, stream option strict).
  bool strict = false;
};

class CrossCore;

// A core's cube state that mode setters write and cube instructions read, as the board's registers do:
// HF32 (set_hf32_mode, set_hf32_trans_mode), the result order (set_mm_layout_transform: the values do not
// depend on it), load_data (3-D)'s feature map, L1 boundary, padding value and repeat parameters, and the 4:2 sparse
// index buffer load_data_with_sparse fills (a quarter of L0B: L0B byte x's index byte at x / 4).
struct CubeModes {
  bool hf32 = false;
  bool hf32_towards_zero = false;  // ties towards zero rather than to even
  bool mm_n_first = false;
  uint32_t load_boundary = 0;                          // bytes; 0: none
  int64_t l1_h = 0, l1_w = 0, pads[4] = {0, 0, 0, 0};  // set_fmatrix: the feature map, padding left/right/top/bottom
  double pad_f = 0;                                    // the padding value, for float and integer tensors
  int64_t pad_i = 0;
  int64_t repeat_time = 1, repeat_stride = 0, repeat_mode = 0;
  // The 4:2 sparse index buffer, zero until load_data_with_sparse writes it. Made at its first use: a launch
  // builds a Block per core, and 16 KiB allocated and cleared for each was most of a small launch's time.
  uint8_t* sparse_index() {
    if (sparse_index_.empty()) sparse_index_.assign(kSparseIndexBytes, 0);
    return sparse_index_.data();
  }
  static constexpr size_t kSparseIndexBytes = 16384;

 private:
  std::vector<uint8_t> sparse_index_;
};

struct LaunchContext {
  const Kernel& kernel;
  const Platform& platform;
  uint32_t block_dim;
  const std::vector<GmBuffer>& gm;           // by kernel parameter index (unused for scalars)
  const std::vector<RtValue>& initial_regs;  // the registers at a block's start: the parameters' first (the rest zero)
  LaunchOptions options;
  CrossCore* cross = nullptr;                // set when the kernel synchronises cores (cross_core_* / sync_all)
  std::mutex* gm_atomic = nullptr;           // held by atomic read-modify-writes of GM (blocks run on several threads)
  tick_clock::Ticks deadline = 0;            // start + options.timeout_ns (when that is set)
  std::atomic<uint64_t>* printed = nullptr;  // text bytes the launch's blocks kept (options.max_output)
  std::atomic<bool>* output_cut = nullptr;   // set when a block's text was cut
  LaunchOnce* memcheck_once = nullptr;       // memcheck warnings: one per (op, argument) per launch
};

// A GM byte range a block wrote, for the cross-block conflict check.
struct GmWrite {
  uint32_t arg;
  uint64_t lo, hi;
  const Op* op;
  uint64_t hash = 0;    // of the bytes written, right after the write
  bool hashed = false;  // hash already set (by the copy that wrote them: Block::copy_to_effect)
  bool atomic = false;  // combined with GM (set_atomic_add / max / min): any order gives the same result
  uint32_t epoch = 0;   // sync_all barriers the block had passed (accesses of different epochs are ordered)
  uint32_t point = 1;   // the block's sync point (Block::sync_point): happens-before through GM-workspace protocols
};

// A GM byte range a block read, for the cross-block read/write check (racecheck).
struct GmRead {
  uint32_t arg;
  uint64_t lo, hi;
  const Op* op;
  uint32_t epoch = 0;
  uint32_t point = 1;
};

// The atomic-write register: what MTE3 and FIX writes to GM do with the bytes already there.
enum class AtomicOp : uint8_t { None, Add, Max, Min };
struct AtomicMode {
  AtomicOp op = AtomicOp::None;
  DType dtype = DType::Float32;
};

// What a data_sync_barrier waits for: every memory access, GM ones, Unified Buffer ones (MemDsbT ALL, DDR, UB).
enum class MemBarrier : uint8_t { All, Ddr, Ub };

constexpr size_t kMaxIssuedOperands = 13;  // held in a queue entry itself: select in mask mode is that wide
// The widest op a pipe runs (its operands past kMaxIssuedOperands live in the entry's `wide` vector): a data_copy
// of 8-dimensional SliceInfo lists (2 tensors, 80 fields).
constexpr size_t kMaxOperands = 96;

// The vector mask register (set_vector_mask, set_mask_count/set_mask_norm,
// reset_mask). In normal mode `bits` selects elements of each repeat; in
// counter mode bits[0] is the element count of the next instructions.
struct VectorMaskReg {
  uint64_t bits[2] = {~0ull, ~0ull};
  bool counter = false;
};

// The deq-scale register DEQSCALE, as the vector unit sees it. On the board it is one special register the
// scalar unit writes (SetDeqScale): a half scale, or a float scale with a 9-bit offset and a sign mode packed in
// one 64-bit word, or (the VdeqInfo form) the Unified Buffer address of the 128-byte vdeq tensor holding 16
// such groups. The Model keeps the value the form set (for the vector form a copy of its 16 groups, so a
// kernel that rewrites vdeq afterwards sees the groups set_deq_scale wrote), and a vector instruction reads the
// register as it is dispatched, as it reads the mask register.
struct DeqScaleReg {
  enum Kind : uint8_t { Unset, HalfScale, Quant, Vector } kind = Unset;
  struct Group {
    float scale = 0;
    int16_t offset = 0;  // sign-extended from its low 9 bits
    bool sign = false;   // true: an int8 result, false: uint8
  };
  Group groups[16];  // HalfScale and Quant: groups[0]
};

// An op waiting in a pipe queue, with its operands (and the mask register, as
// the hardware reads it at dispatch) captured at dispatch.
struct Issued {
  const Op* op;
  std::array<RtValue, kMaxIssuedOperands> in;
  uint64_t dispatched = 0;  // cycle
  VectorMaskReg mask{};
  AtomicMode atomic{};
  DeqScaleReg deq{};            // captured only for the instructions that read it (reads_deq_scale)
  std::vector<RtValue> wide{};  // all the operands of an op wider than `in` (empty otherwise)
  uint64_t ticket = 0;          // a get_buf's place among its buffer id's acquisitions, in program order
  const RtValue* args() const { return wide.empty() ? in.data() : wide.data(); }
};

// One buffer id of Ascend 950's buffer tokens (get_buf / rls_buf, buffer_tokens.cpp): acquisitions are served in
// program order, each once every earlier one was released.
struct BufferToken {
  uint64_t issued = 0, released = 0;  // get_bufs issued and rls_bufs executed
  const Op* holder = nullptr;         // the get_buf holding it, or null
  Pipe pipe = Pipe::S;                // its pipe
};

// The pad-value register SetPadValue writes: data_copy_pad GM -> UB without is_pad fills its pads with it.
struct PadValueReg {
  bool set = false;
  uint64_t bits = 0;  // the value's bytes, little-endian; a copy of dtype T uses the low sizeof(T)
};

// The AIPP registers set_aipp_functions writes and load_image_to_local reads: the source image (two GM tensors
// for YUV420SP), its format, the output dtype and the 37 configuration fields in the row's operand order.
constexpr size_t kAippFields = 37;
struct AippRegs {
  bool set = false;
  int64_t format = 0;
  DType dtype = DType::Int8;
  RtValue src0{}, src1{};
  std::array<RtValue, kAippFields> fields{};
};

// The vector instructions that read DEQSCALE (cast_deq, add_deq_relu). (Inline: asked for every pipe op issued.)
inline bool reads_deq_scale(OpCode code) {
  return code == OpCode::VCastDeq || code == OpCode::VCastDeqMask || code == OpCode::VAddDeqRelu ||
         code == OpCode::VAddDeqReluMask;
}

// A pipe's queue: issued in order, drained from the front. Slots are reused
// once the queue empties, and next() hands one out as it is (only the fields
// and operands the caller sets are meaningful): an entry is large, and
// initialising one per instruction cost more than running a small one.
// Nothing is issued to a pipe while its front entry runs, so front() stays valid.
class PipeQueue {
 public:
  bool empty() const { return head_ == tail_; }
  size_t size() const { return tail_ - head_; }
  const Issued& front() const { return items_[head_]; }
  Issued& next() {
    if (tail_ == items_.size()) items_.emplace_back();
    return items_[tail_++];
  }
  void pop_front() {
    if (++head_ == tail_) head_ = tail_ = 0;
  }
  void clear() { head_ = tail_ = 0; }
  const Issued* begin() const { return items_.data() + head_; }
  const Issued* end() const { return items_.data() + tail_; }

 private:
  std::vector<Issued> items_;
  size_t head_ = 0, tail_ = 0;
};

// A core's small state: its registers and the scalar unit's counters. Block::restart resets it whole (a new
// field here needs no reset of its own), which is what lets a host thread run block after block on one Block.
struct BlockRegisters {
  static constexpr uint32_t kCheckEvery = 4096;  // ops between check_budget's clock reads
  // Past this many recorded reads a block's list is coarsened (nearby ranges of one op merge).
  static constexpr size_t kMaxGmReads = 8192;

  bool stopped_ = false;
  uint64_t ops_left_ = UINT64_MAX;  // LaunchOptions::max_ops, counted down by region()
  uint32_t until_check_ = kCheckEvery;
  bool budgeted_ = false;  // a timeout or a cancellation flag is set
  int64_t flags_set_ = 0;  // how many of Block::flags_ are set (synccheck scans them only then)
  uint64_t queued_ = 0;    // instructions waiting in the pipes' queues (drain looks at them only then)
  VectorMaskReg mask_reg_;
  AtomicMode atomic_;
  bool ub_watched_ = false;  // any watch register on: only then do accesses look at them
  PadValueReg pad_value_;
  VectorMaskReg issued_mask_;
  uint64_t cmp_mask_[2] = {0, 0};
  uint64_t fixpipe_quant_scalar_ = 0;
  uint16_t mrg_sort_result_[4] = {0, 0, 0, 0};
  uint64_t gather_mask_remain_ = 0;
  const Op* running_op_ = nullptr;  // the pipe op whose handler runs, and its pipe
  Pipe running_pipe_ = Pipe::S;
  uint64_t running_dispatched_ = 0;
  GmSpan gm_span_;             // check_effects: the running op's first GM effect (the timeline's L2 reuse)
  uint32_t staged_count_ = 0;  // Block::staged_ entries active
  bool output_line_start_ = true;
  size_t read_cap_ = kMaxGmReads;  // coarsen_gm_reads at this many
  uint32_t epoch_ = 0;
  uint32_t point_ = 1;
};

class Block : private BlockRegisters {
 public:
  using Memories = std::array<uint8_t*, kMemoryCount>;
  // `local` holds the core's on-chip memories, indexed by Memory; `per_op` is where its instructions add their
  // cycles and counts, by Op::index (the launch sums them over the blocks a host thread runs).
  Block(const LaunchContext& ctx, const CoreInstance& core, const Memories& local, LineCost* per_op);
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;
  // Makes this Block `core` of a launch, as a new one would be (its containers keep their capacity): a host
  // thread runs block after block on one Block, because making and taking apart one was most of a small block.
  void restart(const LaunchContext& ctx, const CoreInstance& core, const Memories& local, LineCost* per_op);
  void run();  // throws asc::Error
  using BlockRegisters::kMaxGmReads;

  // Accessors used by the op handlers.
  uint32_t block_idx() const { return core_.block_idx; }
  const CoreInstance& core() const { return core_; }
  void stop() { stopped_ = true; }  // the rest of the kernel does not run on this core
  CrossCore& cross() const { return *ctx_->cross; }
  bool has_cross() const { return ctx_->cross != nullptr; }
  // Ascend 950's writes between a group's cores: the fixpipe L0C -> UB and UB -> L1 (core_delivery.cpp).
  // note_cross_set: a mode-2 cross_core_set_flag on the running pipe, whose race-checker clock another core's
  // later deliveries are ordered after once it waited for it. receive: the other cores' deliveries copied into
  // this core's memories and checked against this core's accesses; `release`: the wait that made them visible
  // orders every pipe after them.
  void note_cross_set(int64_t flag);
  void receive(std::vector<CoreDelivery> deliveries, bool release);
  // The sender's checks: a mix kernel (`what` writes `written`, another core's memory), run on `runs_on`, with
  // the launch's cores side by side.
  void require_group_write(const Op& op, const char* what, const char* written, CoreKind runs_on) const;
  void drain_pipes() { drain(); }  // before the scalar unit waits for another core
  // Timing of cross-core synchronisation: the cycle the running pipe op starts at; the cycle every
  // instruction dispatched so far is done by; the scalar unit waiting until `cycle`.
  uint64_t pipe_op_start() const { return timeline_.start_of(running_pipe_, running_dispatched_); }
  uint64_t pipes_done() const { return timeline_.end(); }
  void wait_until(uint64_t cycle) { timeline_.wait_until(cycle); }
  std::string label() const { return core_label(ctx_->kernel.options.kernel_type, core_); }
  uint32_t block_dim() const { return ctx_->block_dim; }
  const Kernel& kernel() const { return ctx_->kernel; }
  const Platform& platform() const { return ctx_->platform; }
  const std::vector<GmBuffer>& gm() const { return ctx_->gm; }  // the launch's GM arguments, by parameter index
  RtValue& reg(uint32_t v) { return regs_[v]; }
  // Checked pointer to the bytes of the op's i-th memory effect (op table
  // order), valid while a pipe op's handler runs.
  uint8_t* effect_ptr(size_t i) const { return effect_ptrs_[i]; }
  // memmove(effect_ptr(effect), src, bytes), checksumming GM writes the sanitizer records in the same pass.
  void copy_to_effect(size_t effect, const uint8_t* src, uint64_t bytes);
  uint64_t effect_bytes(size_t i) const { return effect_ranges_[i].second - effect_ranges_[i].first; }
  // A data-dependent effect (kDataDependent): bytes [offset, offset + bytes)
  // of the effect's tensor, bounds-checked and (unless `record` is false: the handler records the parts it
  // touches with more calls) recorded for the sanitizer.
  uint8_t* dynamic_access(size_t effect, int64_t offset, int64_t bytes, bool record = true);
  // printf / dump_tensor text; each line is prefixed with the block index.
  void print(std::string_view text);
  bool printed() const { return !output_.empty(); }
  std::string take_output() { return std::move(output_); }
  // Whether the next printed text starts a line (gets the block prefix); the eager executor of the Ascend C
  // round trip carries it from one Block to the next.
  bool& output_line_start() { return output_line_start_; }
  // The mask register as the running pipe op saw it at dispatch.
  const VectorMaskReg& issued_mask() const { return issued_mask_; }
  // The compare register CMPMASK: 128 result bits of compare.register.
  uint64_t* cmp_mask() { return cmp_mask_; }
  // The merge result register (VMS4_SR): how many structures of each of its four lists the last mrg_sort took.
  uint16_t* mrg_sort_result() { return mrg_sort_result_; }
  // The fixpipe quantisation scalar set_fix_pipe_pre_quant_flag loads (FIX pipe state).
  uint64_t& fixpipe_quant_scalar() { return fixpipe_quant_scalar_; }
  // The cube's modes and its 4:2 sparse index buffer (sim/cube_extras.cpp).
  CubeModes& cube_modes() { return rare().cube; }
  // The scalar unit's view of the mask register (set_vector_mask and friends).
  VectorMaskReg& mask_register() { return mask_reg_; }
  // The scalar unit's view of DEQSCALE (set_deq_scale), and the register as the running op saw it at dispatch.
  DeqScaleReg& deq_register() { return rare().deq; }
  const DeqScaleReg& issued_deq() const { return rare_ ? rare_->issued_deq : kUnsetDeq; }
  // RSVD_CNT: how many elements the last gather_mask of this core kept (get_gather_mask_remain_count).
  uint64_t& gather_mask_remain() { return gather_mask_remain_; }
  // The scalar unit's view of the atomic-write register (set_atomic_add and friends).
  AtomicMode& atomic_mode() { return atomic_; }
  // check_local_memory_ia: watch register `index` (0..3) raises on the access kinds `kinds` selects (bit 0 scalar
  // read, 1 scalar write, 2 vector read, 3 vector write, 4 MTE read, 5 MTE write) to UB bytes [lo, hi); 0 turns
  // it off.
  void watch_unified_buffer(size_t index, uint64_t lo, uint64_t hi, uint32_t kinds) {
    auto& watch = rare().ub_watch;
    watch[index] = {lo, hi, kinds};
    ub_watched_ = false;
    for (const UbWatch& w : watch) ub_watched_ = ub_watched_ || w.kinds != 0;
  }
  // data_sync_barrier: the scalar unit goes on once the earlier accesses of that memory completed.
  void data_sync_barrier(const Op& op, MemBarrier what);
  // The HCCL context of communication domain 0 or 1 (set_hccl_context); none until the kernel sets one.
  std::optional<RtValue>& hccl_context(int64_t index) { return rare().hccl_context[index != 0]; }
  // The MTE2 pad-value register (set_pad_value) and the AIPP registers (set_aipp_functions).
  PadValueReg& pad_value_register() { return pad_value_; }
  AippRegs& aipp_registers() {
    if (!aipp_) aipp_ = std::make_unique<AippRegs>();
    return *aipp_;
  }
  // Bytes [offset, offset + bytes) of tensor `t` (a GM argument or a local memory) that the running pipe op reaches
  // through a register or an address value rather than an operand's effect: bounds-checked against the buffer or
  // memory, and recorded for the race checker.
  uint8_t* raw_access(const RtValue& t, int64_t offset, int64_t bytes, bool write);

  // Results, once run() returned.
  const Timeline& timeline() const { return timeline_; }
  Timeline& timeline() { return timeline_; }
  const std::vector<std::string>& warnings() const { return warnings_; }
  const std::vector<GmWrite>& gm_writes() const { return gm_writes_; }
  std::vector<std::string> take_warnings() { return std::move(warnings_); }
  std::vector<GmWrite> take_gm_writes() { return std::move(gm_writes_); }
  const std::vector<GmRead>& gm_reads() const { return gm_reads_; }
  std::vector<GmRead> take_gm_reads() { return std::move(gm_reads_); }
  // The sync_all barriers this block passed: the epoch its GM accesses are recorded in.
  uint32_t epoch() const { return epoch_; }
  void passed_sync_all() { ++epoch_; }
  // Happens-before through the GM-workspace protocols (ib_set / ib_wait, notify_next_block / wait_pre_block, the
  // software sync_all): GM accesses are stamped with the block's sync point (from 1); each release and acquire
  // starts a new one. clocks()[p - 1][c] is the last point of core c known to happen before point p (0: none);
  // empty when the block took part in no protocol.
  std::vector<uint32_t> release();                       // returns the clock to publish
  void acquire(const std::vector<uint32_t>& published);  // what the publisher knew, this block knows now
  bool has_clocks() const { return !clocks_.empty(); }
  std::vector<std::vector<uint32_t>> take_clocks() { return std::move(clocks_); }

 private:
  void region(const Region& r);
  void count_op(const Op& op);      // fails past LaunchOptions::max_ops; every kCheckEvery ops, check_budget
  void check_budget(const Op& op);  // the wall-clock budget and cancellation (a clock read, no system call)
  void scalar_op(const Op& op);
  void issue(const Op& op);
  bool step(Pipe p);
  void drain();
  void drain_or_deadlock();  // drain; then an instruction still queued is a deadlock
  void set_flag(const Issued& entry);
  bool wait_flag(const Issued& entry);  // false: the flag is not set yet
  void wait_on_scalar(const Op& op, int64_t event, int64_t id);
  // buffer_tokens.cpp: a get_buf's ticket when it is issued; its acquisition (false: an earlier holder has not
  // released the id yet) and the release; the tokens of the scalar unit; what a kernel ending holding one warns.
  uint64_t buffer_ticket(const Op& op, int64_t id);
  bool get_buf(const Issued& entry, Pipe pipe);
  void rls_buf(const Issued& entry, Pipe pipe);
  void buffer_token_on_scalar(const Op& op);
  void warn_held_buffers();
  [[noreturn]] void buffer_deadlock(const Issued& blocked, Pipe pipe);
  void barrier_all(const Op& op);
  void finish();
  [[noreturn]] void deadlock(const Issued& blocked);
  // Resolves the op's memory effects (bounds, alignment, sanitizer); returns
  // the largest effect's byte count, for the timing model.
  uint64_t check_effects(const Op& op, Pipe pipe, const RtValue* in);
  // Whether an op reading bytes that hold no defined value runs (the values it computes from them are tracked
  // as undefined) rather than failing: it writes only the Unified Buffer, and is not the scalar unit's.
  bool propagates_undefined(const Op& op, Pipe pipe, const RtValue* in) const;
  // Runs the op's handler. When its reads took undefined bytes (undefined_reads_), runs it a second time with
  // those bytes flipped: the written bytes that differ depend on them and are marked undefined
  // (undefined_values.cpp).
  void exec_op(const Op& op, const RtValue* in, RtValue* out);
  void warn_undefined_reads(const Op& op);  // once per op per launch
  uint8_t* memory(const Op& op, const RtValue& tensor, DType dtype, int64_t offset, int64_t count, const MemEffect& e);
  uint8_t* strided_memory(const Op& op, const RtValue* in, DType dtype, const MemEffect& e);
  // A vector op's rate: its family's and dtypes' entry of the platform's vector cost table (nullptr: not a vector
  // op, or none with an operand to price it by).
  const VectorRate* vector_rate(const Op& op) const;
  // The cycles a vector instruction's UB bank conflicts add (sim/bank_conflicts.h): 0 on platforms without the
  // documented layout, for instructions outside the UB, and where no group serves two blocks in one beat.
  uint64_t bank_conflict_cycles(const Op& op, const RtValue* in) const;
  // GM bytes [lo, lo + bytes) of an argument reaching into its allocation's padding: warns (once per launch) and
  // returns a copy the handler works on; flush_staged writes what it changed back through gm_memory.
  uint8_t* padded_gm(const Op& op, uint32_t arg, uint64_t lo, uint64_t bytes, bool write, size_t which);
  void flush_staged();
  // A local tensor used past its declared end but inside its memory: the board runs it; a warning (or, strict, an
  // error).
  void local_overuse(const Op& op, const char* verb, uint64_t lo, uint64_t hi, uint64_t tensor_bytes, Memory memory);
  bool memcheck_first(const Op& op, uint64_t what) const {
    return !ctx_->memcheck_once || ctx_->memcheck_once->first(&op, what);
  }
  size_t flag_index(const Op& op, int64_t event, int64_t id) const;
  void update_mask_register(const Op& op, const RtValue* in);  // vector_mask.cpp
  uint64_t work_units(const Op& op, const RtValue* in) const;  // CostKind::Cube
  void hash_gm_writes(size_t from);
  void record_gm_write(uint32_t arg, uint64_t lo, uint64_t hi, const Op& op);
  void record_gm_read(uint32_t arg, uint64_t lo, uint64_t hi, const Op& op);
  void coarsen_gm_reads();
  bool writes_gm(const Op& op, const RtValue* in) const;
  void exec_atomic(const Op& op, const Issued& entry, RtValue* out, size_t writes_from);  // atomic.cpp

  const LaunchContext* ctx_ = nullptr;  // the launch of the block the Block runs (restart sets it)
  CoreInstance core_;
  Memories local_;
  // A local tensor's memory, its base in this core and its size; the race
  // checker's space for any tensor (local memories first, then GM arguments).
  static Memory memory_of(const RtValue& t) { return static_cast<Memory>(t.mem - kMemLocal); }
  uint8_t* local_base(const RtValue& t) const { return local_[static_cast<size_t>(memory_of(t))]; }
  // The size of a local tensor's memory in this core; an access to a memory
  // the core does not have (creating the tensor is only an address) fails here.
  uint64_t local_bytes(const RtValue& t, const Op& op) const;
  static uint32_t space_of(const RtValue& t) {
    return is_local_mem(t.mem) ? t.mem - kMemLocal : static_cast<uint32_t>(kMemoryCount) + t.mem;
  }
  std::vector<RtValue> regs_;
  // a scalar-unit op's operands (only its own are set); grown for the few wider than a queue entry (matmul.server)
  std::vector<RtValue> scalar_in_;  // at least kMaxIssuedOperands
  std::array<PipeQueue, kPipeSlots> queues_;
  // One flag per (HardEvent, event id): the set_flag op that set it, or null.
  std::vector<const Op*> flags_;
  // The buffer tokens and the AIPP registers, made at their first use (Ascend 950's get_buf / rls_buf,
  // set_aipp_functions): most kernels use neither, and clearing them for every Block of a launch cost more than
  // running a small block.
  using BufferTokens = std::array<BufferToken, kBufferTokens>;
  std::unique_ptr<BufferTokens> buffers_;
  BufferTokens& buffers() {
    if (!buffers_) buffers_ = std::make_unique<BufferTokens>();
    return *buffers_;
  }
  struct UbWatch {
    uint64_t lo = 0, hi = 0;
    uint32_t kinds = 0;
  };
  void check_ub_watch(const Op& op, Pipe pipe, uint64_t lo, uint64_t hi, bool write) const;
  std::unique_ptr<AippRegs> aipp_;
  // The registers of a few instruction families (quantisation's DEQSCALE, the cube's modes, HCCL, the UB watch
  // registers), made at their first use: clearing them for every Block of a launch was a good part of a small
  // block, and most kernels touch none of them.
  struct RareRegisters {
    DeqScaleReg deq, issued_deq;
    CubeModes cube;
    std::array<std::optional<RtValue>, 2> hccl_context;
    std::array<UbWatch, 4> ub_watch{};
  };
  std::unique_ptr<RareRegisters> rare_;
  RareRegisters& rare() {
    if (!rare_) rare_ = std::make_unique<RareRegisters>();
    return *rare_;
  }
  static const DeqScaleReg kUnsetDeq;  // DEQSCALE as a block sees it before any set_deq_scale
  std::map<int64_t, std::vector<RaceChecker::Clock>> cross_set_clocks_;  // note_cross_set, per flag id, in order
  // an op's memory effects: at most kMaxEffects (mrg_sort: four lists and dst)
  static constexpr size_t kMaxEffects = 5;
  // (check_effects sets them for each op before anything reads them: not cleared for every Block of a launch)
  std::array<RtValue, kMaxEffects> effect_tensors_;
  std::array<uint8_t*, kMaxEffects> effect_ptrs_;
  std::array<std::pair<uint64_t, uint64_t>, kMaxEffects> effect_ranges_;  // byte ranges, UB or GM
  std::array<int64_t, kMaxEffects> effect_repeats_;                       // a Strided effect's repeats (its mask's)
  struct StagedGm {  // an effect reaching into GM padding (padded_gm)
    uint32_t arg = 0;
    uint64_t lo = 0;
    bool write = false, active = false;
    std::vector<uint8_t> data, before;
  };
  // Made at the first access reaching into GM padding (few kernels make one; five entries of two vectors each
  // were a good part of making and dropping a small block).
  std::unique_ptr<std::array<StagedGm, kMaxEffects>> staged_;
  // The sanitizer's checker, made at its first use when sanitizing (ctx_->options.sanitize): a block that touches no
  // memory and sets no flag never needs one, and clearing its clocks was a good part of a small launch's block.
  std::optional<RaceChecker> race_;
  RaceChecker& race() {
    if (!race_) race_.emplace(ctx_->kernel.memory_pipes);
    return *race_;
  }
  RaceChecker::Ranges undefined_reads_;  // of the running op: Unified Buffer bytes it read that hold no defined value
  Timeline timeline_;
  std::vector<std::string> warnings_;
  std::vector<const Op*> warned_ops_;  // one alignment warning per op
  std::string output_;
  std::vector<GmWrite> gm_writes_;
  std::vector<GmRead> gm_reads_;
  std::vector<std::vector<uint32_t>> clocks_;
  std::vector<uint32_t>& clock();  // the current point's, made on first use
};

}  // namespace asc::sim
