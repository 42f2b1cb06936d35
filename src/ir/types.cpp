#include "ir/types.h"

#include <fmt/format.h>

#include "support/error.h"

namespace asc {
namespace {

constexpr const char* kPositions[] = {"GM", "A1",  "A2",  "B1",    "B2",     "C1",
                                      "C2", "CO1", "CO2", "VECIN", "VECOUT", "VECCALC"};

const detail::DTypeRow& row(DType t) { return detail::kDTypes[static_cast<int>(t)]; }

}  // namespace

bool dtype_valid(uint32_t raw) { return raw < ASC_DTYPE_COUNT; }
const char* dtype_name(DType t) { return row(t).name; }
bool dtype_is_signed(DType t) { return row(t).is_signed; }
bool dtype_is_int(DType t) { return !dtype_is_float(t); }

bool position_valid(uint32_t raw) { return raw <= ASC_POS_VECCALC; }
const char* position_name(Position p) { return kPositions[static_cast<int>(p)]; }
bool position_is_vector(Position p) { return p == Position::VecIn || p == Position::VecOut || p == Position::VecCalc; }

Memory position_memory(Position p) {
  switch (p) {
    case Position::A1:
    case Position::B1:
    case Position::C1: return Memory::L1;
    case Position::A2: return Memory::L0A;
    case Position::B2: return Memory::L0B;
    case Position::CO1: return Memory::L0C;
    case Position::C2: return Memory::BT;
    default: return Memory::UB;
  }
}

const char* memory_name(Memory m) {
  static const char* const kNames[] = {"Unified Buffer", "L1", "L0A", "L0B", "L0C", "bias table"};
  return kNames[static_cast<size_t>(m)];
}

bool Type::operator==(const Type& o) const {
  if (kind != o.kind) return false;
  if (kind == TypeKind::None || kind == TypeKind::Pipe || kind == TypeKind::Queue || kind == TypeKind::TBuf)
    return true;
  if (dtype != o.dtype) return false;
  return kind != TypeKind::LocalTensor || position == o.position;
}

std::string Type::str() const {
  const char* d = row(dtype).short_name;
  switch (kind) {
    case TypeKind::None: return "none";
    case TypeKind::Scalar: return d;
    case TypeKind::GmAddr: return fmt::format("!gm_addr<{}>", d);
    case TypeKind::GlobalTensor: return fmt::format("!global<{}>", d);
    case TypeKind::LocalTensor: return fmt::format("!local<{}, {}>", d, position_name(position));
    case TypeKind::Pipe: return "!tpipe";
    case TypeKind::Queue: return "!tque";
    case TypeKind::TBuf: return "!tbuf";
  }
  return "?";
}

// Ascend C general constraints, table 2 (Atlas A2): UB and L1 32 bytes, L0A/L0B
// 512 (a fractal), L0C and the bias table 64.
uint32_t memory_alignment(Memory m) {
  switch (m) {
    case Memory::L0A:
    case Memory::L0B: return 512;
    case Memory::L0C:
    case Memory::BT: return 64;
    default: return 32;
  }
}

}  // namespace asc
