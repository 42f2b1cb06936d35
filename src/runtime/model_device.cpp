#include "runtime/device.h"
#include "sim/launch.h"

namespace asc {
namespace {

class ModelDevice final : public Device {
 public:
  using Device::Device;
  void launch(const Kernel& kernel, uint32_t block_dim, const asc_arg_t* args, size_t n_args) override {
    sim::run_kernel(kernel, platform(), block_dim, args, n_args);
  }
};

}  // namespace

std::unique_ptr<Device> make_model_device(const Platform& platform) { return std::make_unique<ModelDevice>(platform); }

}  // namespace asc
