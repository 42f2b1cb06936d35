// The host arithmetic behind the Model's mmad (cube_ops.cpp): operands widened
// to double, and the sums of products of A (m x k) and B (k x n), vectorised
// across N on this host's widest vector unit (AVX-512, AVX2 + FMA, or the
// compiler's baseline), chosen once at run time. Every element's sum is the
// same sequence of double operations a plain loop over K does
// (docs/performance.md, "The cube's mmad on the host").
#pragma once

#include <cstdint>
#include <vector>

#include "ir/types.h"

namespace asc::sim {

// A's element (i, kk) is a[(i / 16) * group + (i % 16) * row + (kk / chunk) * chunk_stride + kk % chunk]:
// row-major rows (group 16 * lda, row lda, one chunk of k) and L0A's Zz fractals of doubles (group k1 * 16 *
// C0, row C0, chunk C0, chunk_stride 16 * C0) alike.
struct MmadA {
  const double* a = nullptr;
  int64_t group = 0, row = 0, chunk = 1, chunk_stride = 0;
};

// Where the sums go: dense doubles (sums, rows lds apart), or a float32 L0C (l0c: Nz, element (i, j) at byte
// ((j / 16) * fractal_stride + i * 16 + j % 16) * 4) as float(sum + before), `before` the float32 bias[j] (bias),
// the element's own value (accumulate) or +0.0.
struct MmadOut {
  double* sums = nullptr;
  int64_t lds = 0;
  uint8_t* l0c = nullptr;
  int64_t fractal_stride = 0;
  const uint8_t* bias = nullptr;
  bool accumulate = false;
};

// dst[e] = the value of element e of src (count elements of dtype d), exactly: every dtype mmad takes is a
// subset of double.
void widen_to_double(DType d, const uint8_t* src, double* dst, int64_t count);

// B's k x n elements from L0B's Zn fractals (fractal (kk / C0, j / 16) at (kk / C0) * ceil(n / 16) + j / 16,
// column j's C0 elements of K contiguous in it) as K rows of n doubles: cols[kk * n + j].
void unpack_zn(DType d, const uint8_t* zn, int64_t n, int64_t k, double* cols);

// sum(i, j) = ((0 + a(i, 0) b[0 * ldb + j]) + a(i, 1) b[1 * ldb + j]) + ... + a(i, k - 1) b[(k - 1) * ldb + j]
// for i < m, j < n, in double, each product exact (products of float16, bfloat16, float32 or 8-bit integers
// need at most 48 of double's 53 bits), so a fused multiply-add gives the bits a multiply and an add would.
void mmad_sums(const MmadA& a, const double* b, int64_t ldb, const MmadOut& out, int64_t m, int64_t n, int64_t k);

// One compiled variant of the three. mmad_kernels(): those this host can run, widest first; the functions above
// use the first. Tests run every one.
struct MmadKernel {
  const char* isa;  // "avx512f", "avx2+fma" or "baseline"
  void (*sums)(const MmadA&, const double*, int64_t, const MmadOut&, int64_t, int64_t, int64_t);
  void (*widen)(DType, const uint8_t*, double*, int64_t);
  void (*unpack_zn)(DType, const uint8_t*, int64_t, int64_t, double*);
};
const std::vector<MmadKernel>& mmad_kernels();

}  // namespace asc::sim
