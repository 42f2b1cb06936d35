// Element dtypes and value types of the IR.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "asc/asc.h"

namespace asc {

enum class DType : uint8_t {
  Bool = ASC_DTYPE_BOOL,
  Int8 = ASC_DTYPE_INT8,
  UInt8 = ASC_DTYPE_UINT8,
  Int16 = ASC_DTYPE_INT16,
  UInt16 = ASC_DTYPE_UINT16,
  Int32 = ASC_DTYPE_INT32,
  UInt32 = ASC_DTYPE_UINT32,
  Int64 = ASC_DTYPE_INT64,
  UInt64 = ASC_DTYPE_UINT64,
  Float16 = ASC_DTYPE_FLOAT16,
  BFloat16 = ASC_DTYPE_BFLOAT16,
  Float32 = ASC_DTYPE_FLOAT32,
};

namespace detail {
struct DTypeRow {
  const char* name;
  const char* short_name;
  uint32_t size;
  bool is_float;
  bool is_signed;
};

// Indexed by DType.
inline constexpr DTypeRow kDTypes[] = {
    {"bool", "i1", 1, false, false},    {"int8", "i8", 1, false, true},       {"uint8", "u8", 1, false, false},
    {"int16", "i16", 2, false, true},   {"uint16", "u16", 2, false, false},   {"int32", "i32", 4, false, true},
    {"uint32", "u32", 4, false, false}, {"int64", "i64", 8, false, true},     {"uint64", "u64", 8, false, false},
    {"float16", "f16", 2, true, false}, {"bfloat16", "bf16", 2, true, false}, {"float32", "f32", 4, true, false},
};
static_assert(sizeof(kDTypes) / sizeof(kDTypes[0]) == ASC_DTYPE_COUNT);
}  // namespace detail

bool dtype_valid(uint32_t raw);
const char* dtype_name(DType t);  // pyasc spelling: "float32", "int16", ...
// (Inline: the Model asks for sizes and kinds on every instruction it runs.)
inline uint32_t dtype_size(DType t) { return detail::kDTypes[static_cast<size_t>(t)].size; }  // bytes
inline bool dtype_is_float(DType t) { return detail::kDTypes[static_cast<size_t>(t)].is_float; }
bool dtype_is_signed(DType t);  // signed integers (floats are not "signed ints")
bool dtype_is_int(DType t);     // bool counts as an integer

enum class TypeKind : uint8_t {
  None = ASC_TYPE_NONE,
  Scalar = ASC_TYPE_SCALAR,
  GmAddr = ASC_TYPE_GM_ADDR,
  GlobalTensor = ASC_TYPE_GLOBAL_TENSOR,
  LocalTensor = ASC_TYPE_LOCAL_TENSOR,
  Pipe = ASC_TYPE_PIPE,
  Queue = ASC_TYPE_QUEUE,
  TBuf = ASC_TYPE_TBUF,
};

enum class Position : uint8_t {
  GM = ASC_POS_GM,
  A1 = ASC_POS_A1,
  A2 = ASC_POS_A2,
  B1 = ASC_POS_B1,
  B2 = ASC_POS_B2,
  C1 = ASC_POS_C1,
  C2 = ASC_POS_C2,
  CO1 = ASC_POS_CO1,
  CO2 = ASC_POS_CO2,
  VecIn = ASC_POS_VECIN,
  VecOut = ASC_POS_VECOUT,
  VecCalc = ASC_POS_VECCALC,
};

bool position_valid(uint32_t raw);
const char* position_name(Position p);
bool position_is_vector(Position p);  // VECIN / VECOUT / VECCALC: the Unified Buffer

// The on-chip memory a local position lives in (Atlas A2): the vector core's
// Unified Buffer; the cube core's L1 (A1, B1, C1), L0A (A2), L0B (B2), L0C
// (CO1) and bias table (C2). CO2 is the Unified Buffer side of a vector core.
enum class Memory : uint8_t { UB, L1, L0A, L0B, L0C, BT, Count };
constexpr size_t kMemoryCount = static_cast<size_t>(Memory::Count);
Memory position_memory(Position p);
const char* memory_name(Memory m);    // "Unified Buffer", "L1", ...
uint32_t memory_alignment(Memory m);  // bytes a tensor's address in it must be a multiple of

struct Type {
  TypeKind kind = TypeKind::None;
  DType dtype = DType::Int32;
  Position position = Position::GM;

  static Type none() { return {}; }
  static Type scalar(DType d) { return {TypeKind::Scalar, d, Position::GM}; }
  static Type gm_addr(DType d) { return {TypeKind::GmAddr, d, Position::GM}; }
  static Type global_tensor(DType d) { return {TypeKind::GlobalTensor, d, Position::GM}; }
  static Type local_tensor(DType d, Position p) { return {TypeKind::LocalTensor, d, p}; }
  static Type object(TypeKind k) { return {k, DType::Int32, Position::GM}; }

  bool is_scalar() const { return kind == TypeKind::Scalar; }
  bool is_int_scalar() const { return kind == TypeKind::Scalar && dtype_is_int(dtype); }
  bool is_tensor() const { return kind == TypeKind::GlobalTensor || kind == TypeKind::LocalTensor; }
  bool operator==(const Type& o) const;
  bool operator!=(const Type& o) const { return !(*this == o); }
  std::string str() const;  // "f32", "!gm<f32>", "!local<f32, VECIN>" ...
};

}  // namespace asc
