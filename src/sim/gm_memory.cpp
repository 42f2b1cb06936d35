#include "sim/gm_memory.h"

#include <algorithm>
#include <cstring>

namespace asc::sim {

uint64_t board_allocation_bytes(uint64_t size) { return size == 0 ? 0 : (size + 31) / 32 * 32 + 32; }

void read_gm(const GmBuffer& b, uint64_t lo, uint64_t hi, uint8_t* dst) {
  for_each_piece(b, lo, hi, [&](uint8_t* host, uint64_t off, uint64_t n) { std::memcpy(dst + (off - lo), host, n); });
}

void write_gm(const GmBuffer& b, uint64_t lo, uint64_t hi, const uint8_t* src) {
  for_each_piece(b, lo, hi, [&](uint8_t* host, uint64_t off, uint64_t n) { std::memcpy(host, src + (off - lo), n); });
}

void write_gm_changed(const GmBuffer& b, uint64_t lo, uint64_t hi, const uint8_t* src, const uint8_t* before) {
  for_each_piece(b, lo, hi, [&](uint8_t* host, uint64_t off, uint64_t n) {
    const uint64_t k0 = off - lo;
    for (uint64_t k = 0; k < n; ++k)
      if (src[k0 + k] != before[k0 + k]) host[k] = src[k0 + k];
  });
}

void GmPadding::attach(std::vector<GmBuffer>& gm) {
  uint64_t total = 0;
  for (const GmBuffer& b : gm) total += board_allocation_bytes(b.size) - b.size;
  if (total == 0) return;
  bytes_ = std::make_unique<uint8_t[]>(total);
  std::memset(bytes_.get(), kPaddingPoison, total);
  uint64_t used = 0;
  for (size_t i = 0; i < gm.size(); ++i) {
    GmBuffer& b = gm[i];
    if (b.size == 0) continue;
    b.padded = board_allocation_bytes(b.size);
    auto same = std::find_if(gm.begin(), gm.begin() + static_cast<std::ptrdiff_t>(i),
                             [&](const GmBuffer& o) { return o.pad && o.ptr == b.ptr && o.size == b.size; });
    if (same != gm.begin() + static_cast<std::ptrdiff_t>(i)) {
      b.pad = same->pad;
      continue;
    }
    b.pad = bytes_.get() + used;
    used += b.padded - b.size;
  }
}

bool LaunchOnce::first(const void* op, uint64_t what) {
  std::lock_guard<std::mutex> lock(mutex_);
  return seen_.emplace(op, what).second;
}

}  // namespace asc::sim
