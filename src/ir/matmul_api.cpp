#include "ir/matmul_api.h"

namespace asc {

namespace {

// Prepare: the Model's work before `with mm.iterate()` (the block counts); Iterate: each iteration's block, at the
// top of the loop body. Set* calls, End and the waits compute nothing on the Model (its calls are synchronous);
// SetHF32 sets the cube unit's HF32 mode. *Scalar: SetTensorA/B's scalar overloads. GetTensorCReturn: the
// GetTensorC<false>() that returns the block's GlobalTensor; GetTensorCBoth: into GM and the UB at once.
// https://www.hiascend.com/document/detail/en/canncommercial/850/API/ascendcopapi/atlasascendc_api_07_0637.html
constexpr MatmulApi kApis[] = {
    {"SetTensorA", 1, false},
    {"SetTensorB", 1, false},
    {"SetBias", 1, false},
    {"DisableBias", 0, false},
    {"SetTail", 3, false},
    {"SetOrgShape", 4, false},
    {"IterateAll", 1, true},
    {"Prepare", 0, true},
    {"Iterate", 0, true},
    {"GetTensorC", 1, true},
    {"End", 0, false},
    {"IterateBatch", 1, true},
    {"SetTensorAScalar", 1, false},
    {"SetTensorBScalar", 1, false},
    {"SetSingleShape", 3, false},
    {"SetWorkspace", 1, false},
    {"SetWorkspaceAddr", 2, false},
    {"SetHF32", 2, true},
    {"SetQuantScalar", 1, false},
    {"SetQuantVector", 1, false},
    {"SetSelfDefineData", 1, false},
    {"SetUserDefInfo", 1, false},
    {"SetSparseIndex", 1, false},
    {"WaitIterateAll", 0, false},
    {"WaitIterateBatch", 0, false},
    {"GetTensorCReturn", 1, true},
    {"GetTensorCBoth", 2, true},
    {"AsyncGetTensorC", 1, true},
    {"WaitGetTensorC", 0, false},
    {"GetOffsetC", 5, true},
    {"IterateNBatch", 6, true},
    {"GetBatchTensorC", 3, true},
    {"GetBatchTensorCLocal", 3, true},
    {"SetBiasLocal", 1, true},
};

}  // namespace

const MatmulApi* find_matmul_api(std::string_view name) {
  for (const MatmulApi& api : kApis)
    if (name == api.name) return &api;
  return nullptr;
}

}  // namespace asc
