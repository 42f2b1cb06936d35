// The CPU stand-in for Ascend C's Matmul object (lib/matmul_intf.h), as the
// emitter writes it in mix kernels: REGIST_MATMUL_OBJ, SetTensorA/B (GM or a
// scalar), SetBias (GM or UB), DisableBias, SetTail / SetSingleShape,
// SetOrgShape, SetWorkspace, SetHF32, SetQuantScalar / SetQuantVector, the
// callback data (SetSelfDefineData, SetUserDefInfo, SetSparseIndex: kept, not
// used), Iterate, GetTensorC (GM, UB, both, or returned from the workspace),
// AsyncGetTensorC, GetOffsetC, IterateAll (GM or UB), IterateNBatch (NORMAL
// layout) with GetBatchTensorC, the waits, End; and the MatmulConfig template
// argument (its iterateOrder is read) with GetMatmulApiTiling (its derived iterateOrder).
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
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernel_operator.h"
#include "kernel_tiling/kernel_tiling.h"

enum class CubeFormat : int { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };
enum class LayoutMode : int { NONE = 0, NORMAL, BSNGD, SBNGD, BNGS1S2 };

// Ascend C's MatmulConfig: the members the emitter sets, each by its own type (decltype).
struct MatmulConfig {
  bool doNorm, doBasicBlock, doMultiDataLoad;
  uint32_t basicM, basicN, basicK;
  bool intrinsicsCheck, isNBatch, enVecND2NZ, doSpecialBasicBlock;
  uint32_t doMTE2Preload, singleCoreM, singleCoreN, singleCoreK, stepM, stepN, baseMN, singleCoreMN;
  bool enUnitFlag, isPerTensor, hasAntiQuantOffset, doIBShareNorm, doSpecialMDL, enableInit;
  int32_t batchMode;
  bool enableEnd, enableGetTensorC, enableSetOrgShape, enableSetBias, enableSetTail, enableQuantVector,
      enableSetDefineData;
  uint8_t iterateMode;
  bool enableReuse, enableUBReuse, enableL1CacheUB, intraBlockPartSum;
  int32_t iterateOrder, scheduleType;
  bool enableDoubleCache, isBiasBatch, enableStaticPadZeros, isPartialOutput, enableMixDualMaster, isA2B2Shared,
      isEnableChannelSplit, enableKdimReorderLoad, isCO1Shared;
  uint32_t sharedCO1BufferSize;
  int32_t batchOutMode;
};
constexpr MatmulConfig CFG_NORM_SHIM() {
  MatmulConfig c{};
  c.doNorm = true;
  c.iterateOrder = 2;  // UNDEF: the tiling's
  c.isBiasBatch = true;
  return c;
}
constexpr MatmulConfig CFG_NORM = CFG_NORM_SHIM();

// GetMatmulApiTiling's constant tiling: the configuration's shapes and what Ascend C derives from them; here
// only iterateOrder of the derived fields (the one the Matmul reads), from the L1 factors of the first of "A and
// B whole in L1", "A whole", "B whole" that fits, else "neither whole" (-1 when the single-core shape is open).
// Operands in GM, as the emitter writes them.
struct MatmulApiStaticTiling {
  int32_t M = -1, N = -1, Ka = -1, Kb = -1, singleCoreM = -1, singleCoreN = -1, singleCoreK = -1, baseM = -1,
          baseN = -1, baseK = -1, shareL1Size = -1, iterateOrder = -1;
  MatmulConfig cfg{};
};
namespace asc_cpu_static {
constexpr int32_t Up(int32_t a, int32_t b) { return (a + b - 1) / b; }
constexpr int32_t Factor(int32_t base, int32_t f) {
  while (f > base || (f > 0 && base % f != 0)) --f;
  return f;
}
// kAL1, kBL1 (in 32-byte K blocks), mAL1, nBL1 (in base blocks) of the L1 split, or all 0 when it does not fit.
struct Split {
  int32_t ka, kb, m, n;
};
template <class A_TYPE, class B_TYPE, class BIAS_TYPE>
constexpr Split L1Split(const MatmulConfig& c, int32_t l1) {
  constexpr int32_t as = sizeof(typename A_TYPE::T), bs = sizeof(typename B_TYPE::T),
                    biass = sizeof(typename BIAS_TYPE::T);
  const int32_t bm = c.basicM, bn = c.basicN, bk = c.basicK, sm = c.singleCoreM, sn = c.singleCoreN;
  const int32_t red = 32 / as, k = Up(c.singleCoreK, red), kl0 = Up(bk, red), ml0 = Up(bm, 16), nl0 = Up(bn, 16);
  const int32_t mmax = Up(Up(sm, 16), ml0), nmax = Up(Up(sn, 16), nl0);
  const int32_t loop = 32 / ((nl0 == 1 ? 1 : kl0) + (kl0 == 1 ? 1 : ml0));
  const int32_t kamax = std::max(((32 + ml0 - 1) / ml0 + kl0 - 1) / kl0, loop);
  const int32_t kbmax = std::max(((32 + nl0 - 1) / nl0 + kl0 - 1) / kl0, loop);
  const int32_t kaal = (as == 4 && A_TYPE::isTrans) ? 2 : 1, kbal = (bs == 4 && !B_TYPE::isTrans) ? 2 : 1;
  const int32_t wise = c.enableSetBias ? (biass == 4 ? 2 : 1) : 0;
  const int32_t abk = Up(bk, kaal * red) * kaal * red, bbk = Up(bk, kbal * (32 / bs)) * kbal * (32 / bs);
  auto extra = [&](int32_t n, int32_t dbb) {
    return (c.enableSetBias ? n * bn * wise * dbb * biass : 0) + (c.enableQuantVector ? n * bn * 8 : 0);
  };
  auto used = [&](int32_t ka, int32_t kb, int32_t m, int32_t n, int32_t dba, int32_t dbb) {
    return dba * m * bm * Up(ka, kl0) * abk * as + dbb * n * bn * Up(kb, kl0) * bbk * bs + extra(n, dbb);
  };
  const int32_t kal = Up(k, kl0) * kl0;
  if (used(kal, kal, mmax, nmax, 1, 1) <= l1) return {kal, kal, mmax, nmax};
  bool outer = (c.doNorm || c.doMultiDataLoad) && c.scheduleType == 1;
  {  // A whole, B in K steps
    int32_t n = outer && c.iterateOrder == 0 ? 2 : 1, kb = kl0, dbb = 1;
    if (used(kal, kb, mmax, n, 1, 1) <= l1) {
      int32_t left = l1 - std::max(mmax * bm, Up(sm, 16) * 16) * Up(k, kl0) * abk * as;
      dbb = used(kal, kb, mmax, n, 1, 2) > l1 ? 1 : 2;
      kb = std::min((left - extra(n, dbb)) / (dbb * n * bn * bbk * bs) * kl0, k);
      kb = Factor(Up(k, kl0), std::min(kb / kl0, kbmax)) * kl0;
      if (kb == k) {
        int32_t len = left / (Up(kb, kbal) * kbal * bn * dbb * 32 + wise * bn * 32);
        n = Factor(Up(sn, bn), std::min(len, nmax));
      }
      if (n != 0 && kb != 0 && Up(k, kal) == 1) return {kal, kb, mmax, n};
    }
  }
  {  // B whole, A in K steps
    int32_t m = outer && c.iterateOrder == 1 ? 2 : 1, ka = kl0, dba = 1;
    if (used(ka, kal, m, nmax, 1, 1) <= l1) {
      int32_t left = l1 - std::max(nmax * bn, Up(sn, 16) * 16) * Up(k, kl0) * (Up(bk, kbal * red) * kbal * red) * bs;
      dba = used(ka, kal, m, nmax, 2, 1) > l1 ? 1 : 2;
      ka = std::min((left - extra(nmax, 1)) / (dba * m * bm * abk * as) * kl0, k);
      ka = Factor(Up(k, kl0), std::min(ka / kl0, kamax)) * kl0;
      if (ka == k) {
        int32_t len =
            (left - extra(nmax, 1) + (c.enableQuantVector ? nmax * bn * 8 : 0)) / (Up(ka, kaal) * kaal * bm * dba * 32);
        m = Factor(Up(sm, bm), std::min(len, mmax));
      }
      if (m != 0 && ka != 0 && Up(k, kal) == 1) return {ka, kal, m, nmax};
    }
  }
  // Neither whole (GetL1StatusNeitherFullLoad): the buffering, then the K steps along the layouts' axis, made
  // multiples of each other, then the base blocks of M and N.
  int32_t m = outer && c.iterateOrder == 1 ? 2 : 1, n = outer && c.iterateOrder == 0 ? 2 : 1;
  int32_t ka = kl0, kb = 2, dba = 2, dbb = 2;
  auto shrink = [&]() {
    if (used(ka, kb, m, n, dba, dbb) > l1) {
      dbb = 1;
      if (used(ka, kb, m, n, dba, dbb) > l1) dba = 1;
    }
  };
  shrink();
  kb = k;
  const bool again = Up(sm, 16) != ml0 && static_cast<int32_t>(c.singleCoreK) > bk && used(ka, kb, m, n, dba, dbb) > l1;
  kb = kl0;
  if (again) {
    dba = dbb = 2;
    shrink();
  }
  const int32_t ex = extra(n, dbb), times = Up(k, kl0);
  auto apart = [&](int32_t ka_, int32_t m_) { return dba * m_ * bm * Up(ka_, kl0) * abk * as; };
  auto bpart = [&](int32_t kb_, int32_t n_) { return dbb * n_ * bn * Up(kb_, kl0) * bbk * bs; };
  const int32_t axis = A_TYPE::isTrans ? (B_TYPE::isTrans ? 2 : 0) : (!B_TYPE::isTrans || bm > bn ? 1 : 2);
  if (axis == 0) {
    kb = k;
    if (used(ka, kb, m, n, dba, dbb) <= l1) {
      ka = std::min((l1 - bpart(kb, n) - ex) / (dba * m * bm * abk * as) * kl0, k);
      ka = Factor(times, std::max(std::min(ka / kl0, mmax), 1)) * kl0;
    } else {
      int32_t per = std::min((l1 - ex) / ((bm * dba + bn * dbb) * 32) / kl0 * kl0, k);
      int32_t bytes = m * bm * Up(per, kaal) * kaal * dba * as + n * bn * Up(per, kbal) * kbal * dbb * bs;
      if (std::is_same<typename A_TYPE::T, float>::value && bytes + ex > l1) --per;
      ka = kb = std::min(Factor(times, std::min(per / kl0, std::max(kamax, kbmax))), times) * kl0;
    }
  } else if (axis == 1) {
    ka = std::min((l1 - bpart(kb, n) - ex) / (m * bm * dba * 32), k);
    ka = Factor(times, std::max(ka / kl0, 1)) * kl0;
    kb = std::min((l1 - ka * m * bm * 32 * dba - ex) / (n * bn * dbb * bk * kl0 * bs), k);
    kb = Factor(times, std::max(std::min(kb / kl0, kbmax), 1)) * kl0;
  } else {
    ka = kl0;
    kb = std::min((l1 - apart(ka, m) - ex) / (n * bn * dbb * 32), k);
    kb = Factor(times, std::max(kb / kl0, 1)) * kl0;
    ka = std::min((l1 - kb * n * bn * 32 * dbb - ex) / (m * bm * dba * bk * kl0 * as), k);
    ka = Factor(times, std::max(std::min(ka / kl0, kamax), 1)) * kl0;
  }
  if (ka > kb && ka % kb != 0)
    while (ka % kb != 0 || (ka != kb && k % ka != 0)) --ka;
  if (ka < kb && kb % ka != 0)
    while (kb % ka != 0 || (ka != kb && k % kb != 0)) --kb;
  if (ka < k || kb < k) return {ka, kb, ka >= k ? m : 1, kb >= k ? n : 1};
  const int32_t m16 = Up(sm, 16), n16 = Up(sn, 16), mrep = Up(sm, bm), nrep = Up(sn, bn);
  auto len_m = [&](int32_t left) { return left / (Up(ka, kaal) * kaal * bm * dba * 32); };
  auto len_n = [&](int32_t left) { return left / (Up(kb, kbal) * kbal * bn * dbb * 32 + wise * bn * 32); };
  int32_t mf_m = Factor(mrep, std::max(std::min({len_m(l1 - bpart(kb, n) - ex), mmax, mrep}), 1));  // M first
  int32_t mf_n = Factor(mrep, std::max(std::min({len_n(l1 - apart(ka, mf_m) - ex), nmax, nrep}), 1));
  int32_t nf_n = Factor(nrep, std::max(std::min({len_n(l1 - apart(ka, m) - ex), nmax, nrep}), 1));  // N first
  int32_t nf_m = Factor(mrep, std::max(std::min({len_m(l1 - bpart(kb, nf_n) - ex), mmax, mrep}), 1));
  nf_n = Factor(mrep, nf_n);
  if (n16 + m16 * Up(n16, nf_n * nl0) > m16 + n16 * Up(m16, mf_m * ml0)) return {ka, kb, mf_m, mf_n};
  return {ka, kb, nf_m, nf_n};
}
}  // namespace asc_cpu_static
template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE>
constexpr MatmulApiStaticTiling GetMatmulApiTiling(const MatmulConfig& cfg, int32_t l1Size = 524288) {
  auto known = [](uint32_t v) { return v > 0 ? static_cast<int32_t>(v) : -1; };
  MatmulApiStaticTiling t{};
  t.baseM = known(cfg.basicM);
  t.baseN = known(cfg.basicN);
  t.baseK = known(cfg.basicK);
  t.cfg = cfg;
  if (cfg.singleCoreM == 0 || cfg.singleCoreN == 0 || cfg.singleCoreK == 0) return t;
  t.M = t.singleCoreM = known(cfg.singleCoreM);
  t.N = t.singleCoreN = known(cfg.singleCoreN);
  t.Ka = t.Kb = t.singleCoreK = known(cfg.singleCoreK);
  t.shareL1Size = l1Size;
  auto s = asc_cpu_static::L1Split<A_TYPE, B_TYPE, BIAS_TYPE>(cfg, l1Size);
  if (s.ka == 0) return t;
  const int32_t red = 32 / static_cast<int32_t>(sizeof(typename A_TYPE::T)), sk = cfg.singleCoreK;
  bool whole_a = sk <= s.ka * red, whole_b = sk <= s.kb * red;  // N first when only A's K is whole, or fewer reloads
  if (whole_a && whole_b) {
    int32_t sm = cfg.singleCoreM, sn = cfg.singleCoreN;
    int32_t ml = asc_cpu_static::Up(sm, s.m * cfg.basicM), nl = asc_cpu_static::Up(sn, s.n * cfg.basicN);
    t.iterateOrder = sm + sn * ml < sn + sm * nl ? 1 : 0;
  } else {
    t.iterateOrder = whole_a ? 1 : 0;
  }
  return t;
}
constexpr const MatmulConfig& AscCpuConfigOf(const MatmulConfig& c) { return c; }
constexpr const MatmulConfig& AscCpuConfigOf(const MatmulApiStaticTiling& t) { return t.cfg; }
// A constant tiling's fixed fields (>= 0) win over the run-time tiling's, as Ascend C's constant tiling makes them
// compile-time constants (the Model's _ConstantTiling likewise).
inline void AscCpuFix(const MatmulConfig&, AscendC::tiling::TCubeTiling&) {}
inline void AscCpuFix(const MatmulApiStaticTiling& s, AscendC::tiling::TCubeTiling& t) {
  auto fix = [](int32_t constant, int32_t& field) {
    if (constant >= 0) field = constant;
  };
  fix(s.M, t.M);
  fix(s.N, t.N);
  fix(s.Ka, t.Ka);
  fix(s.Kb, t.Kb);
  fix(s.singleCoreM, t.singleCoreM);
  fix(s.singleCoreN, t.singleCoreN);
  fix(s.singleCoreK, t.singleCoreK);
  fix(s.baseM, t.baseM);
  fix(s.baseN, t.baseN);
  fix(s.baseK, t.baseK);
  fix(s.iterateOrder, t.iterateOrder);
}
constexpr int32_t AscCpuOrderOf(const MatmulConfig& c) { return c.iterateOrder; }
constexpr int32_t AscCpuOrderOf(const MatmulApiStaticTiling& t) {
  return t.cfg.iterateOrder == 2 && t.iterateOrder >= 0 ? t.iterateOrder : t.cfg.iterateOrder;
}

// On the cube core the real macro serves the vector cores' calls and returns, as the Model's cube core stops at
// register_matmul; a vector core's object takes the workspace and the tiling.
#define REGIST_MATMUL_OBJ(pipe, workspace, mm, tiling) \
  if (ASCEND_IS_AIC) return;                           \
  (mm).AscCpuRegister((workspace), (tiling))

namespace AscendC {

template <TPosition POSITION, CubeFormat FORMAT, typename TYPE, bool ISTRANS = false,
          LayoutMode LAYOUT = LayoutMode::NONE>
struct MatmulType {
  using T = TYPE;
  static constexpr TPosition pos = POSITION;
  static constexpr bool isTrans = ISTRANS;
  static constexpr LayoutMode layout = LAYOUT;
};

struct MatrixOffset {
  int32_t offset;
  int32_t row, col;
  int32_t height, width;
};

template <typename A_TYPE, typename B_TYPE, typename C_TYPE, typename BIAS_TYPE = C_TYPE, const auto& MM_CFG = CFG_NORM>
class Matmul {
  using SrcT = typename A_TYPE::T;
  using DstT = typename C_TYPE::T;
  using BiasT = typename BIAS_TYPE::T;
  using AccT = std::conditional_t<std::is_same_v<SrcT, int8_t>, int32_t, float>;
  static constexpr uint64_t kWorkspaceBlock = 256 * 1024;       // bytes of workspace per vector core
  static constexpr uint64_t kWorkspaceBias = 14 * 1024 * 1024;  // a UB bias staged here, 16 KiB per core
  static constexpr uint32_t kQuantL1 = 458752;                  // L1 byte address of a block's quant words
  // 0 / 1 override the tiling's; UNDEF (2) leaves it to a constant tiling's, else to the run-time tiling's
  static constexpr int32_t kOrder = AscCpuOrderOf(MM_CFG);

 public:
  void AscCpuRegister(GM_ADDR workspace, const tiling::TCubeTiling* tiling) {
    workspace_ = workspace;
    Init(tiling);
  }
  void Init(const tiling::TCubeTiling* tiling) {
    t_ = *tiling;
    AscCpuFix(MM_CFG, t_);
  }
  void SetTensorA(const GlobalTensor<SrcT>& gm, bool transpose = false) {
    a_ = gm;
    a_trans_ = transpose;
    a_scalar_ = false;
  }
  void SetTensorB(const GlobalTensor<SrcT>& gm, bool transpose = false) {
    b_ = gm;
    b_trans_ = transpose;
    b_scalar_ = false;
  }
  // every element of A (B) is `value`
  void SetTensorA(SrcT value) {
    a_scalar_ = true;
    a_value_ = value;
  }
  void SetTensorB(SrcT value) {
    b_scalar_ = true;
    b_value_ = value;
  }
  void SetBias(const GlobalTensor<BiasT>& gm) {
    bias_ = gm;
    bias_on_ = true;
  }
  // a UB bias: its singleCoreN elements through this core's bias slot of the workspace
  void SetBias(const LocalTensor<BiasT>& ub) {
    GlobalTensor<BiasT> staged;
    staged.SetGlobalBuffer(reinterpret_cast<__gm__ BiasT*>(workspace_ + kWorkspaceBias) +
                           GetBlockIdx() * static_cast<int64_t>(16384 / sizeof(BiasT)));
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    DataCopyPad(staged, ub, DataCopyExtParams(1, static_cast<uint32_t>(single_n() * sizeof(BiasT)), 0, 0, 0));
    SetFlag<HardEvent::MTE3_MTE2>(0);
    WaitFlag<HardEvent::MTE3_MTE2>(0);
    SetBias(staged);
  }
  void SetSingleShape(int m, int n, int k) { SetTail(m, n, k); }
  template <class T>
  void SetWorkspace(GlobalTensor<T>& addr) {
    user_ws_ = reinterpret_cast<GM_ADDR>(const_cast<T*>(addr.GetPhyAddr()));
  }
  template <class T>
  void SetWorkspace(__gm__ const T* addr, int) {
    user_ws_ = reinterpret_cast<GM_ADDR>(const_cast<T*>(addr));
  }
  void SetHF32(bool enable = false, int32_t transMode = 0) {
    hf32_ = enable;
    hf32_towards_zero_ = transMode != 0;
  }
  void SetQuantScalar(uint64_t word) {
    quant_ = 1;
    quant_word_ = word;
  }
  void SetQuantVector(const GlobalTensor<uint64_t>& words) {
    quant_ = 2;
    quant_vector_ = words;
  }
  // the board's callbacks read these; the CPU stand-in has none
  void SetSelfDefineData(uint64_t data) { self_data_ = data; }
  void SetUserDefInfo(uint64_t info) { user_info_ = info; }
  void SetSparseIndex(const GlobalTensor<uint8_t>& index) { sparse_index_ = index; }
  void WaitIterateAll() {}
  void WaitIterateBatch() {}
  void WaitGetTensorC() {}
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
    if (kOrder == 1 || (kOrder == 2 && t_.iterateOrder == 1)) mi = count_ / n_iter, ni = count_ % n_iter;
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
  // ... or densely into the Unified Buffer, through the workspace (Atlas A2 has no L0C -> UB path) ...
  void GetTensorC(const LocalTensor<DstT>& ub, uint8_t = 0, bool = false) {
    GlobalTensor<DstT> staging;
    staging.SetGlobalBuffer(reinterpret_cast<__gm__ DstT*>(workspace_) +
                            GetBlockIdx() * static_cast<int64_t>(kWorkspaceBlock / 4));
    out(staging, cn_, 0);
    DataCopy(ub, staging, static_cast<uint32_t>(cm_ * cn_));
    SetFlag<HardEvent::MTE2_V>(0);
    WaitFlag<HardEvent::MTE2_V>(0);
  }
  // ... or both ...
  void GetTensorC(const GlobalTensor<DstT>& gm, const LocalTensor<DstT>& ub, uint8_t enAtomic = 0,
                  bool enSequentialWrite = false) {
    GetTensorC(gm, enAtomic, enSequentialWrite);
    GetTensorC(ub);
  }
  // ... or left, dense, in this core's slice of the workspace (set_workspace's from its start), returned.
  template <bool sync = true>
  GlobalTensor<DstT> GetTensorC(uint8_t = 0, bool = false) {
    GlobalTensor<DstT> block = workspace_slice();
    out(block, cn_, 0);
    return block;
  }
  void AsyncGetTensorC(const LocalTensor<DstT>& ub) { GetTensorC(ub); }
  MatrixOffset GetOffsetC() {
    return MatrixOffset{static_cast<int32_t>(m0_ * c_row() + n0_), static_cast<int32_t>(m0_), static_cast<int32_t>(n0_),
                        static_cast<int32_t>(cm_), static_cast<int32_t>(cn_)};
  }
  template <bool sync = true>
  void IterateAll(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool = false, bool = false, bool = false) {
    int64_t m_iter = ceil_div(single_m(), t_.baseM), n_iter = ceil_div(single_n(), t_.baseN);
    for (int64_t mi = 0; mi < m_iter; ++mi)
      for (int64_t ni = 0; ni < n_iter; ++ni) {
        begin_block(mi, ni);
        out(gm[static_cast<uint64_t>(m0_ * c_row() + n0_)], c_row(), enAtomic);
      }
  }
  // the whole result through the workspace slice (rows singleCoreN apart) into the UB, dense
  void IterateAll(const LocalTensor<DstT>& ub, uint8_t = 0) {
    GlobalTensor<DstT> staging;
    staging.SetGlobalBuffer(reinterpret_cast<__gm__ DstT*>(workspace_) +
                            GetBlockIdx() * static_cast<int64_t>(kWorkspaceBlock / 4));
    int64_t sn = single_n(), m_iter = ceil_div(single_m(), t_.baseM), n_iter = ceil_div(sn, t_.baseN);
    for (int64_t mi = 0; mi < m_iter; ++mi)
      for (int64_t ni = 0; ni < n_iter; ++ni) {
        begin_block(mi, ni);
        out(staging[static_cast<uint64_t>(m0_ * sn + n0_)], sn, 0);
      }
    DataCopy(ub, staging, static_cast<uint32_t>(single_m() * sn));
    SetFlag<HardEvent::MTE2_V>(0);
    WaitFlag<HardEvent::MTE2_V>(0);
  }
  // batchLoop groups of max(batchA, batchB) products (NORMAL layout: matrices one after another, the smaller batch
  // broadcast), each result singleCoreM x singleCoreN and dense, one after another in the workspace slice
  template <bool sync = true, bool waitIterateBatch = false>
  void IterateNBatch(uint32_t batchLoop, uint32_t batchA, uint32_t batchB, bool, uint32_t strideA = 0,
                     uint32_t strideB = 0, uint32_t = 0) {
    static_assert(A_TYPE::layout == LayoutMode::NORMAL || A_TYPE::layout == LayoutMode::NONE,
                  "the CPU stand-in's IterateNBatch models the NORMAL layout only");
    GlobalTensor<DstT> results = workspace_slice();
    GlobalTensor<SrcT> a = a_, b = b_;
    GlobalTensor<BiasT> bias = bias_;
    int64_t sm = single_m(), sn = single_n(), batch_c = std::max(batchA, batchB);
    int64_t step_a = strideA ? strideA : (org_ ? org_m_ * org_ka_ : int64_t{t_.M} * t_.Ka);
    int64_t step_b = strideB ? strideB : (org_ ? org_kb_ * org_n_ : int64_t{t_.Kb} * t_.N);
    int64_t step_bias = AscCpuConfigOf(MM_CFG).isBiasBatch ? t_.N : 0;
    c_row_ = sn;
    for (uint32_t loop = 0; loop < batchLoop; ++loop)
      for (int64_t i = 0; i < batch_c; ++i) {
        int64_t ia = loop * batchA + i / (batch_c / batchA), ib = loop * batchB + i / (batch_c / batchB);
        a_ = a[static_cast<uint64_t>(ia * step_a)];
        b_ = b[static_cast<uint64_t>(ib * step_b)];
        if (bias_on_) bias_ = bias[static_cast<uint64_t>(i * step_bias)];
        GlobalTensor<DstT> c = results[static_cast<uint64_t>((loop * batch_c + i) * sm * sn)];
        IterateAll(c);
      }
    a_ = a;
    b_ = b;
    bias_ = bias;
    c_row_ = -1;
    batch_read_ = 0;
  }
  // the next group of IterateNBatch's results: where it lies, or copied into the UB
  template <bool sync = true>
  GlobalTensor<DstT> GetBatchTensorC(uint32_t batchA, uint32_t batchB, bool = false) {
    GlobalTensor<DstT> group = workspace_slice();
    int64_t size = std::max(batchA, batchB) * single_m() * single_n();
    return group[static_cast<uint64_t>(batch_read_++ * size)];
  }
  template <bool sync = true>
  void GetBatchTensorC(const LocalTensor<DstT>& ub, uint32_t batchA, uint32_t batchB, bool = false) {
    GlobalTensor<DstT> group = GetBatchTensorC<sync>(batchA, batchB);
    DataCopy(ub, group, static_cast<uint32_t>(std::max(batchA, batchB) * single_m() * single_n()));
    SetFlag<HardEvent::MTE2_V>(0);
    WaitFlag<HardEvent::MTE2_V>(0);
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
  int64_t c_row() const { return c_row_ >= 0 ? c_row_ : org_ ? org_n_ : t_.N; }
  GlobalTensor<DstT> workspace_slice() const {
    GlobalTensor<DstT> slice;
    if (user_ws_)
      slice.SetGlobalBuffer(reinterpret_cast<__gm__ DstT*>(user_ws_));
    else
      slice.SetGlobalBuffer(reinterpret_cast<__gm__ DstT*>(workspace_) +
                            GetBlockIdx() * static_cast<int64_t>(kWorkspaceBlock / sizeof(DstT)));
    return slice;
  }

  // Block (mi, ni) into L0C at 0, in its NZ layout: element (i, j) at ((j / 16) * ceil16(m) + i) * 16 + j % 16.
  void begin_block(int64_t mi, int64_t ni) {
    m0_ = mi * t_.baseM;
    n0_ = ni * t_.baseN;
    cm_ = std::min<int64_t>(t_.baseM, single_m() - m0_);
    cn_ = std::min<int64_t>(t_.baseN, single_n() - n0_);
    int64_t sk = single_k(), ma = ceil_div(cm_, 16) * 16, n1 = ceil_div(cn_, 16);
    const SrcT* a = a_scalar_ ? &a_value_ : a_.GetPhyAddr();
    const SrcT* b = b_scalar_ ? &b_value_ : b_.GetPhyAddr();
    // the elements this block reads, checked once: A's rows m0.., columns ..sk (or transposed), B's likewise
    auto last = [](int64_t rows, int64_t cols, int64_t row) { return (rows - 1) * row + cols; };
    if (!a_scalar_)
      ascendc_cpu::check_gm(a, a + (a_trans_ ? last(sk, m0_ + cm_, a_row()) : last(m0_ + cm_, sk, a_row())));
    if (!b_scalar_)
      ascendc_cpu::check_gm(b, b + (b_trans_ ? last(n0_ + cn_, sk, b_row()) : last(sk, n0_ + cn_, b_row())));
    std::vector<AccT> c(static_cast<size_t>(n1 * ma * 16));
    for (int64_t i = 0; i < cm_; ++i)
      for (int64_t j = 0; j < cn_; ++j) {
        AccT acc = bias_on_ ? bias_at(n0_ + j) : AccT{};
        for (int64_t k0 = 0; k0 < sk; k0 += t_.baseK) {
          double sum = 0;
          for (int64_t k = k0; k < std::min<int64_t>(sk, k0 + t_.baseK); ++k)
            sum += element(a, m0_ + i, k, a_row(), a_trans_, a_scalar_) *
                   element(b, k, n0_ + j, b_row(), b_trans_, b_scalar_);
          acc = accumulate(sum, acc);
        }
        c[static_cast<size_t>(((j / 16) * ma + i) * 16 + j % 16)] = acc;
      }
    LocalTensor<AccT> l0c(TPosition::CO1, 0, 32768);
    ascendc_cpu::write_local(l0c.operand(), c.data(), c.size() * sizeof(AccT));
  }
  double element(const SrcT* p, int64_t r, int64_t col, int64_t row, bool trans, bool scalar) const {
    float x = static_cast<float>(scalar ? *p : trans ? p[col * row + r] : p[r * row + col]);
    if constexpr (std::is_same_v<SrcT, float>)
      if (hf32_) x = to_hf32(x);
    return static_cast<double>(x);
  }
  // float32 rounded to HF32 (11 significant bits): to nearest, ties to even or (transMode 1) towards zero
  float to_hf32(float x) const {
    uint32_t bits;
    std::memcpy(&bits, &x, 4);
    if ((bits & 0x7F800000u) == 0x7F800000u) return x;
    uint32_t rest = bits & 0xFFFu, kept = bits & ~0xFFFu;
    bool up = rest > 0x800u || (rest == 0x800u && !hf32_towards_zero_ && (kept & 0x1000u));
    kept += up ? 0x1000u : 0;
    std::memcpy(&x, &kept, 4);
    return x;
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
    QuantMode_t mode = quant_mode();
    bool quantised = quant_ != 0 && mode != QuantMode_t::NoQuant;
    FixpipeParamsV220 p(static_cast<uint16_t>(cn_), static_cast<uint16_t>(cm_),
                        static_cast<uint16_t>(ceil_div(cm_, 16) * 16), static_cast<uint32_t>(row), false,
                        quantised ? mode : quant, quant_ == 1 && quantised ? static_cast<int64_t>(quant_word_) : 0, 1,
                        0, 0, 0);
    if (quant_ == 2 && quantised) {  // the block's columns' words, staged in L1 in 32-byte blocks
      LocalTensor<uint64_t> words(TPosition::A1, kQuantL1, 1024);
      DataCopy(words, quant_vector_[static_cast<uint64_t>(n0_)], static_cast<uint32_t>(ceil_div(cn_, 4) * 4));
      SetFlag<HardEvent::MTE2_FIX>(2);
      WaitFlag<HardEvent::MTE2_FIX>(2);
      Fixpipe<DstT, AccT, CFG_ROW_MAJOR>(dst, l0c, words, p);
    } else {
      Fixpipe<DstT, AccT, CFG_ROW_MAJOR>(dst, l0c, p);
    }
    if (atomic) SetAtomicNone();
  }

  // the fixpipe mode a quant factor selects for these dtypes (NoQuant: none applies)
  static constexpr QuantMode_t quant_kind(bool vector) {
    if (std::is_same_v<SrcT, int8_t> && std::is_same_v<DstT, half>)
      return vector ? QuantMode_t::VDEQF16 : QuantMode_t::DEQF16;
    if (std::is_same_v<SrcT, int8_t> && std::is_same_v<DstT, int8_t>)
      return vector ? QuantMode_t::VREQ8 : QuantMode_t::REQ8;
    if ((std::is_same_v<SrcT, half> || std::is_same_v<SrcT, bfloat16_t>)&&std::is_same_v<DstT, int8_t>)
      return vector ? QuantMode_t::VQF322B8_PRE : QuantMode_t::QF322B8_PRE;
    return QuantMode_t::NoQuant;
  }
  QuantMode_t quant_mode() const { return quant_ ? quant_kind(quant_ == 2) : QuantMode_t::NoQuant; }

  tiling::TCubeTiling t_{};
  GM_ADDR user_ws_ = nullptr;
  bool a_scalar_ = false, b_scalar_ = false, hf32_ = false, hf32_towards_zero_ = false;
  SrcT a_value_{}, b_value_{};
  int quant_ = 0;  // 1: SetQuantScalar, 2: SetQuantVector
  uint64_t quant_word_ = 0, self_data_ = 0, user_info_ = 0;
  GlobalTensor<uint64_t> quant_vector_;
  GlobalTensor<uint8_t> sparse_index_;
  int64_t c_row_ = -1;      // IterateNBatch's dense rows
  int64_t batch_read_ = 0;  // GetBatchTensorC calls since IterateNBatch
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
