// mmad's host arithmetic (mmad_kernel.h). One generic register-tiled kernel,
// written with GCC/Clang vector types, is compiled three times on x86-64: for
// AVX-512 (8 x 24 tiles of double, 24 zmm accumulators), for AVX2 + FMA (4 x 12,
// 12 ymm) and for the baseline (4 x 6 on SSE2 or NEON), through function
// target attributes (never -march: the library ships as a wheel); the widest
// one this host runs is chosen once, from CPUID. Float16 operands are widened
// with F16C's conversion instruction, and B's float16 fractals turned round in
// AVX registers, on the two x86 variants.
#include "sim/mmad_kernel.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "sim/scalar_math.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define ASC_MMAD_X86 1
#else
#define ASC_MMAD_X86 0
#endif

namespace asc::sim {
namespace {

#define ASC_MMAD_INLINE inline __attribute__((always_inline))

template <int W>
struct Vec {
  typedef double type __attribute__((vector_size(W * 8)));
  typedef double unaligned __attribute__((vector_size(W * 8), aligned(8), may_alias));
  typedef float floats __attribute__((vector_size(W * 4)));
};

// One element of a float32 L0C: float(sum + before) (mmad_kernel.h, MmadOut).
ASC_MMAD_INLINE void store_float(const MmadOut& out, int64_t i, int64_t j, double sum) {
  uint8_t* at = out.l0c + ((j / 16) * out.fractal_stride + i * 16 + j % 16) * 4;
  float before = 0;
  if (out.bias)
    std::memcpy(&before, out.bias + j * 4, 4);
  else if (out.accumulate)
    std::memcpy(&before, at, 4);
  auto result = static_cast<float>(sum + static_cast<double>(before));
  std::memcpy(at, &result, 4);
}

// An MR x (NV * W) tile of sums at rows i0.., columns j0..: row r of A from arow[r] (K in chunks of
// a.chunk, a.chunk_stride apart), B's rows ldb apart from b. The accumulators stay in vector registers; each K
// step loads NV vectors of B's row kk, broadcasts each A element and adds its products, in ascending K. A
// whole tile is stored from the registers (W columns of one row are contiguous in L0C too: W divides 16); a
// partial one (rows < MR or columns < NR valid) through a local tile.
template <int W, int MR, int NV>
ASC_MMAD_INLINE void tile(const double* const* arow, const MmadA& a, const double* b, int64_t ldb, int64_t k,
                          const MmadOut& out, int64_t i0, int64_t j0, int64_t rows, int64_t cols) {
  using V = typename Vec<W>::type;
  using U = typename Vec<W>::unaligned;
  using F = typename Vec<W>::floats;
  constexpr int64_t NR = NV * W;
  V acc[MR][NV];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v) acc[r][v] = V{};
  for (int64_t k0 = 0, f = 0; k0 < k; k0 += a.chunk, ++f) {
    const double* ar[MR];
    for (int r = 0; r < MR; ++r) ar[r] = arow[r] + f * a.chunk_stride;
    int64_t kc = std::min(a.chunk, k - k0);
    for (int64_t e = 0; e < kc; ++e) {
      const double* row = b + (k0 + e) * ldb;
      V bv[NV];
      for (int v = 0; v < NV; ++v) bv[v] = *reinterpret_cast<const U*>(row + v * W);
      for (int r = 0; r < MR; ++r) {
        double x = ar[r][e];
        for (int v = 0; v < NV; ++v) acc[r][v] += x * bv[v];
      }
    }
  }
  if (rows == MR && cols == NR) {
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) {
        int64_t i = i0 + r, j = j0 + v * W;
        if (!out.l0c) {
          *reinterpret_cast<U*>(out.sums + i * out.lds + j) = acc[r][v];
          continue;
        }
        uint8_t* at = out.l0c + ((j / 16) * out.fractal_stride + i * 16 + j % 16) * 4;
        F prev = F{};  // L0C and the bias are 4-byte aligned only: memcpy loads and stores
        if (out.bias)
          std::memcpy(&prev, out.bias + j * 4, sizeof prev);
        else if (out.accumulate)
          std::memcpy(&prev, at, sizeof prev);
        F result = __builtin_convertvector(acc[r][v] + __builtin_convertvector(prev, V), F);
        std::memcpy(at, &result, sizeof result);
      }
    return;
  }
  double part[MR * NR];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v) *reinterpret_cast<U*>(part + r * NR + v * W) = acc[r][v];
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      if (out.l0c)
        store_float(out, i0 + r, j0 + c, part[r * NR + c]);
      else
        out.sums[(i0 + r) * out.lds + j0 + c] = part[r * NR + c];
    }
}

// One column strip of NV * W columns from j0 (nc of them valid) over every row block of A; a partial strip is
// copied into a zero-padded one first, a partial row block repeats A's last row.
template <int W, int MR, int NV>
ASC_MMAD_INLINE void strip(const MmadA& a, const double* b, int64_t ldb, const MmadOut& out, int64_t m, int64_t k,
                           int64_t j0, int64_t nc) {
  constexpr int64_t NR = NV * W;
  // The strip packed: its K rows of NR columns contiguous. Read in place, B's rows ldb apart (a power of two times
  // 16 doubles, often) fell into a few of the L1 cache's sets and were fetched again for every row block of A.
  static thread_local std::vector<double> packed;
  if (packed.size() < static_cast<size_t>(k * NR)) packed.resize(static_cast<size_t>(k * NR));
  for (int64_t kk = 0; kk < k; ++kk) {
    double* to = packed.data() + kk * NR;
    std::memcpy(to, b + kk * ldb + j0, static_cast<size_t>(nc) * sizeof(double));
    std::fill(to + nc, to + NR, 0.0);  // a partial strip's columns past n: zeros
  }
  const double* bs = packed.data();
  const int64_t ldbs = NR;
  for (int64_t i0 = 0; i0 < m; i0 += MR) {
    const double* rows[MR];
    for (int64_t r = 0; r < MR; ++r) {
      int64_t i = std::min(i0 + r, m - 1);
      rows[r] = a.a + (i / 16) * a.group + (i % 16) * a.row;
    }
    tile<W, MR, NV>(rows, a, bs, ldbs, k, out, i0, j0, std::min<int64_t>(MR, m - i0), nc);
  }
}

// The whole product in strips of NV * W columns (B's strip stays in the L1 cache while every row block of A
// passes it); the last strip is as narrow as W * ceil(columns left / W) allows, so little is summed in vain.
template <int W, int MR, int NV>
ASC_MMAD_INLINE void sums(const MmadA& a, const double* b, int64_t ldb, const MmadOut& out, int64_t m, int64_t n,
                          int64_t k) {
  static_assert(NV == 3, "the tail strips are 1 and 2 vectors wide");
  constexpr int64_t NR = NV * W;
  int64_t j0 = 0;
  for (; j0 + NR <= n; j0 += NR) strip<W, MR, NV>(a, b, ldb, out, m, k, j0, NR);
  int64_t left = n - j0;
  if (left > 2 * W)
    strip<W, MR, 3>(a, b, ldb, out, m, k, j0, left);
  else if (left > W)
    strip<W, MR, 2>(a, b, ldb, out, m, k, j0, left);
  else if (left > 0)
    strip<W, MR, 1>(a, b, ldb, out, m, k, j0, left);
}

// Float16 -> double through float (exact both ways), element by element: the compiler's own conversion.
ASC_MMAD_INLINE void widen_half_scalar(const uint8_t* src, double* dst, int64_t count) {
  for (int64_t e = 0; e < count; ++e) {
    _Float16 h;
    std::memcpy(&h, src + 2 * e, 2);
    dst[e] = static_cast<double>(static_cast<float>(h));
  }
}

void widen_generic(DType d, const uint8_t* src, double* dst, int64_t count) {
  int64_t size = dtype_size(d);
  switch (d) {
    case DType::Float32:
      for (int64_t e = 0; e < count; ++e) {
        float f;
        std::memcpy(&f, src + 4 * e, 4);
        dst[e] = f;
      }
      return;
    case DType::BFloat16:
      for (int64_t e = 0; e < count; ++e) {
        uint16_t h;
        std::memcpy(&h, src + 2 * e, 2);
        uint32_t bits = uint32_t{h} << 16;
        float f;
        std::memcpy(&f, &bits, 4);
        dst[e] = f;
      }
      return;
    case DType::Int8:
      for (int64_t e = 0; e < count; ++e) dst[e] = static_cast<int8_t>(src[e]);
      return;
    case DType::UInt8:
      for (int64_t e = 0; e < count; ++e) dst[e] = src[e];
      return;
    default:
      for (int64_t e = 0; e < count; ++e) {
        RtValue v;
        load_scalar(v, d, src + e * size);
        dst[e] = dtype_is_float(d) ? v.f : static_cast<double>(v.i);
      }
  }
}

// B's Zn fractals (fractal (kk / C0, j / 16) holds column j's C0 elements of K contiguous) widened and turned
// round into K rows of n doubles, a fractal at a time (it stays in the L1 cache). `whole` handles a whole
// 16-column fractal of K's full C0 when it can (returns false otherwise).
template <typename Widen, typename Whole>
ASC_MMAD_INLINE void unpack_zn(DType d, const uint8_t* zn, int64_t n, int64_t k, double* cols, Widen widen,
                               Whole whole) {
  int64_t c0 = 32 / dtype_size(d), k1 = (k + c0 - 1) / c0, n1 = (n + 15) / 16;
  double fractal[512];  // 16 columns of C0 (8..32) elements
  for (int64_t f = 0; f < k1; ++f)
    for (int64_t jb = 0; jb < n1; ++jb) {
      const uint8_t* from = zn + (f * n1 + jb) * 512;
      int64_t kv = std::min(c0, k - f * c0), jv = std::min<int64_t>(16, n - jb * 16);
      double* to = cols + f * c0 * n + jb * 16;
      if (kv == c0 && jv == 16 && whole(d, from, to, n)) continue;
      widen(d, from, fractal, 16 * c0);
      for (int64_t e = 0; e < kv; ++e)
        for (int64_t jj = 0; jj < jv; ++jj) to[e * n + jj] = fractal[jj * c0 + e];
    }
}

ASC_MMAD_INLINE bool no_whole(DType, const uint8_t*, double*, int64_t) { return false; }

void sums_baseline(const MmadA& a, const double* b, int64_t ldb, const MmadOut& out, int64_t m, int64_t n, int64_t k) {
  sums<2, 4, 3>(a, b, ldb, out, m, n, k);
}

void widen_baseline(DType d, const uint8_t* src, double* dst, int64_t count) {
  if (d == DType::Float16) return widen_half_scalar(src, dst, count);
  widen_generic(d, src, dst, count);
}

void unpack_zn_baseline(DType d, const uint8_t* zn, int64_t n, int64_t k, double* cols) {
  unpack_zn(d, zn, n, k, cols, widen_baseline, no_whole);
}

#if ASC_MMAD_X86
__attribute__((target("avx2,fma,f16c"))) void sums_avx2(const MmadA& a, const double* b, int64_t ldb,
                                                        const MmadOut& out, int64_t m, int64_t n, int64_t k) {
  sums<4, 4, 3>(a, b, ldb, out, m, n, k);
}

// vcvtph2ps (F16C; the AVX-512 kernels use it too): 8 halves to 8 floats, the IEEE conversion (exact; NaNs
// quieted) the compiler's own does.
__attribute__((target("avx2,fma,f16c"))) void widen_avx2(DType d, const uint8_t* src, double* dst, int64_t count) {
  if (d != DType::Float16) return widen_generic(d, src, dst, count);
  int64_t e = 0;
  for (; e + 8 <= count; e += 8) {
    __m256 f = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * e)));
    _mm256_storeu_pd(dst + e, _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
    _mm256_storeu_pd(dst + e + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
  }
  widen_half_scalar(src + 2 * e, dst + e, count - e);
}

__attribute__((target("avx512f,avx2,fma,f16c"))) void sums_avx512(const MmadA& a, const double* b, int64_t ldb,
                                                                  const MmadOut& out, int64_t m, int64_t n, int64_t k) {
  sums<8, 8, 3>(a, b, ldb, out, m, n, k);
}

// A whole float16 fractal (16 columns of 16 K elements, 32 bytes each) turned round in registers, in four
// 8 x 8 blocks: each column's 8 elements widened to floats (vcvtph2ps), the block transposed by the usual three
// rounds of shuffles (unpack, shuffle_ps, permute2f128), each row of 8 widened to doubles (vcvtps2pd) and
// stored: the same values as widening them and moving them one by one.
__attribute__((target("avx2,fma,f16c"))) bool whole_half_avx2(DType d, const uint8_t* from, double* to, int64_t ld) {
  if (d != DType::Float16) return false;
  for (int jb = 0; jb < 2; ++jb)
    for (int kb = 0; kb < 2; ++kb) {
      __m256 r[8], t[8];
      for (int j = 0; j < 8; ++j)
        r[j] = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(from + 32 * (8 * jb + j) + 16 * kb)));
      for (int j = 0; j < 8; j += 2) {
        t[j] = _mm256_unpacklo_ps(r[j], r[j + 1]);
        t[j + 1] = _mm256_unpackhi_ps(r[j], r[j + 1]);
      }
      for (int j = 0; j < 8; j += 4) {
        r[j] = _mm256_shuffle_ps(t[j], t[j + 2], 0x44);
        r[j + 1] = _mm256_shuffle_ps(t[j], t[j + 2], 0xee);
        r[j + 2] = _mm256_shuffle_ps(t[j + 1], t[j + 3], 0x44);
        r[j + 3] = _mm256_shuffle_ps(t[j + 1], t[j + 3], 0xee);
      }
      for (int q = 0; q < 4; ++q) {
        t[q] = _mm256_permute2f128_ps(r[q], r[q + 4], 0x20);
        t[q + 4] = _mm256_permute2f128_ps(r[q], r[q + 4], 0x31);
      }
      for (int e = 0; e < 8; ++e) {
        double* row = to + (8 * kb + e) * ld + 8 * jb;
        _mm256_storeu_pd(row, _mm256_cvtps_pd(_mm256_castps256_ps128(t[e])));
        _mm256_storeu_pd(row + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(t[e], 1)));
      }
    }
  return true;
}

__attribute__((target("avx2,fma,f16c"))) void unpack_zn_avx2(DType d, const uint8_t* zn, int64_t n, int64_t k,
                                                             double* cols) {
  unpack_zn(d, zn, n, k, cols, widen_avx2, whole_half_avx2);
}

#endif

std::vector<MmadKernel> pick() {
  std::vector<MmadKernel> all;
#if ASC_MMAD_X86
  __builtin_cpu_init();
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;  // F16C: CPUID leaf 1, ECX bit 29 (clang has no "f16c" name)
  bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
  bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && f16c;
  if (avx2 && __builtin_cpu_supports("avx512f")) all.push_back({"avx512f", sums_avx512, widen_avx2, unpack_zn_avx2});
  if (avx2) all.push_back({"avx2+fma", sums_avx2, widen_avx2, unpack_zn_avx2});
#endif
  all.push_back({"baseline", sums_baseline, widen_baseline, unpack_zn_baseline});
  return all;
}

}  // namespace

const std::vector<MmadKernel>& mmad_kernels() {
  static const std::vector<MmadKernel> all = pick();
  return all;
}

void widen_to_double(DType d, const uint8_t* src, double* dst, int64_t count) {
  static const auto widen = mmad_kernels().front().widen;
  widen(d, src, dst, count);
}

void unpack_zn(DType d, const uint8_t* zn, int64_t n, int64_t k, double* cols) {
  static const auto unpack = mmad_kernels().front().unpack_zn;
  unpack(d, zn, n, k, cols);
}

void mmad_sums(const MmadA& a, const double* b, int64_t ldb, const MmadOut& out, int64_t m, int64_t n, int64_t k) {
  static const auto run = mmad_kernels().front().sums;
  if (m > 0 && n > 0) run(a, b, ldb, out, m, n, k);
}

}  // namespace asc::sim
