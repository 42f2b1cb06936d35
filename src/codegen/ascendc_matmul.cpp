#include "codegen/ascendc_matmul.h"

#include <fmt/format.h>

#include "codegen/ascendc_emitter.h"
#include "ir/matmul_api.h"
#include "target/cores.h"

namespace asc {

namespace {

const char* const kCubeFormats[] = {"ND", "NZ", "ZN", "ZZ", "NN", "ND_ALIGN", "SCALAR", "VECTOR"};

const MatmulApi& api_of(const Op& op) { return *find_matmul_api(op.attr(1).s); }

// Ascend C's MatmulConfig members, in the order matmul.server's "config" attribute lists their values (the front
// end's asc.adv.types.CONFIG_FIELDS).
const char* const kConfigMembers[] = {
    "doNorm",
    "doBasicBlock",
    "doMultiDataLoad",
    "basicM",
    "basicN",
    "basicK",
    "intrinsicsCheck",
    "isNBatch",
    "enVecND2NZ",
    "doSpecialBasicBlock",
    "doMTE2Preload",
    "singleCoreM",
    "singleCoreN",
    "singleCoreK",
    "stepM",
    "stepN",
    "baseMN",
    "singleCoreMN",
    "enUnitFlag",
    "isPerTensor",
    "hasAntiQuantOffset",
    "doIBShareNorm",
    "doSpecialMDL",
    "enableInit",
    "batchMode",
    "enableEnd",
    "enableGetTensorC",
    "enableSetOrgShape",
    "enableSetBias",
    "enableSetTail",
    "enableQuantVector",
    "enableSetDefineData",
    "iterateMode",
    "enableReuse",
    "enableUBReuse",
    "enableL1CacheUB",
    "intraBlockPartSum",
    "iterateOrder",
    "scheduleType",
    "enableDoubleCache",
    "isBiasBatch",
    "enableStaticPadZeros",
    "isPartialOutput",
    "enableMixDualMaster",
    "isA2B2Shared",
    "isEnableChannelSplit",
    "enableKdimReorderLoad",
    "isCO1Shared",
    "sharedCO1BufferSize",
    "batchOutMode",
};
// after id, fields and the 16 type attributes
constexpr size_t kServerConfigAttr = 18, kServerStaticL1Attr = 19, kServerLayoutsAttr = 20, kServerSparseIndexAttr = 21;
// the front end's LayoutMode values, by Ascend C name
const char* const kLayouts[] = {"NONE", "NORMAL", "BSNGD", "SBNGD", "BNGS1S2"};

// LayoutMode of operand 0..2 (A, B, C): 0 (NONE) when the server does not say.
int64_t layout_of(const Op& server, size_t operand) {
  if (operand > 2 || server.attrs.size() <= kServerLayoutsAttr) return 0;
  const std::string& text = server.attr(kServerLayoutsAttr).s;
  size_t start = 0;
  for (size_t i = 0; i < operand && start != std::string::npos; ++i) {
    start = text.find(',', start);
    if (start != std::string::npos) ++start;
  }
  return start == std::string::npos || start >= text.size() ? 0 : std::stoll(text.substr(start));
}

bool has_config(const Op& server) {
  return server.attrs.size() > kServerConfigAttr && !server.attr(kServerConfigAttr).s.empty();
}

void walk(const Region& r, const std::function<void(const Op&)>& visit) {
  for (const auto& op : r.ops) {
    visit(*op);
    for (const Region& inner : op->regions) walk(inner, visit);
  }
}

[[noreturn]] void cannot(const Op& op, const std::string& why) {
  fail(ASC_ERR_UNSUPPORTED, op.loc,
       "the Ascend C emitter cannot spell {} in this mix kernel, whose Matmul "
       "the group's cube core serves through Ascend C's Matmul object: {}",
       op.info().name, why);
}

}  // namespace

MatmulSpelling::MatmulSpelling(const Kernel& kernel) {
  walk(kernel.body, [&](const Op& op) {
    if (op.code == OpCode::MatmulServer) servers_[op.attr_int(0)] = &op;
    if (op.code != OpCode::MatmulCall) return;
    std::string api = api_of(op).name;
    if (api == "SetTensorA" && op.attr_int(2)) a_trans_[op.attr_int(0)] = true;
    if (api == "SetTensorB" && op.attr_int(2)) b_trans_[op.attr_int(0)] = true;
  });
  active_ = is_mix(kernel.options.kernel_type) && !servers_.empty();
  if (!active_) return;
  // REGIST_MATMUL_OBJ declares names of its own and registers all of a kernel's objects in one call
  if (servers_.size() > 1)
    cannot(*std::next(servers_.begin())->second,
           "a mix kernel registers one Matmul object here (REGIST_MATMUL_OBJ "
           "registers several in one call, which the emitter does not write)");
  const Op& server = *servers_.begin()->second;
  if (server.operands.empty())
    cannot(server, "register_matmul needs the workspace (a GM address) and the TCubeTiling kernel argument");
}

std::string MatmulSpelling::object(const Op& op) { return fmt::format("asc_mm{}", op.attr_int(0)); }

// AscendC::MatmulType<position, format, type, ISTRANS> of operand 0..3 (A, B, C, bias): attributes 2 + 4 * operand on.
std::string MatmulSpelling::type(const Op& server, size_t operand, bool trans) const {
  size_t at = 2 + 4 * operand;
  int64_t format = server.attr_int(at + 1);
  if (format < 0 || format >= static_cast<int64_t>(std::size(kCubeFormats)))
    cannot(server, fmt::format("CubeFormat {} has no Ascend C name", format));
  int64_t layout = layout_of(server, operand);
  if (layout < 0 || layout >= static_cast<int64_t>(std::size(kLayouts)))
    cannot(server, fmt::format("LayoutMode {} has no Ascend C name", layout));
  // a batch layout is MatmulType's fifth argument (NONE, the default, is left out)
  std::string layout_arg = layout ? fmt::format(", LayoutMode::{}", kLayouts[layout]) : "";
  int64_t index =
      operand == 1 && server.attrs.size() > kServerSparseIndexAttr ? server.attr_int(kServerSparseIndexAttr) : 0;
  if (index > 0)  // the 4:2 sparse B: SparseMatmulType<POSITION, INDEX_POSITION, FORMAT, TYPE, ISTRANS>
    return fmt::format(
        "AscendC::SparseMatmulType<AscendC::TPosition::{}, AscendC::TPosition::{}, CubeFormat::{}, {}, {}>",
        position_name(static_cast<Position>(server.attr_int(at))), position_name(static_cast<Position>(index - 1)),
        kCubeFormats[format], ascendc_type(static_cast<DType>(server.attr_int(at + 2))),
        trans || server.attr_int(at + 3) ? "true" : "false");
  return fmt::format("AscendC::MatmulType<AscendC::TPosition::{}, CubeFormat::{}, {}, {}{}>",
                     position_name(static_cast<Position>(server.attr_int(at))), kCubeFormats[format],
                     ascendc_type(static_cast<DType>(server.attr_int(at + 2))),
                     trans || server.attr_int(at + 3) ? "true" : "false", layout_arg);
}

std::vector<std::string> MatmulSpelling::declarations() const {
  std::vector<std::string> lines{"AscendC::TPipe asc_pipe;  // the Matmul object's buffers"};
  for (const auto& [id, server] : servers_) {
    bool a_trans = a_trans_.count(id) > 0, b_trans = b_trans_.count(id) > 0;
    std::string config = has_config(*server) ? ", " + config_name(*server) : "";
    lines.push_back(fmt::format("AscendC::Matmul<{}, {}, {}, {}{}> {};", type(*server, 0, a_trans),
                                type(*server, 1, b_trans), type(*server, 2, false), type(*server, 3, false), config,
                                object(*server)));
  }
  return lines;
}

std::string MatmulSpelling::expanded_object(const Op& server) const {
  if (server.operands.empty()) return "";
  int64_t id = server.attr_int(0);
  bool a_trans = a_trans_.count(id) > 0, b_trans = b_trans_.count(id) > 0;
  // no configuration global is written outside mix kernels: the template argument is described, not named
  std::string config;
  if (has_config(server)) {
    const std::string& text = server.attr(kServerConfigAttr).s;  // doMultiDataLoad is the third member
    size_t first = text.find(','), second = first == std::string::npos ? first : text.find(',', first + 1);
    bool mdl = second != std::string::npos && text.compare(second + 1, 1, "1") == 0;
    config = mdl ? ", /* an MDL MatmulConfig */" : ", /* a MatmulConfig */";
  }
  return fmt::format("AscendC::Matmul<{}, {}, {}, {}{}>", type(server, 0, a_trans), type(server, 1, b_trans),
                     type(server, 2, false), type(server, 3, false), config);
}

std::string MatmulSpelling::config_name(const Op& server) {
  bool is_static = server.attrs.size() > kServerStaticL1Attr && server.attr_int(kServerStaticL1Attr) > 0;
  return fmt::format("asc_mm{}_{}", server.attr_int(0), is_static ? "static_tiling" : "cfg");
}

// A configured Matmul's MatmulConfig (and get_matmul_api_tiling's constant tiling) at namespace scope: template
// arguments. Every member is set, so the object gets exactly the configuration the kernel asked for.
std::string MatmulSpelling::globals() const {
  std::string out;
  for (const auto& [id, server] : servers_) {
    if (!has_config(*server)) continue;
    std::vector<std::string> values;
    const std::string& text = server->attr(kServerConfigAttr).s;
    for (size_t start = 0; start <= text.size();) {
      size_t end = text.find(',', start);
      if (end == std::string::npos) end = text.size();
      values.push_back(text.substr(start, end - start));
      start = end + 1;
    }
    if (values.size() != std::size(kConfigMembers))
      cannot(*server, fmt::format("its MatmulConfig has {} members, not {}", values.size(), std::size(kConfigMembers)));
    out += fmt::format("__aicore__ constexpr MatmulConfig asc_mm{}_config() {{\n  MatmulConfig c{{}};\n", id);
    for (size_t i = 0; i < values.size(); ++i)
      out += fmt::format("  c.{0} = static_cast<decltype(c.{0})>({1});\n", kConfigMembers[i], values[i]);
    out += fmt::format("  return c;\n}}\nconstexpr static MatmulConfig asc_mm{0}_cfg = asc_mm{0}_config();\n", id);
    if (server->attrs.size() > kServerStaticL1Attr && server->attr_int(kServerStaticL1Attr) > 0) {
      bool a_trans = a_trans_.count(id) > 0, b_trans = b_trans_.count(id) > 0;
      out += fmt::format(
          "constexpr static auto asc_mm{0}_static_tiling = GetMatmulApiTiling<{1}, {2}, {3}, {4}>(asc_mm{0}_cfg, "
          "{5});\n",
          id, type(*server, 0, a_trans), type(*server, 1, b_trans), type(*server, 2, false), type(*server, 3, false),
          server->attr_int(kServerStaticL1Attr));
    }
    out += "\n";
  }
  return out;
}

std::vector<std::string> MatmulSpelling::server(const Op& op, const Name& name) const {
  std::string tiling = fmt::format("asc_tiling{}", op.attr_int(0));
  std::vector<std::string> lines{fmt::format("AscendC::tiling::TCubeTiling {};", tiling)};
  const std::string& fields = op.attr(1).s;
  size_t start = 0;
  for (size_t i = 1; i < op.operands.size(); ++i) {
    size_t end = fields.find(',', start);
    std::string field = fields.substr(start, end == std::string::npos ? std::string::npos : end - start);
    lines.push_back(fmt::format("{}.{} = {};", tiling, field, name(op.operands[i])));
    start = end + 1;
  }
  // on the cube core the macro serves the vector cores' calls and returns
  lines.push_back(fmt::format("REGIST_MATMUL_OBJ(&asc_pipe, {}, {}, &{});", name(op.operands[0]), object(op), tiling));
  return lines;
}

std::string MatmulSpelling::call(const Op& op, const Name& name) const {
  const MatmulApi& api = api_of(op);
  std::string mm = object(op), method = api.name;
  auto arg = [&](size_t i) { return name(op.operands[i]); };
  int64_t flag = op.attr_int(2);
  if (method == "Prepare" || method == "Iterate") return "";
  if (method == "SetTensorA" || method == "SetTensorB")
    return fmt::format("{}.{}({}, {});", mm, method, arg(0), flag ? "true" : "false");
  if (method == "SetBias") return fmt::format("{}.SetBias({});", mm, arg(0));
  if (method == "DisableBias" || method == "End") return fmt::format("{}.{}();", mm, method);
  if (method == "SetTail")
    return fmt::format("{}.SetTail(static_cast<int>({}), static_cast<int>({}), static_cast<int>({}));", mm, arg(0),
                       arg(1), arg(2));
  if (method == "SetOrgShape")
    return fmt::format(
        "{}.SetOrgShape(static_cast<int>({}), static_cast<int>({}), static_cast<int>({}), "
        "static_cast<int>({}));",
        mm, arg(0), arg(1), arg(2), arg(3));
  int64_t mode = op.attr_int(3);
  auto boolean = [](int64_t b) { return b ? "true" : "false"; };
  if (method == "IterateAll") {
    if (mode & 1)  // IterateAll<false>(gm, enAtomic, enSequentialWrite, waitIterateAll)
      return fmt::format("{}.template IterateAll<false>({}, static_cast<uint8_t>({}), {}, {});", mm, arg(0), flag,
                         boolean(mode & 4), boolean(mode & 2));
    return fmt::format("{}.IterateAll({}, static_cast<uint8_t>({}));", mm, arg(0), flag);
  }
  if (method == "GetTensorC" || method == "GetTensorCBoth") {
    std::string tensors = method == "GetTensorC" ? arg(0) : arg(0) + ", " + arg(1);
    return fmt::format("{}.GetTensorC({}, static_cast<uint8_t>({}), {});", mm, tensors, flag, boolean(mode));
  }
  if (method == "GetTensorCReturn")  // the asynchronous form that returns where the block is
    return fmt::format("{} = {}.template GetTensorC<false>(static_cast<uint8_t>({}), {});", arg(0), mm, flag,
                       boolean(mode));
  if (method == "SetTensorAScalar" || method == "SetTensorBScalar")
    return fmt::format("{}.{}({});", mm, method.substr(0, 10), arg(0));
  if (method == "SetBiasLocal") return fmt::format("{}.SetBias({});", mm, arg(0));
  if (method == "SetSingleShape")
    return fmt::format("{}.SetSingleShape(static_cast<int>({}), static_cast<int>({}), static_cast<int>({}));", mm,
                       arg(0), arg(1), arg(2));
  if (method == "SetWorkspace") return fmt::format("{}.SetWorkspace({});", mm, arg(0));
  if (method == "SetWorkspaceAddr")
    return fmt::format("{}.SetWorkspace({}, static_cast<int>({}));", mm, arg(0), arg(1));
  // Ascend C's SetHF32 and SetSparseIndex are for cube-only kernels, where the Matmul's code is the expansion
  if (method == "SetHF32" || method == "SetSparseIndex")
    cannot(op, fmt::format("Ascend C's Matmul::{} exists in cube-only kernels only (matmul_cube_only=True)", method));
  if (method == "SetQuantScalar") return fmt::format("{}.SetQuantScalar(static_cast<uint64_t>({}));", mm, arg(0));
  if (method == "SetQuantVector" || method == "AsyncGetTensorC") return fmt::format("{}.{}({});", mm, method, arg(0));
  if (method == "SetSelfDefineData" || method == "SetUserDefInfo")  // a GM address or an integer, as uint64_t
    return fmt::format("{}.{}((uint64_t)({}));", mm, method, arg(0));
  if (method == "WaitIterateAll" || method == "WaitIterateBatch" || method == "WaitGetTensorC")
    return fmt::format("{}.{}();", mm, method);
  if (method == "GetOffsetC")
    return fmt::format(
        "{{ auto asc_offset = {}.GetOffsetC(); {} = asc_offset.offset; {} = asc_offset.row; {} = "
        "asc_offset.col; {} = asc_offset.height; {} = asc_offset.width; }}",
        mm, arg(0), arg(1), arg(2), arg(3), arg(4));
  if (method == "IterateNBatch")  // sequential: bit 0 synchronous, bit 1 waited for by wait_iterate_batch
    return fmt::format(
        "{}.template IterateNBatch<{}, {}>(static_cast<uint32_t>({}), static_cast<uint32_t>({}), "
        "static_cast<uint32_t>({}), {}, static_cast<uint32_t>({}), static_cast<uint32_t>({}), "
        "static_cast<uint32_t>({}));",
        mm, boolean(mode & 1), boolean(mode & 2), arg(0), arg(1), arg(2), boolean(flag), arg(3), arg(4), arg(5));
  if (method == "GetBatchTensorC")
    return fmt::format(
        "{} = {}.template GetBatchTensorC<false>(static_cast<uint32_t>({}), static_cast<uint32_t>({}), {});", arg(2),
        mm, arg(0), arg(1), boolean(flag));
  if (method == "GetBatchTensorCLocal")
    return fmt::format(
        "{}.template GetBatchTensorC<false>({}, static_cast<uint32_t>({}), static_cast<uint32_t>({}), {});", mm, arg(2),
        arg(0), arg(1), boolean(flag));
  cannot(op, fmt::format("Matmul.{} is not written as the Matmul object's call yet", method));
}

bool MatmulSpelling::opens_expansion(const Op& op) {
  if (op.code != OpCode::MatmulCall || !api_of(op).expands) return false;
  return op.attrs.size() <= kMatmulErrorAttr || op.attr(kMatmulErrorAttr).s.empty();
}

bool MatmulSpelling::is_iterate_loop(const Op& op) const {
  if (!active_ || op.code != OpCode::For || op.regions[0].ops.empty()) return false;
  const Op& first = *op.regions[0].ops.front();
  return first.code == OpCode::MatmulCall && std::string(api_of(first).name) == "Iterate";
}

}  // namespace asc
