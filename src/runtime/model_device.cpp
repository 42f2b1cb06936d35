#include "runtime/device.h"
#include "sim/launch.h"

namespace asc {
namespace {

class ModelDevice final : public Device {
 public:
  using Device::Device;
  sim::LaunchReport launch(const Kernel& kernel, uint32_t block_dim, const asc_arg_t* args, size_t n_args,
                           const sim::LaunchOptions& options) override {
    return sim::run_kernel(kernel, platform(), block_dim, args, n_args, options);
  }
};

}  // namespace

std::unique_ptr<Device> make_model_device(const Platform& platform) { return std::make_unique<ModelDevice>(platform); }

}  // namespace asc
