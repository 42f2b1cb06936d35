// The calls of Ascend C's Matmul object that matmul.call ops name (the front end's asc.adv.Matmul methods), for
// the verifier and the Ascend C emitter: each call's method name, the operands it takes and whether the expansion
// that computes it on the Model follows the op (up to matmul.call_end).
#pragma once

#include <cstdint>
#include <string_view>

namespace asc {

struct MatmulApi {
  const char* name;  // the `api` attribute, and the Ascend C method (Prepare has none)
  uint8_t operands;  // how many operands the call takes
  bool expands;      // an expansion follows, closed by matmul.call_end
};

// The API called `name`, or nullptr.
const MatmulApi* find_matmul_api(std::string_view name);

// matmul.call's optional "error" attribute (index 4): a call the Model cannot run (get_tensor_c before any
// iterate); it opens no expansion, and running it fails the launch at the user's line.
constexpr size_t kMatmulErrorAttr = 4;

// The TCubeTiling fields matmul.server takes, after the workspace.
constexpr size_t kTilingFields = 49;

}  // namespace asc
