// The test_sim-only part of the fixtures (section 3 of kernel_fixtures.h).
#include "kernel_fixtures.h"

#include <cstring>

#include "runtime/device.h"
#include "target/platform.h"

namespace asc_test {

void run_model(const asc::Kernel& kernel, uint32_t block_dim, std::vector<asc_arg_t> args, asc::LaunchOptions options) {
  const asc::Platform* platform = asc::find_platform("Ascend910B1");
  if (!platform) throw std::logic_error("the Ascend910B1 platform is missing");
  asc::make_model_device(*platform)->launch(kernel, block_dim, args.data(), args.size(), options);
}

void emit_ub_binary(KernelWriter& w, const UbBinary& k) {
  const int64_t padded = padded_count(k.count, k.dtype);
  const int64_t bytes = padded * dtype_bytes(k.dtype);  // whole blocks, so every tensor stays 32-byte aligned
  Value n = w.i32(padded), zero = w.i32(0);
  Value x_gm = w.global_tensor(w.param(0), zero, n);
  Value y_gm = w.global_tensor(w.param(1), zero, n);
  Value z_gm = w.global_tensor(w.param(2), zero, n);
  Value x = w.local_tensor(0, padded, k.dtype, ASC_POS_VECIN, "x_local");
  Value y = w.local_tensor(bytes, padded, k.dtype, ASC_POS_VECIN, "y_local");
  Value z = w.local_tensor(2 * bytes, padded, k.dtype, ASC_POS_VECOUT, "z_local");
  w.data_copy(x, x_gm, n);
  w.data_copy(y, y_gm, n);
  w.data_copy(z, z_gm, n);
  if (k.manual_sync) w.sync(MTE2_V, zero);
  w.op(k.op, {z, x, y, w.i32(k.count)});
  if (k.manual_sync) w.sync(V_MTE3, zero);
  w.data_copy(z_gm, z, n);
}

std::vector<asc_type_t> ScalarProbe::params() { return {gm_addr_type(ASC_DTYPE_INT32), gm_addr_type(ASC_DTYPE_INT32)}; }

ScalarProbe::ScalarProbe(KernelWriter& w) : w_(w) {
  Value ones_gm = w.op("global_tensor.set_global_buffer", {w.param(0), w.i32(kOnes)});
  ones_ = w.local_tensor(0, kOnes, ASC_DTYPE_INT32, ASC_POS_VECIN, "ones");
  w.data_copy(ones_, ones_gm, w.i32(kOnes));
  w.sync(MTE2_MTE3, w.i32(0));
  out_ = w.op("global_tensor.set_global_buffer", {w.param(1)});
}

size_t ScalarProbe::observe(Value v) {
  const size_t slot = slots_++;
  for (int64_t bit = 0; bit < 32; ++bit) {
    Value is_set = w_.op("arith.and", {w_.op("arith.shr", {v, w_.i32(bit)}), w_.i32(1)});
    w_.if_begin(w_.op("cmp.ne", {is_set, w_.i32(0)}));
    w_.data_copy(w_.global_slice(out_, w_.i32((static_cast<int64_t>(slot) * 32 + bit) * kOnes)), ones_, w_.i32(kOnes));
    w_.if_end();
  }
  return slot;
}

int32_t ScalarProbe::decode(const std::vector<int32_t>& out, size_t slot) {
  uint32_t bits = 0;
  for (size_t bit = 0; bit < 32; ++bit) {
    const size_t at = (slot * 32 + bit) * kOnes;
    for (size_t j = 0; j < static_cast<size_t>(kOnes); ++j)
      if (out.at(at + j) != out[at]) throw std::runtime_error("ScalarProbe: a marker block was partly written");
    if (out[at] == 1)
      bits |= 1u << bit;
    else if (out[at] != 0)
      throw std::runtime_error("ScalarProbe: unexpected marker value " + std::to_string(out[at]));
  }
  int32_t value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

}  // namespace asc_test
