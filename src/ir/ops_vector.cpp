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
  CostKind cost;
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
   k##dtypes,  CostKind::cost,   reads_dst, doc,          params_struct(#params)},
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

}  // namespace

void define_vector_ops(OpTable& t) {
  for (const VecSpec& spec : kVecSpecs) vector_rows(t, spec);
  t.def(OpCode::VCast, "cast")
      .pipe(Pipe::V)
      .operands({K::LocalTensor, K::LocalTensor, K::IntScalar})
      .attr("round_mode")
      .check(check_cast)
      .reads(1, count(2))
      .writes(0, count(2))
      .cost(CostKind::Vector)
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
      .cost(CostKind::Vector)
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
