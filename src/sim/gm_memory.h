// A kernel argument's GM as the board has it: the caller's bytes, then the
// padding the runtime's allocator adds, then the rest of the allocator's
// segment. The one place that maps a GM byte range of an argument to host
// memory when it reaches past the caller's bytes.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

namespace asc::sim {

// The bytes an allocation of `size` bytes has on the board (0 for 0). aclrtMalloc rounds a request up to a
// multiple of 32 bytes and adds 32 (CANN aclrtMallocAlign32 / aclrtMalloc reference: "m = ALIGN_UP[len,32] +
// 32 bytes"); torch_npu's caching allocator gives ALIGN_UP[len + 32, 512] (NPUCachingAllocator.cpp round_size,
// kMinBlockSize = 512, AddPadSize() = 32 before Ascend910_95) out of segments it gets from aclrtMalloc. The
// Model takes the smaller, aclrtMalloc's: a kernel that stays inside it runs whichever allocator made the buffer.
uint64_t board_allocation_bytes(uint64_t size);

// The bytes from an argument's first byte a kernel can touch on the board without a memory fault: the
// segment torch_npu's caching allocator maps for an allocation of that size (NPUCachingAllocator.cpp
// get_allocation_size: up to kSmallSize = 1 MiB a kSmallBuffer = 2 MiB segment, below kMinLargeAlloc = 10 MiB a
// kLargeBuffer = 20 MiB one, larger ones rounded up to kRoundLarge = 2 MiB), the allocation at its start. Past
// the allocation those bytes belong to other tensors or are free: the board runs such an access, the Model
// warns, and past the segment it is the fault the board raises.
uint64_t board_reach_bytes(uint64_t size);

// Every padding byte reads this until written: NaN as float16 / bfloat16 / float32, -1 as a signed integer,
// so a result computed from padding stands out.
constexpr uint8_t kPaddingPoison = 0xFF;

// The Model's bytes [size, reach) of one allocation, made (poisoned) a chunk at a time on first touch: most
// launches touch none, and a kernel straying past its tensor touches a few chunks of a segment of megabytes.
class GmPad {
 public:
  static constexpr uint64_t kChunkBytes = 64 * 1024;
  // The chunk holding pad byte `index * kChunkBytes` onwards; stays put until the launch ends.
  uint8_t* chunk(uint64_t index);

 private:
  friend class GmPadding;
  std::mutex* mutex_ = nullptr;  // the launch's: blocks run on several threads
  uint64_t bytes_ = 0;
  std::vector<std::unique_ptr<uint8_t[]>> chunks_;
};

struct GmBuffer {
  uint8_t* ptr = nullptr;
  uint64_t size = 0;        // the caller's bytes
  uint64_t allocation = 0;  // board_allocation_bytes(size)
  uint64_t reach = 0;       // board_reach_bytes(size)
  GmPad* pad = nullptr;     // bytes [size, reach), owned by the launch (null: none)
  uint64_t extent() const { return pad ? reach : size; }
};

// f(host, offset, n) for the host bytes behind GM bytes [lo, hi) of b (hi <= b.extent()): the caller's part
// first, then the padding a chunk at a time.
template <typename F>
void for_each_piece(const GmBuffer& b, uint64_t lo, uint64_t hi, F&& f) {
  if (lo < b.size) f(b.ptr + lo, lo, std::min(hi, b.size) - lo);
  for (uint64_t from = std::max(lo, b.size); from < hi;) {
    const uint64_t in_pad = from - b.size, index = in_pad / GmPad::kChunkBytes, at = in_pad % GmPad::kChunkBytes;
    const uint64_t n = std::min(hi - from, GmPad::kChunkBytes - at);
    f(b.pad->chunk(index) + at, from, n);
    from += n;
  }
}

void read_gm(const GmBuffer& b, uint64_t lo, uint64_t hi, uint8_t* dst);
void write_gm(const GmBuffer& b, uint64_t lo, uint64_t hi, const uint8_t* src);
// Writes the bytes of src that differ from before (both hi - lo long): bytes a handler did not change stay as
// GM has them, whatever another block wrote there meanwhile.
void write_gm_changed(const GmBuffer& b, uint64_t lo, uint64_t hi, const uint8_t* src, const uint8_t* before);

// A launch's padding: one GmPad per distinct (pointer, size) of its GM arguments (an argument passed twice has
// one allocation on the board, so one padding). Attaching allocates nothing for a launch of a few arguments.
class GmPadding {
 public:
  void attach(std::vector<GmBuffer>& gm);
  // Frees every pad's chunks and forgets the pads (the launch ended): the next attach starts afresh, with the
  // object kept by its thread (making one was a good part of a small launch).
  void release();

 private:
  GmPad& make();
  std::mutex mutex_;
  std::array<GmPad, 6> inline_{};
  size_t used_ = 0;
  std::vector<std::unique_ptr<GmPad>> more_;
};

// "The first time in this launch" for a key, across the launch's blocks (they run on several threads).
class LaunchOnce {
 public:
  bool first(const void* op, uint64_t what);

 private:
  std::mutex mutex_;
  std::set<std::pair<const void*, uint64_t>> seen_;
};

}  // namespace asc::sim
