#include "ir/matmul_api.h"

namespace asc {

namespace {

// Prepare: the Model's work before `with mm.iterate()` (the block counts); Iterate: each iteration's block, at the
// top of the loop body. Set* calls and End compute nothing on the Model.
constexpr MatmulApi kApis[] = {
    {"SetTensorA", 1, false}, {"SetTensorB", 1, false},  {"SetBias", 1, false},   {"DisableBias", 0, false},
    {"SetTail", 3, false},    {"SetOrgShape", 4, false}, {"IterateAll", 1, true}, {"Prepare", 0, true},
    {"Iterate", 0, true},     {"GetTensorC", 1, true},   {"End", 0, false},       {"IterateBatch", 1, true},
};

}  // namespace

const MatmulApi* find_matmul_api(std::string_view name) {
  for (const MatmulApi& api : kApis)
    if (name == api.name) return &api;
  return nullptr;
}

}  // namespace asc
