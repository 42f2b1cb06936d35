// get_value / set_value on the scalar unit. The block has resolved each op's
// one memory effect to a checked pointer.
#include "sim/handlers.h"
#include "sim/scalar_math.h"

namespace asc::sim {
namespace {

DType tensor_dtype(Block& b, const Op& op) { return b.kernel().type_of(op.operands[0]).dtype; }

}  // namespace

void exec_GetValue(Block& b, const Op& op, const RtValue*, RtValue* out) {
  load_scalar(*out, tensor_dtype(b, op), b.effect_ptr(0));
}

void exec_SetValue(Block& b, const Op& op, const RtValue* in, RtValue*) {
  store_scalar(b.effect_ptr(0), tensor_dtype(b, op), in[2]);
}

void exec_GlobalGetValue(Block& b, const Op& op, const RtValue*, RtValue* out) {
  load_scalar(*out, tensor_dtype(b, op), b.effect_ptr(0));
}

void exec_GlobalSetValue(Block& b, const Op& op, const RtValue* in, RtValue*) {
  store_scalar(b.effect_ptr(0), tensor_dtype(b, op), in[2]);
}

// Framework ops and local_tensor.auto are replaced by passes before a kernel
// can run; reaching one here is a bug in the pass pipeline.
#define ASC_LOWERED(id)                                                                             \
  void exec_##id(Block&, const Op& op, const RtValue*, RtValue*) {                                  \
    fail(ASC_ERR_INTERNAL, op.loc, "{} should have been lowered before execution", op.info().name); \
  }
ASC_LOWERED(PipeCreate)
ASC_LOWERED(QueCreate)
ASC_LOWERED(TBufCreate)
ASC_LOWERED(InitQueue)
ASC_LOWERED(InitTBuf)
ASC_LOWERED(AllocTensor)
ASC_LOWERED(Enque)
ASC_LOWERED(Deque)
ASC_LOWERED(FreeTensor)
ASC_LOWERED(TBufGet)
ASC_LOWERED(TBufGetWithOffset)
ASC_LOWERED(AllocEventId)
ASC_LOWERED(ReleaseEventId)
ASC_LOWERED(FetchEventId)
ASC_LOWERED(BufPoolCreate)
ASC_LOWERED(InitBufPool)
ASC_LOWERED(BufPoolReset)
ASC_LOWERED(PipeReset)
ASC_LOWERED(PipeGetBaseAddr)
ASC_LOWERED(QueQuery)
ASC_LOWERED(FreeAllEvent)
ASC_LOWERED(LocalAuto)
#undef ASC_LOWERED

}  // namespace asc::sim
