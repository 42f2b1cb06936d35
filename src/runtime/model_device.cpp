// The Model backend's device: launches run on the simulator (sim/launch.h); its options and report are converted
// to and from the device interface's own, and its per-op costs grouped into the per-line table here.
#include <algorithm>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "runtime/device.h"
#include "sim/launch.h"

namespace asc {

namespace {

sim::LaunchOptions to_sim(const LaunchOptions& o) {
  return sim::LaunchOptions{o.sanitize, o.record,       o.max_ops,    o.output, o.timeout_ns,
                            o.cancel,   o.cancel_epoch, o.max_output, o.strict};
}

// The Model's per-op costs as the report's per-line table: summed by source line, most cycles first.
std::vector<LaunchReport::Line> lines_of(const Kernel& kernel, const std::vector<sim::LineCost>& per_op) {
  std::map<std::pair<const std::string*, uint32_t>, LaunchReport::Line> lines;
  for (size_t i = 0; i < per_op.size(); ++i) {
    if (!per_op[i].count) continue;
    const Op* op = kernel.ops[i];
    auto& line = lines[std::make_pair(op->loc.file.get(), op->loc.line)];
    if (line.file.empty() && op->loc.file) line.file = *op->loc.file;
    line.line = op->loc.line;
    line.cycles += per_op[i].cycles;
    line.count += per_op[i].count;
  }
  std::vector<LaunchReport::Line> out;
  for (auto& [key, line] : lines) out.push_back(line);
  // Ties broken by place, so the table does not depend on where the file names were allocated.
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return std::tie(b.cycles, a.file, a.line) < std::tie(a.cycles, b.file, b.line);
  });
  return out;
}

LaunchReport from_sim(const Kernel& kernel, sim::LaunchReport&& r) {
  LaunchReport out;
  out.cycles = r.cycles;
  out.duration_us = r.duration_us;
  out.blocks = r.blocks;
  out.busy = r.busy;
  out.warnings = std::move(r.warnings);
  out.lines = lines_of(kernel, r.per_op);
  if (!r.events.empty()) {  // only when the launch records a trace
    out.events.reserve(r.events.size());
    for (const auto& e : r.events) out.events.push_back({e.block, e.pipe, e.start, e.end, e.op});
  }
  return out;
}

class ModelDevice final : public Device {
 public:
  using Device::Device;

 protected:
  LaunchReport run(const Kernel& kernel, uint32_t block_dim, const asc_arg_t* args, size_t n_args,
                   const LaunchOptions& options) override {
    return from_sim(kernel, sim::run_kernel(kernel, platform(), block_dim, args, n_args, to_sim(options)));
  }
};

}  // namespace

std::unique_ptr<Device> make_model_device(const Platform& platform) { return std::make_unique<ModelDevice>(platform); }

}  // namespace asc
