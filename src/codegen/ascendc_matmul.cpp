#include "codegen/ascendc_matmul.h"

#include <fmt/format.h>

#include "codegen/ascendc_emitter.h"
#include "ir/matmul_api.h"
#include "target/cores.h"

namespace asc {

namespace {

const char* const kCubeFormats[] = {"ND", "NZ", "ZN", "ZZ", "NN", "ND_ALIGN", "SCALAR", "VECTOR"};

const MatmulApi& api_of(const Op& op) { return *find_matmul_api(op.attr(1).s); }

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
  return fmt::format("AscendC::MatmulType<AscendC::TPosition::{}, CubeFormat::{}, {}, {}>",
                     position_name(static_cast<Position>(server.attr_int(at))), kCubeFormats[format],
                     ascendc_type(static_cast<DType>(server.attr_int(at + 2))),
                     trans || server.attr_int(at + 3) ? "true" : "false");
}

std::vector<std::string> MatmulSpelling::declarations() const {
  std::vector<std::string> lines{"AscendC::TPipe asc_pipe;  // the Matmul object's buffers"};
  for (const auto& [id, server] : servers_) {
    bool a_trans = a_trans_.count(id) > 0, b_trans = b_trans_.count(id) > 0;
    lines.push_back(fmt::format("AscendC::Matmul<{}, {}, {}, {}> {};", type(*server, 0, a_trans),
                                type(*server, 1, b_trans), type(*server, 2, false), type(*server, 3, false),
                                object(*server)));
  }
  return lines;
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
  if (method == "IterateAll") return fmt::format("{}.IterateAll({}, static_cast<uint8_t>({}));", mm, arg(0), flag);
  if (method == "GetTensorC")
    return fmt::format("{}.GetTensorC({}, static_cast<uint8_t>({}), {});", mm, arg(0), flag,
                       op.attr_int(3) ? "true" : "false");
  cannot(op, fmt::format("Matmul.{} is not written as the Matmul object's call yet", method));
}

bool MatmulSpelling::is_iterate_loop(const Op& op) const {
  if (!active_ || op.code != OpCode::For || op.regions[0].ops.empty()) return false;
  const Op& first = *op.regions[0].ops.front();
  return first.code == OpCode::MatmulCall && std::string(api_of(first).name) == "Iterate";
}

}  // namespace asc
