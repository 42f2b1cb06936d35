// A kernel argument's GM as the board has it: the caller's bytes, then the
// padding the runtime's allocator adds. The one place that maps a GM byte range
// of an argument to host memory when it reaches into that padding.
#pragma once

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

// Every padding byte reads this at the start of a launch: NaN as float16 / bfloat16 / float32, -1 as a signed
// integer, so a result computed from padding stands out.
constexpr uint8_t kPaddingPoison = 0xFF;

struct GmBuffer {
  uint8_t* ptr = nullptr;
  uint64_t size = 0;       // the caller's bytes
  uint8_t* pad = nullptr;  // bytes [size, padded) of the allocation, owned by the launch (null: none)
  uint64_t padded = 0;
  uint64_t extent() const { return pad ? padded : size; }
};

// f(host, offset, n) for the host bytes behind GM bytes [lo, hi) of b (hi <= b.extent()): the caller's part first.
template <typename F>
void for_each_piece(const GmBuffer& b, uint64_t lo, uint64_t hi, F&& f) {
  if (lo < b.size) f(b.ptr + lo, lo, std::min(hi, b.size) - lo);
  if (hi > b.size) {
    const uint64_t from = std::max(lo, b.size);
    f(b.pad + (from - b.size), from, hi - from);
  }
}

void read_gm(const GmBuffer& b, uint64_t lo, uint64_t hi, uint8_t* dst);
void write_gm(const GmBuffer& b, uint64_t lo, uint64_t hi, const uint8_t* src);
// Writes the bytes of src that differ from before (both hi - lo long): bytes a handler did not change stay as
// GM has them, whatever another block wrote there meanwhile.
void write_gm_changed(const GmBuffer& b, uint64_t lo, uint64_t hi, const uint8_t* src, const uint8_t* before);

// A launch's padding: one poisoned block per distinct (pointer, size) of its GM arguments (an argument passed
// twice has one allocation on the board, so one padding).
class GmPadding {
 public:
  void attach(std::vector<GmBuffer>& gm);

 private:
  std::unique_ptr<uint8_t[]> bytes_;
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
