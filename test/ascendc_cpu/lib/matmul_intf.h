// The CPU stand-in for Ascend C's Matmul object (lib/matmul_intf.h), as the
// emitter writes it in mix kernels: REGIST_MATMUL_OBJ, SetTensorA/B, SetBias,
// DisableBias, SetTail, SetOrgShape, Iterate, GetTensorC, IterateAll, End.
// Test tree only. It is an implementation of the documented API of its own,
// not a copy of the Model's expansion (python/asc/language/adv/
// matmul_kernels.py): each baseM x baseN block is summed natively, K in baseK
// steps as the cube unit's mmad does (a step's products summed exactly, then
// added to the float32 / int32 accumulator), put into L0C, and moved out by
// the header's Fixpipe, so the conversion and atomics are the Model's. The
// round trip then checks the two against each other bit for bit. To compare
// the workspace too, GetTensorC into the Unified Buffer stages the block where
// the Model does: at the vector core's 256 KiB slice of the workspace.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernel_operator.h"
#include "kernel_tiling/kernel_tiling.h"

enum class CubeFormat : int { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };

// On the cube core the real macro serves the vector cores' calls and returns, as the Model's cube core stops at
// register_matmul; a vector core's object takes the workspace and the tiling.
#define REGIST_MATMUL_OBJ(pipe, workspace, mm, tiling) \
  if (ASCEND_IS_AIC) return;                           \
  (mm).AscCpuRegister((workspace), (tiling))

namespace AscendC {

template <TPosition POSITION, CubeFormat FORMAT, typename TYPE, bool ISTRANS = false>
struct MatmulType {
  using T = TYPE;
  static constexpr TPosition pos = POSITION;
  static constexpr bool isTrans = ISTRANS;
};

template <typename A_TYPE, typename B_TYPE, typename C_TYPE, typename BIAS_TYPE = C_TYPE>
class Matmul {
  using SrcT = typename A_TYPE::T;
  using DstT = typename C_TYPE::T;
  using BiasT = typename BIAS_TYPE::T;
  using AccT = std::conditional_t<std::is_same_v<SrcT, int8_t>, int32_t, float>;
  static constexpr uint64_t kWorkspaceBlock = 256 * 1024;  // bytes of workspace per vector core

 public:
  void AscCpuRegister(GM_ADDR workspace, const tiling::TCubeTiling* tiling) {
    workspace_ = workspace;
    Init(tiling);
  }
  void Init(const tiling::TCubeTiling* tiling) { t_ = *tiling; }
  void SetTensorA(const GlobalTensor<SrcT>& gm, bool transpose = false) {
    a_ = gm;
    a_trans_ = transpose;
  }
  void SetTensorB(const GlobalTensor<SrcT>& gm, bool transpose = false) {
    b_ = gm;
    b_trans_ = transpose;
  }
  void SetBias(const GlobalTensor<BiasT>& gm) {
    bias_ = gm;
    bias_on_ = true;
  }
  void DisableBias() { bias_on_ = false; }
  void SetTail(int m = -1, int n = -1, int k = -1) {
    tail_m_ = m;
    tail_n_ = n;
    tail_k_ = k;
  }
  void SetOrgShape(int m, int n, int ka, int kb, int = 0) {
    org_ = true;
    org_m_ = m;
    org_n_ = n;
    org_ka_ = ka;
    org_kb_ = kb;
  }

  // The next block of this core's share, into L0C: M first (iterateOrder 0) or N first. False after the last.
  bool Iterate(bool = false) {
    int64_t m_iter = ceil_div(single_m(), t_.baseM), n_iter = ceil_div(single_n(), t_.baseN);
    if (count_ >= m_iter * n_iter) {
      count_ = 0;
      return false;
    }
    int64_t mi = count_ % m_iter, ni = count_ / m_iter;
    if (t_.iterateOrder == 1) mi = count_ / n_iter, ni = count_ % n_iter;
    ++count_;
    begin_block(mi, ni);
    return true;
  }
  // The block Iterate computed: into GM at its place in C (or at `gm` itself with enSequentialWrite), ...
  void GetTensorC(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false) {
    if (enSequentialWrite)
      out(gm, cn_, enAtomic);
    else
      out(gm[static_cast<uint64_t>(m0_ * c_row() + n0_)], c_row(), enAtomic);
  }
  // ... or densely into the Unified Buffer, through the workspace (Atlas A2 has no L0C -> UB path).
  void GetTensorC(const LocalTensor<DstT>& ub, uint8_t = 0, bool = false) {
    GlobalTensor<DstT> staging;
    staging.SetGlobalBuffer(reinterpret_cast<__gm__ DstT*>(workspace_) +
                            GetBlockIdx() * static_cast<int64_t>(kWorkspaceBlock / 4));
    out(staging, cn_, 0);
    DataCopy(ub, staging, static_cast<uint32_t>(cm_ * cn_));
    SetFlag<HardEvent::MTE2_V>(0);
    WaitFlag<HardEvent::MTE2_V>(0);
  }
  void IterateAll(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0) {
    int64_t m_iter = ceil_div(single_m(), t_.baseM), n_iter = ceil_div(single_n(), t_.baseN);
    for (int64_t mi = 0; mi < m_iter; ++mi)
      for (int64_t ni = 0; ni < n_iter; ++ni) {
        begin_block(mi, ni);
        out(gm[static_cast<uint64_t>(m0_ * c_row() + n0_)], c_row(), enAtomic);
      }
  }
  void End() {}

 private:
  static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
  int64_t single_m() const { return tail_m_ != -1 ? tail_m_ : t_.singleCoreM; }
  int64_t single_n() const { return tail_n_ != -1 ? tail_n_ : t_.singleCoreN; }
  int64_t single_k() const { return tail_k_ != -1 ? tail_k_ : t_.singleCoreK; }
  // Row lengths in GM: A's (Ka, or M stored transposed), B's (N, or Kb transposed), C's (N).
  int64_t a_row() const { return a_trans_ ? (org_ ? org_m_ : t_.M) : (org_ ? org_ka_ : t_.Ka); }
  int64_t b_row() const { return b_trans_ ? (org_ ? org_kb_ : t_.Kb) : (org_ ? org_n_ : t_.N); }
  int64_t c_row() const { return org_ ? org_n_ : t_.N; }

  // Block (mi, ni) into L0C at 0, in its NZ layout: element (i, j) at ((j / 16) * ceil16(m) + i) * 16 + j % 16.
  void begin_block(int64_t mi, int64_t ni) {
    m0_ = mi * t_.baseM;
    n0_ = ni * t_.baseN;
    cm_ = std::min<int64_t>(t_.baseM, single_m() - m0_);
    cn_ = std::min<int64_t>(t_.baseN, single_n() - n0_);
    int64_t sk = single_k(), ma = ceil_div(cm_, 16) * 16, n1 = ceil_div(cn_, 16);
    const SrcT* a = a_.GetPhyAddr();
    const SrcT* b = b_.GetPhyAddr();
    // the elements this block reads, checked once: A's rows m0.., columns ..sk (or transposed), B's likewise
    auto last = [](int64_t rows, int64_t cols, int64_t row) { return (rows - 1) * row + cols; };
    const SrcT* a_end = a + (a_trans_ ? last(sk, m0_ + cm_, a_row()) : last(m0_ + cm_, sk, a_row()));
    const SrcT* b_end = b + (b_trans_ ? last(n0_ + cn_, sk, b_row()) : last(sk, n0_ + cn_, b_row()));
    ascendc_cpu::check_gm(a, a_end);
    ascendc_cpu::check_gm(b, b_end);
    std::vector<AccT> c(static_cast<size_t>(n1 * ma * 16));
    for (int64_t i = 0; i < cm_; ++i)
      for (int64_t j = 0; j < cn_; ++j) {
        AccT acc = bias_on_ ? bias_at(n0_ + j) : AccT{};
        for (int64_t k0 = 0; k0 < sk; k0 += t_.baseK) {
          double sum = 0;
          for (int64_t k = k0; k < std::min<int64_t>(sk, k0 + t_.baseK); ++k)
            sum += element(a, m0_ + i, k, a_row(), a_trans_) * element(b, k, n0_ + j, b_row(), b_trans_);
          acc = accumulate(sum, acc);
        }
        c[static_cast<size_t>(((j / 16) * ma + i) * 16 + j % 16)] = acc;
      }
    LocalTensor<AccT> l0c(TPosition::CO1, 0, 32768);
    ascendc_cpu::write_local(l0c.operand(), c.data(), c.size() * sizeof(AccT));
  }
  static double element(const SrcT* p, int64_t r, int64_t col, int64_t row, bool trans) {
    return static_cast<double>(static_cast<float>(trans ? p[col * row + r] : p[r * row + col]));
  }
  AccT bias_at(int64_t j) const {
    const BiasT* p = bias_.GetPhyAddr() + j;
    ascendc_cpu::check_gm(p, p + 1);
    return static_cast<AccT>(*p);
  }
  // mmad: a step's exact sum added to the accumulator, rounded once
  static AccT accumulate(double sum, AccT acc) {
    if constexpr (std::is_same_v<AccT, int32_t>)
      return static_cast<int32_t>(static_cast<int64_t>(sum) + acc);
    else
      return static_cast<float>(sum + acc);
  }
  // L0C -> GM, rows `row` elements apart, converted to C's dtype; enAtomic 1, 2, 3: add, max, min.
  void out(const GlobalTensor<DstT>& dst, int64_t row, uint8_t atomic) {
    LocalTensor<AccT> l0c(TPosition::CO1, 0, 32768);
    if (atomic == 1) SetAtomicAdd<DstT>();
    if (atomic == 2) SetAtomicMax<DstT>();
    if (atomic == 3) SetAtomicMin<DstT>();
    QuantMode_t quant = std::is_same_v<DstT, half> ? QuantMode_t::F322F16 : QuantMode_t::NoQuant;
    Fixpipe<DstT, AccT, CFG_ROW_MAJOR>(dst, l0c,
                                       FixpipeParamsV220(static_cast<uint16_t>(cn_), static_cast<uint16_t>(cm_),
                                                         static_cast<uint16_t>(ceil_div(cm_, 16) * 16),
                                                         static_cast<uint32_t>(row), false, quant, 0, 1, 0, 0, 0));
    if (atomic) SetAtomicNone();
  }

  tiling::TCubeTiling t_{};
  GM_ADDR workspace_ = nullptr;
  GlobalTensor<SrcT> a_, b_;
  GlobalTensor<BiasT> bias_;
  bool a_trans_ = false, b_trans_ = false, bias_on_ = false, org_ = false;
  int64_t tail_m_ = -1, tail_n_ = -1, tail_k_ = -1;
  int64_t org_m_ = 0, org_n_ = 0, org_ka_ = 0, org_kb_ = 0;
  int64_t count_ = 0;                          // Iterate calls so far in this round
  int64_t m0_ = 0, n0_ = 0, cm_ = 0, cn_ = 0;  // the current block
};

}  // namespace AscendC
