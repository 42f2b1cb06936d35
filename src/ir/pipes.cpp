#include "ir/pipes.h"

namespace asc {
namespace {

constexpr Pipe S = Pipe::S, V = Pipe::V, M = Pipe::M, MTE1 = Pipe::MTE1, MTE2 = Pipe::MTE2, MTE3 = Pipe::MTE3,
               FIX = Pipe::FIX;

// Same order and values as pyasc's HardEvent enum.
constexpr HardEventInfo kEvents[kHardEventCount] = {
    {"MTE2_MTE1", MTE2, MTE1},
    {"MTE1_MTE2", MTE1, MTE2},
    {"MTE1_M", MTE1, M},
    {"M_MTE1", M, MTE1},
    {"MTE2_V", MTE2, V},
    {"V_MTE2", V, MTE2},
    {"MTE3_V", MTE3, V},
    {"V_MTE3", V, MTE3},
    {"M_V", M, V},
    {"V_M", V, M},
    {"V_V", V, V},
    {"MTE3_MTE1", MTE3, MTE1},
    {"MTE1_MTE3", MTE1, MTE3},
    {"MTE1_V", MTE1, V},
    {"MTE2_M", MTE2, M},
    {"M_MTE2", M, MTE2},
    {"V_MTE1", V, MTE1},
    {"M_FIX", M, FIX},
    {"FIX_M", FIX, M},
    {"MTE3_MTE2", MTE3, MTE2},
    {"MTE2_MTE3", MTE2, MTE3},
    {"S_V", S, V},
    {"V_S", V, S},
    {"S_MTE2", S, MTE2},
    {"MTE2_S", MTE2, S},
    {"S_MTE3", S, MTE3},
    {"MTE3_S", MTE3, S},
    {"MTE2_FIX", MTE2, FIX},
    {"FIX_MTE2", FIX, MTE2},
    {"FIX_S", FIX, S},
    {"M_S", M, S},
    {"FIX_MTE3", FIX, MTE3},
    {"MTE1_FIX", MTE1, FIX},
    {"FIX_MTE1", FIX, MTE1},
    {"FIX_FIX", FIX, FIX},
};

}  // namespace

bool pipe_valid(int64_t raw) { return (raw >= 0 && raw <= 6) || raw == 10; }

const char* pipe_name(Pipe p) {
  switch (p) {
    case Pipe::S: return "S";
    case Pipe::V: return "V";
    case Pipe::M: return "M";
    case Pipe::MTE1: return "MTE1";
    case Pipe::MTE2: return "MTE2";
    case Pipe::MTE3: return "MTE3";
    case Pipe::All: return "ALL";
    case Pipe::FIX: return "FIX";
  }
  return "?";
}

bool hard_event_valid(int64_t raw) { return raw >= 0 && raw < kHardEventCount; }
const HardEventInfo& hard_event(int64_t raw) { return kEvents[raw]; }

int find_hard_event(Pipe src, Pipe dst) {
  for (int i = 0; i < kHardEventCount; ++i)
    if (kEvents[i].src == src && kEvents[i].dst == dst) return i;
  return -1;
}

}  // namespace asc
