// Modules, kernel building, and a kernel as text (IR, Ascend C).
#include <memory>
#include <mutex>
#include <vector>

#include "build_calls.h"
#include "build_log.h"
#include "codegen/ascendc_emitter.h"
#include "convert.h"
#include "handles.h"
#include "ir/param_access.h"
#include "ir/printer.h"
#include "runtime/compile.h"

using namespace asc;
using capi::guard;
using capi::require;

namespace {

// Copies out text made from a finished kernel: its IR (asc_kernel_print) or its Ascend C (asc_kernel_source).
asc_status_t kernel_text(const asc_kernel_t* kernel, char* buf, size_t cap, size_t* len,
                         std::string (*make)(const Kernel&)) {
  asc_status_t status = ASC_OK;
  asc_status_t g = guard([&] { status = capi::copy_out(make(capi::live_kernel(kernel)), buf, cap, len); });
  return g != ASC_OK ? g : status;
}

}  // namespace

extern "C" {

size_t asc_op_count(void) { return static_cast<size_t>(kOpCount); }

asc_status_t asc_op_describe(size_t index, asc_op_desc_t* out) {
  return guard([&] {
    require(out, "out");
    if (index >= static_cast<size_t>(kOpCount))
      fail(ASC_ERR_INVALID_ARGUMENT, "op index {} out of range (0..{})", index, kOpCount - 1);
    const OpInfo& info = op_info(static_cast<OpCode>(index));
    *out = asc_op_desc_t{
        info.name,   info.ascendc ? info.ascendc : "",   static_cast<uint32_t>(info.pipe),
        info.dtypes, static_cast<uint32_t>(info.family), info.mask_mode || info.mask_operand != kNoOperand ? 1u : 0u};
  });
}

asc_status_t asc_op_doc(size_t index, const char** out) {
  return guard([&] {
    require(out, "out");
    if (index >= static_cast<size_t>(kOpCount))
      fail(ASC_ERR_INVALID_ARGUMENT, "op index {} out of range (0..{})", index, kOpCount - 1);
    const char* doc = op_info(static_cast<OpCode>(index)).doc;
    *out = doc ? doc : "";
  });
}

asc_status_t asc_module_create(asc_module_t** out) {
  return guard([&] {
    require(out, "out");
    auto m = std::make_unique<asc_module>();
    capi::register_handle(m.get(), capi::HandleKind::Module);
    *out = m.release();
  });
}

// The module owns its kernels. It is not destroyed while a launch of one of its kernels is queued on an
// asynchronous stream (the caller synchronizes the stream first); with builders open it is freed when the last
// one ends.
asc_status_t asc_module_destroy(asc_module_t* module) {
  return guard([&] {
    capi::require_live(module, capi::HandleKind::Module, "module");
    {
      std::lock_guard<std::mutex> lock(module->module.mutex);
      for (const auto& k : module->module.kernels)
        if (uint32_t q = k->queued.load())
          fail(ASC_ERR_INVALID_ARGUMENT,
               "kernel '{}' of this module has {} launch(es) still queued on an asynchronous stream: synchronize the "
               "stream before destroying the module",
               k->name, q);
    }
    capi::unregister_handle(module, capi::HandleKind::Module, "module");
    {
      // Marked first, so that a builder finishing meanwhile sees it (and forgets its kernel); held like a
      // builder while its kernels are forgotten, so that the last builder cannot free it under this loop.
      std::lock_guard<std::mutex> lock(module->lifetime);
      module->destroyed = true;
      ++module->builders;
    }
    {
      std::lock_guard<std::mutex> lock(module->module.mutex);
      for (const auto& k : module->module.kernels) capi::forget_handle(k.get());  // gone with their module
    }
    if (module->release_builder()) delete module;  // otherwise the last builder frees it
  });
}

asc_status_t asc_build_kernel(asc_module_t* module, const char* name, size_t name_len, const asc_type_t* params,
                              size_t n_params, asc_builder_t** out) {
  return guard([&] {
    capi::require_live(module, capi::HandleKind::Module, "module");
    require(out, "out");
    if (n_params && !params) fail(ASC_ERR_INVALID_ARGUMENT, "params is null");
    std::vector<Type> types;
    for (size_t i = 0; i < n_params; ++i) types.push_back(capi::type_from_c(params[i]));
    auto b = std::make_unique<asc::Builder>(std::string(capi::text(name, name_len, "name")), types);
    auto builder = std::make_unique<asc_builder>(asc_builder{module, std::move(b), {}});
    capi::register_handle(builder.get(), capi::HandleKind::Builder);
    std::lock_guard<std::mutex> lock(module->lifetime);
    ++module->builders;
    *out = builder.release();
  });
}

asc_status_t asc_builder_param(asc_builder_t* builder, size_t index, asc_value_t* out) {
  return guard([&] { *require(out, "out") = capi::live(builder, "builder")->builder->param(index); });
}

asc_status_t asc_builder_op(asc_builder_t* builder, const char* op_name, size_t op_name_len,
                            const asc_value_t* operands, size_t n_operands, const asc_attr_t* attrs, size_t n_attrs,
                            const asc_loc_t* loc, asc_value_t* result) {
  return guard([&] {
    asc_value_t r = capi::builder_op(*capi::live(builder, "builder"), capi::text(op_name, op_name_len, "op name"),
                                     operands, n_operands, attrs, n_attrs, loc);
    if (result) *result = r;
  });
}

asc_status_t asc_builder_value_type(const asc_builder_t* builder, asc_value_t value, asc_type_t* out) {
  return guard(
      [&] { *require(out, "out") = capi::type_to_c(capi::live(builder, "builder")->builder->value_type(value)); });
}

asc_status_t asc_builder_for_begin(asc_builder_t* builder, asc_value_t lb, asc_value_t ub, asc_value_t step,
                                   const asc_loc_t* loc, asc_value_t* iv) {
  return guard([&] {
    asc_value_t v = capi::builder_for_begin(*capi::live(builder, "builder"), lb, ub, step, loc);
    if (iv) *iv = v;
  });
}

asc_status_t asc_builder_for_end(asc_builder_t* builder) {
  return guard([&] { capi::builder_for_end(*capi::live(builder, "builder")); });
}

asc_status_t asc_builder_if_begin(asc_builder_t* builder, asc_value_t cond, const asc_loc_t* loc) {
  return guard([&] { capi::builder_if_begin(*capi::live(builder, "builder"), cond, loc); });
}

asc_status_t asc_builder_else(asc_builder_t* builder) {
  return guard([&] { capi::builder_else(*capi::live(builder, "builder")); });
}

asc_status_t asc_builder_if_end(asc_builder_t* builder) {
  return guard([&] { capi::builder_if_end(*capi::live(builder, "builder")); });
}

asc_status_t asc_builder_set_option(asc_builder_t* builder, const char* name, size_t name_len, int64_t value) {
  return guard(
      [&] { capi::builder_set_option(*capi::live(builder, "builder"), capi::text(name, name_len, "name"), value); });
}

asc_status_t asc_builder_log(const asc_builder_t* builder, void* buf, size_t cap, size_t* len) {
  asc_status_t status = ASC_OK;
  asc_status_t g = guard(
      [&] { status = capi::copy_out(capi::live(builder, "builder")->log.bytes(), static_cast<char*>(buf), cap, len); });
  return g != ASC_OK ? g : status;
}

asc_status_t asc_builder_replay(asc_builder_t* builder, const void* log, size_t len) {
  return guard([&] {
    capi::live(builder, "builder");
    if (len && !log) fail(ASC_ERR_INVALID_ARGUMENT, "log is null");
    capi::replay(*builder, std::string_view(static_cast<const char*>(log), len));
  });
}

asc_status_t asc_builder_finish(asc_builder_t* builder, asc_kernel_t** out) {
  asc_status_t live = guard([&] { capi::unregister_handle(builder, capi::HandleKind::Builder, "builder"); });
  if (live != ASC_OK) return live;              // finished or destroyed already: not ours to free
  std::unique_ptr<asc_builder> owned(builder);  // consumed whatever happens
  struct Release {
    asc_module* m;
    ~Release() {
      if (m->release_builder()) delete m;
    }
  } release{builder->owner};
  return guard([&] {
    require(out, "out");
    bool destroyed;
    {
      std::lock_guard<std::mutex> lock(owned->owner->lifetime);
      destroyed = owned->owner->destroyed;
    }
    if (destroyed) fail(ASC_ERR_INVALID_ARGUMENT, "the builder's module was destroyed: its kernel has nowhere to live");
    Kernel* kernel = compile_kernel(owned->owner->module, *owned->builder);
    capi::register_handle(kernel, capi::HandleKind::Kernel);
    {
      std::lock_guard<std::mutex> lock(owned->owner->lifetime);
      destroyed = owned->owner->destroyed;
    }
    if (destroyed) {  // destroyed while this compiled: its destroy may have missed the kernel
      capi::forget_handle(kernel);
      fail(ASC_ERR_INVALID_ARGUMENT, "the builder's module was destroyed while the kernel compiled");
    }
    *out = reinterpret_cast<asc_kernel_t*>(kernel);
  });
}

asc_status_t asc_builder_destroy(asc_builder_t* builder) {
  return guard([&] {
    capi::unregister_handle(builder, capi::HandleKind::Builder, "builder");
    asc_module* owner = builder->owner;
    delete builder;
    if (owner->release_builder()) delete owner;
  });
}

asc_status_t asc_kernel_print(const asc_kernel_t* kernel, char* buf, size_t cap, size_t* len) {
  return kernel_text(kernel, buf, cap, len, print_kernel);
}

asc_status_t asc_builder_print(const asc_builder_t* builder, char* buf, size_t cap, size_t* len) {
  asc_status_t status = ASC_OK;
  asc_status_t g = guard(
      [&] { status = capi::copy_out(print_kernel(capi::live(builder, "builder")->builder->kernel()), buf, cap, len); });
  return g != ASC_OK ? g : status;
}

asc_status_t asc_kernel_source(const asc_kernel_t* kernel, char* buf, size_t cap, size_t* len) {
  return kernel_text(kernel, buf, cap, len, emit_ascendc);
}

asc_status_t asc_kernel_source_expanded(const asc_kernel_t* kernel, char* buf, size_t cap, size_t* len) {
  return kernel_text(kernel, buf, cap, len, emit_ascendc_expanded);
}

asc_status_t asc_kernel_param_count(const asc_kernel_t* kernel, size_t* out) {
  return guard([&] { *require(out, "out") = capi::live_kernel(kernel).num_params; });
}

asc_status_t asc_kernel_option(const asc_kernel_t* kernel, const char* name, size_t name_len, int64_t* out) {
  return guard([&] {
    const Kernel& k = capi::live_kernel(kernel);
    int64_t* result = require(out, "out");
    std::string_view n = capi::text(name, name_len, "name");
    if (n == "auto_sync")
      *result = k.options.auto_sync ? 1 : 0;
    else if (n == "insert_sync")
      *result = k.options.insert_sync ? 1 : 0;
    else if (n == "buffer_tokens")
      *result = k.options.buffer_tokens ? 1 : 0;
    else if (n == "kernel_type")
      *result = static_cast<int64_t>(k.options.kernel_type);
    else if (n == "split_cube_vector")
      *result = k.options.split_cube_vector ? 1 : 0;
    else if (n == "split_credits")
      *result = k.options.split_credits;
    else
      fail(ASC_ERR_INVALID_ARGUMENT,
           "unknown kernel option '{}' (known: auto_sync, buffer_tokens, insert_sync, kernel_type, split_credits, "
           "split_cube_vector)",
           n);
  });
}

asc_status_t asc_kernel_param_writes(const asc_kernel_t* kernel, size_t index, int32_t* out) {
  return guard([&] {
    const Kernel& k = capi::live_kernel(kernel);
    int32_t* result = require(out, "out");
    if (index >= k.num_params)
      fail(ASC_ERR_INVALID_ARGUMENT, "parameter index {} out of range (kernel has {})", index, k.num_params);
    *result = param_writes(k)[index] ? 1 : 0;
  });
}

}  // extern "C"
