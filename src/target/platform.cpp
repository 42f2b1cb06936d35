#include "target/platform.h"

#include <algorithm>
#include <string>
#include <utility>

#include "support/error.h"

namespace asc {
namespace {

// Sources: CANN 8.1.RC1 platform_config/Ascend910B{1,2,3,4}.ini (ai_core_cnt,
// cube_core_cnt, vector_core_cnt, ub_size, l1_size, l0_a/b/c_size, cube_freq);
// event ids 0..7 per the Ascend C SetFlag/WaitFlag page for Atlas A2;
// 32-byte data block and 256-byte vector repeat from the Ascend C vector API
// general constraints. The other rows' sources are at the table below.
constexpr uint64_t kUB = 196608, kL1 = 524288, kL0A = 65536, kL0B = 65536, kL0C = 131072;

PlatformInfo row(uint32_t aiv, uint32_t aic, double ghz) {
  return PlatformInfo{aiv, aic, kUB, kL1, kL0A, kL0B, kL0C, 32, 256, 8, ghz};
}

// dav-c310 (Ascend 950, __NPU_ARCH__ 3510). asc-devkit (CANN's Ascend C, mirror-cann/asc-devkit commit 82b89a15f)
// impl/basic_api/utils/kernel_utils_constants.h, the __NPU_ARCH__ == 3510 branch: TOTAL_UB_SIZE 248 KiB (the 256 KiB
// UB less 8 KiB the runtime keeps: impl/basic_api/dav_3510/kfc/kfc_comm_client_gm.h), TOTAL_L1_SIZE 512 KiB,
// TOTAL_L0C_SIZE 256 KiB, TOTAL_L0A/L0B_SIZE 64 KiB, ONE_BLOCK_SIZE 32, VECTOR_REG_WIDTH 256; the same in
// include/utils/base/sys_constants.h (ASC_*_SIZE, and ASC_BT_SIZE 4 KiB) and in every 950PR AKG note below;
// QUE_MAX_EVENT 8 (impl/basic_api/kernel_macros.h).
constexpr uint64_t kUB310 = 253952, kL0C310 = 262144, kBT310 = 4096;

PlatformInfo row310(uint32_t aiv, uint32_t aic, double ghz) {
  return PlatformInfo{aiv, aic, kUB310, kL1, kL0A, kL0B, kL0C310, 32, 256, 8, ghz};
}

// Timing constants, calibrated against Huawei's own board measurements where one is published (msprof figures in
// the Ascend C best-practice samples, cannmirror/asc-devkit commit 0156b0f4d8b3, examples/01_simd_cpp_api/
// 05_best_practices/: 00_vector_compute/add_high_performance (Atlas A2, 1.85 GHz, "every cycle 128 halves"),
// 04_memory_access/data_copy (Atlas A2/A3), 01_matrix_compute/matmul_high_performance (Ascend 910B1); docs/
// profiling.md's calibration table compares the Model with them).
// * HBM 1.6 TB/s, shared in time by all cores (sim/hbm_sharing.cpp): what the data_copy sample streams from GM on
//   48 cores (1.49 TB/s, big tiles) and its L2 guide's figure; its README's theory figure is 1.8 TB/s.
// * A GM copy: gm_latency + bytes / mte_bytes_per_cycle on its engine. One core alone moves 8 KB GM->UB in 350
//   cycles and UB->GM in 295 (add sample, case 1: 6208.8 / 2613.2 us of MTE2 / MTE3 over 32768 / 16384 copies),
//   and 128-byte copies issue every 20.6 cycles (data_copy sample, blockLen 128 B): a small fixed cost (15) and
//   about 26 bytes per cycle per engine, not a long latency paid per copy.
// * Vector: one 256-byte repeat per cycle ("every cycle 128 halves") plus 22 cycles of start and drain: the add
//   sample's bank-conflict-free 127-repeat Add takes 149.6 cycles (case 6: 6.954 us over 86 Adds a core); its
//   conflicting layout (case 5) 2 cycles a repeat, which sim/bank_conflicts.cpp charges on dav-c220.
// * The cube: 16 x 16 x 16 float16 MACs per cycle (matmul sample: "每cycle处理16×16×16次乘加运算", its measured
//   mac time within 2% of that); int8 16 x 32 x 16; float32 half the float16 rate (ir/ops_cube.cpp mmad_work).
// * The cube core's MTE2 (GM -> L1) is wider than a vector core's: the matmul sample's case 5 (8192^3 float16,
//   24 cores in 4 x 6 blocks of 2048 x 1536, L1 filled: depthA1 16, stepKa 8) moves 604 MB into each full core's
//   L1 (96 blocks of 128 x 256, each reading its 128 x 8192 and 8192 x 256 panels) while MTE2 is busy 96.3% of
//   the 4156.76 us: 604e6 / (0.963 x 4156.76 us) / 1.85 GHz = 82 bytes per cycle (the vector core's 26 would
//   take 3.2 times the board's duration).
// * The cube core's GM reads wait aic_read_latency (700 cycles, 380 ns) from request to first byte, hidden behind
//   the reads queued before them on MTE2 (sim/timing.h). The matmul sample's cases 1 and 3 (Norm template with its
//   SetL1: depthA1 = depthB1 = stepKa = stepKb = 1, so one 16 KB A and one 32 KB B copy per K step, and each step's
//   copies wait for MTE1 to have read the last) take 1761 cycles a step on one core (249467.08 us over 2048 blocks
//   x 128 steps) and 1850 on 24 (12283.84 us over 96 x 128), MTE2 busy 1380 and 1460 of them (aic_mte2_time over
//   the steps; 85.3 blocks a core on average on 24): 48 KB at 82 B/cycle is 600, the rest a latency paid once a
//   step (the step's two copies queue back to back). Where copies queue ahead (MDL, L1 double-buffered) the board
//   shows none of it: case 5's 128 KB copies take 1707 cycles each (3778.555 us / (85.3 x 48 copies)); paying 700
//   of them as latency would leave 1007 for the bytes, 130 B/cycle, 5.8 TB/s on 24 cores, above L2's 5 TB/s.
//   700 puts the Model's case 1 and 3 rows at +3 % and +7 % (its MTE1, 462 cycles a step against the board's 367,
//   takes some of the step). No latency is published as such: Ascend C's guide says only that a GM copy reaches its
//   best bandwidth above 16 KB ("Transferring a Large Data Block at a Time"); Huawei's autofuse cost table charges
//   a vector core's MTE2 a pipe head of 882.09 + 15.89 x cores cycles (1575.03 + 32.72 x cores for copies of
//   25000 bytes or more) once, not per copy (hicann/ge compiler/graph/optimize/autofuse/att/gen_model_info/
//   api_perf_register/v1/perf_param_v1.cpp, kMte2PipeHead*): the same order, paid where the queue starts. A vector
//   core's copies keep gm_latency: the add sample's case 1 moves its two 8 KB copies a tile in 701 cycles, each
//   tile's copies waiting for the add, no room for such a latency there.
// * Vector costs per API and dtype: vector_cost_table() below, Huawei's autofuse cost table scaled to the add
//   calibration above.
// * L2: 192 MB on Ascend910B1 at about 5 TB/s ("当前L2Cache大小为192MB", "L2Cache峰值带宽约为5TB/s", the matmul
//   sample's README; its L2 guide: L2's read bandwidth 3 to 4 times GM's); re-reads the launch's footprint allows
//   come from there (sim/hbm_sharing.h). L2 is write-back: the add sample's case 5 (x and y read past L2 with
//   SetL2CacheHint(CACHE_MODE_DISABLE)) moves its 384 MB in 187.68 us, 2.05 TB/s, above HBM, so z's writes stayed in
//   L2, while case 4 (the same reads cached: they alone fill L2) moves them at 1.45 TB/s; the Model holds a launch's
//   writes in L2 as far as its cached reads leave room. Other SoCs: their L2 from the AKG / DVM notes cited at the
//   table below.
// cube_startup, flag latency (16 cycles from a set_flag firing to the waiting pipe seeing it; a pipe_barrier waits
//   for its pipe's earlier work and costs 1 cycle more), scalar costs and the launch: estimates (no published
//   per-instruction figure; the add sample's scalar loop, 34 cycles per element for two get_value, a set_value and
//   an add, fits scalar_memory 10).
// The vector cost of each API and dtype. Source: Huawei's autofuse cost table (hicann/ge commit 74573e24c43f,
// compiler/graph/optimize/autofuse/att/gen_model_info/api_perf_register/v1/perf_param_v1.cpp, kParamV1Info: per
// Ascend C API and "<src>to<dst>" dtype key a SimpleLinear model, cycles = k x elements + b). Its cycles are not the
// add sample's: its Add costs 0.0103 a float16 (1.32 a 256-byte repeat, head 22.2) where the board's add_high_
// performance sample measures 1 a repeat and a head of 22 (above). So the table is used for ratios to Add: an API's
// cost per repeat is k x (elements a repeat) / (Add's k x its elements a repeat) x vector_repeat, and its head
// b / (Add's b, same width) x vector_startup; Add itself stays at the calibration. A repeat holds 256 bytes of the
// op's widest operand (what sim/block.cpp charges: an op's largest operand's bytes), of the wider dtype for a cast,
// of gather's uint32 offsets for gather.
struct AutofuseRow {
  VecCost api;
  const char* key;  // the API's key in kParamV1Info
  DType src, dst;   // its dtype key, "<src>to<dst>" ("float16tofloat16" outside casts)
  double k, b;
};
constexpr DType F16 = DType::Float16, F32 = DType::Float32;
constexpr AutofuseRow kAutofuseV1[] = {
    {VecCost::Add, "Add", F16, F16, 0.0103, 22.2173},
    {VecCost::Add, "Add", F32, F32, 0.0206, 23.2225},
    {VecCost::Sub, "Sub", F16, F16, 0.0107, 22.1226},
    {VecCost::Sub, "Sub", F32, F32, 0.0213, 22.1254},
    {VecCost::Mul, "Mul", F16, F16, 0.0110, 23.1243},
    {VecCost::Mul, "Mul", F32, F32, 0.0206, 23.2291},
    {VecCost::Div, "Div", F16, F16, 0.0460, 29.1233},
    {VecCost::Div, "Div", F32, F32, 0.0454, 29.0892},
    {VecCost::Max, "Max", F16, F16, 0.0111, 20.1200},
    {VecCost::Max, "Max", F32, F32, 0.0215, 20.1333},
    {VecCost::Min, "Min", F16, F16, 0.0111, 20.1104},
    {VecCost::Min, "Min", F32, F32, 0.0215, 20.1271},
    {VecCost::Adds, "Adds", F16, F16, 0.0071, 22.0938},
    {VecCost::Adds, "Adds", F32, F32, 0.0141, 22.0936},
    {VecCost::Muls, "Muls", F16, F16, 0.0071, 23.1006},
    {VecCost::Muls, "Muls", F32, F32, 0.0142, 23.0966},
    {VecCost::Muls, "Muls", DType::Int32, DType::Int32, 0.0180, 20.7457},
    {VecCost::Maxs, "Maxs", F16, F16, 0.0071, 20.0912},
    {VecCost::Maxs, "Maxs", F32, F32, 0.0141, 20.0887},
    {VecCost::Mins, "Mins", F16, F16, 0.0071, 20.0896},
    {VecCost::Mins, "Mins", F32, F32, 0.0142, 20.0876},
    {VecCost::Abs, "Abs", F16, F16, 0.0077, 20.0153},
    {VecCost::Abs, "Abs", F32, F32, 0.0147, 20.0592},
    {VecCost::Relu, "Relu", F16, F16, 0.0077, 20.0173},
    {VecCost::Relu, "Relu", F32, F32, 0.0154, 20.0189},
    {VecCost::Exp, "Exp", F16, F16, 0.0311, 28.0144},
    {VecCost::Exp, "Exp", F32, F32, 0.0307, 28.0376},
    {VecCost::Sqrt, "Sqrt", F16, F16, 0.0312, 29.0056},
    {VecCost::Sqrt, "Sqrt", F32, F32, 0.0313, 28.9961},
    {VecCost::Rsqrt, "Rsqrt", F16, F16, 0.0071, 21.0970},
    {VecCost::Rsqrt, "Rsqrt", F32, F32, 0.0143, 21.0979},
    {VecCost::Reciprocal, "Reciprocal", F16, F16, 0.0078, 21.0076},
    {VecCost::Reciprocal, "Reciprocal", F32, F32, 0.0146, 21.0639},
    // the 16-bit row is the one the Model's And (int16 / uint16) reaches
    {VecCost::And, "And", F16, F16, 0.0107, 17.1393},
    {VecCost::And, "And", F32, F32, 0.0112, 17.5611},
    {VecCost::Or, "Or", DType::UInt16, DType::UInt16, 0.0132, 12.4018},
    {VecCost::Copy, "Copy", F16, F16, 0.0078, 13.0049},
    {VecCost::Copy, "Copy", F32, F32, 0.0157, 12.9966},
    {VecCost::Duplicate, "Duplicate", F16, F16, 0.0078, 16.9993},
    {VecCost::Duplicate, "Duplicate", F32, F32, 0.0156, 16.9965},
    {VecCost::Cast, "Cast", F16, F32, 0.0147, 20.1204},
    {VecCost::Cast, "Cast", F32, F16, 0.0087, 20.4393},
    {VecCost::Cast, "Cast", F16, DType::UInt8, 0.0083, 19.9408},
    {VecCost::Cast, "Cast", DType::UInt8, F16, 0.0102, 46.512},
    {VecCost::Cast, "Cast", DType::Int64, DType::Int32, 0.0332, 18.8690},
    // The table has a row per comparison mode, within 6 % of each other: EQ stands for all. Its Compare rows come
    // as "Aligned" and "Unaligned" (half the cost per element); the Model's Compare needs 256-byte aligned counts
    // (Ascend C's Compare page): the Aligned rows.
    {VecCost::Compare, "CompareEQAligned", F16, F16, 0.0155, 21.0340},
    {VecCost::Compare, "CompareEQAligned", F32, F32, 0.0310, 21.0316},
    {VecCost::CompareScalar, "CompareScalarEQ", F16, F16, 0.0084, 21.9204},
    {VecCost::CompareScalar, "CompareScalarEQ", F32, F32, 0.0160, 21.9749},
    {VecCost::Select, "Select", F16, F16, 0.0118, 45.9656},
    {VecCost::Select, "Select", F32, F32, 0.0229, 43.9906},
    {VecCost::Gather, "Gather", F16, F16, 0.1873, 17.0248},
    {VecCost::Gather, "Gather", F32, F32, 0.1875, 15.0000},
    {VecCost::GatherMask, "GatherMask", F16, F16, 0.0156, 14.0242},
    {VecCost::GatherMask, "GatherMask", F32, F32, 0.0313, 14.0207},
    {VecCost::Brcb, "Brcb", F16, F16, 0.0074, 13.0572},
    {VecCost::Brcb, "Brcb", F32, F32, 0.0146, 13.0732},
    {VecCost::WholeReduceSum, "WholeReduceSum", F16, F16, 0.0547, 35.0021},
    {VecCost::WholeReduceSum, "WholeReduceSum", F32, F32, 0.1094, 32.0029},
    {VecCost::WholeReduceMax, "WholeReduceMax", F16, F16, 0.0547, 21.0027},
    {VecCost::WholeReduceMax, "WholeReduceMax", F32, F32, 0.1094, 20.0051},
    {VecCost::WholeReduceMin, "WholeReduceMin", F16, F16, 0.0547, 21.0056},
    {VecCost::WholeReduceMin, "WholeReduceMin", F32, F32, 0.1094, 20.0068},
    {VecCost::PairReduceSum, "PairReduceSum", F16, F16, 0.0547, 37.159},
    {VecCost::PairReduceSum, "PairReduceSum", F32, F32, 0.1094, 36.964},
    {VecCost::BlockReduceMax, "BlockReduceMax", F16, F16, 0.0547, 18.0042},
    {VecCost::BlockReduceMax, "BlockReduceMax", F32, F32, 0.0198, 16.7401},
    {VecCost::BlockReduceMin, "BlockReduceMin", F16, F16, 0.0547, 18.0092},
    {VecCost::BlockReduceMin, "BlockReduceMin", F32, F32, 0.0198, 16.7413},
};

// Families the table has no row for, priced as one it has (estimates, with the reason):
// * block_reduce_sum as block_reduce_max: the same instruction shape (one result per 32-byte block), the table
//   times the max and min variants alike;
// * the high-level reduce_sum / reduce_max / reduce_min as whole_reduce_sum / _max / _min: Ascend C's ReduceSum and
//   ReduceMax run whole reductions over the repeats and then over the partial results; the first pass holds all
//   but 1/64th (float16: 1/128th) of the work, the passes' extra heads are not charged.
constexpr std::pair<VecCost, VecCost> kPricedAs[] = {{VecCost::BlockReduceSum, VecCost::BlockReduceMax},
                                                     {VecCost::ReduceSum, VecCost::WholeReduceSum},
                                                     {VecCost::ReduceMax, VecCost::WholeReduceMax},
                                                     {VecCost::ReduceMin, VecCost::WholeReduceMin}};
// The rest keep the rule of thumb the Model had before the table (estimates): VecCost::Default (add_relu,
// sub_relu, the fused multiply-adds, axpy, leaky_relu, the shifts, bitwise_not, the sorts, transpose, scatter,
// gatherb, cast_deq, the cmp-mask moves, bilinear_interpolation: no row in the table) at add's head and one
// vector_repeat a repeat; ln (no row) at add's head and 4 vector_repeat a repeat, div's cost class before; casts
// between pairs the table lacks (float32 <-> int32, float16 <-> int8 / int16 / int32, bfloat16, ...) at Default's;
// a dtype of a listed API without a row of its own (int16 / int32 add, uint16 gather, ...) at the row of the float
// dtype of its width, the vector unit moving the same 256 bytes a repeat.
constexpr uint32_t kVectorStartup = 22, kVectorRepeat = 1;  // the add calibration (above)

const VectorCostTable* vector_cost_table() {
  auto build = [](uint32_t startup, uint32_t repeat) {
    VectorCostTable t;
    const VectorRate plain{static_cast<double>(startup), static_cast<double>(repeat)};
    for (auto& family : t.rate) family.fill(plain);
    for (auto& src : t.cast) src.fill(plain);
    t.rate[static_cast<size_t>(VecCost::Ln)].fill({plain.head, 4.0 * repeat});
    auto find = [](VecCost api, DType src, DType dst) -> const AutofuseRow* {
      for (const AutofuseRow& r : kAutofuseV1)
        if (r.api == api && r.src == src && r.dst == dst) return &r;
      return nullptr;
    };
    const AutofuseRow& add16 = *find(VecCost::Add, F16, F16);
    const AutofuseRow& add32 = *find(VecCost::Add, F32, F32);
    const double add_per_repeat = add16.k * (256.0 / dtype_size(F16));  // add32's too: 0.0206 x 64
    auto scaled = [&](const AutofuseRow& r, VecCost api) {
      uint32_t widest = api == VecCost::Gather ? 4 : std::max(dtype_size(r.src), dtype_size(r.dst));
      const AutofuseRow& add = widest >= 4 ? add32 : add16;
      return VectorRate{r.b / add.b * startup, r.k * (256.0 / widest) / add_per_repeat * repeat};
    };
    for (size_t f = 0; f < static_cast<size_t>(VecCost::Count); ++f) {
      VecCost api = static_cast<VecCost>(f), as = api;
      for (auto [family, like] : kPricedAs)
        if (family == api) as = like;
      if (api == VecCost::Cast) continue;
      for (unsigned d = 0; d < ASC_DTYPE_COUNT; ++d) {
        DType dtype = static_cast<DType>(d);
        const AutofuseRow* r = find(as, dtype, dtype);
        if (!r && dtype_size(dtype) == 2) r = find(as, F16, F16);
        if (!r && dtype_size(dtype) == 4) r = find(as, F32, F32);
        if (r) t.rate[f][d] = scaled(*r, as);
      }
    }
    for (const AutofuseRow& r : kAutofuseV1)
      if (r.api == VecCost::Cast)
        t.cast[static_cast<size_t>(r.src)][static_cast<size_t>(r.dst)] = scaled(r, VecCost::Cast);
    return t;
  };
  static const VectorCostTable table = build(kVectorStartup, kVectorRepeat);
  return &table;
}

CostModel cost(double ghz, double hbm_bytes_per_s = 1.6e12, double l2_mb = 192) {
  CostModel c{};
  c.scalar_issue = 1;
  c.scalar_memory = 10;
  c.flag_latency = 16;
  c.gm_latency = 15;
  c.aic_read_latency = 700;
  c.gm_bytes_per_cycle = hbm_bytes_per_s / (ghz * 1e9);
  c.mte_bytes_per_cycle = 26;
  c.aic_mte_bytes_per_cycle = 82;
  c.l2_bytes_per_cycle = 5e12 / (ghz * 1e9);
  c.l2_bytes = l2_mb * 1024 * 1024;
  c.vector_startup = kVectorStartup;
  c.vector_repeat = kVectorRepeat;
  c.vector = vector_cost_table();
  c.ub_copy_bytes_per_cycle = 256;
  c.cube_startup = 32;
  c.launch = static_cast<uint32_t>(3.0 * ghz * 1000);  // about 3 us
  return c;
}

// The dav-c310 costs: cost()'s, at the row's clock and HBM bandwidth. The per-cycle rates are the same as
// dav-c220's by the published figures: a vector core does 128 halves (256 bytes) per cycle (asc-devkit
// examples/01_simd_cpp_api/05_best_practices/00_vector_compute/add_high_performance/README.md, Ascend 950), the
// cube 16 x 16 x 16 MACs per cycle (.../01_matrix_compute/matmul_high_performance/README.md, Ascend 950PR). HBM:
// "HBM 带宽约 1.6TB/s" on Ascend 950PR (.../matmul_basic_api_high_performance/README.md; Huawei's announcement,
// HiBL 1.0 128 GB at 1.6 TB/s, as reported e.g. at https://www.codcompass.com/en/kb/deepseek-v4-on-huawei-s-
// ascend-950-a-real-stress-test-for-china-s-ai-chip-ecosystem-928376). No per-SoC bandwidth is published: the
// 128 GB parts get 1.6 TB/s and the others 1.6 TB/s scaled by their AKG notes' DDR bandwidth ratio (31% for the
// 128 GB parts, 27% for 112 GB, 23% for 96 GB, 4% for 16 GB): estimates. The GM latency, flag, scalar and launch
// constants are cost()'s estimates (no C310 figure is public), and so is the per-API vector table: dav-c220's
// (autofuse's v2 tables, for the register-based dav-c310 vector unit, price other instructions; not transcribed).
CostModel cost310(double ghz, double ddr_ratio_percent, double l2_mb = 128) {
  return cost(ghz, 1.6e12 * ddr_ratio_percent / 31.0, l2_mb);
}

// A dav-c310 row: its 4 KiB bias table, LoadData2dTransposeParamsV2 and the buffer tokens.
Platform c310(const char* name, PlatformInfo info, CostModel c) {
  Platform p{name, info, c, Arch::C310, kBT310};
  p.load_transpose_v2 = true;
  p.buffer_tokens = true;
  return p;
}

}  // namespace

const char* arch_name(Arch a) { return a == Arch::C310 ? "c310" : "c220"; }

const std::vector<Platform>& platforms() {
  // The rows after Ascend910B1..B4. Those up to Ascend910_9392 are dav-c220 (AIC-C-220) SoCs with the Atlas A2 block,
  // repeat and event ids above. A3 = the MindSpore AKG hardware notes transcribed from each SoC's CANN platform_config
  // ini (mindspore-ai/akg akg_agents/python/akg_agents/op/resources/docs/hardware/Ascend910_93xx.md, commit 4a2e445
  // "Add: a3 hardware docs": AI Core / VEC / CUBE counts, cube frequency, L1/L0A/L0B/L0C/UB, L2, GM).
  //
  // Ascend910B2C: 24 AIC / 48 AIV and UB/L0A/L0B/L0C 192/64/64/128 KiB from the AKG notes' Ascend910B2C.md and
  //   chitu's core_num_each_platform (48); ub_size=196608 also as CANN 8.5's Ascend910B2C.ini is quoted in
  //   public project notes. No public clock found: Ascend910B2's 1.80 GHz (same cores, same AI Core). The AKG
  //   910B notes give every 910B an L1 of 1 MB, against 524288 in CANN's Ascend910B{1,2,3,4}.ini: 512 KiB kept.
  // Ascend910B4-1: 20 AIC / 40 AIV, cube_freq=1500, L1/L0A/L0B/L0C/UB 512/64/64/128/192 KiB (L2 96 MB, HBM
  //   64 GB): CANN 9.0.0's Ascend910B4-1.ini as quoted in a vllm-ascend AGENTS.md; 40 also in chitu's table.
  // Ascend910_9362: 20 AIC / 40 AIV, 1500 MHz, L2 168 MB: A3 notes (cores and L2 also as the ini is quoted in
  //   two public project notes).
  // Ascend910_9372: 20 AIC / 40 AIV, 1800 MHz: A3 notes; 40 also in chitu's table.
  // Ascend910_9381, _9382: 24 AIC / 48 AIV, 1800 MHz: A3 notes; 48 in chitu's table; 9382's 24 cube cores at
  //   1800 MHz also as CANN 9.0.0's Ascend910_9382.ini is quoted in a public MFU report.
  // Ascend910_9391, _9392: 24 AIC / 48 AIV, 1850 MHz: A3 notes; 48 in chitu's table; 9392's counts and buffers
  //   also as its ini is printed by a public CANN device-query example.
  // Every A3 ini quoted gives L1/L0A/L0B/L0C/UB = 512/64/64/128/192 KiB. pyasc-dev 1.1.1
  //   (asc/runtime/launcher.py get_platform_info) gives 910_93 an L0C of 256 KiB; the inis say 128 KiB, as do
  //   CANN's ops (256 KiB only for __NPU_ARCH__ 3101, ops-transformer groupedmatmul_act/utils/arch.h): 128 kept.
  // No quoted ini gives an HBM bandwidth (only [AICoreMemoryRates] ddr_rate, of undocumented unit): cost()'s
  //   1.6 TB/s estimate, as for Ascend910B1..B4.
  //
  // The dav-c310 rows (Ascend 950; pyasc's CompilationArch.C310: PyAsc2's Ascend910_95xx and Ascend950PR_95xx).
  // Buffers: row310()'s (asc-devkit). Cores and clocks per SoC from the AKG notes of the same directory
  // (Ascend950PR_<id>.md, commits 6d2bc6a / 76f289c / 89817b5 / fb4f0c1: AI Core count with 2 VEC + 1 CUBE each,
  // VEC/CUBE frequency, GM, L2, DDR bandwidth ratio) and AscendNPU-IR's NPUTargetSpec.td (Ascend/AscendNPU-IR
  // bishengir/include/bishengir/Dialect/HACC/Targets/NPUTargetSpec.td, as tabulated in its NPU architecture notes:
  // AI / cube / vector core counts of every Ascend910_95 and Ascend950PR SoC, dav-c310, UB 248 KB, L0C 256 KB).
  // MindSpore's DVM SoC table (soc_configs: AI Core count and L2 per SoC, kAiCore_C310) agrees with both.
  // Ascend950PR_9599: 36 AIC / 72 AIV, 1800 MHz, GM 128 GB, L2 128 MB, DDR 31%: AKG; 36 also NPUTargetSpec, DVM.
  // Ascend950PR_9589, _958b: 32 / 64, 1650 MHz; GM 128 / 112 GB, DDR 31% / 27%: AKG; 32 also NPUTargetSpec, DVM.
  // Ascend950PR_9579, _957b, _957d: 28 / 56, 1650 MHz; GM 128 / 112 / 96 GB, DDR 31% / 27% / 23%: AKG; 28 also
  //   NPUTargetSpec, DVM.
  // Ascend950PR_957c: 28 / 56 (NPUTargetSpec, DVM; L2 112 MB in DVM, as 957b's). No AKG note: clock and DDR ratio
  //   are Ascend950PR_957b's (estimate).
  // Ascend950PR_950z: 4 / 8 (NPUTargetSpec and DVM; L2 16 MB in DVM and AKG); AKG's note says 8 AI Cores (16 VEC):
  //   the two agreeing sources kept. 1650 MHz, GM 16 GB, DDR 4%: AKG.
  // Ascend910_9579, _9589, _9599: 28 / 56, 32 / 64, 36 / 72 (NPUTargetSpec's Ascend910_95 series, dav-c310; the
  //   earlier names of the 950 SoCs, CANN's ascend910_95 soc list). No public clock or bandwidth under these names:
  //   those of Ascend950PR_9579 / _9589 / _9599 (estimate).
  // The asc-devkit examples' ARCH_3510 AIV_CORE_NUM 64 / AIC_CORE_NUM 32 and 1.65 GHz (a 9589-class part) agree.
  static const std::vector<Platform> table = {
      {"Ascend910B1", row(48, 24, 1.85), cost(1.85)},              // CANN 8.1.RC1 ini
      {"Ascend910B2", row(48, 24, 1.80), cost(1.80)},              // CANN 8.1.RC1 ini
      {"Ascend910B2C", row(48, 24, 1.80), cost(1.80)},             // AKG notes, chitu; clock: Ascend910B2's (no source)
      {"Ascend910B3", row(40, 20, 1.80), cost(1.80)},              // CANN 8.1.RC1 ini
      {"Ascend910B4", row(40, 20, 1.50), cost(1.50, 1.6e12, 96)},  // CANN 8.1.RC1 ini; L2 as B4-1's
      {"Ascend910B4-1", row(40, 20, 1.50), cost(1.50, 1.6e12, 96)},            // CANN 9.0.0 ini as quoted
      {"Ascend910_9362", row(40, 20, 1.50), cost(1.50, 1.6e12, 168)},          // A3 notes
      {"Ascend910_9372", row(40, 20, 1.80), cost(1.80)},                       // A3 notes
      {"Ascend910_9381", row(48, 24, 1.80), cost(1.80)},                       // A3 notes
      {"Ascend910_9382", row(48, 24, 1.80), cost(1.80)},                       // A3 notes, CANN 9.0.0 ini as quoted
      {"Ascend910_9391", row(48, 24, 1.85), cost(1.85)},                       // A3 notes
      {"Ascend910_9392", row(48, 24, 1.85), cost(1.85)},                       // A3 notes, ini as printed
      c310("Ascend910_9579", row310(56, 28, 1.65), cost310(1.65, 31)),         // NPUTargetSpec; est.
      c310("Ascend910_9589", row310(64, 32, 1.65), cost310(1.65, 31)),         // NPUTargetSpec; est.
      c310("Ascend910_9599", row310(72, 36, 1.80), cost310(1.80, 31)),         // NPUTargetSpec; est.
      c310("Ascend950PR_950z", row310(8, 4, 1.65), cost310(1.65, 4, 16)),      // NPUTargetSpec, AKG
      c310("Ascend950PR_9579", row310(56, 28, 1.65), cost310(1.65, 31)),       // AKG
      c310("Ascend950PR_957b", row310(56, 28, 1.65), cost310(1.65, 27, 112)),  // AKG
      c310("Ascend950PR_957c", row310(56, 28, 1.65), cost310(1.65, 27, 112)),  // NPUTargetSpec; est.
      c310("Ascend950PR_957d", row310(56, 28, 1.65), cost310(1.65, 23)),       // AKG
      c310("Ascend950PR_9589", row310(64, 32, 1.65), cost310(1.65, 31)),       // AKG
      c310("Ascend950PR_958b", row310(64, 32, 1.65), cost310(1.65, 27)),       // AKG
      c310("Ascend950PR_9599", row310(72, 36, 1.80), cost310(1.80, 31)),       // AKG
  };
  return table;
}

const Platform* find_platform(std::string_view name) {
  for (const auto& p : platforms())
    if (name == p.name) return &p;
  return nullptr;
}

const Platform& platform_named(std::string_view name) {
  const Platform* p = find_platform(name);
  if (!p) fail(ASC_ERR_INVALID_ARGUMENT, "unknown platform '{}' (known: {})", name, known_platform_names());
  return *p;
}

std::string known_platform_names() {
  std::string s;
  for (const auto& p : platforms()) s += std::string(s.empty() ? "" : ", ") + p.name;
  return s;
}

}  // namespace asc
