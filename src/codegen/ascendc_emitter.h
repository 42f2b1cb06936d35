// The Ascend C emitter: a finished kernel (the IR after every pass, which is
// what the Model runs) as one self-contained Ascend C source file, for the
// CANN compiler (bisheng) or, in the tests, the host compiler against the CPU
// implementation of the API in test/ascendc_cpu.
#pragma once

#include <string>

#include "ir/ir.h"

namespace asc {

// The source text. Local tensors are placed as the IR placed them (static
// tensor programming: a TPosition, a byte address and a length), so the file
// needs no TPipe. Throws Error(ASC_ERR_UNSUPPORTED) naming the first op the
// emitter cannot spell yet, with its location.
std::string emit_ascendc(const Kernel& kernel);

// How adv library calls (asc.adv.*) are written: as the AscendC:: call (for the board: Huawei's implementation
// runs), or as the expansion the Model runs, in basic API calls (the CPU proof compiles that).
enum class AdvCalls { Spelled, Expanded };
// The source with the adv calls expanded.
std::string emit_ascendc_expanded(const Kernel& kernel);

// Whether the emitter spells `code` by code of its own (the rows that say EmitForm::Hand); every other
// row is spelled by its template or says why it is not emitted (test_codegen checks all three).
bool ascendc_hand_spelled(OpCode code);

// The Ascend C scalar type of a dtype (half, bfloat16_t, float, int8_t, ...).
const char* ascendc_type(DType d);

}  // namespace asc
