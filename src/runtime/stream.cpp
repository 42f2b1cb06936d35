#include "runtime/stream.h"

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cmath>
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

// ASC_TIMEOUT_S: seconds (a decimal number >= 0; 0: no limit).
uint64_t parse_timeout(const char* text) {
  std::string s(text);
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end || !std::isfinite(v) || v < 0 || v > 1e9)
    fail(ASC_ERR_INVALID_ARGUMENT, "ASC_TIMEOUT_S must be a number of seconds >= 0 (0: no limit), not '{}'", s);
  return static_cast<uint64_t>(v * 1e9);
}

uint64_t parse_bytes(const char* name, const char* text) {
  std::string s(text);
  bool digits = !s.empty() && s.size() <= 19 && s.find_first_not_of("0123456789") == std::string::npos;
  if (!digits) fail(ASC_ERR_INVALID_ARGUMENT, "{} must be a whole number of bytes (0: no limit), not '{}'", name, s);
  return std::stoull(s);
}

// SIGINT: a handler the library installs (stream option "interrupt") that moves an epoch every launch polls
// (with its time budget), then calls whatever handler was there before (Python's, which raises
// KeyboardInterrupt once the call returns). Only an atomic is touched in the handler.
std::atomic<uint64_t> g_sigint_epoch{0};
std::atomic<int> g_interruptible_running{0};
struct sigaction g_previous_sigint;

void on_sigint(int sig, siginfo_t* info, void* context) {
  g_sigint_epoch.fetch_add(1, std::memory_order_relaxed);
  const struct sigaction& prev = g_previous_sigint;
  if (prev.sa_flags & SA_SIGINFO) {
    if (prev.sa_sigaction) prev.sa_sigaction(sig, info, context);
  } else if (prev.sa_handler == SIG_DFL) {
    // Nothing of the caller's to call: a launch that runs stops; otherwise SIGINT does what it did before.
    if (g_interruptible_running.load(std::memory_order_relaxed) == 0) {
      signal(SIGINT, SIG_DFL);
      raise(SIGINT);
    }
  } else if (prev.sa_handler != SIG_IGN) {
    prev.sa_handler(sig);
  }
}

// Installs on_sigint unless it is the handler already (someone may have replaced it since: then again).
void install_sigint_handler() {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  struct sigaction current {};
  sigaction(SIGINT, nullptr, &current);
  if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == on_sigint) return;
  struct sigaction mine {};
  mine.sa_sigaction = on_sigint;
  mine.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&mine.sa_mask);
  g_previous_sigint = current;
  sigaction(SIGINT, &mine, nullptr);
}

constexpr uint64_t kDefaultTimeoutNs = 60'000'000'000;  // 60 s
constexpr uint64_t kDefaultMaxOps = uint64_t{1} << 32;  // at the default budget; scales with it

}  // namespace

Stream::Stream(Device& device) : device_(device) {
  const char* sanitize = std::getenv("ASC_SANITIZE");
  options_.sanitize = !(sanitize && std::string(sanitize) == "0");
  const char* strict = std::getenv("ASC_STRICT");
  options_.strict = strict && *strict && std::string(strict) != "0";
  const char* profile = std::getenv("ASC_PROFILE");
  if (profile) profile_dir_ = profile;
  options_.timeout_ns = kDefaultTimeoutNs;
  if (const char* timeout = std::getenv("ASC_TIMEOUT_S")) options_.timeout_ns = parse_timeout(timeout);
  if (const char* max_output = std::getenv("ASC_MAX_OUTPUT"))
    options_.max_output = parse_bytes("ASC_MAX_OUTPUT", max_output);
  if (const char* max_ops = std::getenv("ASC_MAX_OPS")) {
    options_.max_ops = parse_max_ops(max_ops);
    max_ops_set_ = true;
  }
  scale_max_ops();
}

// Unless set (ASC_MAX_OPS, option max_ops), the op cap follows the time budget: 2^32 ops at the default 60 s, so
// a smaller budget stops an endless loop sooner by either measure (and no budget keeps 2^32).
void Stream::scale_max_ops() {
  if (max_ops_set_) return;
  if (!options_.timeout_ns) {
    options_.max_ops = kDefaultMaxOps;
    return;
  }
  long double scaled = static_cast<long double>(kDefaultMaxOps) * options_.timeout_ns / kDefaultTimeoutNs;
  options_.max_ops = scaled >= 1.8e19L ? 0 : std::max<uint64_t>(1, static_cast<uint64_t>(scaled));
}

void Stream::set_option(std::string_view name, int64_t value) {
  if (name == "sanitize") {
    options_.sanitize = value != 0;
  } else if (name == "strict") {
    options_.strict = value != 0;
  } else if (name == "max_ops") {
    if (value < 0) fail(ASC_ERR_INVALID_ARGUMENT, "stream option max_ops must be >= 0 (0: no limit), not {}", value);
    options_.max_ops = static_cast<uint64_t>(value);
    max_ops_set_ = true;
  } else if (name == "timeout_ms") {
    if (value < 0 || value > int64_t{1'000'000'000'000})
      fail(ASC_ERR_INVALID_ARGUMENT, "stream option timeout_ms must be 0..10^12 (0: no limit), not {}", value);
    options_.timeout_ns = static_cast<uint64_t>(value) * 1'000'000;
    scale_max_ops();
  } else if (name == "max_output") {
    if (value < 0)
      fail(ASC_ERR_INVALID_ARGUMENT, "stream option max_output must be >= 0 bytes (0: no limit), not {}", value);
    options_.max_output = static_cast<uint64_t>(value);
  } else if (name == "interrupt") {
    interrupt_ = value != 0;
    if (interrupt_) install_sigint_handler();
  } else if (name == "async") {
    if (value && !queue_) {
      queue_ = std::make_unique<StreamQueue>();
    } else if (!value && queue_) {
      queue_->synchronize();  // its failure, if any, is this call's
      queue_.reset();
      std::lock_guard<std::mutex> lock(report_mutex_);
      for (auto& [thread, r] : reports_) r.batch_done = true;
    }
  } else {
    fail(ASC_ERR_INVALID_ARGUMENT,
         "unknown stream option '{}' (known: sanitize, strict, async, max_ops, timeout_ms, max_output, interrupt)",
         name);
  }
}

void Stream::set_report_sink(ReportSink sink, void* user_data) {
  if (queue_) queue_->wait_idle();  // queued launches write the old sink
  sink_ = sink;
  sink_data_ = user_data;
}

void Stream::launch(const Kernel& kernel, uint32_t block_dim, const asc_arg_t* args, size_t n_args, ReportSink report,
                    void* report_data) {
  LaunchOptions options = options_;
  options.record = !profile_dir_.empty();
  if (interrupt_) options.cancel = &g_sigint_epoch;
  const std::thread::id owner = std::this_thread::get_id();
  if (!queue_) {
    run(kernel, block_dim, args, n_args, options, profile_dir_, owner, report, report_data);
    return;
  }
  // Asynchronous: what can be checked now is (the caller's error, at the call); the rest runs queued.
  device_.check(kernel, block_dim, args, n_args);
  // The launch counts as queued on its kernel until it ran or was dropped (its module is not destroyed before).
  struct Queued {
    const Kernel& kernel;
    explicit Queued(const Kernel& k) : kernel(k) { kernel.queued.fetch_add(1, std::memory_order_relaxed); }
    ~Queued() { kernel.queued.fetch_sub(1, std::memory_order_release); }
  };
  queue_->push(
      [this, &kernel, block_dim, options, args = std::vector<asc_arg_t>(args, args + n_args),
       profile_dir = profile_dir_, owner, report, report_data, queued = std::make_shared<Queued>(kernel)] {
        run(kernel, block_dim, args.data(), args.size(), options, profile_dir, owner, report, report_data);
      },
      owner);
}

void Stream::synchronize() {
  struct EndBatch {  // once the queue ran, even when it reports a failure: the thread's next launch starts anew
    Stream& s;
    ~EndBatch() {
      std::lock_guard<std::mutex> lock(s.report_mutex_);
      auto it = s.reports_.find(std::this_thread::get_id());
      if (it != s.reports_.end()) it->second.batch_done = true;
    }
  } end{*this};
  if (queue_) queue_->synchronize();
  device_.synchronize();
}

// Runs one launch and leaves its report as its owner's (the thread that launched). Launches on an asynchronous
// stream (run on its queue's thread) add their output and warnings to those of the owner's others since its last
// synchronize.
void Stream::run(const Kernel& kernel, uint32_t block_dim, const asc_arg_t* args, size_t n_args, LaunchOptions options,
                 const std::string& profile_dir, std::thread::id owner, ReportSink report, void* report_data) {
  std::lock_guard<std::mutex> lock(report_mutex_);
  if (!last_report_ || last_owner_ != owner) {
    last_report_ = &reports_[owner];
    last_owner_ = owner;
  }
  ThreadReport& mine = *last_report_;
  const bool batch = queue_ != nullptr;
  if (!batch || mine.batch_done) {
    mine.output.clear();
    mine.last.warnings.clear();
    mine.batch_done = false;
  }
  std::string output;
  options.output = &output;
  std::vector<std::string> warnings;  // the owner's batch's so far (a synchronous launch: none)
  if (!mine.last.warnings.empty()) warnings = mine.last.warnings;
  struct Append {  // the output is the owner's even when the launch fails
    std::string& to;
    std::string& from;
    ~Append() {
      if (!from.empty()) to += from;
    }
  } append{mine.output, output};
  struct Running {  // while an interruptible launch runs, SIGINT stops it rather than the process
    bool on;
    explicit Running(bool o) : on(o) {
      if (on) g_interruptible_running.fetch_add(1);
    }
    ~Running() {
      if (on) g_interruptible_running.fetch_sub(1);
    }
  } running{options.cancel != nullptr};
  if (options.cancel) options.cancel_epoch = options.cancel->load();
  mine.last = device_.launch(kernel, block_dim, args, n_args, options);
  if (!warnings.empty() || !mine.last.warnings.empty()) {  // (most launches warn of nothing)
    for (auto& w : mine.last.warnings)
      if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) warnings.push_back(std::move(w));
    mine.last.warnings = std::move(warnings);
  }
  if (report) report(mine.last, report_data);
  if (sink_) sink_(mine.last, sink_data_);
  if (options.record) write_profile(profile_dir, kernel, device_.platform(), mine.last);
}

}  // namespace asc
