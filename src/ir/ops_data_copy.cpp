// Rows of data movement between GM and the local memories of the vector
// core: data_copy (a count, or DataCopyParams) and data_copy_pad.
#include "ir/op_rows.h"
#include "ir/row_rules.h"

namespace asc::rows {
namespace {

void check_gm_to_local(const OpView& v) {
  require_same_dtype(v, 0, 1);
  Position p = v.operand_type(0).position;
  if (position_memory(p) != Memory::L1) require_ub_position(v, 0, "the destination");  // GM -> L1 is MTE2 too
}

void check_local_to_gm(const OpView& v) {
  require_same_dtype(v, 0, 1);
  require_ub_position(v, 1, "the source");
}

// Within the Unified Buffer any position may be written: VECIN, VECCALC and VECOUT are labels of one memory, and
// the copy moves bytes at the tensors' addresses whatever the labels say (as pyasc's own data_copy test does).
void check_local_to_local(const OpView& v) {
  require_same_dtype(v, 0, 1);
  require_ub_position(v, 1, "the source");
  require_ub_position(v, 0, "the destination");
}

// data_copy_pad operands: dst, src, block_count, block_len (bytes), src_stride,
// dst_stride (gaps: bytes on the GM side, 32-byte blocks on the UB side), and
// for GM -> UB also left_pad, right_pad (elements), pad_value, is_pad.
// A UB row is [left pad][block_len bytes][right pad], rounded up to 32 bytes.
int64_t ub_row_blocks(const int64_t* in, int64_t size, bool gm_to_ub) {
  int64_t bytes = in[3] + (gm_to_ub ? (in[6] + in[7]) * size : 0);
  return (bytes + 31) / 32;
}

// Bytes effect `index` spans: effect 0 reads the source, effect 1 writes the destination.
int64_t pad_extent(const Op& op, const int64_t* in, size_t index, int64_t size) {
  bool gm_to_ub = op.code == OpCode::CopyPadGmToLocal;
  int64_t rows = in[2];
  if (rows <= 0 || in[3] <= 0) return 0;
  bool src = index == 0;
  int64_t gap = src ? in[4] : in[5];
  if (src == gm_to_ub) return (rows - 1) * (in[3] + gap) + in[3];  // the GM side: bytes
  int64_t row = ub_row_blocks(in, size, gm_to_ub);
  return ((rows - 1) * (row + gap) + row) * 32;
}

// data_copy(dst, src, count): count elements, whole 32-byte blocks.
void copy(OpTable& t, OpCode code, const char* name, Pipe pipe, K dst, K src, CheckFn check, CostKind cost) {
  t.def(code, name)
      .pipe(pipe)
      .operands({dst, src, K::IntScalar})
      .check(check)
      .reads(1, count(2).whole_blocks())
      .writes(0, count(2).whole_blocks())
      .cost(cost)
      .ascendc("DataCopy", "{api}({0}, {1}, {2:uint32_t});");
}

// data_copy(dst, src, DataCopyParams): operands dst, src, block_count,
// block_len, src_gap, dst_gap (lengths and gaps in 32-byte blocks).
void copy_blocks(OpTable& t, OpCode code, const char* name, Pipe pipe, K dst, K src, CheckFn check, CostKind cost) {
  t.def(code, name)
      .pipe(pipe)
      .operands({dst, src})
      .operands(4, K::IntScalar)
      .check(check)
      .reads(1, Span::blocks(2, 3, 4))
      .writes(0, Span::blocks(2, 3, 5))
      .cost(cost)
      // into GM: block_count rows of block_len blocks, dst_gap blocks apart; out of GM: src_gap apart
      .gm_rows([](const Op&, const int64_t* in, int64_t) {
        return GmRows{in[2], in[3] * 32, (in[3] + in[5]) * 32};
      })
      .gm_read_rows([](const Op&, const int64_t* in, int64_t) {
        return GmRows{in[2], in[3] * 32, (in[3] + in[4]) * 32};
      })
      .ascendc("DataCopy", "{api}({0}, {1}, AscendC::DataCopyParams({2..6:uint16_t}));");
}

}  // namespace

void define_data_copy_ops(OpTable& t) {
  copy(t, OpCode::CopyGmToLocal, "data_copy.gm_to_local", Pipe::MTE2, K::LocalTensor, K::GlobalTensor,
       check_gm_to_local, CostKind::GmCopy);
  copy(t, OpCode::CopyLocalToGm, "data_copy.local_to_gm", Pipe::MTE3, K::GlobalTensor, K::LocalTensor,
       check_local_to_gm, CostKind::GmCopy);
  copy(t, OpCode::CopyLocalToLocal, "data_copy.local_to_local", Pipe::V, K::LocalTensor, K::LocalTensor,
       check_local_to_local, CostKind::UbCopy);
  copy_blocks(t, OpCode::CopyGmToLocalBlocks, "data_copy.gm_to_local.blocks", Pipe::MTE2, K::LocalTensor,
              K::GlobalTensor, check_gm_to_local, CostKind::GmCopy);
  copy_blocks(t, OpCode::CopyLocalToGmBlocks, "data_copy.local_to_gm.blocks", Pipe::MTE3, K::GlobalTensor,
              K::LocalTensor, check_local_to_gm, CostKind::GmCopy);
  copy_blocks(t, OpCode::CopyLocalToLocalBlocks, "data_copy.local_to_local.blocks", Pipe::V, K::LocalTensor,
              K::LocalTensor, check_local_to_local, CostKind::UbCopy);
  // data_copy_pad operands: dst, src, block_count, block_len (bytes), src_stride, dst_stride, and for GM -> UB
  // left_pad, right_pad (elements), pad_value, is_pad. The GM side needs no alignment.
  const char* ext = "AscendC::DataCopyExtParams({2:uint16_t}, {3:uint32_t}, {4:uint32_t}, {5:uint32_t}, 0)";
  t.def(OpCode::CopyPadGmToLocal, "data_copy_pad.gm_to_local")
      .pipe(Pipe::MTE2)
      .operands({K::LocalTensor, K::GlobalTensor})
      .operands(6, K::IntScalar)
      .operands({K::AnyScalar, K::IntScalar})
      .check(check_gm_to_local)
      .reads(1, extent().unaligned())
      .writes(0, extent())
      .extent(pad_extent)
      // out of GM: block_count rows of block_len bytes, src_stride bytes apart
      .gm_read_rows([](const Op&, const int64_t* in, int64_t) {
        return GmRows{in[2], in[3], in[3] + in[4]};
      })
      .cost(CostKind::GmCopy)
      .ascendc("DataCopyPad", std::string("{api}({0}, {1}, ") + ext +
                                  ", AscendC::DataCopyPadExtParams<{T:0}>({9}, {6:uint8_t}, {7:uint8_t}, {8}));");
  t.def(OpCode::CopyPadLocalToGm, "data_copy_pad.local_to_gm")
      .pipe(Pipe::MTE3)
      .operands({K::GlobalTensor, K::LocalTensor})
      .operands(4, K::IntScalar)
      .check(check_local_to_gm)
      .reads(1, extent())
      .writes(0, extent().unaligned())
      .extent(pad_extent)
      // into GM: block_count rows of block_len bytes, dst_stride bytes apart
      .gm_rows([](const Op&, const int64_t* in, int64_t) {
        return GmRows{in[2], in[3], in[3] + in[5]};
      })
      .cost(CostKind::GmCopy)
      .ascendc("DataCopyPad", std::string("{api}({0}, {1}, ") + ext + ");");
}

}  // namespace asc::rows
