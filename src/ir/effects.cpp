#include "ir/effects.h"

namespace asc {

EffectElements decode_shaped_effect(const Op& op, const Kernel& kernel, size_t index, const int64_t* ints,
                                    int64_t repeats) {
  const OpInfo& info = op.info();
  const MemEffect& e = info.effects[index];
  const int64_t size = dtype_size(kernel.type_of(op.operands[e.tensor]).dtype);
  EffectElements out;
  switch (effect_form(e)) {
    case EffectForm::Blocks: {  // the span from the first to the last block
      int64_t rows = ints[e.count_operand], len = ints[e.block_len_operand], gap = ints[e.gap_operand];
      if (rows < 0 || rows > 4095 || len < 0 || len > 65535 || gap < 0 || gap > 65535)
        fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
             "{}: DataCopyParams block_count {} must be 0..4095, block_len {} and strides {} 0..65535", info.name, rows,
             len, gap);
      int64_t blocks = rows && len ? (rows - 1) * (len + gap) + len : 0;
      out.count = blocks * 32 / size;
      out.moved = rows * len * 32;
      return out;
    }
    case EffectForm::Extent: {
      const uint8_t mask = info.mask_operand;  // mask words are 64 bits of anything
      for (size_t k = 2; k < op.operands.size(); ++k)
        if (k != mask && k != mask + 1u && k != info.word_operand && (ints[k] < 0 || ints[k] > (int64_t{1} << 32)))
          fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: parameter {} is {}, outside 0..2^32", info.name, k - 1, ints[k]);
      // the extent is in bytes of operand extent_size_operand's elements; this tensor's may differ
      DType sized = kernel.type_of(op.operands[info.extent_size_operand]).dtype;
      int64_t bytes = info.extent(op, ints, index, dtype_size(sized));
      out.count = (bytes + size - 1) / size;
      out.moved = bytes;
      return out;
    }
    case EffectForm::Results: {
      int64_t stride = ints[e.results_stride_operand];
      if (stride < 0 || stride > 255)
        fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: dst_rep_stride {} must be 0..255", info.name, stride);
      int64_t unit = info.result_elements(op, kernel.type_of(op.operands[e.tensor]).dtype);
      out.count = repeats > 0 ? ((repeats - 1) * stride + 1) * unit : 0;
      return out;
    }
    case EffectForm::Element:  // (decode_effect's inline part)
    case EffectForm::Count:
    case EffectForm::Strided:
    case EffectForm::DataDependent: break;
  }
  fail(ASC_ERR_INTERNAL, op.loc, "{}: effect {} has no contiguous span to decode", info.name, index);
}

std::optional<EffectElements> static_effect(const Op& op, const Kernel& kernel, size_t index) {
  const MemEffect& e = op.info().effects[index];
  EffectForm form = effect_form(e);
  if (form != EffectForm::Element && form != EffectForm::Count) return std::nullopt;
  auto constant = [&](uint8_t operand) -> std::optional<int64_t> {
    if (operand == kNoOperand) return 0;
    const Op* def = kernel.value_def[op.operands[operand]];
    if (!def || def->code != OpCode::Const) return std::nullopt;
    const Attr& a = def->attr(1);
    return a.kind == ASC_ATTR_INT ? a.i : static_cast<int64_t>(a.f);
  };
  auto count = e.count_operand == kNoOperand ? std::optional<int64_t>(1) : constant(e.count_operand);
  auto offset = constant(e.offset_operand);
  if (!count || !offset) return std::nullopt;
  return EffectElements{*offset, *count, -1};
}

}  // namespace asc
