#include "runtime/arguments.h"

#include <cmath>
#include <limits>

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

// A scalar whose value its dtype cannot hold is refused, never truncated: integers must be in the dtype's range
// (uint64 takes any int64, as the bit pattern of the unsigned value), floats that are finite must not round to
// infinity in the dtype (NaN and infinities pass as themselves).
void check_scalar(const Kernel& kernel, size_t i, DType dtype, const asc_arg_t& a) {
  int64_t lo = 0, hi = 0;
  double fmax = 0;
  switch (dtype) {
    case DType::Bool: hi = 1; break;
    case DType::Int8: lo = INT8_MIN, hi = INT8_MAX; break;
    case DType::UInt8: hi = UINT8_MAX; break;
    case DType::Int16: lo = INT16_MIN, hi = INT16_MAX; break;
    case DType::UInt16: hi = UINT16_MAX; break;
    case DType::Int32: lo = INT32_MIN, hi = INT32_MAX; break;
    case DType::UInt32: hi = UINT32_MAX; break;
    case DType::Float16: fmax = 65520.0; break;                 // 65504 + half an ulp rounds to inf
    case DType::BFloat16: fmax = 3.3961775292304766e38; break;  // bf16 max + half an ulp
    case DType::Float32: fmax = 3.4028235677973366e38; break;   // FLT_MAX + half an ulp
    default: return;                                            // int64, uint64
  }
  if (fmax) {
    if (std::isfinite(a.f) && std::fabs(a.f) >= fmax)
      fail(ASC_ERR_INVALID_ARGUMENT,
           "argument {} of '{}' is {}, which {} cannot hold (|value| < {:g}); it would be inf", i, kernel.name, a.f,
           dtype_name(dtype), fmax);
    return;
  }
  if (a.i < lo || a.i > hi)
    fail(ASC_ERR_INVALID_ARGUMENT, "argument {} of '{}' is {}, outside the range of {} ({}..{})", i, kernel.name, a.i,
         dtype_name(dtype), lo, hi);
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
    if (t.is_scalar()) check_scalar(kernel, i, t.dtype, a);
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
