// The data-movement family beyond plain copies (the rows and their documentation: ir/ops_data_movement.cpp):
// SliceInfo copies, the UB -> L1 ND2NZ pad copy, the pad-value register, the AIPP registers and image loading,
// and TransDataTo5HD.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "sim/copy_bytes.h"
#include "sim/handlers.h"
#include "sim/scalar_math.h"

namespace asc::sim {
namespace {

DType operand_dtype(const Block& b, const Op& op, size_t i) { return b.kernel().type_of(op.operands[i]).dtype; }

// ---- SliceInfo ------------------------------------------------------------------------------------------

// The element offsets of one side's slices (bursts), outer dimensions slowest: `f` holds dims x (start, end,
// stride, burst_len, shape_value). A burst of dimension 0 is burst_len blocks; of a higher dimension, one index.
std::vector<int64_t> slice_bursts(const Op& op, const RtValue* f, int64_t dims, int64_t burst_elems, const char* side) {
  std::vector<int64_t> dim_stride(static_cast<size_t>(dims), 1);
  for (int64_t d = 0; d < dims; ++d) {
    const RtValue* s = f + d * 5;
    if (s[4].i <= 0)
      fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
           "{}: {} SliceInfo {} has shape_value {}; give every dimension its length (the tensors' ShapeInfo is not "
           "used)",
           op.info().name, side, d, s[4].i);
    if (s[1].i < s[0].i || s[0].i < 0 || s[2].i < 0)
      fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: {} SliceInfo {}: start_index {}, end_index {}, stride {}",
           op.info().name, side, d, s[0].i, s[1].i, s[2].i);
    if (d > 0) dim_stride[static_cast<size_t>(d)] = dim_stride[static_cast<size_t>(d - 1)] * f[(d - 1) * 5 + 4].i;
  }
  std::vector<int64_t> out{0};
  for (int64_t d = dims - 1; d >= 0; --d) {  // expand the outermost dimension first
    const RtValue* s = f + d * 5;
    int64_t len = d == 0 ? burst_elems : 1;
    std::vector<int64_t> idx;
    for (int64_t i = s[0].i; i <= s[1].i; i += len + s[2].i)
      for (int64_t k = 0; k < (d == 0 ? 1 : len); ++k) idx.push_back(i + k);
    std::vector<int64_t> next;
    next.reserve(out.size() * idx.size());
    for (int64_t base : out)
      for (int64_t i : idx) next.push_back(base + i * dim_stride[static_cast<size_t>(d)]);
    out.swap(next);
    if (out.size() > (size_t{1} << 24))
      fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: the {} slices make more than 2^24 bursts", op.info().name, side);
  }
  return out;
}

void copy_slices(Block& b, const Op& op, const RtValue* in) {
  int64_t dims = op.attr_int(0), size = static_cast<int64_t>(dtype_size(operand_dtype(b, op, 0)));
  const RtValue* dst_f = in + 2;
  const RtValue* src_f = in + 2 + dims * 5;
  if (dst_f[3].i != src_f[3].i || dst_f[3].i <= 0)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: burst_len must be positive and equal in dst and src, got {} and {}",
         op.info().name, dst_f[3].i, src_f[3].i);
  int64_t burst_bytes = dst_f[3].i * 32, burst_elems = burst_bytes / size;
  std::vector<int64_t> dst = slice_bursts(op, dst_f, dims, burst_elems, "dst");
  std::vector<int64_t> src = slice_bursts(op, src_f, dims, burst_elems, "src");
  if (dst.size() != src.size())
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: the src slices make {} bursts but the dst slices {}", op.info().name,
         src.size(), dst.size());
  bool local_dst = op.code == OpCode::CopySliceGmToLocal;
  for (size_t k = 0; k < dst.size(); ++k) {
    int64_t ub = (local_dst ? dst[k] : src[k]) * size;
    if (ub % 32 != 0)
      fail(ASC_ERR_MISALIGNED, op.loc,
           "{}: a slice starts at byte {} of the Unified Buffer tensor, not on a 32-byte block", op.info().name, ub);
    const uint8_t* from = b.dynamic_access(0, src[k] * size, burst_bytes);
    std::memmove(b.dynamic_access(1, dst[k] * size, burst_bytes), from, static_cast<size_t>(burst_bytes));
  }
}

// ---- data_copy_pad, UB -> GM -> L1 with ND2NZ ---------------------------------------------------------------

void copy_pad_nd2nz(Block& b, const Op& op, const RtValue* in) {
  int64_t size = static_cast<int64_t>(dtype_size(operand_dtype(b, op, 0))), c0 = 32 / size;
  int64_t rows = in[2].i, len = in[3].i, src_stride = in[4].i, gm_gap = in[5].i;
  int64_t row_blocks = (len + 31) / 32;
  // the rows as they lie in GM between the two legs
  std::vector<uint8_t> gm(static_cast<size_t>(std::max<int64_t>(0, rows * (len + gm_gap))));
  for (int64_t r = 0; r < rows; ++r)
    std::memcpy(gm.data() + r * (len + gm_gap), b.effect_ptr(0) + r * (row_blocks + src_stride) * 32,
                static_cast<size_t>(len));
  int64_t nd = in[6].i, n = in[7].i, d = in[8].i;
  if (nd <= 0 || n <= 0 || d <= 0) return;
  int64_t need = ((nd - 1) * in[9].i + (n - 1) * in[10].i + d) * size;
  if (need > static_cast<int64_t>(gm.size()))
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc,
         "{}: Nd2NzParams reads {} bytes of the rows but the DataCopyExtParams copy {} ({} rows of {} bytes, {} "
         "apart)",
         op.info().name, need, gm.size(), rows, len, len + gm_gap);
  uint8_t* dst = b.effect_ptr(1);
  for (int64_t i = 0; i < nd; ++i)
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < (d + c0 - 1) / c0 * c0; ++c) {
        int64_t to = i * in[13].i + (c / c0) * in[11].i * c0 + r * in[12].i * c0 + c % c0;
        if (c < d)
          std::memcpy(dst + to * size, gm.data() + (i * in[9].i + r * in[10].i + c) * size, static_cast<size_t>(size));
        else
          std::memset(dst + to * size, 0, static_cast<size_t>(size));
      }
}

// ---- AIPP -----------------------------------------------------------------------------------------------

// AippRegs::fields, by name.
enum AippField : size_t {
  kPadMode = 0,
  kPadValue = 1,  // ch0..ch3
  kSwapRB = 5,
  kSwapUV = 6,
  kSwapAX = 7,
  kSingleLine = 8,
  kMean = 9,  // ch0..ch2
  kMin = 12,  // ch0..ch2
  kVar = 15,  // ch0..ch2
  kRound = 18,
  kCPadMode = 19,
  kCPadValue = 20,
  kCscEnable = 21,
  kMatrix = 22,  // r0c0 .. r2c2
  kBiasIn = 31,
  kBiasOut = 34,
};

void set_aipp(Block& b, const Op& op, const RtValue* in, bool dual) {
  AippRegs& r = b.aipp_registers();
  r.set = true;
  r.format = op.attr_int(0);
  r.dtype = static_cast<DType>(op.attr_int(1));
  r.src0 = in[0];
  r.src1 = dual ? in[1] : RtValue{};
  std::copy(in + (dual ? 2 : 1), in + (dual ? 2 : 1) + kAippFields, r.fields.begin());
}

int64_t floor_shift8(int64_t v) { return v >= 0 ? v >> 8 : -((-v + 255) >> 8); }
int64_t clamp_u8(int64_t v) { return std::min<int64_t>(255, std::max<int64_t>(0, v)); }

// Pixel values after the AIPP stages, in the output dtype (as doubles; stored by store()).
struct Image {
  int64_t h = 0, w = 0, c = 0;  // output rows, columns, channels per pixel
  std::vector<double> v;        // h x w x c
  double& at(int64_t y, int64_t x, int64_t k) { return v[static_cast<size_t>((y * w + x) * c + k)]; }
};

// The source pixel (row, col) of the image: its channels (1 or 3) after the swaps.
int64_t read_pixel(Block& b, const AippRegs& r, int64_t row, int64_t col, int64_t src_w, int64_t px[3]) {
  auto byte = [&](const RtValue& t, int64_t offset) { return int64_t{*b.raw_access(t, offset, 1, false)}; };
  switch (r.format) {
    case 9:  // YUV400
      px[0] = byte(r.src0, row * src_w + col);
      return 1;
    case 4:  // RGB888
      for (int64_t k = 0; k < 3; ++k) px[k] = byte(r.src0, (row * src_w + col) * 3 + k);
      if (r.fields[kSwapRB].i) std::swap(px[0], px[2]);
      return 3;
    case 1: {  // XRGB8888: the fourth channel is dropped; swap_ax moves channel 0 (X) behind the others first
      int64_t c[4];
      for (int64_t k = 0; k < 4; ++k) c[k] = byte(r.src0, (row * src_w + col) * 4 + k);
      int64_t first = r.fields[kSwapAX].i ? 1 : 0;
      for (int64_t k = 0; k < 3; ++k) px[k] = c[first + k];
      if (r.fields[kSwapRB].i) std::swap(px[0], px[2]);
      return 3;
    }
    default: {  // YUV420SP: Y from src0, U and V interleaved in src1, one pair per 2 x 2 pixels
      px[0] = byte(r.src0, row * src_w + col);
      int64_t uv = (row / 2) * src_w + (col / 2) * 2;
      px[1] = byte(r.src1, uv);
      px[2] = byte(r.src1, uv + 1);
      if (r.fields[kSwapUV].i) std::swap(px[1], px[2]);
      return 3;
    }
  }
}

// Colour-space conversion, as the AIPP documentation writes it (ATC's "CSC Configuration"): YUV -> RGB
// (YUV inputs) is (M x (in - bias_in)) >> 8, RGB -> YUV (RGB inputs) is ((M x in) >> 8) + bias_out; both saturate
// to uint8.
void convert_colour(const AippRegs& r, int64_t px[3]) {
  bool yuv_in = r.format == 0 || r.format == 9;
  int64_t in[3], out[3];
  for (int64_t k = 0; k < 3; ++k) in[k] = px[k] - (yuv_in ? r.fields[kBiasIn + k].i : 0);
  for (int64_t row = 0; row < 3; ++row) {
    int64_t sum = 0;
    for (int64_t col = 0; col < 3; ++col) sum += r.fields[kMatrix + row * 3 + col].i * in[col];
    out[row] = clamp_u8(floor_shift8(sum) + (yuv_in ? 0 : r.fields[kBiasOut + row].i));
  }
  std::copy(out, out + 3, px);
}

// Data type conversion of channel k: (in - mean - min) * var, each step in float16 for a float16 output; for int8
// the real result rounded (dtc_round_mode 0: half away from zero, 1: to even) and saturated to [-128, 127].
double convert_type(const AippRegs& r, int64_t value, int64_t k) {
  double mean = static_cast<double>(r.fields[kMean + k].i), min = r.fields[kMin + k].f, var = r.fields[kVar + k].f;
  if (r.dtype == DType::Float16) {
    double t = round_to(static_cast<double>(value) - mean, DType::Float16);
    t = round_to(t - min, DType::Float16);
    return round_to(t * var, DType::Float16);
  }
  double t = (static_cast<double>(value) - mean - min) * var;
  t = r.fields[kRound].i ? std::nearbyint(t) : std::round(t);
  return std::min(127.0, std::max(-128.0, t));
}

// Padding index `u` of an axis of n pixels back into the image: mode 1 repeats the nearest row or column, mode 2
// copies the block of the padding's size next to the edge, mode 3 that block mirrored.
int64_t pad_source(int64_t u, int64_t n, int64_t before, int64_t after, int64_t mode) {
  if (u >= 0 && u < n) return u;
  int64_t s = mode == 1 ? u : mode == 2 ? (u < 0 ? u + before : u - after) : (u < 0 ? -u - 1 : 2 * n - 1 - u);
  return std::min(n - 1, std::max<int64_t>(0, s));
}

void load_image(Block& b, const Op& op, const RtValue* in) {
  const AippRegs& r = b.aipp_registers();
  const char* name = op.info().name;
  if (!r.set) fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: no set_aipp_functions configured the AIPP before it", name);
  DType d = operand_dtype(b, op, 0);
  if (d != r.dtype)
    fail(ASC_ERR_TYPE, op.loc, "{}: dst holds {} but set_aipp_functions' AippParams output {}", name, dtype_name(d),
         dtype_name(r.dtype));
  int64_t hs = in[1].i, vs = in[2].i, hstart = in[3].i, vstart = in[4].i, src_w = in[5].i;
  int64_t top = in[6].i, bot = in[7].i, left = in[8].i, right = in[9].i;
  if (hs < 2 || hs > 4095 || vs < 2 || vs > 4095 || src_w < 2 || src_w > 4095 || hstart < 0 || hstart > 4095 ||
      vstart < 0 || vstart > 4095)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "{}: horiz_size {}, vert_size {}, src_horiz_size {} must be in [2, 4095], the start positions {}, {} in "
         "[0, 4095]",
         name, hs, vs, src_w, hstart, vstart);
  for (int64_t p : {top, bot, left, right})
    if (p < 0 || p > 32)
      fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: the pad sizes must be in [0, 32], got {}", name, p);
  if (hstart % 2 || (r.format == 0 && (vstart % 2 || src_w % 2)))
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "{}: horiz_start_pos must be even{}; got horiz_start_pos {}, vert_start_pos {}, src_horiz_size {}", name,
         r.format == 0 ? ", and vert_start_pos and src_horiz_size too for YUV420SP" : "", hstart, vstart, src_w);
  if (hstart + hs > src_w)
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc, "{}: columns {} to {} are outside the image's {} columns", name, hstart,
         hstart + hs - 1, src_w);
  int64_t pad_mode = r.fields[kPadMode].i;
  if (pad_mode == 0 && (top || bot))
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "{}: padding mode 0 (constant) pads left and right only; top_pad_size {} and bot_pad_size {} need modes 1 "
         "to 3",
         name, top, bot);
  int64_t rows = r.fields[kSingleLine].i ? 1 : vs;  // single-line reads ignore vert_size
  int64_t size = static_cast<int64_t>(dtype_size(d));
  Image img;
  img.h = top + rows + bot;
  img.w = left + hs + right;
  img.c = r.fields[kCPadMode].i ? 4 : 32 / size;
  img.v.assign(static_cast<size_t>(img.h * img.w * img.c), 0.0);
  double cpad = dtype_is_float(d) ? r.fields[kCPadValue].f : static_cast<double>(r.fields[kCPadValue].i);
  for (int64_t y = 0; y < rows; ++y)
    for (int64_t x = 0; x < hs; ++x) {
      int64_t px[3] = {0, 0, 0};
      int64_t nch = read_pixel(b, r, vstart + y, hstart + x, src_w, px);
      if (r.fields[kCscEnable].i && nch == 3) convert_colour(r, px);
      for (int64_t k = 0; k < img.c; ++k) img.at(top + y, left + x, k) = k < nch ? convert_type(r, px[k], k) : cpad;
    }
  for (int64_t y = 0; y < img.h; ++y)
    for (int64_t x = 0; x < img.w; ++x) {
      bool inside = y >= top && y < top + rows && x >= left && x < left + hs;
      if (inside) continue;
      for (int64_t k = 0; k < img.c; ++k) {
        if (pad_mode == 0) {
          const RtValue& pv = r.fields[kPadValue + std::min<int64_t>(k, 3)];
          img.at(y, x, k) = k < 4 ? (dtype_is_float(d) ? pv.f : static_cast<double>(pv.i)) : cpad;
        } else {
          int64_t sy = top + pad_source(y - top, rows, top, bot, pad_mode);
          int64_t sx = left + pad_source(x - left, hs, left, right, pad_mode);
          img.at(y, x, k) = img.at(sy, sx, k);
        }
      }
    }
  uint8_t* dst = b.dynamic_access(0, 0, static_cast<int64_t>(img.v.size()) * size);
  RtValue v;
  for (size_t i = 0; i < img.v.size(); ++i) {
    if (dtype_is_float(d))
      set_float(v, d, img.v[i]);
    else
      set_int(v, d, static_cast<int64_t>(img.v[i]));
    store_scalar(dst + i * static_cast<size_t>(size), d, v);
  }
}

// ---- TransDataTo5HD -------------------------------------------------------------------------------------

// One TransDataTo5HD: 16 destination and 16 source Unified Buffer byte addresses, then the params.
void trans_5hd(Block& b, const Op& op, DType d, const uint64_t* dst_addr, const uint64_t* src_addr,
               const RtValue* params) {
  RtValue ub{};
  ub.mem = kMemUB;
  bool dst_high = params[0].i != 0, src_high = params[1].i != 0;
  int64_t repeats = params[2].i, dst_rep = params[3].i, src_rep = params[4].i;
  int64_t size = static_cast<int64_t>(dtype_size(d));
  for (int64_t k = 0; k < 16; ++k)
    if (dst_addr[k] % 32 || src_addr[k] % 32)
      fail(ASC_ERR_MISALIGNED, op.loc, "{}: address {} of the {} list, {}, is not 32-byte aligned", op.info().name, k,
           dst_addr[k] % 32 ? "dst" : "src", dst_addr[k] % 32 ? dst_addr[k] : src_addr[k]);
  uint8_t in[16][32], out[16][32];
  // 1-byte data writes one half of each destination block and leaves the other as it was
  int64_t dst_offset = size == 1 && dst_high ? 16 : 0, dst_bytes = size == 1 ? 16 : 32;
  for (int64_t rep = 0; rep < repeats; ++rep) {
    for (int64_t j = 0; j < 16; ++j)
      std::memcpy(in[j], b.raw_access(ub, static_cast<int64_t>(src_addr[j]) + rep * src_rep * 32, 32, false), 32);
    if (size == 2) {
      for (int64_t i = 0; i < 16; ++i)
        for (int64_t j = 0; j < 16; ++j) std::memcpy(out[i] + j * 2, in[j] + i * 2, 2);
    } else if (size == 1) {
      for (int64_t i = 0; i < 16; ++i)
        for (int64_t j = 0; j < 16; ++j) out[i][dst_offset + j] = in[j][(src_high ? 16 : 0) + i];
    } else {
      for (int64_t p = 0; p < 8; ++p)
        for (int64_t j = 0; j < 16; ++j) std::memcpy(out[2 * p + j / 8] + (j % 8) * 4, in[j] + p * 4, 4);
    }
    for (int64_t i = 0; i < 16; ++i)
      std::memcpy(
          b.raw_access(ub, static_cast<int64_t>(dst_addr[i]) + rep * dst_rep * 32 + dst_offset, dst_bytes, true),
          out[i] + dst_offset, static_cast<size_t>(dst_bytes));
  }
}

}  // namespace

void exec_CopySliceGmToLocal(Block& b, const Op& op, const RtValue* in, RtValue*) { copy_slices(b, op, in); }
void exec_CopySliceLocalToGm(Block& b, const Op& op, const RtValue* in, RtValue*) { copy_slices(b, op, in); }
void exec_CopyPadNd2Nz(Block& b, const Op& op, const RtValue* in, RtValue*) { copy_pad_nd2nz(b, op, in); }

// The value's bytes in its own dtype: a later data_copy_pad of dtype T pads with the low sizeof(T) of them.
void exec_SetPadValue(Block& b, const Op& op, const RtValue* in, RtValue*) {
  uint8_t bytes[8] = {};
  store_scalar(bytes, operand_dtype(b, op, 0), in[0]);
  PadValueReg& reg = b.pad_value_register();
  reg.set = true;
  std::memcpy(&reg.bits, bytes, 8);
}

void exec_SetAippFunctions(Block& b, const Op& op, const RtValue* in, RtValue*) { set_aipp(b, op, in, false); }
void exec_SetAippFunctionsDual(Block& b, const Op& op, const RtValue* in, RtValue*) { set_aipp(b, op, in, true); }
void exec_LoadImageToLocal(Block& b, const Op& op, const RtValue* in, RtValue*) { load_image(b, op, in); }

void exec_TransDataTo5HD(Block& b, const Op& op, const RtValue* in, RtValue*) {
  uint64_t dst[16], src[16];
  std::memcpy(dst, b.dynamic_access(0, 0, 128), 128);
  std::memcpy(src, b.dynamic_access(1, 0, 128), 128);
  trans_5hd(b, op, static_cast<DType>(op.attr_int(0)), dst, src, in + 2);
}

void exec_TransDataTo5HDList(Block& b, const Op& op, const RtValue* in, RtValue*) {
  uint64_t dst[16], src[16];
  for (int k = 0; k < 16; ++k) {
    dst[k] = static_cast<uint64_t>(in[k].i);
    src[k] = static_cast<uint64_t>(in[16 + k].i);
  }
  trans_5hd(b, op, static_cast<DType>(op.attr_int(0)), dst, src, in + 32);
}

}  // namespace asc::sim
