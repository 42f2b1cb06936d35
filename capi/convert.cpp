#include "convert.h"

#include "support/error.h"

namespace asc::capi {

// Field for field: a field added to one struct and not the other changes its size.
static_assert(sizeof(asc_platform_info_t) == sizeof(PlatformInfo));
static_assert(sizeof(asc_launch_stats_t::busy_cycles) / sizeof(uint64_t) >= kPipeSlots);

Type type_from_c(const asc_type_t& t) {
  if (t.kind > ASC_TYPE_TBUF) fail(ASC_ERR_INVALID_ARGUMENT, "unknown type kind {}", t.kind);
  if (!dtype_valid(t.dtype)) fail(ASC_ERR_INVALID_ARGUMENT, "unknown dtype {}", t.dtype);
  Type out{static_cast<TypeKind>(t.kind), static_cast<DType>(t.dtype), Position::GM};
  if (out.kind == TypeKind::LocalTensor) {
    if (!position_valid(t.position) || t.position == ASC_POS_GM)
      fail(ASC_ERR_INVALID_ARGUMENT, "invalid local tensor position {}", t.position);
    out.position = static_cast<Position>(t.position);
  }
  return out;
}

asc_type_t type_to_c(const Type& t) {
  return asc_type_t{static_cast<uint32_t>(t.kind), static_cast<uint32_t>(t.dtype), static_cast<uint32_t>(t.position)};
}

Backend backend_from_c(uint32_t backend) {
  if (backend != ASC_BACKEND_MODEL && backend != ASC_BACKEND_NPU)
    fail(ASC_ERR_INVALID_ARGUMENT, "unknown backend {}", backend);
  return static_cast<Backend>(backend);
}

asc_platform_info_t platform_info_to_c(const PlatformInfo& i) {
  return asc_platform_info_t{i.aiv_cores, i.aic_cores,   i.ub_bytes,     i.l1_bytes,     i.l0a_bytes, i.l0b_bytes,
                             i.l0c_bytes, i.block_bytes, i.repeat_bytes, i.max_event_id, i.clock_ghz};
}

void stats_to_c(const LaunchReport& r, asc_launch_stats_t* out) {
  *out = asc_launch_stats_t{};
  out->cycles = r.cycles;
  out->duration_us = r.duration_us;
  out->blocks = r.blocks;
  out->n_warnings = static_cast<uint32_t>(r.warnings.size());
  for (size_t p = 0; p < kPipeSlots; ++p) out->busy_cycles[p] = r.busy[p];
}

}  // namespace asc::capi
