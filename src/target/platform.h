// Per-SoC facts (the Model, the compile driver and the NPU backend read them): one row per platform.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/types.h"
#include "ir/vector_cost.h"

namespace asc {

// A vector instruction's cycles: `head` (start and drain) plus `per_repeat` for each 256-byte repeat of its widest
// operand.
struct VectorRate {
  double head = 0;
  double per_repeat = 0;
};

// A platform's vector costs: a rate per cost family (an op row's VecCost) and dtype, and per (source, destination)
// dtype pair for casts. platform.cpp builds it from the cited figures; every cell is filled (with an estimate
// where no figure exists).
struct VectorCostTable {
  std::array<std::array<VectorRate, ASC_DTYPE_COUNT>, static_cast<size_t>(VecCost::Count)> rate{};
  std::array<std::array<VectorRate, ASC_DTYPE_COUNT>, ASC_DTYPE_COUNT> cast{};  // [source][destination]

  // `dtype`: the op's element dtype (its row's dtype_operand); `src`: a cast's source.
  const VectorRate& lookup(VecCost family, DType dtype, DType src) const {
    return family == VecCost::Cast ? cast[static_cast<size_t>(src)][static_cast<size_t>(dtype)]
                                   : rate[static_cast<size_t>(family)][static_cast<size_t>(dtype)];
  }
};

// Cycle costs of the timing model, at the platform clock. Each constant's
// source (or the reason for the estimate) is in platform.cpp.
struct CostModel {
  uint32_t scalar_issue;           // the scalar unit dispatching one instruction
  uint32_t scalar_memory;          // get_value / set_value on the Unified Buffer
  uint32_t flag_latency;           // set_flag to the waiting pipe seeing the flag
  uint32_t gm_latency;             // first byte of an MTE2/MTE3 transfer
  uint32_t aic_read_latency;       // a cube core's GM read (GM -> L1): from its request to its first byte, hidden
                                   // behind the transfers queued before it on the same pipe (sim/timing.h)
  double gm_bytes_per_cycle;       // HBM bandwidth, shared in time by every core's GM transfers
  double mte_bytes_per_cycle;      // one MTE engine's peak (a GM copy's rate when HBM has room)
  double aic_mte_bytes_per_cycle;  // the same on a cube core (GM -> L1, L0C -> GM)
  double l2_bytes_per_cycle;       // L2's bandwidth, serving the launch's re-reads (sim/hbm_sharing.h)
  double l2_bytes;                 // L2's capacity
  uint32_t vector_startup;         // vector pipeline fill per instruction (add's: the calibrated one)
  uint32_t vector_repeat;          // cycles per 256-byte repeat of add (the calibrated one)
  const VectorCostTable* vector;   // every vector instruction's cost by API and dtype, relative to add's
  double ub_copy_bytes_per_cycle;  // also L1 -> L0 (MTE1)
  uint32_t cube_startup;           // cube pipeline fill per mmad (one 16 x 16 x C0 fractal per cycle after)
  uint32_t launch;                 // kernel launch, once per launch
};

// A SoC's cores and the memories of each (capi's asc_platform_query reports these as asc_platform_info_t).
struct PlatformInfo {
  uint32_t aiv_cores;
  uint32_t aic_cores;
  uint64_t ub_bytes;  // per AIV
  uint64_t l1_bytes;  // per AIC, as are L0A/L0B/L0C
  uint64_t l0a_bytes;
  uint64_t l0b_bytes;
  uint64_t l0c_bytes;
  uint32_t block_bytes;   // data block size (32)
  uint32_t repeat_bytes;  // vector repeat size (256)
  uint32_t max_event_id;  // event ids are 0 .. max_event_id-1
  double clock_ghz;
};

// A SoC's AI Core architecture: CANN's dav-c220 (Atlas A2/A3, __NPU_ARCH__ 2201) or dav-c310 (Ascend 950,
// __NPU_ARCH__ 3510); pyasc's CompilationArch C220 / C310. A C310 row runs the A2 instruction semantics with its own
// facts and the differences its flags below name (docs/model-backend.md, "Platforms").
enum class Arch : uint8_t { C220, C310 };
const char* arch_name(Arch a);  // "c220" / "c310", CompilationArch's values

struct Platform {
  const char* name;
  PlatformInfo info;
  CostModel cost;
  Arch arch = Arch::C220;
  uint64_t bt_bytes = 1024;  // the bias table (C2): 1 KiB on dav-c220, 4 KiB on dav-c310
  // The region-proposal sorts (RpSort16, ProposalConcat, ProposalExtract, MrgSort4) of the Atlas training series
  // and Atlas inference AI Core. No A2/A3 row has them; the Model implements them for a row that does.
  bool region_proposals = false;
  // Scatter (Atlas inference AI Core; "not supported" on A2/A3, whose rows these all are): the same for it.
  bool scatter = false;
  // Mmad's float16 <- float16, uint32 / int32 <- uint8 and int32 <- uint8 x int8 (the Atlas training series and
  // Atlas inference AI Core; A2/A3 multiply into float32 / int32 from int8 only): the same for them.
  bool mmad_legacy_dtypes = false;
  // LoadDataWithTranspose with LoadData2dTransposeParamsV2 (Ascend 950PR/950DT: the dav-c310 rows).
  bool load_transpose_v2 = false;
  // The buffer tokens get_buf / rls_buf, the synchronisation PyAsc2 inserts for Ascend 910_95 (the dav-c310 rows).
  bool buffer_tokens = false;
};

// Bytes of a core's on-chip memory (inline: each launch sizes every memory of its host threads' cores).
inline uint64_t memory_bytes(const Platform& p, Memory m) {
  const PlatformInfo& info = p.info;
  switch (m) {
    case Memory::UB: return info.ub_bytes;
    case Memory::L1: return info.l1_bytes;
    case Memory::L0A: return info.l0a_bytes;
    case Memory::L0B: return info.l0b_bytes;
    case Memory::L0C: return info.l0c_bytes;
    case Memory::BT: return p.bt_bytes;  // 1 KiB on Atlas A2 (Ascend C TPosition C2 notes), 4 KiB on dav-c310
    case Memory::Count: break;
  }
  return 0;
}

const std::vector<Platform>& platforms();
const Platform* find_platform(std::string_view name);
// The platform of that name; throws ASC_ERR_INVALID_ARGUMENT naming the known ones when there is none.
const Platform& platform_named(std::string_view name);
std::string known_platform_names();

}  // namespace asc
