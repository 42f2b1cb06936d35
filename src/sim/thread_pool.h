// A fixed pool of host threads that runs the blocks of a launch. The calling
// thread takes part, so the shared pool has one thread fewer than the host
// has hardware threads.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace asc::sim {

class ThreadPool {
 public:
  using Task = std::function<void(uint32_t, unsigned)>;

  explicit ThreadPool(unsigned workers);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Calls task(i, worker) for i in [0, n), spread over the pool and the
  // calling thread; `worker` is in [0, concurrency()). Returns when all ran.
  // One job at a time: a caller that finds the pool busy runs its whole job
  // on its own thread instead of waiting for another's.
  void run(uint32_t n, const Task& task);
  unsigned concurrency() const { return static_cast<unsigned>(threads_.size()) + 1; }

  static ThreadPool& shared();

 private:
  void worker_loop(unsigned worker);
  void work(const Task& task, uint32_t n, unsigned worker);

  std::mutex job_mutex_;  // serialises run()
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  std::vector<std::thread> threads_;
  const Task* task_ = nullptr;  // the running job, null between jobs
  uint32_t n_ = 0;
  std::atomic<uint32_t> next_{0};
  unsigned busy_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
};

}  // namespace asc::sim
