// An op row's Ascend C spelling (OpInfo::spelling): the statement(s) the
// emitter writes for the op, with placeholders in braces (`{{` and `}}` are
// literal braces; lines are separated by '\n'):
//
//   {api}          the row's Ascend C name, AscendC:: prefixed
//   {N}            operand N's variable          {N:T}      static_cast<T>(operand N)
//   {N..M:T}       operands N to M-1, each cast, comma-separated ({N..M} uncast, {N..:T} to the last)
//   {result}       the result's variable
//   {T:N}          the C type of operand N's dtype ({T:result}: the result's; {T:name}: attribute `name`'s dtype)
//   {pos:result}   the result's TPosition name
//   {mask:N}       the mask argument of operands N, N + 1: a count, or a {low, high} array declared first
//   {set_mask}     isSetMask: false when the mask comes from the register (mask_mode 2)
//   {enum:name}    attribute `name` as its Ascend C enumerator (round_mode, cmp_mode, sel_mode, order, mem,
//                  event, pipe, pos)
//   {attr:name}    attribute `name`'s integer value          {bool:name}  it as true / false
#pragma once

#include <string>
#include <vector>

#include "ir/ir.h"

namespace asc {

// The lines of `op`'s spelling: any declarations its mask needs, then the statements.
std::vector<std::string> spell_ascendc(const Op& op, const Kernel& kernel);

// Parses a row's spelling without a kernel; throws Error(ASC_ERR_INTERNAL) naming the row and the placeholder
// that cannot be expanded (unknown, an operand past the row's, an attribute it does not have).
void check_spelling(const OpInfo& row);

}  // namespace asc
