// An asynchronous stream's launches, run in order on a thread of the stream's
// own, so that asc_launch returns once the launch is checked and queued. Each
// launch has an owner (the thread that queued it): its failure, and the news
// that it did not run, go to that thread's synchronize().
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
#include <string>
#include <thread>
#include <unordered_map>

#include "support/error.h"

namespace asc {

class StreamQueue {
 public:
  using Job = std::function<void()>;  // one launch; throws asc::Error

  StreamQueue();
  StreamQueue(const StreamQueue&) = delete;
  StreamQueue& operator=(const StreamQueue&) = delete;
  ~StreamQueue();  // runs what is queued, then stops the thread

  void push(Job job, std::thread::id owner = std::this_thread::get_id());
  // Waits until every queued launch ran. A failed launch leaves its outputs
  // undefined, so the launches queued after it (anyone's) do not run until a
  // synchronize; this one throws what the calling thread's launches met since
  // its last call — its first failure, or that some of them did not run
  // because of another thread's — and forgets it.
  void synchronize();
  void wait_idle();  // waits, keeping any failure for synchronize()

  // At process exit (an atexit handler the first queue registers): the launches still queued on any stream do
  // not run (the caller's buffers may be gone with main's frame), the running ones finish, the threads stop,
  // and stderr says how many were dropped — rather than a thread running into the library's static
  // destructors. Streams made in a forked child's parent are left alone.
  static void cancel_all_at_exit();

 private:
  void loop();
  size_t cancel();  // drops what is queued, waits for what runs, stops the thread; returns how many were dropped
  // In the child of a fork the queue's thread is the parent's: every call fails with a clear error.
  void check_process() const;

  std::mutex mutex_;
  std::condition_variable wake_, idle_;
  struct Queued {
    Job job;
    std::thread::id owner;
  };
  // What a thread's launches met since its last synchronize.
  struct Outcome {
    std::optional<Error> failure;
    size_t skipped = 0;
    std::string skipped_because;  // the failure that made them skip (another thread's, when this has none)
  };
  std::deque<Queued> jobs_;
  bool running_ = false, stop_ = false, sleeping_ = false;
  std::atomic<size_t> queued_{0};
  std::atomic<bool> cancelled_{false};  // by cancel(): nothing more runs
  size_t dropped_ = 0;  // launches a cancelled batch skipped  // jobs_.size(), for the spin that precedes sleeping
  static constexpr std::chrono::microseconds kSpin{50};
  std::optional<Error> first_failure_;  // since the last synchronize: later launches are skipped
  std::unordered_map<std::thread::id, Outcome> outcomes_;
  std::unique_ptr<std::thread> thread_;  // started by the first push (leaked, not joined, in a forked child)
  uint64_t fork_generation_;
};

}  // namespace asc
