// Building blocks for passes that replace ops by sequences of new ops: every
// op they create is checked by the verifier's op rules as it is made.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "ir/op_check.h"

namespace asc {

using OpList = std::vector<std::unique_ptr<Op>>;
using ValueMap = std::map<uint32_t, uint32_t>;  // a clone's values, by the original's

Attr int_attr(int64_t v);
Attr string_attr(std::string s);

// Bit i of entry e: event id i of HardEvent e appears as a constant in a
// set_flag/wait_flag of the kernel.
std::array<uint8_t, kHardEventCount> constant_event_ids(const Kernel& kernel);

class Rewriter {
 public:
  explicit Rewriter(Kernel& kernel) : kernel_(kernel) {}

  // Appends a new op to `out`. With `result` given, the op defines that
  // existing value (taking over from the op being replaced).
  Op& emit(OpList& out, OpCode code, std::vector<uint32_t> operands, std::vector<Attr> attrs, const Location& loc,
           uint32_t result = kNoValue);
  uint32_t value(OpList& out, OpCode code, std::vector<uint32_t> operands, std::vector<Attr> attrs,
                 const Location& loc) {
    return emit(out, code, std::move(operands), std::move(attrs), loc).result;
  }
  uint32_t const_int(OpList& out, DType d, int64_t v, const Location& loc);
  uint32_t binary(OpList& out, OpCode code, uint32_t a, uint32_t b, const Location& loc) {
    return value(out, code, {a, b}, {}, loc);
  }
  // a + constant, a * constant, ... on int32 values.
  uint32_t binary_const(OpList& out, OpCode code, uint32_t a, int64_t c, const Location& loc);
  uint32_t cast(OpList& out, uint32_t v, DType d, const Location& loc);
  // A copy of `op` without its regions' ops, over the values `map` gives for its operands (others as they
  // are); the value it defines is a new one, recorded in `map`.
  std::unique_ptr<Op> clone_shell(const Op& op, ValueMap& map);
  // The values of a dropped op (and of the ops in its regions) no longer have it as their definition.
  void forget(const Op& op);
  Kernel& kernel() { return kernel_; }

 private:
  Kernel& kernel_;
};

}  // namespace asc
