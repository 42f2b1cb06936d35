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
#include "runtime/stream.h"
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
  explicit asc_stream(asc::Device& device) : stream(device) {}
  asc::Stream stream;
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
