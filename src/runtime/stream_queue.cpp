#include "runtime/stream_queue.h"

#include <fmt/format.h>

#include <chrono>
#include <utility>

#include "support/fork.h"

namespace asc {

StreamQueue::StreamQueue() : fork_generation_(fork_generation()) {}

void StreamQueue::check_process() const {
  if (fork_generation_ != fork_generation())
    fail(ASC_ERR_RUNTIME,
         "this asynchronous stream was created before fork(): its launches run on a thread of the parent "
         "process, which the child does not have; create a new stream in the child");
}

StreamQueue::~StreamQueue() {
  if (fork_generation_ != fork_generation()) {  // a forked child: the thread and the lock state are the parent's
    (void)thread_.release();
    return;
  }
  {
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [&] { return jobs_.empty() && !running_; });
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_) thread_->join();
}

void StreamQueue::push(Job job) {
  check_process();
  bool wake;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_.push_back(std::move(job));
    queued_.store(jobs_.size(), std::memory_order_release);
    if (!thread_) thread_ = std::make_unique<std::thread>([this] { loop(); });
    wake = sleeping_;  // a busy thread takes the job when it finishes the one it runs: no wake-up call
  }
  if (wake) wake_.notify_one();
}

void StreamQueue::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  std::deque<Job> batch;
  for (;;) {
    if (jobs_.empty() && !stop_) {
      // Launches come in bursts: a short spin takes the next one without a wake-up call (a system
      // call that costs more than queueing a launch).
      lock.unlock();
      const auto until = std::chrono::steady_clock::now() + kSpin;
      while (queued_.load(std::memory_order_acquire) == 0 && std::chrono::steady_clock::now() < until)
        std::this_thread::yield();
      lock.lock();
    }
    sleeping_ = true;
    wake_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
    sleeping_ = false;
    if (jobs_.empty()) return;  // stopping, and nothing left
    batch.swap(jobs_);          // all that is queued, taken under one lock
    queued_.store(0, std::memory_order_release);
    running_ = true;
    bool failed_before = failure_.has_value();
    lock.unlock();
    std::optional<Error> failed;
    size_t skipped = 0;
    for (Job& job : batch) {
      if (failed_before || failed) {  // a failed launch leaves its outputs undefined: later ones do not run
        ++skipped;
        continue;
      }
      try {
        job();
      } catch (const Error& e) {
        failed = e;
      } catch (const std::exception& e) {
        failed = Error(ASC_ERR_INTERNAL, std::string("internal error: ") + e.what());
      }
    }
    batch.clear();
    lock.lock();
    running_ = false;
    skipped_ += skipped;
    if (failed && !failure_) failure_ = std::move(failed);
    if (jobs_.empty()) idle_.notify_all();
  }
}

void StreamQueue::wait_idle() {
  check_process();
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [&] { return jobs_.empty() && !running_; });
}

void StreamQueue::synchronize() {
  check_process();
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [&] { return jobs_.empty() && !running_; });
  if (!failure_) return;
  Error e = std::move(*failure_);
  failure_.reset();
  size_t skipped = std::exchange(skipped_, 0);
  std::string message = fmt::format("asynchronous launch failed: {}", e.what());
  if (skipped)
    message += fmt::format(" ({} later launch{} on this stream did not run)", skipped, skipped == 1 ? "" : "es");
  throw Error(e.status(), message, e.loc());
}

}  // namespace asc
