#include "runtime/stream.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "runtime/profile_writer.h"

namespace asc {

namespace {

// ASC_MAX_OPS: a whole number (0: no limit). Anything else fails stream creation rather than silently meaning
// "no limit" (strtoull gave 0 for text) or a huge limit (it wrapped negative numbers).
uint64_t parse_max_ops(const char* text) {
  std::string s(text);
  bool digits = !s.empty() && s.size() <= 19 && s.find_first_not_of("0123456789") == std::string::npos;
  if (!digits)
    fail(ASC_ERR_INVALID_ARGUMENT, "ASC_MAX_OPS must be a whole number of operations (0: no limit), not '{}'", s);
  return std::stoull(s);
}

}  // namespace

Stream::Stream(Device& device) : device_(device) {
  const char* sanitize = std::getenv("ASC_SANITIZE");
  options_.sanitize = !(sanitize && std::string(sanitize) == "0");
  const char* profile = std::getenv("ASC_PROFILE");
  if (profile) profile_dir_ = profile;
  if (const char* max_ops = std::getenv("ASC_MAX_OPS")) options_.max_ops = parse_max_ops(max_ops);
}

void Stream::set_option(std::string_view name, int64_t value) {
  if (name == "sanitize") {
    options_.sanitize = value != 0;
  } else if (name == "max_ops") {
    if (value < 0) fail(ASC_ERR_INVALID_ARGUMENT, "stream option max_ops must be >= 0 (0: no limit), not {}", value);
    options_.max_ops = static_cast<uint64_t>(value);
  } else if (name == "async") {
    if (value && !queue_) {
      queue_ = std::make_unique<StreamQueue>();
    } else if (!value && queue_) {
      queue_->synchronize();  // its failure, if any, is this call's
      queue_.reset();
      batch_done_ = true;
    }
  } else {
    fail(ASC_ERR_INVALID_ARGUMENT, "unknown stream option '{}' (known: sanitize, async, max_ops)", name);
  }
}

void Stream::set_report_sink(ReportSink sink, void* user_data) {
  if (queue_) queue_->wait_idle();  // queued launches write the old sink
  sink_ = sink;
  sink_data_ = user_data;
}

void Stream::launch(const Kernel& kernel, uint32_t block_dim, const asc_arg_t* args, size_t n_args) {
  LaunchOptions options = options_;
  options.record = !profile_dir_.empty();
  if (!queue_) {
    run(kernel, block_dim, args, n_args, options, profile_dir_);
    return;
  }
  // Asynchronous: what can be checked now is (the caller's error, at the call); the rest runs queued.
  device_.check(kernel, block_dim, args, n_args);
  queue_->push(
      [this, &kernel, block_dim, options, args = std::vector<asc_arg_t>(args, args + n_args),
       profile_dir = profile_dir_] { run(kernel, block_dim, args.data(), args.size(), options, profile_dir); });
}

void Stream::synchronize() {
  struct EndBatch {  // once the queue ran, even when it reports a failure: the next launch starts anew
    bool& done;
    ~EndBatch() { done = true; }
  } end{batch_done_};
  if (queue_) queue_->synchronize();
  device_.synchronize();
}

// Runs one launch and leaves its report on the stream. Launches on an asynchronous stream (on its queue's
// thread) add their output and warnings to those of the others since the last synchronize.
void Stream::run(const Kernel& kernel, uint32_t block_dim, const asc_arg_t* args, size_t n_args, LaunchOptions options,
                 const std::string& profile_dir) {
  std::lock_guard<std::mutex> lock(report_mutex_);
  const bool batch = queue_ != nullptr;
  if (!batch || batch_done_) {
    output_.clear();
    last_.warnings.clear();
    batch_done_ = false;
  }
  std::string output;
  options.output = &output;
  std::vector<std::string> warnings = last_.warnings;
  struct Append {  // the output is the stream's even when the launch fails
    std::string& to;
    std::string& from;
    ~Append() { to += from; }
  } append{output_, output};
  last_ = device_.launch(kernel, block_dim, args, n_args, options);
  for (auto& w : last_.warnings)
    if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) warnings.push_back(std::move(w));
  last_.warnings = std::move(warnings);
  if (sink_) sink_(last_, sink_data_);
  if (options.record) write_profile(profile_dir, kernel, device_.platform(), last_);
}

}  // namespace asc
