#include "sim/thread_pool.h"

#include <atomic>

#include "support/fork.h"

namespace asc::sim {

ThreadPool::ThreadPool(unsigned workers) {
  for (unsigned w = 0; w < workers; ++w) threads_.emplace_back([this, w] { worker_loop(w + 1); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

// Never destroyed: a launch may still run on an asynchronous stream's thread while static destructors run at exit.
// In the child of a fork the workers are gone: the child gets a pool of its own (the parent's is left as it is,
// its mutexes possibly held by threads that do not exist here).
ThreadPool& ThreadPool::shared() {
  static std::atomic<ThreadPool*> pool{nullptr};
  static std::atomic<uint64_t> made_in{0};
  static std::mutex mutex;
  ThreadPool* p = pool.load(std::memory_order_acquire);
  if (p && made_in.load(std::memory_order_relaxed) == fork_generation()) return *p;
  std::lock_guard<std::mutex> lock(mutex);  // a fresh mutex in the child: fork copies the parent's as it was
  p = pool.load(std::memory_order_acquire);
  if (!p || made_in.load(std::memory_order_relaxed) != fork_generation()) {
    made_in.store(fork_generation(), std::memory_order_relaxed);
    p = new ThreadPool(std::max(1u, std::thread::hardware_concurrency()) - 1);
    pool.store(p, std::memory_order_release);
  }
  return *p;
}

void ThreadPool::work(const Task& task, uint32_t n, unsigned worker) {
  for (uint32_t i = next_.fetch_add(1); i < n; i = next_.fetch_add(1)) task(i, worker);
}

void ThreadPool::worker_loop(unsigned worker) {
  uint64_t seen = 0;
  for (;;) {
    const Task* task;
    uint32_t n;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (!task_) continue;  // woke after that job had already finished
      task = task_;
      n = n_;
      ++busy_;
    }
    work(*task, n, worker);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (--busy_ == 0) done_.notify_all();
    }
  }
}

void ThreadPool::run(uint32_t n, const Task& task) {
  if (n == 0) return;
  if (n == 1 || threads_.empty()) {
    for (uint32_t i = 0; i < n; ++i) task(i, 0);
    return;
  }
  // The pool runs one launch at a time. A launch from another thread (another
  // stream) does not wait for it: it runs its blocks on its own thread.
  std::unique_lock<std::mutex> job(job_mutex_, std::try_to_lock);
  if (!job.owns_lock()) {
    for (uint32_t i = 0; i < n; ++i) task(i, 0);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    task_ = &task;
    n_ = n;
    next_ = 0;
    ++generation_;
  }
  wake_.notify_all();
  work(task, n, 0);
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return busy_ == 0 && next_ >= n_; });
  task_ = nullptr;
}

}  // namespace asc::sim
