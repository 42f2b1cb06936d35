// Synchronisation between blocks through a GM workspace: ib_set / ib_wait,
// notify_next_block / wait_pre_block and the software sync_all (rows in
// ir/ops_sync.cpp). On the board the scalar unit polls the workspace with
// copies between it and the UB workspace, inside pipe_barrier(PIPE_ALL)s; the
// Model waits on the workspace's bytes under the cross-core lock instead
// (CrossCore::gm_step), so a wait nothing can satisfy is a deadlock, and each
// write of a slot publishes the writer's happens-before clock for the core
// whose wait it satisfies (the GM hazard check then knows their accesses are
// ordered). The protocol's own accesses to the workspace are synchronisation,
// not data: they are bounds-checked but not recorded for the hazard check.
//
// The slot protocols:
//   * ib_set(block, event) waits until its slot is 0 and writes 1; ib_wait waits until it is 1 and writes 0 (a
//     binary semaphore, so the pair can be used again). The slot of (block, event) is the 32 bytes at
//     (cores * event + block) * 32, cores = the block count (the vector cores of a mix kernel's when not
//     aiv_only: twice that).
//   * notify_next_block adds 1 to its block's slot (at block_idx * 32); the k-th wait_pre_block of block i
//     waits until block i - 1 notified k + 1 times (block 0: until the last block notified k times), so rounds
//     pass the blocks in order 0, 1, ..., n - 1, 0, ...
//   * the k-th software sync_all writes k + 1 into its block's slot and waits until the slots of the first
//     used_cores blocks all hold k + 1 or more.
#include <cstring>

#include "sim/cross_core.h"
#include "sim/handlers.h"

namespace asc::sim {
namespace {

constexpr int64_t kSlotBytes = 32;  // one data block per flag
enum Round : int64_t { kWaitPre, kSyncSoft };

int32_t load(const uint8_t* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
void store(uint8_t* p, int32_t v) { std::memcpy(p, &v, sizeof v); }
uint64_t key_of(const uint8_t* p) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)); }

// The workspaces must hold what the protocol needs (the documented minimum sizes): a clear error, not a stray
// access. A tensor of unknown length is checked access by access against its buffer.
void require_bytes(const Op& op, const RtValue& t, int64_t bytes, const char* which, const std::string& why) {
  if (t.len == kUnknownLength) return;
  if (static_cast<int64_t>(t.len) * 4 < bytes)
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc, "{}: the {} workspace holds {} bytes; {} needs {}", op.info().name, which,
         t.len * 4, why, bytes);
}

// Joins the publication of (slot, count), if any: returns the cycle it was written at.
uint64_t acquire(Block& b, CrossCore::Publications& pubs, const uint8_t* slot, int64_t count) {
  auto it = pubs.find({key_of(slot), count});
  if (it == pubs.end()) return 0;
  b.acquire(it->second.clock);
  return it->second.cycle;
}

void publish(Block& b, CrossCore::Publications& pubs, const uint8_t* slot, int64_t count, uint64_t after) {
  pubs[{key_of(slot), count}] = {b.release(), std::max(b.pipes_done(), after)};
}

// ib_set (0 -> 1) and ib_wait (1 -> 0).
void semaphore(Block& b, const Op& op, const RtValue* in, int32_t from, int32_t to) {
  const bool aiv_only = op.attr_int(0) != 0;
  const int64_t cores = int64_t{b.block_dim()} * (aiv_only ? 1 : 2), block = in[2].i, event = in[3].i;
  if (block < 0 || block >= cores)
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc, "{}: block_idx {} is outside 0..{} (the {} cores taking part)", op.info().name,
         block, cores - 1, cores);
  if (event < 0) fail(ASC_ERR_OUT_OF_BOUNDS, op.loc, "{}: event_id {} is negative", op.info().name, event);
  const int64_t offset = (cores * event + block) * kSlotBytes;
  require_bytes(op, in[0], offset + kSlotBytes, "GM",
                fmt::format("the slot of block {} and event {} (cores * 32 * event + block * 32 + 32)", block, event));
  require_bytes(op, in[1], kSlotBytes, "UB", "the protocol");
  b.data_sync_barrier(op, MemBarrier::All);
  uint8_t* slot = b.dynamic_access(0, offset, kSlotBytes);
  b.dynamic_access(1, offset, kSlotBytes);
  uint8_t* ub = b.dynamic_access(2, 0, kSlotBytes);
  uint64_t ready_at = 0;
  b.cross().gm_step(
      op, fmt::format("{}(block {}, event {}) on {}", op.info().name, block, event, b.label()),
      [&] { return load(slot) == from; },
      [&](CrossCore::Publications& pubs) {
        ready_at = acquire(b, pubs, slot, 0);
        store(slot, to);
        std::memcpy(ub, slot, kSlotBytes);
        publish(b, pubs, slot, 0, ready_at);
      });
  b.wait_until(ready_at);
}

void require_vector_core(Block& b, const Op& op) {
  if (b.core().kind != CoreKind::AIV)
    fail(ASC_ERR_RUNTIME, op.loc, "{} on {}: only vector cores take part", op.info().name, b.label());
}

// notify_next_block / wait_pre_block: vector cores only, GM block_num * 32 bytes, UB block_num * 32 + 32;
// returns block_num (the launch's vector cores).
int64_t turn_workspaces(Block& b, const Op& op, const RtValue* in) {
  require_vector_core(b, op);
  const int64_t blocks = b.core().of;
  require_bytes(op, in[0], blocks * kSlotBytes, "GM", "block_num * 32 bytes");
  require_bytes(op, in[1], blocks * kSlotBytes + kSlotBytes, "UB", "block_num * 32 + 32 bytes");
  return blocks;
}

}  // namespace

void exec_IbSet(Block& b, const Op& op, const RtValue* in, RtValue*) { semaphore(b, op, in, 0, 1); }
void exec_IbWait(Block& b, const Op& op, const RtValue* in, RtValue*) { semaphore(b, op, in, 1, 0); }

void exec_NotifyNextBlock(Block& b, const Op& op, const RtValue* in, RtValue*) {
  turn_workspaces(b, op, in);
  const int64_t self = b.block_idx();
  b.data_sync_barrier(op, MemBarrier::All);
  uint8_t* slot = b.dynamic_access(0, self * kSlotBytes, kSlotBytes);
  b.dynamic_access(1, self * kSlotBytes, kSlotBytes);
  uint8_t* ub = b.dynamic_access(2, 0, kSlotBytes);
  b.cross().gm_step(
      op, fmt::format("notify_next_block on {}", b.label()), [] { return true; },
      [&](CrossCore::Publications& pubs) {
        const int32_t count = load(slot) + 1;
        store(slot, count);
        std::memcpy(ub, slot, kSlotBytes);
        publish(b, pubs, slot, count, 0);
      });
}

void exec_WaitPreBlock(Block& b, const Op& op, const RtValue* in, RtValue*) {
  const int64_t blocks = turn_workspaces(b, op, in), self = b.block_idx();
  const int64_t round = b.cross().next_round(static_cast<uint32_t>(b.core().index), kWaitPre);
  b.data_sync_barrier(op, MemBarrier::All);
  const int64_t previous = self == 0 ? blocks - 1 : self - 1, need = self == 0 ? round : round + 1;
  uint8_t* slot = b.dynamic_access(0, previous * kSlotBytes, kSlotBytes);
  uint8_t* ub = b.dynamic_access(2, 0, blocks * kSlotBytes + kSlotBytes);
  uint64_t ready_at = 0;
  b.cross().gm_step(
      op, fmt::format("wait_pre_block (round {}, waiting for block {}) on {}", round, previous, b.label()),
      [&] { return load(slot) >= need; },
      [&](CrossCore::Publications& pubs) {
        if (need > 0) ready_at = acquire(b, pubs, slot, need);
        std::memcpy(ub, slot, kSlotBytes);
      });
  b.wait_until(ready_at);
}

void exec_SyncAllSoft(Block& b, const Op& op, const RtValue* in, RtValue*) {
  require_vector_core(b, op);
  const int64_t cores = b.core().of, used = in[2].i == 0 ? cores : in[2].i, self = b.block_idx();
  if (used < 0 || used > cores)
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc, "sync_all: used_cores {} is outside 0..{} (the launch's vector cores)", in[2].i,
         cores);
  require_bytes(op, in[0], used * kSlotBytes, "GM", "used_cores * 32 bytes");
  require_bytes(op, in[1], used * kSlotBytes, "UB", "used_cores * 32 bytes");
  const int64_t round = b.cross().next_round(static_cast<uint32_t>(b.core().index), kSyncSoft), need = round + 1;
  b.data_sync_barrier(op, MemBarrier::All);
  uint8_t* base = b.dynamic_access(0, 0, used * kSlotBytes);
  b.dynamic_access(1, 0, used * kSlotBytes);
  uint8_t* ub = b.dynamic_access(2, 0, used * kSlotBytes);
  const std::string what = fmt::format("sync_all (software, round {}) on {}", round, b.label());
  if (self < used)
    b.cross().gm_step(
        op, what, [] { return true; },
        [&](CrossCore::Publications& pubs) {
          store(base + self * kSlotBytes, static_cast<int32_t>(need));
          publish(b, pubs, base + self * kSlotBytes, need, 0);
        });
  uint64_t ready_at = 0;
  b.cross().gm_step(
      op, what,
      [&] {
        for (int64_t c = 0; c < used; ++c)
          if (load(base + c * kSlotBytes) < need) return false;
        return true;
      },
      [&](CrossCore::Publications& pubs) {
        for (int64_t c = 0; c < used; ++c)
          if (c != self) ready_at = std::max(ready_at, acquire(b, pubs, base + c * kSlotBytes, need));
        std::memcpy(ub, base, static_cast<size_t>(used * kSlotBytes));
      });
  b.wait_until(ready_at);
}

}  // namespace asc::sim
