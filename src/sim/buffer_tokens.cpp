// Ascend 950's buffer tokens, get_buf(pipe, id, mode) / rls_buf(pipe, id, mode): the synchronisation PyAsc2 inserts
// on Ascend 910_95 instead of set_flag / wait_flag. A get_buf holds its pipe until every acquisition of the same id
// issued before it (program order) was released, then holds the id until its pipe's rls_buf: accesses to one buffer
// from different pipes happen in program order without event ids
// (https://pto-isa.github.io/docs/isa/scalar/ops/pipeline-sync/get-buf/, .../rls-buf/). To the race checker and
// the timeline a release is a set_flag and the next acquisition its wait_flag, on a key of the buffer id's own.
#include "sim/block.h"

namespace asc::sim {
namespace {

// Keys past every (HardEvent, event id) flag index.
constexpr int64_t kTokenKeys = int64_t{1} << 20;

int64_t token_key(int64_t id) { return kTokenKeys + id; }

void check_token(const Platform& platform, const Op& op, int64_t id) {
  if (!platform.buffer_tokens)
    fail(ASC_ERR_UNSUPPORTED, op.loc,
         "{}: {} (Atlas A2/A3) has no buffer tokens; get_buf / rls_buf are Ascend 950's (the Ascend910_95xx and "
         "Ascend950PR_xxxx platforms): synchronise with set_flag / wait_flag",
         op.info().name, platform.name);
  if (id < 0 || id >= kBufferTokens)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: buffer id {} is out of range (0..{})", op.info().name, id,
         kBufferTokens - 1);
}

}  // namespace

uint64_t Block::buffer_ticket(const Op& op, int64_t id) {
  check_token(platform(), op, id);
  return buffers()[static_cast<size_t>(id)].issued++;
}

bool Block::get_buf(const Issued& entry, Pipe pipe) {
  const int64_t id = entry.in[0].i;
  BufferToken& token = buffers()[static_cast<size_t>(id)];
  if (token.released != entry.ticket) return false;  // an earlier acquisition still holds it, or will
  token.holder = entry.op;
  token.pipe = pipe;
  if (ctx_->options.sanitize) race().wait_flag(pipe, token_key(id));
  timeline_.wait_flag(*entry.op, pipe, token_key(id), entry.dispatched);
  return true;
}

void Block::rls_buf(const Issued& entry, Pipe pipe) {
  const Op& op = *entry.op;
  const int64_t id = entry.in[0].i;
  check_token(platform(), op, id);
  BufferToken& token = buffers()[static_cast<size_t>(id)];
  if (!token.holder || token.pipe != pipe)
    fail(ASC_ERR_RUNTIME, op.loc,
         "rls_buf(PIPE_{}, {}) releases a buffer id PIPE_{} does not hold{}: pair each rls_buf with an earlier "
         "get_buf on the same pipe",
         pipe_name(pipe), id, pipe_name(pipe),
         token.holder
             ? fmt::format(" (PIPE_{}'s get_buf at {} holds it)", pipe_name(token.pipe), token.holder->loc.str())
             : std::string());
  token.holder = nullptr;
  ++token.released;
  if (ctx_->options.sanitize) race().set_flag(pipe, token_key(id));
  timeline_.set_flag(op, pipe, token_key(id), entry.dispatched);
}

void Block::buffer_token_on_scalar(const Op& op) {
  Issued entry{&op, {}, timeline_.dispatch(), {}, {}, {}, {}};
  entry.in[0] = regs_[op.operands[0]];
  if (op.code == OpCode::RlsBuf) {
    rls_buf(entry, Pipe::S);
    drain();  // pipes waiting for the id may go on
    return;
  }
  entry.ticket = buffer_ticket(op, entry.in[0].i);
  drain();  // the scalar unit waits: whatever the pipes can run first, they run
  if (!get_buf(entry, Pipe::S)) buffer_deadlock(entry, Pipe::S);
}

void Block::buffer_deadlock(const Issued& blocked, Pipe pipe) {
  const int64_t id = blocked.in[0].i;
  const BufferToken& token = buffers()[static_cast<size_t>(id)];
  fail(ASC_ERR_DEADLOCK, blocked.op->loc, "deadlock: get_buf(PIPE_{}, {}) can never complete: {}", pipe_name(pipe), id,
       token.holder ? fmt::format("PIPE_{}'s get_buf at {} holds buffer {} and its rls_buf never runs",
                                  pipe_name(token.pipe), token.holder->loc.str(), id)
                    : fmt::format("an earlier get_buf of buffer {} never runs", id));
}

// A kernel ending with a buffer id held: the next acquirer of the id would wait for ever. The result is computed,
// so this is a warning, as a set_flag never waited for.
void Block::warn_held_buffers() {
  if (!buffers_) return;  // no get_buf ran
  for (size_t id = 0; id < buffers_->size(); ++id)
    if (const Op* holder = (*buffers_)[id].holder)
      warnings_.push_back(
          fmt::format("synccheck: {}: get_buf(PIPE_{}, {}) at {} is never released; pair every get_buf with an rls_buf",
                      label(), pipe_name((*buffers_)[id].pipe), id, holder->loc.str()));
}

}  // namespace asc::sim
