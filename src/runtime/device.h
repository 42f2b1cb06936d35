// A device runs kernels: the Model simulator or an NPU through ACL.
#pragma once

#include <cstdint>
#include <memory>

#include "asc/asc.h"
#include "ir/ir.h"
#include "sim/launch.h"
#include "target/platform.h"

namespace asc {

class Device {
 public:
  explicit Device(const Platform& platform) : platform_(platform) {}
  virtual ~Device() = default;
  // Runs to completion; results are visible when it returns.
  virtual sim::LaunchReport launch(const Kernel& kernel, uint32_t block_dim, const asc_arg_t* args, size_t n_args,
                                   const sim::LaunchOptions& options) = 0;
  virtual void synchronize() {}
  const Platform& platform() const { return platform_; }

 private:
  const Platform& platform_;
};

std::unique_ptr<Device> make_model_device(const Platform& platform);
// Throws ASC_ERR_BACKEND_UNAVAILABLE with the reason when CANN cannot be used.
std::unique_ptr<Device> make_npu_device(const Platform& platform, int32_t device_id);

}  // namespace asc
