// Rows of the vector unit's element-wise instructions (ir/vector_ops.def, in
// count and mask/repeat form), cast and transpose.
#include <string>

#include "ir/op_rows.h"
#include "ir/row_rules.h"

namespace asc::rows {
namespace {

// The vector instructions (ir/vector_ops.def), both modes: every tensor in
// the Unified Buffer with dst's dtype, which the row's dtype set must contain;
// the scalar of the SCALAR family has that dtype too.
void check_vector(const OpView& v) {
  const OpInfo& info = v.op.info();
  size_t tensors = vector_tensors(info.family);
  static const char* const kRoles[] = {"dst", "src0", "src1"};
  for (size_t i = 0; i < tensors; ++i) {
    require_ub_position(v, i, tensors == 2 && i == 1 ? "src" : kRoles[i]);
    if (i) require_same_dtype(v, 0, i);
  }
  DType d = v.operand_type(0).dtype;
  require_row_dtype(v, 0);
  if (vector_has_scalar(info.family) && v.operand_type(tensors).dtype != d)
    type_error(v, fmt::format("the scalar is {} but the tensors hold {}", dtype_name(v.operand_type(tensors).dtype),
                              dtype_name(d)));
  if (info.mask_mode) check_mask_mode(v);
}

struct VecSpec {
  OpCode count, mask;
  const char* name;
  const char* mask_name;
  const char* ascendc;
  VecFamily family;
  uint32_t dtypes;
  VecCost cost;
  bool reads_dst;
  const char* doc;
  const char* repeat_params;  // the mask form's AscendC:: struct of strides, "" for plain arguments
};

constexpr const char* params_struct(const char* params) {
  return params[0] == 'N'   ? ""
         : params[0] == 'B' ? "BinaryRepeatParams"
         : params[0] == 'U' ? "UnaryRepeatParams"
                            : "CopyRepeatParams";
}

constexpr VecSpec kVecSpecs[] = {
#define VEC(family, id, name, ascendc, dtypes, cost, reads_dst, doc, params)                        \
  {OpCode::id, OpCode::id##Mask, name,      name ".mask", "AscendC::" #ascendc,  VecFamily::family, \
   k##dtypes,  VecCost::cost,    reads_dst, doc,          params_struct(#params)},
#include "ir/vector_ops.def"
#undef VEC
};

std::string range(size_t from, size_t to, const char* cast = nullptr) {
  std::string s = "{" + std::to_string(from) + ".." + (to ? std::to_string(to) : "");
  return s + (cast ? std::string(":") + cast : "") + "}";
}
std::string operand(size_t i, const char* cast) { return "{" + std::to_string(i) + ":" + cast + "}"; }

// A count-mode instruction that Atlas A2 has only in mask/repeat form (Copy): the counter mode of the mask
// register takes the count, and the register is left as a count-mode instruction leaves it.
std::string copy_by_counter(const std::string& head, uint8_t count) {
  return "AscendC::SetMaskCount();\nAscendC::SetVectorMask<{T:0}, AscendC::MaskMode::COUNTER>(" +
         operand(count, "uint64_t") + ");\n{api}<{T:0}, false>(" + head +
         ", static_cast<uint64_t>(0), 1, AscendC::CopyRepeatParams(1, 1, 8, 8));\nAscendC::SetMaskNorm();\n"
         "AscendC::ResetMask();";
}

// The two rows of one vector instruction. Operands, count mode:
//   tensors (dst first), [scalar], count
// mask mode:
//   tensors, [scalar], mask0, mask1, repeat_times, block stride per tensor, repeat stride per tensor
void vector_rows(OpTable& t, const VecSpec& spec) {
  const uint8_t tensors = static_cast<uint8_t>(vector_tensors(spec.family));
  const bool has_scalar = vector_has_scalar(spec.family);
  const uint8_t base = tensors + (has_scalar ? 1 : 0);
  std::string head = range(0, base);
  for (bool mask_mode : {false, true}) {
    Row& row = t.def(mask_mode ? spec.mask : spec.count, mask_mode ? spec.mask_name : spec.name);
    row.pipe(Pipe::V)
        .operands(tensors, K::LocalTensor)
        .check(check_vector)
        .vector(spec.family, mask_mode)
        .dtypes(spec.dtypes)
        .cost(spec.cost)
        .doc(spec.doc)
        .repeat_params(spec.repeat_params);
    if (has_scalar) row.operands({K::AnyScalar});
    if (spec.reads_dst) row.reads_dst();
    if (!mask_mode) {
      row.operands({K::IntScalar}).mask_register(MaskReg::Resets);
      for (uint8_t i = 1; i < tensors; ++i) row.reads(i, count(base));
      if (spec.reads_dst) row.reads(0, count(base));
      row.writes(0, count(base));
      row.ascendc(spec.ascendc, std::string(spec.repeat_params) == "CopyRepeatParams"
                                    ? copy_by_counter(head, base)
                                    : "{api}(" + head + ", " + operand(base, "int32_t") + ");");
      continue;
    }
    row.operands(3 + 2 * tensors, K::IntScalar).attr("mask_mode").mask_register(MaskReg::Operands, base);
    auto span = [&](uint8_t tensor) { return strided(base, base + 2, base + 3 + tensor, base + 3 + tensors + tensor); };
    for (uint8_t i = 1; i < tensors; ++i) row.reads(i, span(i));
    if (spec.reads_dst) row.reads(0, span(0));
    row.writes(0, span(0));
    std::string strides =
        *spec.repeat_params  // Duplicate: dstBlockStride, dstRepeatStride as arguments
            ? std::string("AscendC::") + spec.repeat_params + "(" + range(base + 3, 0, "uint16_t") + ")"
            : range(base + 3, base + 5, "uint16_t");
    row.ascendc(spec.ascendc, "{api}<{T:0}, {set_mask}>(" + head + ", {mask:" + std::to_string(base) + "}, " +
                                  operand(base + 2, "uint8_t") + ", " + strides + ");");
  }
}

// Cast on Atlas A2: the (src, dst) pairs and the round modes each accepts
// (Ascend C Cast page, "precision conversion" table). Modes: 0 NONE, 1 RINT,
// 2 FLOOR, 3 CEIL, 4 ROUND, 5 TRUNC, 6 ODD.
constexpr uint32_t kNoneOnly = 1u << 0, kRounding = 0x3e, kNoneAndRounding = 0x3f, kAllModes = 0x7f;

uint32_t cast_modes(DType from, DType to) {
  using D = DType;
  struct Pair {
    D from, to;
    uint32_t modes;
  };
  static const Pair kPairs[] = {
      {D::Int8, D::Float16, kNoneOnly},         {D::UInt8, D::Float16, kNoneOnly},
      {D::Int16, D::Float32, kNoneOnly},        {D::Float16, D::Float32, kNoneOnly},
      {D::BFloat16, D::Float32, kNoneOnly},     {D::Int32, D::Int16, kNoneOnly},
      {D::Int32, D::Int64, kNoneOnly},          {D::Int64, D::Int32, kNoneOnly},
      {D::Int16, D::Float16, kNoneAndRounding}, {D::Float16, D::Int8, kNoneAndRounding},
      {D::Float16, D::UInt8, kNoneAndRounding}, {D::Int32, D::Float32, kNoneAndRounding},
      {D::Float16, D::Int16, kRounding},        {D::Float16, D::Int32, kRounding},
      {D::BFloat16, D::Int32, kRounding},       {D::Float32, D::Int16, kRounding},
      {D::Float32, D::Int32, kRounding},        {D::Float32, D::BFloat16, kRounding},
      {D::Float32, D::Float32, kRounding},      {D::Float32, D::Int64, kRounding},
      {D::Int64, D::Float32, kRounding},        {D::Float32, D::Float16, kAllModes},
  };
  for (const Pair& p : kPairs)
    if (p.from == from && p.to == to) return p.modes;
  return 0;
}

// Every dtype some Atlas A2 cast reads or writes (the docs' table lists them).
uint32_t cast_dtypes() {
  uint32_t bits = 0;
  for (unsigned from = 0; from < ASC_DTYPE_COUNT; ++from)
    for (unsigned to = 0; to < ASC_DTYPE_COUNT; ++to)
      if (cast_modes(static_cast<DType>(from), static_cast<DType>(to))) bits |= (1u << from) | (1u << to);
  return bits;
}

void check_cast(const OpView& v) {
  require_ub_position(v, 0, "dst");
  require_ub_position(v, 1, "src");
  DType to = v.operand_type(0).dtype, from = v.operand_type(1).dtype;
  int64_t mode = v.op.attr_int(attr_index(v.op.info(), "round_mode"));
  static const char* const kModes[] = {"CAST_NONE",  "CAST_RINT",  "CAST_FLOOR", "CAST_CEIL",
                                       "CAST_ROUND", "CAST_TRUNC", "CAST_ODD"};
  if (mode < 0 || mode > 6) type_error(v, fmt::format("unknown RoundMode {}", mode));
  uint32_t modes = cast_modes(from, to);
  if (!modes)
    type_error(v, fmt::format("casting {} to {} is not supported on Atlas A2", dtype_name(from), dtype_name(to)));
  if (!(modes & (1u << mode))) {
    std::string ok;
    for (int m = 0; m < 7; ++m)
      if (modes & (1u << m)) ok += std::string(ok.empty() ? "" : ", ") + kModes[m];
    type_error(
        v, fmt::format("{} to {} does not accept {} (accepted: {}){}", dtype_name(from), dtype_name(to), kModes[mode],
                       ok, mode == 0 ? "; on the NPU CAST_NONE here would issue no instruction at all" : ""));
  }
}

void check_cast_mask(const OpView& v) {
  check_cast(v);
  check_mask_mode(v);
}

// ---- transpose -------------------------------------------------------------------
// transpose(dst, src): one 16x16 matrix of 2-byte elements. transpose.ext(dst,
// src, tmp, n, c, h, w) with attribute transpose_type: 10 ND2ND_B16 (h = w =
// 16), 11 NCHW2NHWC, 12 NHWC2NCHW (Atlas A2 implements only these three).
constexpr int64_t kTransposeNd2ndB16 = 10, kTransposeNchw2Nhwc = 11, kTransposeNhwc2Nchw = 12;

void check_transpose(const OpView& v) {
  require_ub_position(v, 0, "dst");
  require_ub_position(v, 1, "src");
  require_same_dtype(v, 0, 1);
  require_row_dtype(v, 0);
  if (v.op.code != OpCode::TransposeExt) return;
  require_ub_position(v, 2, "shared_tmp_buffer");
  if (v.operand_type(2).dtype != DType::UInt8) type_error(v, "shared_tmp_buffer must be a LocalTensor of uint8");
  int64_t type = v.op.attr_int(0);
  if (type < kTransposeNd2ndB16 || type > kTransposeNhwc2Nchw)
    throw Error(
        ASC_ERR_UNSUPPORTED,
        fmt::format("transpose: TransposeType {} is not implemented on Atlas A2 (the NPU would do nothing); use "
                    "TRANSPOSE_ND2ND_B16, TRANSPOSE_NCHW2NHWC or TRANSPOSE_NHWC2NCHW",
                    type),
        v.op.loc);
  if (type == kTransposeNd2ndB16 && v.operand_type(0).dtype != DType::UInt16)
    type_error(v, "TRANSPOSE_ND2ND_B16 takes uint16 tensors on Atlas A2");
}

// Scratch bytes the NCHW <-> NHWC transposes use: (c + 2) or (2c + 1) tiles of
// h0 x w0 elements, h0 = 16 (32 for 1-byte types), w0 = 32 / size.
int64_t transpose_tmp_bytes(int64_t type, int64_t c, int64_t size) {
  if (type == kTransposeNd2ndB16) return 0;
  int64_t tile = (size == 1 ? 32 : 16) * (32 / size) * size;
  return (type == kTransposeNchw2Nhwc ? c + 2 : 2 * c + 1) * tile;
}

// Effects: 0 reads src, 1 writes tmp, 2 writes dst. operands: dst, src, tmp, n, c, h, w.
int64_t transpose_extent(const Op& op, const int64_t* in, size_t index, int64_t size) {
  int64_t type = op.attr_int(0), n = in[3], c = in[4], h = in[5], w = in[6];
  if (index == 0) {
    if (n > 65535 || c > 4095 || h * w > 4095)
      fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "transpose: n {} must be <= 65535, c {} <= 4095 and h * w {} <= 4095", n,
           c, h * w);
    if (type == kTransposeNd2ndB16 && (h != 16 || w != 16))
      fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
           "transpose: TRANSPOSE_ND2ND_B16 needs h_size = w_size = 16 (got {} x {}); the NPU would do nothing", h, w);
    if ((h * w * size) % 32 != 0)
      fail(ASC_ERR_MISALIGNED, op.loc, "transpose: h * w * sizeof(T) = {} bytes is not a multiple of 32", h * w * size);
  }
  int64_t elements = type == kTransposeNd2ndB16 ? 256 : n * c * h * w;
  if (index == 1) return elements ? transpose_tmp_bytes(type, c, size) : 0;
  return elements * size;
}

// ---- conversions with arithmetic, and the deq-scale register ---------------------------------------
// Ascend C's fused conversions (Atlas A2 rows of each page's dtype table):
//   AddReluCast / SubReluCast: dst = Cast(max(src0 +/- src1, 0)): float -> half, half -> int8, int16 -> int8
//     (https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/800alpha001/apiref/ascendcopapi/atlasascendc_api_07_0044.html,
//      https://www.hiascend.com/document/detail/en/canncommercial/850/API/ascendcopapi/atlasascendc_api_07_0047.html)
//   MulCast: dst = Cast(src0 * src1): half -> int8 / uint8
//   AddDeqRelu: dst = max(Deq(src0 + src1), 0), int32 -> half, Deq(x) = x * DEQSCALE (the half scale of
//     SetDeqScale(half))
//     (https://www.hiascend.com/document/detail/en/canncommercial/850/API/ascendcopapi/atlasascendc_api_07_0045.html)
//   CastDeq<T, U, isVecDeq, halfBlock>: int16 -> int8 / uint8, dst = src * scale + offset with the scale,
//     offset and sign mode of SetDeqScale(float, int16_t, bool) (isVecDeq = false) or, element e of each
//     16-element block, group e of the 16 of SetDeqScale(vdeq, VdeqInfo) (isVecDeq = true); the 16 results of
//     a source block fill the lower (halfBlock) or upper half of the destination block of the same index;
//     int32 -> half, dst = src * the half scale
//     (https://www.hiascend.com/document/detail/en/canncommercial/800/apiref/ascendcopapi/atlasascendc_api_07_0074.html)
//   SetDeqScale (https://gitcode.com/cann/asc-devkit/blob/9.0.0-beta.2/docs/api/context/SetDeqScale.md): the
//     scalar unit writes the DEQSCALE register; the VdeqInfo form also writes the 16 groups to the 128-byte
//     uint64 tensor vdeq.
// The operands of the binary ones are the vector family's (dst, src0, src1, count | mask0, mask1, repeat,
// 3 block strides, 3 repeat strides); a repeat holds 256 bytes of the wider dtype, as cast's.
struct FusedPair {
  DType src, dst;
};

bool fused_pair_ok(OpCode code, DType src, DType dst) {
  using D = DType;
  static const FusedPair kReluCast[] = {{D::Float32, D::Float16}, {D::Float16, D::Int8}, {D::Int16, D::Int8}};
  static const FusedPair kMulCast[] = {{D::Float16, D::Int8}, {D::Float16, D::UInt8}};
  static const FusedPair kDeqRelu[] = {{D::Int32, D::Float16}};
  static const FusedPair kCastDeq[] = {{D::Int16, D::Int8}, {D::Int16, D::UInt8}, {D::Int32, D::Float16}};
  auto in = [&](const auto& pairs) {
    for (const FusedPair& p : pairs)
      if (p.src == src && p.dst == dst) return true;
    return false;
  };
  switch (code) {
    case OpCode::VAddReluCast:
    case OpCode::VAddReluCastMask:
    case OpCode::VSubReluCast:
    case OpCode::VSubReluCastMask: return in(kReluCast);
    case OpCode::VMulCast:
    case OpCode::VMulCastMask: return in(kMulCast);
    case OpCode::VAddDeqRelu:
    case OpCode::VAddDeqReluMask: return in(kDeqRelu);
    default: return in(kCastDeq);
  }
}

const char* fused_pairs_text(OpCode code) {
  switch (code) {
    case OpCode::VAddReluCast:
    case OpCode::VAddReluCastMask:
    case OpCode::VSubReluCast:
    case OpCode::VSubReluCastMask: return "float32 -> float16, float16 -> int8, int16 -> int8";
    case OpCode::VMulCast:
    case OpCode::VMulCastMask: return "float16 -> int8, float16 -> uint8";
    case OpCode::VAddDeqRelu:
    case OpCode::VAddDeqReluMask: return "int32 -> float16";
    default: return "int16 -> int8, int16 -> uint8, int32 -> float16";
  }
}

void check_fused(const OpView& v) {
  const bool binary = v.op.code != OpCode::VCastDeq && v.op.code != OpCode::VCastDeqMask;
  require_ub_position(v, 0, "dst");
  require_ub_position(v, 1, binary ? "src0" : "src");
  if (binary) {
    require_ub_position(v, 2, "src1");
    if (v.operand_type(1).dtype != v.operand_type(2).dtype)
      type_error(v, fmt::format("src0 holds {} but src1 holds {}: they must match", dtype_name(v.operand_type(1).dtype),
                                dtype_name(v.operand_type(2).dtype)));
  }
  DType dst = v.operand_type(0).dtype, src = v.operand_type(1).dtype;
  if (!fused_pair_ok(v.op.code, src, dst))
    type_error(
        v, fmt::format("converts {} (got {} -> {})", fused_pairs_text(v.op.code), dtype_name(src), dtype_name(dst)));
  if (v.op.info().mask_mode) check_mask_mode(v);
}

// cast_deq's destination bytes: int16 -> 8-bit, one 32-byte block per 16 source elements (half of it written);
// int32 -> half, 2 bytes per element. Count form operands dst, src, count; mask form dst, src, mask0, mask1,
// repeat, dst_blk, src_blk, dst_rep, src_rep (a repeat: 8 source blocks). Effect 0 reads src, 1 writes dst.
int64_t cast_deq_extent(const Op& op, const int64_t* in, size_t, int64_t size) {
  const bool to_bytes = size == 1;
  if (op.code == OpCode::VCastDeq) return to_bytes ? ceil_div(in[2], 16) * 32 : in[2] * 2;
  int64_t repeats = in[4], blk = in[5], rep = in[7];
  if (repeats <= 0) return 0;
  // a repeat writes 8 destination blocks (int16 source) or 4 (64 halves from int32)
  return ((repeats - 1) * rep + (to_bytes ? 7 : 3) * blk) * 32 + 32;
}

void check_set_deq_vector(const OpView& v) {
  require_ub_position(v, 0, "vdeq");
  if (v.operand_type(0).dtype != DType::UInt64) type_error(v, "vdeq must be a LocalTensor of uint64");
  int64_t words;  // a constant where the Python API built the op; the CPU proof's one-op kernels pass it in
  if (v.operand_const_int(1, &words) && words != 16)
    type_error(v, fmt::format("operand 1 is the 16 words of vdeq (VDEQ_TENSOR_SIZE), got {}", words));
  for (size_t i = 2; i < 18; ++i)
    if (!dtype_is_float(v.operand_type(i).dtype))
      type_error(v, fmt::format("VdeqInfo scale {} must be a float, got {}", i - 2, v.operand_type(i).str()));
}

// The 16 groups of SetDeqScale(vdeq, VdeqInfo), spelled as VdeqInfo's three arrays.
std::string vdeq_spelling() {
  return "{{\nconst float asc_vdeq_scale[16] = {{{2..18:float}}};\n"
         "const int16_t asc_vdeq_offset[16] = {{{18..34:int16_t}}};\n"
         "const bool asc_vdeq_sign[16] = {{{34..50:bool}}};\n"
         "{api}({0}, AscendC::VdeqInfo(asc_vdeq_scale, asc_vdeq_offset, asc_vdeq_sign));\n}}";
}

void fused_rows(OpTable& t, OpCode count_code, OpCode mask_code, const char* name, const char* mask_name,
                const char* api, const char* doc) {
  uint32_t dst_dtypes = 0;
  for (unsigned d = 0; d < ASC_DTYPE_COUNT; ++d)
    for (unsigned s = 0; s < ASC_DTYPE_COUNT; ++s)
      if (fused_pair_ok(count_code, static_cast<DType>(s), static_cast<DType>(d))) dst_dtypes |= 1u << d;
  t.def(count_code, name)
      .pipe(Pipe::V)
      .operands(3, K::LocalTensor)
      .operands({K::IntScalar})
      .check(check_fused)
      .reads(1, count(3))
      .reads(2, count(3))
      .writes(0, count(3))
      .cost(CostKind::Vector)
      .mask_register(MaskReg::Resets)
      .dtypes(dst_dtypes)
      .doc(doc)
      .ascendc(api, "{api}({0..3}, {3:int32_t});");
  // mask form: dst, src0, src1, mask0, mask1, repeat_times, 3 block strides, 3 repeat strides
  t.def(mask_code, mask_name)
      .pipe(Pipe::V)
      .operands(3, K::LocalTensor)
      .operands(9, K::IntScalar)
      .attr("mask_mode")
      .vector(VecFamily::NONE, true)
      .check(check_fused)
      .reads(1, strided(3, 5, 7, 10))
      .reads(2, strided(3, 5, 8, 11))
      .writes(0, strided(3, 5, 6, 9))
      .cost(CostKind::Vector)
      .mask_register(MaskReg::Operands, 3)
      .mask_by_wider_dtype()
      .dtypes(dst_dtypes)
      .doc(doc)
      .ascendc(api,
               "{api}<{T:0}, {T:1}, {set_mask}>({0..3}, {mask:3}, {5:uint8_t}, "
               "AscendC::BinaryRepeatParams({6..12:uint16_t}));");
}

void define_deq_rows(OpTable& t) {
  fused_rows(t, OpCode::VAddReluCast, OpCode::VAddReluCastMask, "add_relu_cast", "add_relu_cast.mask",
             "AscendC::AddReluCast", "dst = cast(max(src0 + src1, 0))");
  fused_rows(t, OpCode::VSubReluCast, OpCode::VSubReluCastMask, "sub_relu_cast", "sub_relu_cast.mask",
             "AscendC::SubReluCast", "dst = cast(max(src0 - src1, 0))");
  fused_rows(t, OpCode::VMulCast, OpCode::VMulCastMask, "mul_cast", "mul_cast.mask", "AscendC::MulCast",
             "dst = cast(src0 * src1)");
  fused_rows(t, OpCode::VAddDeqRelu, OpCode::VAddDeqReluMask, "add_deq_relu", "add_deq_relu.mask",
             "AscendC::AddDeqRelu", "dst = max((src0 + src1) * deq_scale, 0)");
  const uint32_t deq_dtypes = dtype_bits({DType::Int8, DType::UInt8, DType::Float16});
  t.def(OpCode::VCastDeq, "cast_deq")
      .pipe(Pipe::V)
      .operands({K::LocalTensor, K::LocalTensor, K::IntScalar})
      .attr("is_vec_deq")
      .attr("half_block")
      .check(check_fused)
      .reads(1, count(2))
      .writes(0, extent())
      .extent(cast_deq_extent)
      .cost(CostKind::Vector)
      .mask_register(MaskReg::Resets)
      .dtypes(deq_dtypes)
      .doc("dst = src * deq_scale + deq_offset (the set_deq_scale register)")
      .ascendc("AscendC::CastDeq",
               "{api}<{T:0}, {T:1}, {bool:is_vec_deq}, {bool:half_block}>({0}, {1}, {2:uint32_t});");
  // cast_deq.mask: dst, src, mask0, mask1, repeat_times, dst_blk, src_blk, dst_rep, src_rep
  t.def(OpCode::VCastDeqMask, "cast_deq.mask")
      .pipe(Pipe::V)
      .operands({K::LocalTensor, K::LocalTensor})
      .operands(7, K::IntScalar)
      .attr("mask_mode")
      .attr("is_vec_deq")
      .attr("half_block")
      .vector(VecFamily::NONE, true)
      .check(check_fused)
      .reads(1, strided(2, 4, 6, 8))
      .writes(0, extent())
      .extent(cast_deq_extent)
      .cost(CostKind::Vector)
      .mask_register(MaskReg::Operands, 2)
      .mask_by_wider_dtype()
      .dtypes(deq_dtypes)
      .doc("dst = src * deq_scale + deq_offset (the set_deq_scale register)")
      .ascendc("AscendC::CastDeq",
               "{api}<{T:0}, {T:1}, {set_mask}, {bool:is_vec_deq}, {bool:half_block}>({0}, {1}, {mask:2}, "
               "{4:uint8_t}, AscendC::UnaryRepeatParams({5..9:uint16_t}));");
  // The scalar unit writes DEQSCALE; the vector instructions read it as they are dispatched (sim/cast.cpp).
  t.def(OpCode::SetDeqScale, "set_deq_scale")
      .operands({K::AnyScalar})
      .check([](const OpView& v) {
        if (!dtype_is_float(v.operand_type(0).dtype))
          type_error(v, fmt::format("scale must be a float16, got {}", v.operand_type(0).str()));
      })
      .doc("DEQSCALE = the half scale (add_deq_relu, cast_deq int32 -> half)")
      .ascendc("AscendC::SetDeqScale", "{api}({0:half});");
  t.def(OpCode::SetDeqScaleQuant, "set_deq_scale.quant")
      .operands({K::AnyScalar, K::IntScalar, K::IntScalar})
      .check([](const OpView& v) {
        if (!dtype_is_float(v.operand_type(0).dtype))
          type_error(v, fmt::format("scale must be a float, got {}", v.operand_type(0).str()));
      })
      .doc("DEQSCALE = scale, offset (its low 9 bits, signed) and sign_mode (cast_deq int16 -> 8-bit)")
      .ascendc("AscendC::SetDeqScale", "{api}({0:float}, {1:int16_t}, {2:bool});");
  // set_deq_scale.vector: vdeq, the 16 words it writes there (VDEQ_TENSOR_SIZE, not spelled), 16 scales,
  // 16 offsets, 16 sign modes (a scalar-unit op: wider than a pipe queue entry, and only the first operands can
  // be sizes)
  t.def(OpCode::SetDeqScaleVector, "set_deq_scale.vector")
      .operands({K::LocalTensor, K::IntScalar})
      .operands(16, K::AnyScalar)
      .operands(32, K::IntScalar)
      .check(check_set_deq_vector)
      .writes(0, count(1))
      .cost(CostKind::ScalarMemory)
      .dtypes(dtype_bits({DType::UInt64}))
      .doc("DEQSCALE = 16 groups of scale, offset, sign_mode, also written to vdeq (cast_deq is_vec_deq)")
      .ascendc("AscendC::SetDeqScale", vdeq_spelling());
}

}  // namespace

void define_vector_ops(OpTable& t) {
  define_deq_rows(t);
  for (const VecSpec& spec : kVecSpecs) vector_rows(t, spec);
  t.def(OpCode::VCast, "cast")
      .pipe(Pipe::V)
      .operands({K::LocalTensor, K::LocalTensor, K::IntScalar})
      .attr("round_mode")
      .check(check_cast)
      .reads(1, count(2))
      .writes(0, count(2))
      .cost(VecCost::Cast)
      .mask_register(MaskReg::Resets)
      .dtypes(cast_dtypes())
      .ascendc("AscendC::Cast", "{api}({0}, {1}, {enum:round_mode}, {2:uint32_t});");
  // cast.mask: dst, src, mask0, mask1, repeat_times, dst_blk, src_blk, dst_rep, src_rep
  t.def(OpCode::VCastMask, "cast.mask")
      .pipe(Pipe::V)
      .operands({K::LocalTensor, K::LocalTensor})
      .operands(7, K::IntScalar)
      .attr("mask_mode")
      .attr("round_mode")
      .check(check_cast_mask)
      .reads(1, strided(2, 4, 6, 8))
      .writes(0, strided(2, 4, 5, 7))
      .cost(VecCost::Cast)
      .mask_register(MaskReg::Operands, 2)
      .mask_by_wider_dtype()
      .dtypes(cast_dtypes())
      .ascendc("AscendC::Cast",
               "{api}<{T:0}, {T:1}, {set_mask}>({0}, {1}, {enum:round_mode}, {mask:2}, {4:uint8_t}, "
               "AscendC::UnaryRepeatParams({5..9:uint16_t}));");
  t.def(OpCode::Transpose, "transpose")
      .pipe(Pipe::V)
      .operands({K::LocalTensor, K::LocalTensor})
      .check(check_transpose)
      .reads(1, extent())
      .writes(0, extent())
      .extent([](const Op&, const int64_t*, size_t, int64_t size) { return 256 * size; })
      .dtypes(dtype_bits({DType::Int16, DType::UInt16, DType::Float16}))
      .cost(CostKind::Vector)
      .ascendc("AscendC::Transpose", "{api}({0..2});");
  t.def(OpCode::TransposeExt, "transpose.ext")
      .pipe(Pipe::V)
      .operands(3, K::LocalTensor)
      .operands(4, K::IntScalar)
      .attr("transpose_type")
      .check(check_transpose)
      .reads(1, extent())
      .writes(2, extent())
      .writes(0, extent())
      .extent(transpose_extent)
      .cost(CostKind::Vector)
      .dtypes(dtype_bits({DType::Int8, DType::UInt8, DType::Int16, DType::UInt16, DType::Float16, DType::Int32,
                          DType::UInt32, DType::Float32}))
      .ascendc("AscendC::Transpose",
               "{api}({0..3}, AscendC::TransposeParamsExt({3..7:uint16_t}, "
               "static_cast<AscendC::TransposeType>({attr:transpose_type})));");
}

}  // namespace asc::rows
