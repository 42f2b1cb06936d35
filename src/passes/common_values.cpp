#include "passes/common_values.h"

#include <algorithm>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace asc {
namespace {

// An op's identity as bytes: its code, operands and attributes (floats by their bits, so -0.0 and 0.0 differ).
std::string key_of(const Op& op) {
  std::string key;
  auto put = [&key](const void* p, size_t n) { key.append(static_cast<const char*>(p), n); };
  put(&op.code, sizeof op.code);
  for (uint32_t v : op.operands) put(&v, sizeof v);
  for (const Attr& a : op.attrs) {
    put(&a.kind, sizeof a.kind);
    put(&a.i, sizeof a.i);
    put(&a.f, sizeof a.f);
    const uint64_t length = a.s.size();
    put(&length, sizeof length);
    key += a.s;
  }
  return key;
}

// Moves the constants of `r` (a region below the kernel body), at any depth, to the end of `out`.
void collect_constants(Region& r, std::vector<std::unique_ptr<Op>>& out) {
  for (auto& op : r.ops) {
    if (op->code == OpCode::Const) {
      out.push_back(std::move(op));
      continue;
    }
    for (auto& sub : op->regions) collect_constants(sub, out);
  }
  r.ops.erase(std::remove(r.ops.begin(), r.ops.end(), nullptr), r.ops.end());
}

// Every literal at the start of the kernel body: constants read nothing, so any place dominates their uses.
void hoist_constants(Kernel& kernel) {
  std::vector<std::unique_ptr<Op>> constants;
  for (auto& op : kernel.body.ops)
    for (auto& sub : op->regions) collect_constants(sub, constants);
  if (constants.empty()) return;
  for (auto& op : kernel.body.ops) constants.push_back(std::move(op));
  kernel.body.ops = std::move(constants);
}

void mark_variables(const Region& r, std::unordered_set<uint32_t>& variables) {
  for (const auto& op : r.ops) {
    if (op->code == OpCode::Var) variables.insert(op->result);
    if (op->code == OpCode::Assign) variables.insert(op->operands[0]);
    for (const auto& sub : op->regions) mark_variables(sub, variables);
  }
}

class Merger {
 public:
  explicit Merger(Kernel& kernel) : kernel_(kernel) { mark_variables(kernel.body, variables_); }

  // Walks `r` in program order; the values defined in it are visible to the ops after them, in it and below.
  void region(Region& r) {
    std::vector<std::string> defined;  // this region's entries, gone once it ends
    for (auto& op : r.ops) {
      for (uint32_t& v : op->operands) {
        auto it = replaced_.find(v);
        if (it != replaced_.end()) v = it->second;
      }
      for (auto& sub : op->regions) region(sub);
      if (!mergeable(*op)) continue;
      std::string key = key_of(*op);
      auto [it, fresh] = available_.emplace(key, op->result);
      if (fresh) {
        defined.push_back(std::move(key));
        continue;
      }
      replaced_[op->result] = it->second;
      kernel_.value_def[op->result] = nullptr;
      op.reset();
    }
    for (const auto& key : defined) available_.erase(key);
    r.ops.erase(std::remove(r.ops.begin(), r.ops.end(), nullptr), r.ops.end());
  }

 private:
  bool mergeable(const Op& op) const {
    if (!op.info().pure || op.result == kNoValue || !op.regions.empty()) return false;
    for (uint32_t v : op.operands)
      if (variables_.count(v)) return false;
    return true;
  }

  Kernel& kernel_;
  std::unordered_set<uint32_t> variables_;               // values `assign` may change
  std::unordered_map<std::string, uint32_t> available_;  // identity -> the value that computed it
  std::unordered_map<uint32_t, uint32_t> replaced_;      // a merged op's value -> the one kept
};

}  // namespace

void merge_common_values(Kernel& kernel) {
  hoist_constants(kernel);
  Merger(kernel).region(kernel.body);
}

}  // namespace asc
