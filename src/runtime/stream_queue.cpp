#include "runtime/stream_queue.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <unordered_set>
#include <utility>

#include "support/fork.h"

namespace asc {
namespace {

// The queues alive in this process, for the exit handler. Never destroyed: streams may outlive static
// destruction order.
struct LiveQueues {
  std::mutex mutex;
  std::unordered_set<StreamQueue*> queues;
};

LiveQueues& live_queues() {
  static LiveQueues* live = new LiveQueues;
  return *live;
}

}  // namespace

StreamQueue::StreamQueue() : fork_generation_(fork_generation()) {
  static std::once_flag registered;
  std::call_once(registered, [] { std::atexit(cancel_all_at_exit); });
  LiveQueues& live = live_queues();
  std::lock_guard<std::mutex> lock(live.mutex);
  live.queues.insert(this);
}

void StreamQueue::cancel_all_at_exit() {
  LiveQueues& live = live_queues();
  std::lock_guard<std::mutex> lock(live.mutex);
  size_t dropped = 0;
  for (StreamQueue* q : live.queues)
    if (q->fork_generation_ == fork_generation()) dropped += q->cancel();
  if (dropped)
    std::fprintf(stderr,
                 "asc: %zu launch%s queued on asynchronous streams did not run: the process exited before "
                 "asc_stream_synchronize\n",
                 dropped, dropped == 1 ? "" : "es");
}

size_t StreamQueue::cancel() {
  size_t dropped;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    cancelled_.store(true, std::memory_order_relaxed);  // the running batch skips what it has not started
    dropped = jobs_.size();
    jobs_.clear();
    queued_.store(0, std::memory_order_release);
    idle_.wait(lock, [&] { return !running_; });
    dropped += std::exchange(dropped_, 0);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_) {
    thread_->join();
    thread_.reset();
  }
  return dropped;
}

void StreamQueue::check_process() const {
  if (fork_generation_ != fork_generation())
    fail(ASC_ERR_RUNTIME,
         "this asynchronous stream was created before fork(): its launches run on a thread of the parent "
         "process, which the child does not have; create a new stream in the child");
}

StreamQueue::~StreamQueue() {
  {
    LiveQueues& live = live_queues();
    std::lock_guard<std::mutex> lock(live.mutex);
    live.queues.erase(this);
  }
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

void StreamQueue::push(Job job, std::thread::id owner) {
  check_process();
  bool wake;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stop_) fail(ASC_ERR_RUNTIME, "the process is exiting: asynchronous streams take no more launches");
    jobs_.push_back({std::move(job), owner});
    queued_.store(jobs_.size(), std::memory_order_release);
    if (!thread_) thread_ = std::make_unique<std::thread>([this] { loop(); });
    wake = sleeping_;  // a busy thread takes the job when it finishes the one it runs: no wake-up call
  }
  if (wake) wake_.notify_one();
}

void StreamQueue::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  std::deque<Queued> batch;
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
    std::optional<Error> cause = first_failure_;  // of the skips: the launch that failed first
    lock.unlock();
    // Outcomes are collected off the lock and merged after the batch.
    std::vector<std::pair<std::thread::id, Outcome>> met;
    size_t dropped = 0;
    for (Queued& q : batch) {
      if (cancelled_.load(std::memory_order_relaxed)) {
        ++dropped;
        continue;
      }
      if (cause) {  // a failed launch leaves its outputs undefined: later ones do not run
        met.push_back({q.owner, Outcome{std::nullopt, 1, cause->what()}});
        continue;
      }
      std::optional<Error> error;
      try {
        q.job();
      } catch (const Error& e) {
        error = e;
      } catch (const std::exception& e) {
        error = Error(ASC_ERR_INTERNAL, std::string("internal error: ") + e.what());
      }
      if (error) {
        cause = error;
        met.push_back({q.owner, Outcome{std::move(error), 0, {}}});
      }
    }
    batch.clear();
    lock.lock();
    running_ = false;
    dropped_ += dropped;
    for (auto& [owner, outcome] : met) {
      Outcome& o = outcomes_[owner];
      if (outcome.failure) {
        if (!first_failure_) first_failure_ = outcome.failure;
        if (!o.failure) o.failure = std::move(outcome.failure);
      }
      o.skipped += outcome.skipped;
      if (o.skipped_because.empty()) o.skipped_because = std::move(outcome.skipped_because);
    }
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
  first_failure_.reset();  // launches run again from here
  auto mine = outcomes_.find(std::this_thread::get_id());
  if (mine == outcomes_.end()) return;
  Outcome o = std::move(mine->second);
  outcomes_.erase(mine);
  std::string skipped;
  if (o.skipped)
    skipped = fmt::format("{} later launch{} on this stream did not run", o.skipped, o.skipped == 1 ? "" : "es");
  if (o.failure) {
    std::string message = fmt::format("asynchronous launch failed: {}", o.failure->what());
    if (o.skipped) message += " (" + skipped + ")";
    throw Error(o.failure->status(), message, o.failure->loc());
  }
  if (o.skipped) {
    // Another thread's launch failed first: its failure goes to that thread, and is named here too.
    throw Error(ASC_ERR_RUNTIME, fmt::format("{} launch{} of this thread on this asynchronous stream did not run: an "
                                             "earlier launch on it, from another thread, failed: {}",
                                             o.skipped, o.skipped == 1 ? "" : "es", o.skipped_because));
  }
}

}  // namespace asc
