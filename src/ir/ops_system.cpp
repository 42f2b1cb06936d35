// Rows of the scalar unit's system queries and controls: the clock, the
// architecture version, the program counter, the task ratio, Trap, the data
// synchronisation barrier, InitSocState, the atomic-write register read back,
// the HCCL context slots. Their prototypes are pyasc's (python/asc/language/
// basic/utils.py quotes the Ascend C ones) and the Ascend C API reference's
// system-variable pages (atlasascendc_api_07_01xx).
#include "ir/op_rows.h"
#include "ir/row_rules.h"

namespace asc::rows {
namespace {

// DataSyncBarrier<MemDsbT>: ALL, DDR (GM) or UB accesses; SEQ is "reserved, not enabled yet".
void check_data_sync_barrier(const OpView& v) {
  int64_t mem = v.op.attr_int(0);
  if (mem == 3) type_error(v, "MemDsbT.SEQ is reserved (Ascend C does not enable it yet); use ALL, DDR or UB");
  if (mem < 0 || mem > 3) type_error(v, fmt::format("unknown MemDsbT {}", mem));
}

// Get/SetHcclContext<index>: "only 2 communication domains are supported, index can only be 0 or 1".
void check_hccl_index(const OpView& v) {
  int64_t index = v.op.attr_int(0);
  if (index != 0 && index != 1)
    type_error(v, fmt::format("index must be 0 or 1 (Ascend C supports two communication domains), got {}", index));
}

// GetStoreAtomicConfig(atomicType, atomicOp): one row per output.
void check_atomic_field(const OpView& v) {
  int64_t field = v.op.attr_int(0);
  if (field != 0 && field != 1) type_error(v, fmt::format("field is 0 (atomic_type) or 1 (atomic_op), got {}", field));
}

Type int16_result(const OpView&) { return Type::scalar(DType::Int16); }
Type uint32_result(const OpView&) { return Type::scalar(DType::UInt32); }
Type gm_u8_result(const OpView&) { return Type::gm_addr(DType::UInt8); }

}  // namespace

void define_system_ops(OpTable& t) {
  // GetSystemCycle: the system counter, which runs at 50 MHz ("time = cycles / 50 us"), not the core clock.
  t.def(OpCode::GetSystemCycle, "get_system_cycle")
      .result(int64_result)
      .ascendc("AscendC::GetSystemCycle", "int64_t {result} = {api}();");
  // GetArchVersion(uint32_t& coreVersion): the AI Core architecture, read in hex (0x220 on dav-c220 SoCs).
  t.def(OpCode::GetArchVersion, "get_arch_version")
      .result(uint32_result)
      .ascendc("AscendC::GetArchVersion", "uint32_t {result} = 0;\n{api}({result});");
  // constexpr int16_t GetDataBlockSizeInBytes(): pyasc types the result int32
  t.def(OpCode::GetDataBlockSizeInBytes, "get_data_block_size_in_bytes")
      .result(int32_result)
      .ascendc("AscendC::GetDataBlockSizeInBytes", "int32_t {result} = {api}();");
  t.def(OpCode::GetProgramCounter, "get_program_counter")
      .result(int64_result)
      .ascendc("AscendC::GetProgramCounter", "int64_t {result} = {api}();");
  // GetTaskRatio: cube or vector cores per AI Core of this kind of core: 2 on the vector cores of a MIX_AIC_1_2
  // kernel, 1 otherwise (the API page's table).
  t.def(OpCode::GetTaskRatio, "get_task_ratio")
      .result(int64_result)
      .ascendc("AscendC::GetTaskRatio", "int64_t {result} = {api}();");
  // Trap: the NPU stops the AI Core (on the CPU an assert).
  t.def(OpCode::Trap, "trap").ascendc("AscendC::Trap", "{api}();");
  // DataSyncBarrier<arg0>: later instructions wait until the earlier accesses of that memory completed.
  t.def(OpCode::DataSyncBarrier, "data_sync_barrier")
      .attr("mem")
      .check(check_data_sync_barrier)
      .cost(CostKind::Flag)
      .ascendc("AscendC::DataSyncBarrier", "{api}<{enum:mem}>();");
  // InitSocState: the global state earlier kernels may have left (atomic writes, the mask mode and register)
  // back to its defaults.
  t.def(OpCode::InitSocState, "init_soc_state").ascendc("AscendC::InitSocState", "{api}();");
  t.def(OpCode::GetStoreAtomicConfig, "get_store_atomic_config")
      .attr("field")
      .check(check_atomic_field)
      .result(int16_result)
      .ascendc("AscendC::GetStoreAtomicConfig",
               "uint16_t {result}_type = 0, {result}_op = 0;\n{api}({result}_type, {result}_op);\n"
               "int16_t {result} = static_cast<int16_t>({attr:field} == 0 ? {result}_type : {result}_op);");
  t.def(OpCode::SetHcclContext, "set_hccl_context")
      .operands({K::GmAddr})
      .attr("index")
      .check(check_hccl_index)
      .ascendc("AscendC::SetHcclContext", "{api}<{attr:index}>({0});");
  t.def(OpCode::GetHcclContext, "get_hccl_context")
      .attr("index")
      .check(check_hccl_index)
      .result(gm_u8_result)
      .ascendc("AscendC::GetHcclContext", "GM_ADDR {result} = {api}<{attr:index}>();");
  // CheckLocalMemoryIA(CheckLocalMemoryIAParam): watch register enable_bit (0..3) raises on the enabled kinds of
  // access (scalar, vector, MTE reads and writes) to Unified Buffer bytes [start_addr * 32, end_addr * 32);
  // is_enable false turns it off. Operands: the param's ten fields in order.
  t.def(OpCode::CheckLocalMemoryIa, "check_local_memory_ia")
      .operands(10, K::IntScalar)
      .ascendc("AscendC::CheckLocalMemoryIA",
               "AscendC::CheckLocalMemoryIAParam {result}_p{{{0:uint8_t}, {1:uint32_t}, {2:uint32_t}, {3..9:bool}}};\n"
               "{api}({result}_p);");
  // GetSysWorkSpacePtr in a kernel that never called SetSysWorkspace (the Python front end binds the address a
  // kernel did set at compile time): the framework's workspace, which the Model's launches do not provide.
  t.def(OpCode::GetSysWorkspace, "get_sys_workspace")
      .result(gm_u8_result)
      .ascendc("AscendC::GetSysWorkSpacePtr", "GM_ADDR {result} = {api}();");
}

}  // namespace asc::rows
