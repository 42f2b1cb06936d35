// What bytes an op's memory effect (OpInfo::effects) touches: its form, and
// for every form but the strided and data-dependent ones the elements it
// spans, decoded from the operands' values in this one place. The Model's
// bounds and race checks, the timing model (the bytes moved) and the sync
// inserter (with the operands known at compile time) all read spans from here.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/ir.h"

namespace asc {

enum class EffectForm : uint8_t {
  Element,        // one element, at an offset operand
  Count,          // `count` elements from the tensor's start (plus an offset operand)
  Blocks,         // DataCopyParams: rows of 32-byte blocks with gaps, as one span from the first to the last
  Extent,         // the row's extent function gives the byte span
  Results,        // one result per repeat, `stride` results apart (whole_reduce_* and relatives)
  Strided,        // the vector mask/repeat form: the mask model decides which blocks (sim/vector_mask.h)
  DataDependent,  // which elements depends on data: the handler checks each access
};

// (Inline: the Model asks it for every effect of every instruction it runs.)
inline EffectForm effect_form(const MemEffect& e) {
  if (e.block_len_operand != kNoOperand) return EffectForm::Blocks;
  if (e.count_operand == kDataDependent) return EffectForm::DataDependent;
  if (e.count_operand == kExtentFn) return EffectForm::Extent;
  if (e.results_stride_operand != kNoOperand) return EffectForm::Results;
  if (e.repeat_operand != kNoOperand) return EffectForm::Strided;
  return e.count_operand == kNoOperand ? EffectForm::Element : EffectForm::Count;
}

struct EffectElements {
  int64_t offset = 0;  // from the tensor's start, in its elements
  int64_t count = 0;   // elements spanned
  int64_t moved = -1;  // bytes the instruction moves, when not the span's (rows with gaps: only the blocks)
};

// The elements a Blocks, Extent or Results effect spans (decode_effect's out-of-line part).
EffectElements decode_shaped_effect(const Op& op, const Kernel& kernel, size_t index, const int64_t* ints,
                                    int64_t repeats);

// The elements effect `index` of `op` spans, for the forms other than Strided and DataDependent. `ints` holds
// the operands' integer values; `repeats` the repeat count of a Results effect (the mask register's in counter
// mode, so the caller gives it). Parameters past the hardware's limits fail, with the op's location.
// (Inline for the Element and Count forms: the Model decodes one for most effects of most instructions it runs.)
inline EffectElements decode_effect(const Op& op, const Kernel& kernel, size_t index, const int64_t* ints,
                                    int64_t repeats) {
  const MemEffect& e = op.info().effects[index];
  const EffectForm form = effect_form(e);
  if (form != EffectForm::Element && form != EffectForm::Count)
    return decode_shaped_effect(op, kernel, index, ints, repeats);
  EffectElements out;
  out.count = e.count_operand == kNoOperand ? 1 : ints[e.count_operand];
  out.offset = e.offset_operand == kNoOperand ? 0 : ints[e.offset_operand];
  return out;
}

// The same from what is known at compile time: nullopt unless the form is Element or Count and its operands
// are constants.
std::optional<EffectElements> static_effect(const Op& op, const Kernel& kernel, size_t index);

}  // namespace asc
