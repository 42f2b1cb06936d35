#include "passes/verifier.h"

#include <vector>

#include "ir/op_check.h"

namespace asc {

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
