// Library-level entry points: version, last error, status names, logging.
#include <array>
#include <atomic>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <unordered_map>

#include "handles.h"
#include "support/log.h"

namespace asc::capi {
namespace {

struct LastError {
  std::string message;
  std::string file;
  uint32_t line = 0;
  uint32_t col = 0;
};

LastError& last() {
  thread_local LastError e;
  return e;
}

const char* kind_name(HandleKind kind) {
  switch (kind) {
    case HandleKind::Module: return "module";
    case HandleKind::Builder: return "builder";
    case HandleKind::Device: return "device";
    case HandleKind::Stream: return "stream";
    case HandleKind::Kernel: return "kernel";
  }
  return "handle";
}

struct Handles {
  std::mutex mutex;
  std::unordered_map<const void*, HandleKind> live;
  // Bumped (under `mutex`) whenever a handle leaves `live`: what a thread found live before is live while it holds.
  std::atomic<uint64_t> dropped{0};
};

// Each thread's last handle of each kind found live, and `dropped` then: a launch checks its kernel and stream, the
// same two each time, and the table's lock and lookup were a good part of a small launch.
struct LiveCache {
  static constexpr size_t kKinds = static_cast<size_t>(HandleKind::Kernel) + 1;
  std::array<const void*, kKinds> handle{};
  std::array<uint64_t, kKinds> dropped{};
};

LiveCache& live_cache() {
  thread_local LiveCache cache;
  return cache;
}

Handles& handles() {
  static Handles* h = new Handles;  // never destroyed: handles may be destroyed from static destructors
  return *h;
}

[[noreturn]] void not_live(const void* handle, HandleKind kind, const char* what, const HandleKind* found) {
  if (found)
    fail(ASC_ERR_INVALID_ARGUMENT, "{} {} is a {}, not a {}", what, handle, kind_name(*found), kind_name(kind));
  fail(ASC_ERR_INVALID_ARGUMENT, "{} {} is not a live {} handle (destroyed already, or never created)", what, handle,
       kind_name(kind));
}

}  // namespace

void register_handle(const void* handle, HandleKind kind) {
  Handles& h = handles();
  std::lock_guard<std::mutex> lock(h.mutex);
  h.live[handle] = kind;
}

namespace {

// The table's entry for a live `handle` of `kind` (the caller holds h.mutex); fails naming what it is otherwise.
std::unordered_map<const void*, HandleKind>::iterator find_live(Handles& h, const void* handle, HandleKind kind,
                                                                const char* what) {
  if (!handle) fail(ASC_ERR_INVALID_ARGUMENT, "{} is null", what);
  auto it = h.live.find(handle);
  if (it == h.live.end() || it->second != kind)
    not_live(handle, kind, what, it == h.live.end() ? nullptr : &it->second);
  return it;
}

}  // namespace

void require_live(const void* handle, HandleKind kind, const char* what) {
  Handles& h = handles();
  LiveCache& cache = live_cache();
  const auto k = static_cast<size_t>(kind);
  if (handle && cache.handle[k] == handle && cache.dropped[k] == h.dropped.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lock(h.mutex);
  find_live(h, handle, kind, what);
  cache.handle[k] = handle;
  cache.dropped[k] = h.dropped.load(std::memory_order_relaxed);
}

void unregister_handle(const void* handle, HandleKind kind, const char* what) {
  Handles& h = handles();
  std::lock_guard<std::mutex> lock(h.mutex);
  h.live.erase(find_live(h, handle, kind, what));
  h.dropped.fetch_add(1, std::memory_order_release);
}

void forget_handle(const void* handle) {
  Handles& h = handles();
  std::lock_guard<std::mutex> lock(h.mutex);
  if (h.live.erase(handle)) h.dropped.fetch_add(1, std::memory_order_release);
}

void set_last_error(asc_status_t status, const std::string& message, const Location& loc) {
  LastError& e = last();
  e.file = loc.known() ? *loc.file : std::string();
  e.line = loc.line;
  e.col = loc.col;
  e.message = loc.known() ? loc.str() + ": " + message : message;
  log().debug("{}: {}", asc_status_name(status), e.message);
}

void clear_last_error() { last() = LastError{}; }

asc_status_t copy_out(const std::string& s, char* buf, size_t cap, size_t* len) {
  if (len) *len = s.size();
  if (buf && cap) {
    size_t n = std::min(cap - 1, s.size());
    std::memcpy(buf, s.data(), n);
    buf[n] = '\0';
  }
  if (cap <= s.size()) {
    set_last_error(ASC_ERR_BUFFER_TOO_SMALL, fmt::format("the text needs {} bytes plus the terminator", s.size()), {});
    return ASC_ERR_BUFFER_TOO_SMALL;
  }
  return ASC_OK;
}

}  // namespace asc::capi

using namespace asc;

extern "C" {

uint32_t asc_abi_version(void) { return (ASC_ABI_VERSION_MAJOR << 16) | ASC_ABI_VERSION_MINOR; }

const char* asc_last_error(void) { return capi::last().message.c_str(); }

asc_status_t asc_last_error_loc(const char** file, uint32_t* line, uint32_t* col) {
  const capi::LastError& e = capi::last();
  if (file) *file = e.file.c_str();
  if (line) *line = e.line;
  if (col) *col = e.col;
  return ASC_OK;
}

const char* asc_status_name(asc_status_t status) {
  // A C caller may pass any int; in C++ a value outside the enumerators must not be read as the enum type.
  std::underlying_type_t<asc_status_t> value;
  std::memcpy(&value, &status, sizeof value);
  switch (value) {
    case ASC_OK: return "ASC_OK";
    case ASC_ERR_INVALID_ARGUMENT: return "ASC_ERR_INVALID_ARGUMENT";
    case ASC_ERR_UNKNOWN_OP: return "ASC_ERR_UNKNOWN_OP";
    case ASC_ERR_TYPE: return "ASC_ERR_TYPE";
    case ASC_ERR_VERIFY: return "ASC_ERR_VERIFY";
    case ASC_ERR_UNSUPPORTED: return "ASC_ERR_UNSUPPORTED";
    case ASC_ERR_OUT_OF_BOUNDS: return "ASC_ERR_OUT_OF_BOUNDS";
    case ASC_ERR_MISALIGNED: return "ASC_ERR_MISALIGNED";
    case ASC_ERR_DEADLOCK: return "ASC_ERR_DEADLOCK";
    case ASC_ERR_BACKEND_UNAVAILABLE: return "ASC_ERR_BACKEND_UNAVAILABLE";
    case ASC_ERR_RUNTIME: return "ASC_ERR_RUNTIME";
    case ASC_ERR_BUFFER_TOO_SMALL: return "ASC_ERR_BUFFER_TOO_SMALL";
    case ASC_ERR_INTERNAL: return "ASC_ERR_INTERNAL";
    case ASC_ERR_RACE: return "ASC_ERR_RACE";
    case ASC_ERR_UNINITIALIZED: return "ASC_ERR_UNINITIALIZED";
    case ASC_ERR_GM_CONFLICT: return "ASC_ERR_GM_CONFLICT";
  }
  return "ASC_ERR_UNKNOWN_STATUS";
}

asc_status_t asc_set_log_level(int32_t level) {
  return capi::guard([&] {
    if (level < 0 || level > 6) fail(ASC_ERR_INVALID_ARGUMENT, "log level must be 0..6, got {}", level);
    set_log_level(level);
  });
}

}  // extern "C"
