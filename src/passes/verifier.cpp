#include "passes/verifier.h"

#include <vector>

namespace asc {

Type verify_op(const Kernel& kernel, const Op& op) {
  const OpInfo& info = op.info();
  size_t n = op.operands.size();
  if (n < info.min_operands || n > info.operands.size()) {
    if (info.min_operands == info.operands.size())
      fail(ASC_ERR_TYPE, op.loc, "{} takes {} operand(s), got {}", info.name, info.operands.size(), n);
    fail(ASC_ERR_TYPE, op.loc, "{} takes {} to {} operands, got {}", info.name, info.min_operands, info.operands.size(),
         n);
  }
  for (size_t i = 0; i < n; ++i) {
    uint32_t v = op.operands[i];
    if (v >= kernel.value_types.size())
      fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: operand {} is not a value", info.name, i);
    const Type& t = kernel.type_of(v);
    if (!operand_kind_accepts(info.operands[i], t))
      fail(ASC_ERR_TYPE, op.loc, "{}: operand {} must be {}, got {}", info.name, i, operand_kind_name(info.operands[i]),
           t.str());
  }
  if (op.attrs.size() != info.attrs.size()) fail(ASC_ERR_INTERNAL, op.loc, "{}: attributes not normalised", info.name);
  for (size_t i = 0; i < info.attrs.size(); ++i) {
    const AttrSpec& spec = info.attrs[i];
    asc_attr_kind_t k = op.attrs[i].kind;
    bool ok = k == spec.kind || (spec.kind == ASC_ATTR_FLOAT && k == ASC_ATTR_INT);
    if (!ok) fail(ASC_ERR_TYPE, op.loc, "{}: attribute '{}' has the wrong kind", info.name, spec.name);
  }
  if (op.regions.size() != static_cast<size_t>(info.regions))
    fail(ASC_ERR_VERIFY, op.loc, "{}: expected {} region(s)", info.name, info.regions);
  OpView view{op, kernel};
  if (info.check) info.check(view);
  return info.result(view);
}

namespace {

class KernelVerifier {
 public:
  explicit KernelVerifier(const Kernel& k) : kernel_(k), defined_(k.value_types.size(), 0) {
    for (size_t i = 0; i < k.num_params; ++i) defined_[i] = 1;
  }

  void region(const Region& r) {
    std::vector<uint32_t> scope;
    for (const auto& op : r.ops) {
      for (size_t i = 0; i < op->operands.size(); ++i) {
        uint32_t v = op->operands[i];
        if (v >= defined_.size() || !defined_[v])
          fail(ASC_ERR_VERIFY, op->loc, "{}: operand {} (%{}) is used outside the region that defines it",
               op->info().name, i, v);
      }
      Type result = verify_op(kernel_, *op);
      if (result.kind != TypeKind::None) {
        if (op->result >= defined_.size() || kernel_.type_of(op->result) != result)
          fail(ASC_ERR_VERIFY, op->loc, "{}: result type does not match the op table", op->info().name);
      }
      // A for op's result is its induction variable, visible in the body only.
      if (op->code == OpCode::For) {
        defined_[op->result] = 1;
        region(op->regions[0]);
        defined_[op->result] = 0;
        continue;
      }
      for (const auto& sub : op->regions) region(sub);
      if (op->result != kNoValue) {
        defined_[op->result] = 1;
        scope.push_back(op->result);
      }
    }
    for (uint32_t v : scope) defined_[v] = 0;
  }

 private:
  const Kernel& kernel_;
  std::vector<uint8_t> defined_;
};

}  // namespace

void verify_kernel(const Kernel& kernel) { KernelVerifier(kernel).region(kernel.body); }

}  // namespace asc
