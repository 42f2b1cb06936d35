// The cube unit's extras (rows: ir/ops_cube_extras.cpp): init_const_value,
// the 4:2 sparse pair, load_data with LoadData3DParamsV2 (img2col) and the
// mode setters, which write the core's CubeModes (block.h) as the board's
// registers are written; the instructions read them when they run.
#include <algorithm>
#include <cstring>
#include <vector>

#include "sim/handlers.h"
#include "sim/scalar_math.h"

namespace asc::sim {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }
DType dtype(const Block& b, const Op& op, size_t i) { return b.kernel().type_of(op.operands[i]).dtype; }

}  // namespace

// repeat_times iterations of block_num blocks (32 bytes in L1, 512 in L0A/L0B), dst_gap blocks between them.
void exec_InitConstValue(Block& b, const Op& op, const RtValue* in, RtValue*) {
  DType d = dtype(b, op, 0);
  int64_t size = dtype_size(d), block = op.attr_int(0) ? 32 : 512;
  int64_t repeats = in[1].i, blocks = in[2].i, gap = in[3].i;
  uint8_t* dst = b.effect_ptr(0);
  uint8_t value[8];
  store_scalar(value, d, in[4]);
  for (int64_t r = 0; r < repeats; ++r) {
    uint8_t* p = dst + r * (blocks + gap) * block;
    for (int64_t e = 0; e < blocks * block / size; ++e) std::memcpy(p + e * size, value, static_cast<size_t>(size));
  }
}

// Dense fractal start_index + i -> dst fractal i; its 128-byte index fractal -> the index buffer at the
// destination's L0B address / 4, where mmad_with_sparse finds it from its filter's address.
void exec_LoadDataWithSparse(Block& b, const Op&, const RtValue* in, RtValue*) {
  int64_t start = in[3].i, repeats = in[4].i;
  const uint8_t* src = b.effect_ptr(0);
  const uint8_t* idx = b.effect_ptr(1);
  uint8_t* dst = b.effect_ptr(2);
  uint8_t* index = b.cube_modes().sparse_index() + in[0].addr / 4;
  for (int64_t i = 0; i < repeats; ++i) {
    std::memmove(dst + i * 512, src + (start + i) * 512, 512);
    std::memcpy(index + i * 128, idx + (start + i) * 128, 128);
  }
}

// C[m, n] (=|+=) sum over groups g of four A values along K: A[m, 4g + p0] * B[2g, n] + A[m, 4g + p1] *
// B[2g + 1, n], B the dense k/2 x n matrix (Zn, int8 fractals of 16 n-rows x 32 k), p0 and p1 from the 2-bit
// indices at B[2g, n] and B[2g + 1, n] (the index buffer holds one 2-bit index per B element, four a byte,
// lowest bits first): p0 = index0, the first kept value among elements 0..2; p1 = index1 + 1 among 1..3, or
// p0 when that is not after it (the documentation's table: (2, 0) and (1, 0) pick the same element twice).
// Indices must be 0..2. A columns past k add nothing, as in mmad; int32 sums wrap.
void exec_MmadWithSparse(Block& b, const Op& op, const RtValue* in, RtValue*) {
  int64_t m = in[3].i, n = in[4].i, k = in[5].i;
  bool init = in[6].i != 0;
  int64_t groups = ceil_div(k, 4), k1 = ceil_div(k, 32), n1 = ceil_div(n, 16), ma = round_up(m, 16);
  const auto* a = reinterpret_cast<const int8_t*>(b.effect_ptr(0));
  const auto* bm = reinterpret_cast<const int8_t*>(b.effect_ptr(1));
  uint8_t* c = b.effect_ptr(3);
  const uint8_t* index = b.cube_modes().sparse_index() + in[2].addr / 4;
  auto a_at = [&](int64_t i, int64_t kk) -> int64_t {  // Zz
    return kk >= k ? 0 : a[(((i / 16) * k1 + kk / 32) * 16 + i % 16) * 32 + kk % 32];
  };
  // the dense B column j: per group, the two values and the two A positions they pair with
  std::vector<int64_t> bv(static_cast<size_t>(2 * groups)), pos(static_cast<size_t>(2 * groups));
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t g = 0; g < groups; ++g) {
      int64_t sel[2];
      for (int64_t h = 0; h < 2; ++h) {
        int64_t kd = 2 * g + h, e = (((kd / 32) * n1 + j / 16) * 16 + j % 16) * 32 + kd % 32;
        bv[static_cast<size_t>(2 * g + h)] = bm[e];
        sel[h] = (index[e / 4] >> (2 * (e % 4))) & 3;
      }
      if (sel[0] == 3 || sel[1] == 3)
        fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
             "mmad_with_sparse: the index of dense B element ({}, {}) is 3; 4:2 indices are 0, 1 or 2", 2 * g, j);
      pos[static_cast<size_t>(2 * g)] = 4 * g + sel[0];
      pos[static_cast<size_t>(2 * g + 1)] = 4 * g + std::max(sel[0], sel[1] + 1);
    }
    for (int64_t i = 0; i < m; ++i) {
      int64_t sum = 0;
      for (int64_t t = 0; t < 2 * groups; ++t) sum += a_at(i, pos[static_cast<size_t>(t)]) * bv[static_cast<size_t>(t)];
      uint8_t* out = c + ((j / 16) * ma * 16 + i * 16 + j % 16) * 4;
      uint32_t prev = 0;
      if (!init) std::memcpy(&prev, out, 4);
      uint32_t v = prev + static_cast<uint32_t>(sum);
      std::memcpy(out, &v, 4);
    }
  }
}

// ---- load_data with LoadData3DParamsV2 ----------------------------------------------------------------------
// The feature map in L1 is NC1HWC0 (one image: C1 x H x W x C0, C0 = 32 / sizeof(T)). Image to column gives
// an Hout*Wout x (C1 * filter_h * filter_w * C0) matrix: row m = oh * Wout + ow, column k = ((c1 * filter_h + kh) *
// filter_w + kw) * C0 + c0 holds the input at (c1, oh * stride_h + kh * dilation_h - pad_top, ow * stride_w + kw *
// dilation_w - pad_left, c0), the padding value outside the map; Hout = (H + pad_top + pad_bottom - dilated
// filter_h) / stride_h + 1, Wout likewise. The m_extension x k_extension block at (m_start_pt, k_start_pt) is
// written, as the pseudo code load3d.py lays it out, to:
//   L0A:                     Zz, fractals of 16 rows x C0, row blocks first;
//   L0A, en_transpose, b16:  each 16 x 16 fractal transposed, the fractals in column blocks first;
//   L0A, en_transpose, b32:  16-column blocks of 16 x 8 fractals holding 8 rows x 16 columns transposed;
//   L0B, b16:                row blocks first, each 16 x 16 fractal transposed (k rows of 16 m);
//   L0B, b32:                per 16-row block, two halves of 8 rows, each all k columns (to a multiple of 16)
//                            of 8 m values.
// The repeat register (set_load_data_repeat) makes repeat_time such blocks, the source block moving by
// repeat_stride x 16 rows (mode 0) or x C0 columns (mode 1), the destination one big matrix with the blocks
// stacked along M (rows rounded to 16) or K (columns rounded to C0). With a boundary (set_load_data_boundary,
// bytes), feature-map bytes at L1 addresses past it are read from the boundary's distance before (the start of
// L1). channel_size must be a multiple of C0 (the documentation's 4-, 8- and 16-channel forms are not modelled).
namespace {

struct Load3d {
  int64_t size, c0, h, w, channels, k_ext, m_ext, k_start, m_start, stride_w, stride_h, filter_w, filter_h;
  int64_t dilation_w, dilation_h, pad_left, pad_top, h_out, w_out, k_total;
  bool l0b, transpose;
  // The destination element index of (m, k) of the whole (repeat-stacked) block, whose sizes are mt x kt.
  int64_t dst_index(int64_t m, int64_t k, int64_t mt, int64_t kt) const {
    int64_t m1 = ceil_div(mt, 16);
    if (!l0b && !transpose) return ((m / 16) * ceil_div(kt, c0) + k / c0) * 16 * c0 + (m % 16) * c0 + k % c0;
    if (size == 2) {
      if (l0b) return ((m / 16) * ceil_div(kt, 16) + k / 16) * 256 + (k % 16) * 16 + m % 16;
      return ((k / 16) * m1 + m / 16) * 256 + (k % 16) * 16 + m % 16;
    }
    int64_t kp = round_up(kt, 16);  // 4-byte types
    if (l0b) return (((m / 16) * 2 + (m % 16) / 8) * kp + k) * 8 + m % 8;
    return ((((k / 16) * m1 + m / 16) * 2 + (m % 16) / 8) * 16 + k % 16) * 8 + m % 8;
  }
};

// Records, per channel group the block's columns touch, the feature-map rows its output rows read: from the first
// output row's top filter row to the last one's bottom, inside the map.
void record_rows_read(Block& b, const Load3d& g, int64_t repeats, int64_t m_step, int64_t k_step) {
  int64_t m_last = g.m_start + (repeats - 1) * m_step + g.m_ext - 1;
  int64_t k_last = g.k_start + (repeats - 1) * k_step + g.k_ext - 1, per_c1 = g.filter_h * g.filter_w * g.c0;
  int64_t top = std::max<int64_t>(0, g.m_start / g.w_out * g.stride_h - g.pad_top);
  int64_t bottom = std::min(g.h - 1, m_last / g.w_out * g.stride_h + (g.filter_h - 1) * g.dilation_h - g.pad_top);
  if (top > bottom) return;  // only padding
  for (int64_t c1 = g.k_start / per_c1; c1 <= k_last / per_c1; ++c1)
    b.dynamic_access(0, (c1 * g.h + top) * g.w * 32, (bottom - top + 1) * g.w * 32);
}

}  // namespace

void exec_LoadData3DV2Pro(Block& b, const Op& op, const RtValue* in, RtValue*) {
  DType d = dtype(b, op, 0);
  CubeModes& modes = b.cube_modes();
  auto field = [](uint64_t word, int shift, int bits) {
    return static_cast<int64_t>((word >> shift) & ((1ull << bits) - 1));
  };
  uint64_t ext = static_cast<uint64_t>(in[8].i), filter = static_cast<uint64_t>(in[9].i);
  int64_t k_ext = field(ext, 0, 16), m_ext = field(ext, 16, 16), k_start = field(ext, 32, 16),
          m_start = field(ext, 48, 16);
  if (in[2].i < 0 || in[2].i > 65535 || m_start > 32767)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "LoadData3DParamsV2: channel_size {} must be 0..65535, m_start_pt {} 0..32767", in[2].i, m_start);
  Load3d g{};
  g.size = dtype_size(d);
  g.c0 = 32 / g.size;
  g.h = modes.l1_h, g.w = modes.l1_w, g.channels = in[2].i;
  g.k_ext = k_ext, g.m_ext = m_ext, g.k_start = k_start, g.m_start = m_start;
  g.stride_w = field(filter, 0, 8), g.stride_h = field(filter, 8, 8);
  g.filter_w = field(filter, 16, 8) + (in[5].i ? 256 : 0), g.filter_h = field(filter, 24, 8) + (in[6].i ? 256 : 0);
  g.dilation_w = field(filter, 32, 8), g.dilation_h = field(filter, 40, 8);
  g.pad_left = modes.pads[0], g.pad_top = modes.pads[2];
  g.l0b = b.kernel().type_of(op.operands[0]).position == Position::B2;
  g.transpose = !g.l0b && in[3].i != 0;
  int64_t repeats = modes.repeat_time;
  // the documented no-ops
  if (!g.h || !g.w || !g.channels || !g.k_ext || !g.m_ext || !g.filter_w || !g.filter_h || !repeats) return;
  if (in[7].i) fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "load_data: f_matrix_ctrl must be False (the left FMatrix)");
  if (in[4].i) fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "load_data: en_small_k is not supported on Atlas A2");
  if (!g.stride_w || !g.stride_h || !g.dilation_w || !g.dilation_h)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "load_data: stride_w/h ({}/{}) and dilation_filter_w/h ({}/{}) must be >= 1",
         g.stride_w, g.stride_h, g.dilation_w, g.dilation_h);
  if (g.transpose && g.size == 1)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "load_data: en_transpose into L0A takes 2- and 4-byte types, not {}",
         dtype_name(d));
  if (g.channels % g.c0)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "load_data: channel_size {} is not a multiple of C0 = {} for {} (the Model implements whole C0 channel "
         "groups)",
         g.channels, g.c0, dtype_name(d));
  if (g.k_start % g.c0)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "load_data: k_start_pt {} must be a multiple of C0 = {}", g.k_start, g.c0);
  int64_t kh_dilated = (g.filter_h - 1) * g.dilation_h + 1, kw_dilated = (g.filter_w - 1) * g.dilation_w + 1;
  int64_t h_padded = g.h + modes.pads[2] + modes.pads[3], w_padded = g.w + modes.pads[0] + modes.pads[1];
  if (h_padded < kh_dilated || w_padded < kw_dilated)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "load_data: the dilated filter ({} x {}) is larger than the padded feature map ({} x {})", kh_dilated,
         kw_dilated, h_padded, w_padded);
  g.h_out = (h_padded - kh_dilated) / g.stride_h + 1;
  g.w_out = (w_padded - kw_dilated) / g.stride_w + 1;
  g.k_total = g.channels * g.filter_h * g.filter_w;
  bool along_m = modes.repeat_mode == 0;
  int64_t m_step = along_m ? modes.repeat_stride * 16 : 0, k_step = along_m ? 0 : modes.repeat_stride * g.c0;
  if (g.k_start + (repeats - 1) * k_step + g.k_ext > g.k_total)
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc,
         "load_data: columns up to {} are past the expanded width channel_size x filter_h x filter_w = {}",
         g.k_start + (repeats - 1) * k_step + g.k_ext, g.k_total);
  int64_t m_pitch = round_up(g.m_ext, 16), k_pitch = round_up(g.k_ext, g.c0);
  int64_t mt = along_m ? (repeats - 1) * m_pitch + g.m_ext : g.m_ext;
  int64_t kt = along_m ? g.k_ext : (repeats - 1) * k_pitch + g.k_ext;

  // The feature map, 32-byte groups (C0 elements) wrapped at the boundary.
  int64_t fm_bytes = (g.channels / g.c0) * g.h * g.w * 32;
  int64_t base = in[1].addr, boundary = modes.load_boundary;
  if (boundary && base >= boundary)
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc, "load_data: src (L1 address {}) is not inside the boundary {}", base, boundary);
  int64_t direct = boundary ? std::min(fm_bytes, boundary - base) : fm_bytes;
  // Without a ring, the sanitizer sees the rows each channel group's part of the block reads (every filter row
  // of its output rows), so a kernel may copy the rest of a band into L1 while the cube works on its first rows.
  const uint8_t* fm = b.dynamic_access(0, 0, direct, /*record=*/boundary != 0);
  if (!boundary) record_rows_read(b, g, repeats, m_step, k_step);
  const uint8_t* l1 = b.effect_ptr(0) - base;  // the start of L1, where wrapped reads land
  auto group = [&](int64_t offset) { return offset < direct ? fm + offset : l1 + (base + offset - boundary); };

  uint8_t pad[8];
  RtValue pv;
  pv.f = modes.pad_f;
  pv.i = modes.pad_i;
  store_scalar(pad, d, pv);
  if (!g.l0b && !g.transpose && !boundary) {
    // L0A in Zz without a ring: a C0 group of columns is 32 contiguous bytes in both the feature map and the
    // destination, so the block moves a group at a time (the last one of a row short when k_extension is not a
    // multiple of C0). The destination's extent is its last element's index: the index grows with m and k.
    uint8_t* dst = b.dynamic_access(1, 0, (g.dst_index(mt - 1, kt - 1, mt, kt) + 1) * g.size);
    uint8_t pad_group[32];
    for (int64_t i = 0; i < g.c0; ++i) std::memcpy(pad_group + i * g.size, pad, static_cast<size_t>(g.size));
    int64_t per_c1 = g.filter_h * g.filter_w * g.c0;
    for (int64_t r = 0; r < repeats; ++r)
      for (int64_t mi = 0; mi < g.m_ext; ++mi) {
        int64_t m = g.m_start + r * m_step + mi, oh = m / g.w_out, ow = m % g.w_out;
        int64_t row = along_m ? r * m_pitch + mi : mi;
        for (int64_t kg = 0; kg < g.k_ext; kg += g.c0) {
          int64_t k = g.k_start + r * k_step + kg, c1 = k / per_c1, kpos = (k % per_c1) / g.c0;
          int64_t ih = oh * g.stride_h + (kpos / g.filter_w) * g.dilation_h - g.pad_top;
          int64_t iw = ow * g.stride_w + (kpos % g.filter_w) * g.dilation_w - g.pad_left;
          const uint8_t* from = pad_group;
          if (ih >= 0 && ih < g.h && iw >= 0 && iw < g.w) from = fm + ((c1 * g.h + ih) * g.w + iw) * 32;
          int64_t to = g.dst_index(row, along_m ? kg : r * k_pitch + kg, mt, kt);
          std::memcpy(dst + to * g.size, from, static_cast<size_t>(std::min(g.c0, g.k_ext - kg) * g.size));
        }
      }
    return;
  }

  // Destination indices first, to access the destination once.
  struct Move {
    int64_t to;
    const uint8_t* from;
  };
  std::vector<Move> moves;
  moves.reserve(static_cast<size_t>(repeats * g.m_ext * g.k_ext));
  int64_t last = 0, per_c1 = g.filter_h * g.filter_w * g.c0;
  for (int64_t r = 0; r < repeats; ++r)
    for (int64_t mi = 0; mi < g.m_ext; ++mi) {
      int64_t m = g.m_start + r * m_step + mi, oh = m / g.w_out, ow = m % g.w_out;
      for (int64_t ki = 0; ki < g.k_ext; ++ki) {
        int64_t k = g.k_start + r * k_step + ki, c1 = k / per_c1, kpos = (k % per_c1) / g.c0, ci = k % g.c0;
        int64_t ih = oh * g.stride_h + (kpos / g.filter_w) * g.dilation_h - g.pad_top;
        int64_t iw = ow * g.stride_w + (kpos % g.filter_w) * g.dilation_w - g.pad_left;
        const uint8_t* from = pad;
        if (ih >= 0 && ih < g.h && iw >= 0 && iw < g.w) from = group(((c1 * g.h + ih) * g.w + iw) * 32) + ci * g.size;
        int64_t to = g.dst_index(along_m ? r * m_pitch + mi : mi, along_m ? ki : r * k_pitch + ki, mt, kt);
        last = std::max(last, to);
        moves.push_back({to, from});
      }
    }
  uint8_t* dst = b.dynamic_access(1, 0, (last + 1) * g.size);
  for (const Move& mv : moves) std::memcpy(dst + mv.to * g.size, mv.from, static_cast<size_t>(g.size));
}

// ---- the mode setters ------------------------------------------------------------------------------------

void exec_SetFmatrix(Block& b, const Op& op, const RtValue* in, RtValue*) {
  if (in[0].i < 0 || in[0].i > 32767 || in[1].i < 0 || in[1].i > 32767)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "load_data: l1_h {} and l1_w {} must be 0..32767", in[0].i, in[1].i);
  CubeModes& modes = b.cube_modes();
  modes.l1_h = in[0].i;
  modes.l1_w = in[1].i;
  for (int i = 0; i < 4; ++i) {
    if (in[2 + i].i < 0 || in[2 + i].i > 255)
      fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "load_data: pad_list values must be 0..255, got {}", in[2 + i].i);
    modes.pads[i] = in[2 + i].i;
  }
}

void exec_SetLoadDataBoundary(Block& b, const Op& op, const RtValue* in, RtValue*) {
  int64_t bytes = in[0].i;
  if (bytes < 0 || static_cast<uint64_t>(bytes) > b.platform().info.l1_bytes)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "set_load_data_boundary: {} bytes is not inside L1 ({} bytes)", bytes,
         b.platform().info.l1_bytes);
  if (bytes > 0 && bytes < 1024)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "set_load_data_boundary: {} bytes is below the minimum 1024 (1..1023 is undefined behaviour)", bytes);
  b.cube_modes().load_boundary = static_cast<uint32_t>(bytes);
}

void exec_SetLoadDataPaddingValue(Block& b, const Op& op, const RtValue* in, RtValue*) {
  CubeModes& modes = b.cube_modes();
  if (dtype_is_float(dtype(b, op, 0))) {
    modes.pad_f = in[0].f;
    modes.pad_i = static_cast<int64_t>(in[0].f);
  } else {
    modes.pad_i = in[0].i;
    modes.pad_f = static_cast<double>(in[0].i);
  }
}

void exec_SetLoadDataRepeat(Block& b, const Op& op, const RtValue* in, RtValue*) {
  if (in[0].i < 0 || in[0].i > 255 || in[1].i < 0 || in[1].i > 65535 || (in[2].i != 0 && in[2].i != 1))
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "LoadDataRepeatParam: repeat_time {} must be 0..255, repeat_stride {} 0..65535, repeat_mode {} 0 or 1",
         in[0].i, in[1].i, in[2].i);
  CubeModes& modes = b.cube_modes();
  modes.repeat_time = in[0].i;
  modes.repeat_stride = in[1].i;
  modes.repeat_mode = in[2].i;
}

void exec_SetHf32Mode(Block& b, const Op&, const RtValue* in, RtValue*) { b.cube_modes().hf32 = in[0].i != 0; }
void exec_SetHf32TransMode(Block& b, const Op&, const RtValue* in, RtValue*) {
  b.cube_modes().hf32_towards_zero = in[0].i != 0;
}
// The order the cube produces results in matters to unit_flag's hand-over to fixpipe, which the Model does not
// model; the values in L0C are the same either way, so the mode is kept and read by nothing.
void exec_SetMmLayoutTransform(Block& b, const Op&, const RtValue* in, RtValue*) {
  b.cube_modes().mm_n_first = in[0].i != 0;
}

}  // namespace asc::sim
