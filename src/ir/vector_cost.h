// The cost families of the vector instructions: which row of a platform's vector cost table (target/platform.h,
// the figures and their sources in platform.cpp) prices an op whose CostKind is Vector. An op row names its family
// (OpInfo::vcost); the timing model looks the family and the op's dtypes up, so an instruction's cost is defined in
// one place.
#pragma once

#include <cstdint>

namespace asc {

enum class VecCost : uint8_t {
  Default,  // no API-specific figure: the add calibration's head and one vector_repeat a repeat
  Add,
  Sub,
  Mul,
  Div,
  Max,
  Min,
  Adds,
  Muls,
  Maxs,
  Mins,
  Abs,
  Relu,
  Exp,
  Ln,
  Sqrt,
  Rsqrt,
  Reciprocal,
  And,
  Or,
  Copy,
  Duplicate,
  Cast,  // priced per (source, destination) dtype pair
  Compare,
  CompareScalar,
  Select,
  Gather,
  GatherMask,
  Brcb,
  WholeReduceSum,
  WholeReduceMax,
  WholeReduceMin,
  PairReduceSum,
  BlockReduceSum,
  BlockReduceMax,
  BlockReduceMin,
  ReduceSum,  // the high-level ReduceSum / ReduceMax / ReduceMin (a first pass of whole reductions, then more)
  ReduceMax,
  ReduceMin,
  Count
};

}  // namespace asc
