// What the opaque C handles are, and the guard that keeps every C++
// exception on this side of the ABI.
#pragma once

#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <string_view>

#include "asc/asc.h"
#include "build_log.h"
#include "ir/builder.h"
#include "runtime/device.h"
#include "runtime/stream_queue.h"
#include "support/error.h"

struct asc_module {
  asc::Module module;
};

struct asc_builder {
  asc_module* owner;
  std::unique_ptr<asc::Builder> builder;
  asc::capi::BuildLog log;  // the calls so far (asc_builder_log)
};

struct asc_device {
  std::unique_ptr<asc::Device> device;
};

struct asc_stream {
  asc_device* device;
  asc::LaunchOptions options;
  std::string profile_dir;
  asc::LaunchReport last;
  std::string output;                        // printf / dump_tensor text of the last launch, even a failed one
  asc_launch_stats_t* stats_sink = nullptr;  // asc_stream_set_stats_sink
  // Asynchronous streams: launches since the last synchronize add up their output and warnings.
  bool batch_done = true;
  // Held by a launch on the stream while it runs, and by the calls that read what it left: launches
  // on one stream from several threads run one after another, as a stream's launches should.
  mutable std::mutex report_mutex;
  // Set while the stream is asynchronous. Declared last, so it is destroyed (its launches run) first.
  std::unique_ptr<asc::StreamQueue> queue;
};

namespace asc::capi {

void set_last_error(asc_status_t status, const std::string& message, const Location& loc);
void clear_last_error();

template <typename T>
T* require(T* handle, const char* what) {
  if (!handle) fail(ASC_ERR_INVALID_ARGUMENT, "{} is null", what);
  return handle;
}

inline std::string_view text(const char* s, size_t len, const char* what) {
  if (!s && len) fail(ASC_ERR_INVALID_ARGUMENT, "{} is null", what);
  return std::string_view(s ? s : "", len);
}

template <typename F>
asc_status_t guard(F&& body) noexcept {
  try {
    body();
    return ASC_OK;
  } catch (const Error& e) {
    set_last_error(e.status(), e.what(), e.loc());
    return e.status();
  } catch (const std::bad_alloc&) {
    set_last_error(ASC_ERR_RUNTIME, "out of host memory", {});
    return ASC_ERR_RUNTIME;
  } catch (const std::exception& e) {
    set_last_error(ASC_ERR_INTERNAL, std::string("internal error: ") + e.what(), {});
    return ASC_ERR_INTERNAL;
  } catch (...) {
    set_last_error(ASC_ERR_INTERNAL, "internal error: unknown exception", {});
    return ASC_ERR_INTERNAL;
  }
}

// Copies `s` to a caller buffer (asc_*_print).
asc_status_t copy_out(const std::string& s, char* buf, size_t cap, size_t* len);

}  // namespace asc::capi
