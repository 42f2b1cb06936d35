// The Model's scalar registers (RtValue) set, loaded and stored with the
// dtype arithmetic of target/scalar_arith.h.
#pragma once

#include <cstdint>
#include <cstring>

#include "ir/types.h"
#include "sim/value.h"
#include "target/scalar_arith.h"

namespace asc::sim {

inline void set_int(RtValue& out, DType d, int64_t v) {
  out.i = wrap_to(v, d);
  out.f = static_cast<double>(out.i);
}

inline void set_float(RtValue& out, DType d, double v) {
  out.f = round_to(v, d);
  out.i = 0;
}

// One element of local or global memory as a register value, and back.
inline void load_scalar(RtValue& out, DType d, const uint8_t* p) {
  switch (d) {
    case DType::Bool: set_int(out, d, *p != 0); return;
    case DType::Int8: set_int(out, d, *reinterpret_cast<const int8_t*>(p)); return;
    case DType::UInt8: set_int(out, d, *p); return;
    case DType::Int16: set_int(out, d, *reinterpret_cast<const int16_t*>(p)); return;
    case DType::UInt16: set_int(out, d, *reinterpret_cast<const uint16_t*>(p)); return;
    case DType::Int32: set_int(out, d, *reinterpret_cast<const int32_t*>(p)); return;
    case DType::UInt32: set_int(out, d, *reinterpret_cast<const uint32_t*>(p)); return;
    case DType::Int64:
    case DType::UInt64: set_int(out, d, *reinterpret_cast<const int64_t*>(p)); return;
    case DType::Float16: set_float(out, d, static_cast<float>(*reinterpret_cast<const _Float16*>(p))); return;
    case DType::BFloat16: {
      uint32_t bits = uint32_t{*reinterpret_cast<const uint16_t*>(p)} << 16;
      float f;
      std::memcpy(&f, &bits, 4);
      set_float(out, d, f);
      return;
    }
    case DType::Float32: set_float(out, d, *reinterpret_cast<const float*>(p)); return;
  }
}

inline void store_scalar(uint8_t* p, DType d, const RtValue& v) {
  switch (d) {
    case DType::Float16:
    case DType::BFloat16:
    case DType::Float32: return store_float(p, d, v.f);
    default: return store_int(p, d, v.i);
  }
}

}  // namespace asc::sim
