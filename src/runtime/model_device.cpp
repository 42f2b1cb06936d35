// The Model backend's device: launches run on the simulator (sim/launch.h), whose options and report are the
// device interface's own, field for field.
#include "runtime/device.h"
#include "sim/launch.h"

namespace asc {

namespace {

sim::LaunchOptions to_sim(const LaunchOptions& o) {
  return sim::LaunchOptions{o.sanitize, o.record, o.max_ops, o.output};
}

LaunchReport from_sim(sim::LaunchReport&& r) {
  LaunchReport out;
  out.cycles = r.cycles;
  out.duration_us = r.duration_us;
  out.blocks = r.blocks;
  out.busy = r.busy;
  out.warnings = std::move(r.warnings);
  out.lines.reserve(r.lines.size());
  for (auto& l : r.lines) out.lines.push_back({std::move(l.file), l.line, l.cycles, l.count});
  out.events.reserve(r.events.size());
  for (const auto& e : r.events) out.events.push_back({e.block, e.pipe, e.start, e.end, e.op});
  return out;
}

class ModelDevice final : public Device {
 public:
  using Device::Device;

 protected:
  LaunchReport run(const Kernel& kernel, uint32_t block_dim, const asc_arg_t* args, size_t n_args,
                   const LaunchOptions& options) override {
    return from_sim(sim::run_kernel(kernel, platform(), block_dim, args, n_args, to_sim(options)));
  }
};

}  // namespace

std::unique_ptr<Device> make_model_device(const Platform& platform) { return std::make_unique<ModelDevice>(platform); }

}  // namespace asc
