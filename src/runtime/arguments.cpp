#include "runtime/arguments.h"

#include "support/error.h"

namespace asc {

namespace {

const char* kind_name(uint32_t kind) {
  switch (kind) {
    case ASC_ARG_SCALAR: return "a scalar";
    case ASC_ARG_BUFFER: return "a buffer";
    case ASC_ARG_DEVICE_BUFFER: return "NPU device memory, which only Backend.NPU can use";
    default: return "an unknown argument kind";
  }
}

}  // namespace

void check_arguments(const Kernel& kernel, const asc_arg_t* args, size_t n_args, bool device_memory) {
  if (n_args != kernel.num_params)
    fail(ASC_ERR_TYPE, "kernel '{}' takes {} argument(s), got {}", kernel.name, kernel.num_params, n_args);
  if (n_args && !args) fail(ASC_ERR_INVALID_ARGUMENT, "args is null");
  for (size_t i = 0; i < n_args; ++i) {
    const Type& t = kernel.type_of(static_cast<uint32_t>(i));
    const asc_arg_t& a = args[i];
    bool buffer = a.kind == ASC_ARG_BUFFER || (device_memory && a.kind == ASC_ARG_DEVICE_BUFFER);
    if (t.is_scalar() ? a.kind != ASC_ARG_SCALAR : !buffer)
      fail(ASC_ERR_TYPE, "argument {} of '{}' must be {}, got {}", i, kernel.name,
           t.is_scalar() ? "a scalar" : "a buffer", kind_name(a.kind));
    if (a.dtype != static_cast<uint32_t>(t.dtype))
      fail(ASC_ERR_TYPE, "argument {} of '{}' must have dtype {}, got {}", i, kernel.name, dtype_name(t.dtype),
           dtype_valid(a.dtype) ? dtype_name(static_cast<DType>(a.dtype)) : "an unknown dtype");
    if (buffer && !a.ptr && a.size)
      fail(ASC_ERR_INVALID_ARGUMENT, "argument {} of '{}' is a null buffer of {} bytes", i, kernel.name, a.size);
  }
}

void check_launch(const Kernel& kernel, uint32_t block_dim, const asc_arg_t* args, size_t n_args, bool device_memory) {
  if (block_dim == 0 || block_dim > 65535)
    fail(ASC_ERR_INVALID_ARGUMENT, "block_dim must be 1..65535, got {}", block_dim);
  check_arguments(kernel, args, n_args, device_memory);
}

}  // namespace asc
