// Builds one kernel op by op, checking each op as it is added so that errors
// point at the user's line immediately. The built kernel goes through the pass
// pipeline (passes/pipeline.h) before it runs: runtime/compile.h does both.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ir.h"

namespace asc {

struct AttrInput {
  std::string_view name;
  Attr value;
};

class Builder {
 public:
  // How many ops a kernel may have as built (ASC_MAX_KERNEL_OPS or the option max_ops change it). Device
  // functions are inlined at every call, so calls nested in calls multiply; past this a kernel fails at the op
  // that crossed it, in seconds, instead of compiling for minutes. Real kernels stay far below.
  static constexpr uint64_t kDefaultMaxOps = 100'000;

  Builder(std::string name, std::vector<Type> params);

  uint32_t param(size_t index) const;
  // Returns the result value, or kNoValue for ops without one.
  uint32_t add_op(std::string_view name, const std::vector<uint32_t>& operands, const std::vector<AttrInput>& attrs,
                  const Location& loc);
  uint32_t for_begin(uint32_t lb, uint32_t ub, uint32_t step, const Location& loc);
  void for_end();
  void if_begin(uint32_t cond, const Location& loc);
  void else_begin();
  void if_end();
  // "auto_sync", "insert_sync", "kernel_type", "max_ops" (see kDefaultMaxOps; 0: no limit).
  void set_option(std::string_view name, int64_t value);
  // Hands out the kernel as built (every region closed); the builder is spent after.
  std::unique_ptr<Kernel> take();

  const Type& value_type(uint32_t v) const;
  const Kernel& kernel() const { return *kernel_; }
  Location location(const char* file, size_t len, uint32_t line, uint32_t col);

 private:
  struct Frame {
    Op* op;
    size_t region;
  };
  Op& append(OpCode code, std::vector<uint32_t> operands, std::vector<Attr> attrs, const Location& loc);
  uint32_t new_value(const Type& t, const Op* def);
  void check_operands_live(const std::vector<uint32_t>& operands, const Location& loc) const;
  void open_region(const char* what, const Location& loc);  // fails past the nesting limit
  void close_region(Region& region);
  Region& current_region();
  Frame& top(OpCode expected, const char* what);

  std::unique_ptr<Kernel> kernel_;
  uint64_t ops_ = 0;
  uint64_t max_ops_ = kDefaultMaxOps;
  bool uses_auto_tensors_ = false;
  std::vector<Frame> stack_;
  std::vector<uint8_t> live_;  // by value id: usable at the insertion point
  std::map<std::string, std::shared_ptr<const std::string>, std::less<>> files_;
};

}  // namespace asc
