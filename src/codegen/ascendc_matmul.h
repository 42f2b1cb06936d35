// How the Ascend C emitter spells a mix kernel's Matmul objects. There the
// Model runs each vector core's Matmul on a cube unit of its own; on the NPU
// the group's cube core serves it through Ascend C's Matmul object, so each
// marked call (matmul.call) becomes the object's method and the expansion that
// follows it, which computes the call on the Model, is left out. Outside mix
// kernels the expansion is the code and the markers spell nothing.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace asc {

class MatmulSpelling {
 public:
  using Name = std::function<std::string(uint32_t value)>;

  // Scans the kernel for its Matmul objects; they are spelled only in mix kernels.
  explicit MatmulSpelling(const Kernel& kernel);

  bool active() const { return active_; }
  // The object declarations at the top of the kernel body (active only).
  std::vector<std::string> declarations() const;
  // register_matmul: the TCubeTiling from the kernel's fields, then REGIST_MATMUL_OBJ.
  std::vector<std::string> server(const Op& op, const Name& name) const;
  // A marked call's statement (none for the block counts and the per-iteration block, which the loop's
  // `Iterate()` condition replaces).
  std::string call(const Op& op, const Name& name) const;
  // Whether `op` is the loop of `with mm.iterate()`: a `for` whose body starts with the Iterate marker.
  bool is_iterate_loop(const Op& op) const;
  // The object a marked call (or the Iterate loop's marker) names.
  static std::string object(const Op& call);
  // The configured objects' MatmulConfig (and constant tiling) definitions, at namespace scope (active only).
  std::string globals() const;
  // Outside mix kernels, the Ascend C object a register_matmul's expansion stands for ("" when the server has no
  // types: register_matmul without the GM workspace and the tiling), for a comment.
  std::string expanded_object(const Op& server) const;
  // Whether a marker is followed by its expansion (a marker with an error has none).
  static bool opens_expansion(const Op& op);

 private:
  std::string type(const Op& server, size_t operand, bool trans) const;
  static std::string config_name(const Op& server);

  bool active_ = false;
  std::map<int64_t, const Op*> servers_;       // by Matmul id
  std::map<int64_t, bool> a_trans_, b_trans_;  // a SetTensorA / SetTensorB transposes: ISTRANS
};

}  // namespace asc
