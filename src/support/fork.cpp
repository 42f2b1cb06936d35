#include "support/fork.h"

#include <pthread.h>

#include <atomic>

namespace asc {

namespace {

std::atomic<uint64_t> g_generation{0};

void in_child() { g_generation.fetch_add(1, std::memory_order_relaxed); }

struct Register {
  Register() { pthread_atfork(nullptr, nullptr, in_child); }
} const g_register;

}  // namespace

uint64_t fork_generation() { return g_generation.load(std::memory_order_relaxed); }

}  // namespace asc
