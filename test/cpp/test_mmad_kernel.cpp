// The Model's vectorised mmad arithmetic (src/sim/mmad_kernel.cpp), every variant this host runs, against the
// plain loops it replaces: widening bit for bit against load_scalar, and the sums bit for bit against a double
// sum in ascending K, on operands whose sums round (so another order of K would give other bits: checked).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "sim/mmad_kernel.h"
#include "sim/scalar_math.h"

namespace asc::sim {
namespace {

uint64_t bits(double x) {
  uint64_t u;
  std::memcpy(&u, &x, 8);
  return u;
}

uint32_t bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}

double reference_element(DType d, const uint8_t* p) {
  RtValue v;
  load_scalar(v, d, p);
  return dtype_is_float(d) ? v.f : static_cast<double>(v.i);
}

TEST(MmadKernel, HostRunsTheBaselineAtLeast) {
  const auto& all = mmad_kernels();
  ASSERT_FALSE(all.empty());
  EXPECT_STREQ(all.back().isa, "baseline");
}

// Every float16 and bfloat16 bit pattern (NaNs and subnormals included), every 8-bit integer and float32's
// specials, odd counts included (the vector loops' tails).
TEST(MmadKernel, WideningMatchesLoadScalarBitForBit) {
  std::vector<uint8_t> halves(65536 * 2 + 2);
  for (uint32_t h = 0; h < 65536; ++h) std::memcpy(halves.data() + 2 * h, &h, 2);
  std::vector<uint8_t> bytes(256);
  for (int i = 0; i < 256; ++i) bytes[static_cast<size_t>(i)] = static_cast<uint8_t>(i);
  std::vector<float> floats = {0.0f, -0.0f, 1.0f, -3.5f, 1e-45f, -1e-40f, 3.4e38f, INFINITY, -INFINITY, NAN};
  uint32_t snan = 0x7fa00001u;
  floats.push_back(0);
  std::memcpy(&floats.back(), &snan, 4);
  struct Case {
    DType d;
    const uint8_t* p;
    int64_t count;
  };
  const Case cases[] = {
      {DType::Float16, halves.data(), 65536},
      {DType::Float16, halves.data() + 2, 65531},
      {DType::BFloat16, halves.data(), 65536},
      {DType::Int8, bytes.data(), 256},
      {DType::UInt8, bytes.data(), 255},
      {DType::Float32, reinterpret_cast<const uint8_t*>(floats.data()), static_cast<int64_t>(floats.size())}};
  for (const MmadKernel& k : mmad_kernels())
    for (const Case& c : cases) {
      std::vector<double> got(static_cast<size_t>(c.count));
      k.widen(c.d, c.p, got.data(), c.count);
      int64_t size = dtype_size(c.d), wrong = 0;
      for (int64_t e = 0; e < c.count; ++e)
        wrong += bits(got[static_cast<size_t>(e)]) != bits(reference_element(c.d, c.p + e * size));
      EXPECT_EQ(wrong, 0) << k.isa << " " << dtype_name(c.d);
    }
}

// L0B's Zn fractals into K rows of N: whole and partial fractals (float16's in registers on x86), every byte
// pattern, against the layout's formula and load_scalar.
TEST(MmadKernel, ZnUnpackTurnsFractalsRound) {
  std::mt19937 rng(25);
  const int64_t shapes[][2] = {{16, 16}, {32, 48}, {171, 64}, {7, 5}, {20, 33}, {256, 80}};
  for (const MmadKernel& kern : mmad_kernels())
    for (DType d : {DType::Float16, DType::BFloat16, DType::Float32, DType::Int8})
      for (const auto& s : shapes) {
        int64_t n = s[0], k = s[1], size = dtype_size(d), c0 = 32 / size, n1 = (n + 15) / 16;
        int64_t k1 = (k + c0 - 1) / c0;
        std::vector<uint8_t> zn(static_cast<size_t>(k1 * n1 * 512));
        for (uint8_t& x : zn) x = static_cast<uint8_t>(rng());
        std::vector<double> got(static_cast<size_t>(k * n), -7.0);
        kern.unpack_zn(d, zn.data(), n, k, got.data());
        int64_t wrong = 0;
        for (int64_t kk = 0; kk < k; ++kk)
          for (int64_t j = 0; j < n; ++j) {
            int64_t at = (((kk / c0) * n1 + j / 16) * 16 + j % 16) * c0 + kk % c0;
            wrong += bits(got[static_cast<size_t>(kk * n + j)]) != bits(reference_element(d, zn.data() + at * size));
          }
        EXPECT_EQ(wrong, 0) << kern.isa << " " << dtype_name(d) << " n " << n << " k " << k;
      }
}

// Finite float16 values of every magnitude, so that products span 2^-48 .. 2^31 and a double sum of a few
// of them rounds.
double random_half(std::mt19937& rng) {
  for (;;) {
    auto h = static_cast<uint16_t>(rng());
    if ((h & 0x7c00u) == 0x7c00u) continue;  // not inf or NaN
    _Float16 x;
    std::memcpy(&x, &h, 2);
    return static_cast<double>(static_cast<float>(x));
  }
}

struct Product {
  int64_t m, n, k;
  std::vector<double> a, b;  // A row-major (m x k), B row-major (k x n)
  double at(int64_t i, int64_t j, bool descending) const {
    double sum = 0;
    for (int64_t e = 0; e < k; ++e) {
      int64_t kk = descending ? k - 1 - e : e;
      sum += a[static_cast<size_t>(i * k + kk)] * b[static_cast<size_t>(kk * n + j)];
    }
    return sum;
  }
};

Product random_product(std::mt19937& rng, int64_t m, int64_t n, int64_t k) {
  Product p{m, n, k, std::vector<double>(static_cast<size_t>(m * k)), std::vector<double>(static_cast<size_t>(k * n))};
  for (double& x : p.a) x = random_half(rng);
  for (double& x : p.b) x = random_half(rng);
  return p;
}

const int64_t kShapes[][3] = {{1, 1, 1},    {1, 1, 0},   {3, 5, 7},   {8, 24, 16}, {9, 25, 17},   {16, 16, 16},
                              {13, 47, 33}, {40, 16, 5}, {24, 8, 64}, {17, 9, 48}, {128, 72, 20}, {7, 100, 3}};

TEST(MmadKernel, SumsAreTheDoubleSumInAscendingK) {
  std::mt19937 rng(20261202);
  for (const MmadKernel& kern : mmad_kernels()) {
    int64_t order_matters = 0;
    for (const auto& s : kShapes) {
      Product p = random_product(rng, s[0], s[1], s[2]);
      std::vector<double> got(static_cast<size_t>(p.m * p.n), -1.0);
      MmadA a{p.a.data(), 16 * p.k, p.k, std::max<int64_t>(p.k, 1), 0};
      MmadOut out;
      out.sums = got.data();
      out.lds = p.n;
      kern.sums(a, p.b.data(), p.n, out, p.m, p.n, p.k);
      int64_t wrong = 0;
      for (int64_t i = 0; i < p.m; ++i)
        for (int64_t j = 0; j < p.n; ++j) {
          double want = p.at(i, j, false);
          wrong += bits(got[static_cast<size_t>(i * p.n + j)]) != bits(want);
          order_matters += bits(p.at(i, j, true)) != bits(want);
        }
      EXPECT_EQ(wrong, 0) << kern.isa << " " << p.m << " x " << p.n << " x " << p.k;
    }
    EXPECT_GT(order_matters, 100) << "the operands must make K's order show in the bits";
  }
}

// A in L0A's Zz fractals (C0 = 16: float16's), and float32 results written into an Nz L0C: float(sum +
// before), before the bias, the old value, or +0.
TEST(MmadKernel, FractalOperandAndFloatL0cOutput) {
  std::mt19937 rng(7);
  const int64_t c0 = 16;
  for (const MmadKernel& kern : mmad_kernels())
    for (const auto& s : kShapes) {
      Product p = random_product(rng, s[0], s[1], s[2]);
      int64_t m1 = (p.m + 15) / 16, n1 = (p.n + 15) / 16, k1 = (p.k + c0 - 1) / c0;
      std::vector<double> zz(static_cast<size_t>(m1 * k1 * 16 * c0), NAN);  // padding never read
      for (int64_t i = 0; i < p.m; ++i)
        for (int64_t kk = 0; kk < p.k; ++kk)
          zz[static_cast<size_t>(((i / 16) * k1 + kk / c0) * 16 * c0 + (i % 16) * c0 + kk % c0)] =
              p.a[static_cast<size_t>(i * p.k + kk)];
      std::vector<float> bias(static_cast<size_t>(p.n));
      for (float& x : bias) x = static_cast<float>(random_half(rng));
      for (int mode = 0; mode < 3; ++mode) {  // init, accumulate, bias
        std::vector<float> l0c(static_cast<size_t>(m1 * n1 * 256));
        for (float& x : l0c) x = static_cast<float>(random_half(rng));
        std::vector<float> before = l0c;
        MmadOut out;
        out.l0c = reinterpret_cast<uint8_t*>(l0c.data());
        out.fractal_stride = m1 * 256;
        out.accumulate = mode == 1;
        out.bias = mode == 2 ? reinterpret_cast<const uint8_t*>(bias.data()) : nullptr;
        kern.sums(MmadA{zz.data(), k1 * 16 * c0, c0, c0, 16 * c0}, p.b.data(), p.n, out, p.m, p.n, p.k);
        int64_t wrong = 0;
        for (int64_t i = 0; i < m1 * 16; ++i)
          for (int64_t j = 0; j < n1 * 16; ++j) {
            size_t at = static_cast<size_t>((j / 16) * m1 * 256 + i * 16 + j % 16);
            float want = before[at];  // outside m x n: untouched
            if (i < p.m && j < p.n) {
              double prev = mode == 0 ? 0.0 : mode == 1 ? before[at] : bias[static_cast<size_t>(j)];
              want = static_cast<float>(p.at(i, j, false) + prev);
            }
            wrong += bits(l0c[at]) != bits(want);
          }
        EXPECT_EQ(wrong, 0) << kern.isa << " mode " << mode << " " << p.m << " x " << p.n << " x " << p.k;
      }
    }
}

}  // namespace
}  // namespace asc::sim
