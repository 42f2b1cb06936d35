// A stream: launches on one device, in order, with the options they run with
// (ASC_SANITIZE, ASC_PROFILE and ASC_MAX_OPS at creation, set_option after),
// and what each thread's last launch left (its report and printed output):
// a thread reads its own, whoever else launches on the stream meanwhile. A
// synchronous stream runs each launch in the caller's thread; an asynchronous
// one checks it at the call and runs it on its queue's thread, and a thread's
// launches since its last synchronize add up their output and warnings.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "ir/ir.h"
#include "runtime/device.h"
#include "runtime/stream_queue.h"

namespace asc {

class Stream {
 public:
  // Called after every launch with its report (on the queue's thread for an asynchronous stream).
  using ReportSink = void (*)(const LaunchReport& report, void* user_data);

  // Reads ASC_SANITIZE, ASC_PROFILE, ASC_MAX_OPS, ASC_TIMEOUT_S (default 60 s) and ASC_MAX_OUTPUT (default
  // 1 MiB); throws asc::Error for a value that is not a number.
  explicit Stream(Device& device);
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  // "sanitize", "max_ops" (>= 0), "timeout_ms" (>= 0; 0: no limit), "max_output" (bytes >= 0; 0: no limit),
  // "interrupt" (0/1: SIGINT stops this stream's launches; installs a process-wide SIGINT handler that calls the
  // one it replaced) or "async" (0/1: leaving async runs what is queued first).
  void set_option(std::string_view name, int64_t value);
  void set_profile_dir(std::string dir) { profile_dir_ = std::move(dir); }
  // Null: none. Waits for the queued launches first (they report to the old sink).
  void set_report_sink(ReportSink sink, void* user_data);

  // A synchronous stream runs the launch now; an asynchronous one checks it (Device::check) and queues it.
  // `report`, when set, is called with this launch's report once it ran (before the stream's sink).
  void launch(const Kernel& kernel, uint32_t block_dim, const asc_arg_t* args, size_t n_args,
              ReportSink report = nullptr, void* report_data = nullptr);
  // Waits for the queued launches (throwing the first failure since the last call) and the device.
  void synchronize();

  // Calls f(report, printed output) of the calling thread's last launch (or batch, on an asynchronous stream)
  // once the queued launches ran, under the report lock, and returns what it returns. A thread that has not
  // launched on the stream reads an empty report.
  template <typename F>
  decltype(auto) read_last(F&& f) const {
    if (queue_) queue_->wait_idle();
    std::lock_guard<std::mutex> lock(report_mutex_);
    auto it = reports_.find(std::this_thread::get_id());
    static const ThreadReport none;
    const ThreadReport& r = it == reports_.end() ? none : it->second;
    return f(r.last, r.output);
  }

  Device& device() const { return device_; }

 private:
  // What one thread's launches left.
  struct ThreadReport {
    LaunchReport last;
    std::string output;      // printf / dump_tensor text of the last launch (or batch), even a failed one
    bool batch_done = true;  // asynchronous: the thread synchronized since, so the next launch starts anew
  };

  void run(const Kernel& kernel, uint32_t block_dim, const asc_arg_t* args, size_t n_args, LaunchOptions options,
           const std::string& profile_dir, std::thread::id owner, ReportSink report, void* report_data);

  void scale_max_ops();

  Device& device_;
  LaunchOptions options_;
  bool max_ops_set_ = false;  // by ASC_MAX_OPS or the option; otherwise it scales with the time budget
  bool interrupt_ = false;
  std::string profile_dir_;
  std::unordered_map<std::thread::id, ThreadReport> reports_;  // by the thread that launched
  // The last launching thread's entry (under report_mutex_): looked up again only when another thread launches
  // (the map's nodes stay put, and none is erased; a lookup's hash and modulo were a good part of a launch).
  std::thread::id last_owner_{};
  ThreadReport* last_report_ = nullptr;
  ReportSink sink_ = nullptr;
  void* sink_data_ = nullptr;
  // Held by a launch on the stream while it runs, and by the calls that read what it left: launches
  // on one stream from several threads run one after another, as a stream's launches should.
  mutable std::mutex report_mutex_;
  // Set while the stream is asynchronous. Declared last, so it is destroyed (its launches run) first.
  std::unique_ptr<StreamQueue> queue_;
};

}  // namespace asc
