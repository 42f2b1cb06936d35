#include "sim/gm_memory.h"

#include <algorithm>
#include <cstring>

namespace asc::sim {

uint64_t board_allocation_bytes(uint64_t size) { return size == 0 ? 0 : (size + 31) / 32 * 32 + 32; }

uint64_t board_reach_bytes(uint64_t size) {
  constexpr uint64_t kMiB = 1024 * 1024;
  if (size == 0) return 0;
  const uint64_t block = (size + 32 + 511) / 512 * 512;  // the caching allocator's block of this request
  if (block <= 1 * kMiB) return 2 * kMiB;
  if (block < 10 * kMiB) return 20 * kMiB;
  return (block + 2 * kMiB - 1) / (2 * kMiB) * (2 * kMiB);
}

uint8_t* GmPad::chunk(uint64_t index) {
  std::lock_guard<std::mutex> lock(*mutex_);
  if (chunks_.empty()) chunks_.resize((bytes_ + kChunkBytes - 1) / kChunkBytes);
  std::unique_ptr<uint8_t[]>& c = chunks_.at(index);
  if (!c) {
    c = std::make_unique<uint8_t[]>(kChunkBytes);
    std::memset(c.get(), kPaddingPoison, kChunkBytes);
  }
  return c.get();
}

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

GmPad& GmPadding::make() {
  if (used_ < inline_.size()) return inline_[used_++];
  return *more_.emplace_back(std::make_unique<GmPad>());
}

void GmPadding::attach(std::vector<GmBuffer>& gm) {
  for (size_t i = 0; i < gm.size(); ++i) {
    GmBuffer& b = gm[i];
    if (b.size == 0) continue;
    b.allocation = board_allocation_bytes(b.size);
    b.reach = board_reach_bytes(b.size);
    auto same = std::find_if(gm.begin(), gm.begin() + static_cast<std::ptrdiff_t>(i),
                             [&](const GmBuffer& o) { return o.pad && o.ptr == b.ptr && o.size == b.size; });
    if (same != gm.begin() + static_cast<std::ptrdiff_t>(i)) {
      b.pad = same->pad;
      continue;
    }
    GmPad& pad = make();
    pad.mutex_ = &mutex_;
    pad.bytes_ = b.reach - b.size;
    b.pad = &pad;
  }
}

void GmPadding::release() {
  for (size_t i = 0; i < used_; ++i) {
    inline_[i].chunks_.clear();
    inline_[i].bytes_ = 0;
  }
  used_ = 0;
  more_.clear();
}

bool LaunchOnce::first(const void* op, uint64_t what) {
  std::lock_guard<std::mutex> lock(mutex_);
  return seen_.emplace(op, what).second;
}

}  // namespace asc::sim
