// Hardware pipes and HardEvent (set_flag/wait_flag) descriptions.
#pragma once

#include <cstdint>

namespace asc {

// Values follow pyasc's PipeID so that attribute values pass straight through.
enum class Pipe : uint8_t { S = 0, V = 1, M = 2, MTE1 = 3, MTE2 = 4, MTE3 = 5, All = 6, FIX = 10 };
constexpr int kPipeSlots = 11;  // array size indexed by Pipe value

bool pipe_valid(int64_t raw);   // a real pipe or All
const char* pipe_name(Pipe p);  // "V", "MTE2", ... ("ALL" for All)

// HardEvent values as in pyasc (MTE2_MTE1 = 0 ... FIX_FIX = 34).
constexpr int kHardEventCount = 35;

struct HardEventInfo {
  const char* name;  // "MTE2_V"
  Pipe src;          // pipe that executes set_flag
  Pipe dst;          // pipe that executes wait_flag
};

bool hard_event_valid(int64_t raw);
const HardEventInfo& hard_event(int64_t raw);
// The HardEvent that orders `src` before `dst`, or -1 if the hardware has none.
int find_hard_event(Pipe src, Pipe dst);
constexpr int kMaxEventIds = 8;  // ids 0..7 per HardEvent (Atlas A2)
// get_buf / rls_buf buffer ids: 0 .. kBufferTokens - 1 (PyAsc2 docs/design/automatic-synchronization.md).
constexpr int64_t kBufferTokens = 32;

}  // namespace asc
