// An asynchronous stream's launches, run in order on a thread of the stream's
// own, so that asc_launch returns once the launch is checked and queued.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "support/error.h"

namespace asc {

class StreamQueue {
 public:
  using Job = std::function<void()>;  // one launch; throws asc::Error

  StreamQueue();
  StreamQueue(const StreamQueue&) = delete;
  StreamQueue& operator=(const StreamQueue&) = delete;
  ~StreamQueue();  // runs what is queued, then stops the thread

  void push(Job job);
  // Waits until every queued launch ran. Throws the first failure since the
  // last call (launches queued after a failure are not run, and the message
  // says how many), then forgets it.
  void synchronize();
  void wait_idle();  // waits, keeping any failure for synchronize()

 private:
  void loop();
  // In the child of a fork the queue's thread is the parent's: every call fails with a clear error.
  void check_process() const;

  std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::deque<Job> jobs_;
  bool running_ = false, stop_ = false, sleeping_ = false;
  std::atomic<size_t> queued_{0};  // jobs_.size(), for the spin that precedes sleeping
  static constexpr std::chrono::microseconds kSpin{50};
  std::optional<Error> failure_;
  size_t skipped_ = 0;
  std::unique_ptr<std::thread> thread_;  // started by the first push (leaked, not joined, in a forked child)
  uint64_t fork_generation_;
};

}  // namespace asc
