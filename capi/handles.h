// What the opaque C handles are, and the guard that keeps every C++
// exception on this side of the ABI.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>

#include "asc/asc.h"
#include "build_log.h"
#include "ir/builder.h"
#include "runtime/device.h"
#include "runtime/stream.h"
#include "support/error.h"

// A module stays alive while a builder of it is open: asc_module_destroy then only marks it, and the last
// builder to finish or be destroyed frees it (finishing into a destroyed module fails).
struct asc_module {
  asc::Module module;
  std::mutex lifetime;
  size_t builders = 0;  // open builders
  bool destroyed = false;
  // One builder fewer; true when the module is then to be freed (destroyed and no builder left).
  bool release_builder() {
    std::lock_guard<std::mutex> lock(lifetime);
    return --builders == 0 && destroyed;
  }
};

struct asc_builder {
  asc_module* owner;  // counted in owner->builders from creation to asc_builder_finish / asc_builder_destroy
  std::unique_ptr<asc::Builder> builder;
  asc::capi::BuildLog log;  // the calls so far (asc_builder_log)
};

// A device is shared by its handle and its streams: asc_device_destroy drops the handle's share, and the device
// goes when its last stream does.
struct asc_device {
  std::shared_ptr<asc::Device> device;
};

struct asc_stream {
  explicit asc_stream(std::shared_ptr<asc::Device> d) : device(std::move(d)), stream(*device) {}
  std::shared_ptr<asc::Device> device;  // declared first: outlives the stream's queue
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

// The handles that are alive, by address and kind, so that destroying one twice (or one never created) is an
// ASC_ERR_INVALID_ARGUMENT rather than a double free: the check reads a table under a mutex, never the freed
// handle. (An address reused by a new handle of the same kind cannot be told from the old one.)
enum class HandleKind : uint8_t { Module, Builder, Device, Stream, Kernel };
void register_handle(const void* handle, HandleKind kind);
// Throws ASC_ERR_INVALID_ARGUMENT naming `what` if `handle` is not a live handle of that kind.
void require_live(const void* handle, HandleKind kind, const char* what);
// require_live, then forgets the handle (its destroy call).
void unregister_handle(const void* handle, HandleKind kind, const char* what);
// Forgets a handle if it is in the table (a module's kernels, when it is destroyed).
void forget_handle(const void* handle);

template <typename T>
constexpr HandleKind kind_of();
template <>
constexpr HandleKind kind_of<asc_module>() {
  return HandleKind::Module;
}
template <>
constexpr HandleKind kind_of<asc_builder>() {
  return HandleKind::Builder;
}
template <>
constexpr HandleKind kind_of<asc_device>() {
  return HandleKind::Device;
}
template <>
constexpr HandleKind kind_of<asc_stream>() {
  return HandleKind::Stream;
}

// The handle, once checked to be a live one of its kind: what every call that takes a handle does before it
// touches it, so that a destroyed (or never created) handle is ASC_ERR_INVALID_ARGUMENT, not a read of freed
// memory. (A handle destroyed by one thread while another uses it is the caller's race.)
template <typename T>
T* live(T* handle, const char* what) {
  require_live(handle, kind_of<std::remove_const_t<T>>(), what);
  return handle;
}

// A kernel handle is its Kernel; it lives until its module is destroyed.
inline const Kernel& live_kernel(const asc_kernel_t* kernel) {
  require_live(kernel, HandleKind::Kernel, "kernel");
  return *reinterpret_cast<const Kernel*>(kernel);
}

// Copies `s` to a caller buffer (asc_*_print).
asc_status_t copy_out(const std::string& s, char* buf, size_t cap, size_t* len);

}  // namespace asc::capi
