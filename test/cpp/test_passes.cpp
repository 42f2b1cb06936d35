// The passes Builder::finish runs: framework lowering (TPipe/TQue), the
// local-tensor allocator, the sync inserter (insert_sync / auto_sync), and the
// scalar access ops they rely on. Each kernel is checked in its finished IR
// and, where it can run, against host references on the Model.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "ir/printer.h"
#include "kernel_fixtures.h"

namespace {

using namespace asc_test;

constexpr int64_t kPipeV = 1;  // pipe_barrier's pipe attribute for PIPE_V

std::vector<asc_type_t> gm_params(asc_dtype_t d, size_t n) { return std::vector<asc_type_t>(n, gm_addr_type(d)); }

// got and want hold the same bits, element by element.
template <typename T>
::testing::AssertionResult same_bits(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << "size " << got.size() << ", want " << want.size();
  for (size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0)
      return ::testing::AssertionFailure() << "first difference at [" << i << "]: got " << static_cast<double>(got[i])
                                           << ", want " << static_cast<double>(want[i]);
  return ::testing::AssertionSuccess();
}

// ---- reading the finished IR ----------------------------------------------------------

// The synchronisation ops in a region and its nested regions, in program order.
struct Syncs {
  std::vector<std::string> sets, waits;  // HardEvent names
  std::vector<int64_t> barriers;         // pipe attribute values
};

void collect_syncs(const asc::Region& r, Syncs& s);

void collect_syncs(const asc::Op& op, Syncs& s) {
  if (op.code == asc::OpCode::SetFlag) s.sets.push_back(asc::hard_event(op.attr_int(0)).name);
  if (op.code == asc::OpCode::WaitFlag) s.waits.push_back(asc::hard_event(op.attr_int(0)).name);
  if (op.code == asc::OpCode::PipeBarrier) s.barriers.push_back(op.attr_int(0));
  for (const asc::Region& sub : op.regions) collect_syncs(sub, s);
}

void collect_syncs(const asc::Region& r, Syncs& s) {
  for (const auto& op : r.ops) collect_syncs(*op, s);
}

Syncs syncs_in(const asc::Region& r) {
  Syncs s;
  collect_syncs(r, s);
  return s;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The first top-level op with `code`.
const asc::Op& top_level_op(const asc::Kernel& k, asc::OpCode code) {
  for (const auto& op : k.body.ops)
    if (op->code == code) return *op;
  throw std::logic_error(std::string("no top-level ") + asc::op_info(code).name);
}

// The synchronisation in the top-level ops before / after the first top-level op with `code`.
Syncs syncs_around(const asc::Kernel& k, asc::OpCode code, bool after) {
  Syncs s;
  bool past = false;
  for (const auto& op : k.body.ops) {
    if (op->code == code && !past) {
      past = true;
      continue;
    }
    if (past == after) collect_syncs(*op, s);
  }
  return s;
}

// Whether some printed line holds both `op` and `event = <event>}`.
bool printed_flag(const std::string& text, const std::string& op, const std::string& event) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.find(op + " %") != std::string::npos && line.find("event = " + event + "}") != std::string::npos)
      return true;
  return false;
}

// The constant Unified Buffer address the allocator gave the tensor `v`.
int64_t placed_address(const asc::Kernel& k, Value v) {
  const asc::Op* def = k.value_def.at(v);
  if (!def || def->code != asc::OpCode::LocalCreate) throw std::logic_error("not placed by a local_tensor.create");
  int64_t addr = -1;
  if (!asc::OpView{*def, k}.operand_const_int(0, &addr)) throw std::logic_error("address is not a constant");
  return addr;
}

// [a, a + a_bytes) and [b, b + b_bytes) do not overlap.
bool disjoint(int64_t a, int64_t a_bytes, int64_t b, int64_t b_bytes) { return a + a_bytes <= b || b + b_bytes <= a; }

// ---- 1. framework lowering: the add_framework sample -------------------------------------

struct FrameworkCase {
  int64_t depth;
  uint32_t blocks;
};

void PrintTo(const FrameworkCase& c, std::ostream* os) { *os << "depth " << c.depth << " x" << c.blocks << " blocks"; }

std::string framework_case_name(const ::testing::TestParamInfo<FrameworkCase>& param) {
  return "depth" + std::to_string(param.param.depth) + "_blocks" + std::to_string(param.param.blocks);
}

class FrameworkTest : public ::testing::TestWithParam<FrameworkCase> {};

TEST_P(FrameworkTest, LowersToFlagsAndAddsExactly) {
  TiledBinary k;
  k.buffer_num = GetParam().depth;
  asc::Module m;
  CoreWriter w(m, "add_framework", k.params());
  emit_framework_binary(w, k);
  const asc::Kernel& kernel = w.finish();

  const std::string text = asc::print_kernel(kernel);
  SCOPED_TRACE(text);
  EXPECT_EQ(text.find("tque."), std::string::npos);
  EXPECT_EQ(text.find("tpipe."), std::string::npos);
  // Queue hand-overs (enque/deque) and buffer reuse (free_tensor/alloc_tensor),
  // for VECIN (MTE2 -> V) and VECOUT (V -> MTE3).
  for (const char* event : {"MTE2_V", "V_MTE2", "V_MTE3", "MTE3_V"}) {
    EXPECT_TRUE(printed_flag(text, "set_flag", event)) << event;
    EXPECT_TRUE(printed_flag(text, "wait_flag", event)) << event;
  }
  // Buffers freed in the last iterations are waited for before the kernel
  // ends, so that no flag is left set (the Model does not check this).
  const Syncs after_loop = syncs_around(kernel, asc::OpCode::For, /*after=*/true);
  EXPECT_TRUE(contains(after_loop.waits, "V_MTE2"));
  EXPECT_TRUE(contains(after_loop.waits, "MTE3_V"));

  const uint32_t blocks = GetParam().blocks;
  const size_t n = blocks * static_cast<size_t>(k.block_length);
  std::vector<float> x = random_values<float>(n, 31, -1000, 1000), y = random_values<float>(n, 32, -1000, 1000);
  std::vector<float> z(n, std::nanf(""));
  run_model(kernel, blocks, {buffer_arg(x), buffer_arg(y), buffer_arg(z)});
  std::vector<float> want(n);
  for (size_t i = 0; i < n; ++i) want[i] = x[i] + y[i];
  EXPECT_TRUE(same_bits(z, want));
}

INSTANTIATE_TEST_SUITE_P(DepthAndBlocks, FrameworkTest,
                         ::testing::Values(FrameworkCase{1, 1}, FrameworkCase{1, 8}, FrameworkCase{2, 1},
                                           FrameworkCase{2, 8}),
                         framework_case_name);

// ---- 2. event ids: each VECIN queue of depth 2 takes 2 of the 8 MTE2_V ids ---------------

// A kernel with `queues` VECIN queues of depth 2; returns the last init_buffer's line.
uint32_t emit_vecin_queues(CoreWriter& w, int queues) {
  Value pipe = w.op("tpipe.create", {});
  for (int q = 0; q < queues; ++q) {
    Value que = w.op("tque.create", {},
                     {int_attr("src_position", ASC_POS_VECIN), int_attr("dst_position", ASC_POS_VECIN),
                      int_attr("depth", 2), string_attr("name", "q" + std::to_string(q))});
    Value num = w.i32(2), len = w.i32(1024);
    w.op("tpipe.init_buffer", {pipe, que, num, len});
  }
  return w.last_line();
}

TEST(FrameworkEventIds, FourQueuesOfDepthTwoTakeAllEightIds) {
  asc::Module m;
  CoreWriter w(m, "four_queues", {});
  emit_vecin_queues(w, 4);
  const asc::Kernel& kernel = w.finish();
  EXPECT_EQ(kernel.reserved_event_ids[MTE2_V], 0xFF);
  EXPECT_EQ(kernel.reserved_event_ids[asc::find_hard_event(asc::Pipe::V, asc::Pipe::MTE2)], 0xFF);
}

TEST(FrameworkEventIds, FifthQueueExhaustsThemAtItsInitBuffer) {
  asc::Module m;
  CoreWriter w(m, "five_queues", {});
  const uint32_t fifth_init_line = emit_vecin_queues(w, 5);
  auto e = error_of([&] { w.finish(); });
  ASSERT_TRUE(is_error(e, ASC_ERR_VERIFY, {"event ids exhausted", "q4"}));
  EXPECT_EQ(e->loc().str(), "kernels.py:" + std::to_string(fifth_init_line) + ":5");
}

// ---- 3. the local-tensor allocator -----------------------------------------------------

Value auto_tensor(KernelWriter& w, int64_t length, const char* name) {
  return w.op("local_tensor.auto", {w.i32(length)}, {int_attr("dtype", ASC_DTYPE_FLOAT32), string_attr("name", name)});
}

// a and b live one after the other; c (80 bytes) and d live together.
// z[0:64] = x, z[64:128] = y, z[128:136] = 1.5 + 2.
TEST(Allocator, DisjointLiveRangesShareAndOverlappingOnesDoNot) {
  asc::Module m;
  CoreWriter w(m, "auto_tensors", gm_params(ASC_DTYPE_FLOAT32, 3));
  Value n = w.i32(64), zero = w.i32(0);
  Value x_gm = w.global_tensor(w.param(0), zero, n), y_gm = w.global_tensor(w.param(1), zero, n);
  Value z_gm = w.global_tensor(w.param(2), zero, w.i32(136));
  Value a = auto_tensor(w, 64, "a");
  w.data_copy(a, x_gm, n);
  w.data_copy(z_gm, a, n);  // a's last use
  Value b = auto_tensor(w, 64, "b");
  w.data_copy(b, y_gm, n);
  w.data_copy(w.global_slice(z_gm, w.i32(64)), b, n);
  Value c = auto_tensor(w, 20, "c"), d = auto_tensor(w, 8, "d");
  w.op("duplicate", {c, w.constant_f(ASC_DTYPE_FLOAT32, 1.5), w.i32(20)});
  w.op("duplicate", {d, w.constant_f(ASC_DTYPE_FLOAT32, 2.0), w.i32(8)});
  w.op("add", {d, c, d, w.i32(8)});
  w.data_copy(w.global_slice(z_gm, w.i32(128)), d, w.i32(8));
  const asc::Kernel& kernel = w.finish();
  SCOPED_TRACE(asc::print_kernel(kernel));

  EXPECT_EQ(placed_address(kernel, a), placed_address(kernel, b));
  const int64_t c_at = placed_address(kernel, c), d_at = placed_address(kernel, d);
  EXPECT_TRUE(disjoint(c_at, 20 * 4, d_at, 8 * 4)) << "c at " << c_at << ", d at " << d_at;
  EXPECT_EQ(c_at % 32, 0);
  EXPECT_EQ(d_at % 32, 0);

  // Sharing memory needs the reuse to be ordered; the implied insert_sync does that.
  std::vector<float> x = random_values<float>(64, 41, -10, 10), y = random_values<float>(64, 42, -10, 10);
  std::vector<float> z(136, 0.0f);
  run_model(kernel, 1, {buffer_arg(x), buffer_arg(y), buffer_arg(z)});
  std::vector<float> want = x;
  want.insert(want.end(), y.begin(), y.end());
  want.resize(136, 1.5f + 2.0f);
  EXPECT_TRUE(same_bits(z, want));
}

// Cube positions (the tile API's L1 / L0A / L0B / L0C tiles) are placed per memory: live together with the UB
// tensor u, each starts at 0 of its own memory; two L0A tensors live together are 512 bytes apart (its alignment).
TEST(Allocator, EachMemoryIsPlacedOnItsOwnAtItsAlignment) {
  asc::Module m;
  CoreWriter w(m, "auto_positions", gm_params(ASC_DTYPE_FLOAT16, 1));
  auto at = [&](int64_t length, int pos, const char* name) {
    return w.op("local_tensor.auto", {w.i32(length)},
                {int_attr("dtype", ASC_DTYPE_FLOAT16), string_attr("name", name), int_attr("position", pos)});
  };
  Value u = auto_tensor(w, 64, "u");
  Value l1 = at(256, ASC_POS_A1, "l1"), a0 = at(16, ASC_POS_A2, "a0"), a1 = at(16, ASC_POS_A2, "a1");
  Value b0 = at(256, ASC_POS_B2, "b0");
  Value n = w.i32(16);
  for (Value t : {u, l1, a0, a1, b0}) w.op("local_tensor.get_size", {t});
  for (Value t : {u, l1, a0, a1, b0}) w.op("local_tensor.get_phy_addr", {t, n});
  const asc::Kernel& kernel = w.finish();
  SCOPED_TRACE(asc::print_kernel(kernel));
  EXPECT_EQ(placed_address(kernel, u), 0);
  EXPECT_EQ(placed_address(kernel, l1), 0);
  EXPECT_EQ(placed_address(kernel, b0), 0);
  EXPECT_EQ(std::abs(placed_address(kernel, a0) - placed_address(kernel, a1)), 512);
  EXPECT_EQ(kernel.type_of(l1).position, asc::Position::A1);
  EXPECT_EQ(kernel.type_of(b0).position, asc::Position::B2);
}

TEST(Allocator, RefusesABadPosition) {
  asc::Module m;
  CoreWriter w(m, "auto_gm", gm_params(ASC_DTYPE_FLOAT16, 1));
  auto e = error_of([&] {
    w.op("local_tensor.auto", {w.i32(16)}, {int_attr("dtype", ASC_DTYPE_FLOAT16), int_attr("position", ASC_POS_GM)});
    w.finish();
  });
  ASSERT_TRUE(is_error(e, ASC_ERR_TYPE, {"LocalTensorAuto's position must be"}));
}

// Run-time lengths are placed when the kernel runs: above the constant-length
// tensors (k stays intact), one after another, 32-byte aligned. z = [x, 2x, k].
TEST(Allocator, RunTimeLengthsArePlacedAboveTheConstantOnesOneAfterAnother) {
  asc::Module m;
  CoreWriter w(m, "auto_runtime",
               {gm_addr_type(ASC_DTYPE_FLOAT32),
                gm_addr_type(ASC_DTYPE_FLOAT32),
                {ASC_TYPE_SCALAR, ASC_DTYPE_INT32, ASC_POS_GM}});
  Value n = w.param(2), zero = w.i32(0), sixteen = w.i32(16);
  Value x_gm = w.global_tensor(w.param(0), zero, n);
  Value z_gm = w.global_tensor(w.param(1), zero, w.op("arith.add", {w.op("arith.mul", {n, w.i32(2)}), sixteen}));
  Value k = auto_tensor(w, 16, "k");
  w.op("duplicate", {k, w.constant_f(ASC_DTYPE_FLOAT32, 3.0), sixteen});
  Value a = w.op("local_tensor.auto", {n}, {int_attr("dtype", ASC_DTYPE_FLOAT32), string_attr("name", "a")});
  Value b = w.op("local_tensor.auto", {n}, {int_attr("dtype", ASC_DTYPE_FLOAT32), string_attr("name", "b")});
  w.data_copy(a, x_gm, n);
  w.op("add", {b, a, a, n});
  w.data_copy(z_gm, a, n);
  w.data_copy(w.global_slice(z_gm, n), b, n);
  w.data_copy(w.global_slice(z_gm, w.op("arith.mul", {n, w.i32(2)})), k, sixteen);
  const asc::Kernel& kernel = w.finish();
  SCOPED_TRACE(asc::print_kernel(kernel));

  EXPECT_EQ(placed_address(kernel, k), 0);
  EXPECT_EQ(kernel.value_def.at(a)->code, asc::OpCode::LocalCreate);
  EXPECT_EQ(kernel.value_def.at(b)->code, asc::OpCode::LocalCreate);
  for (int32_t count : {8, 40}) {  // 40 floats: b starts 160 bytes rounded up to 192 after a
    std::vector<float> x = random_values<float>(count, 61, -10, 10), z(2 * count + 16, 0.0f), want = x;
    for (float v : x) want.push_back(v + v);
    want.resize(z.size(), 3.0f);
    run_model(kernel, 1, {buffer_arg(x), buffer_arg(z), int_scalar_arg(ASC_DTYPE_INT32, count)});
    EXPECT_TRUE(same_bits(z, want)) << "count " << count;
  }
}

// `a` is last used early in the loop body, but the next iteration reads it
// again: a tensor defined in the body after that use must not take its place.
// z[0:64] = z[64:128] = 4 * x.
TEST(Allocator, TensorUsedInALoopLivesUntilTheLoopEnds) {
  asc::Module m;
  CoreWriter w(m, "auto_loop", gm_params(ASC_DTYPE_FLOAT32, 2));
  Value n = w.i32(64), zero = w.i32(0);
  Value x_gm = w.global_tensor(w.param(0), zero, n), z_gm = w.global_tensor(w.param(1), zero, w.i32(128));
  Value a = auto_tensor(w, 64, "a");
  w.data_copy(a, x_gm, n);
  Value t = ASC_NO_VALUE, u = ASC_NO_VALUE;
  Value i = w.for_begin(zero, w.i32(2), w.i32(1));
  {
    t = auto_tensor(w, 64, "t");
    w.op("add", {t, a, a, n});  // a's last use in program order
    u = auto_tensor(w, 64, "u");
    w.op("add", {u, t, t, n});
    w.data_copy(w.global_slice(z_gm, w.op("arith.mul", {i, n})), u, n);
  }
  w.for_end();
  const asc::Kernel& kernel = w.finish();
  SCOPED_TRACE(asc::print_kernel(kernel));

  const int64_t a_at = placed_address(kernel, a);
  EXPECT_TRUE(disjoint(a_at, 256, placed_address(kernel, t), 256));
  EXPECT_TRUE(disjoint(a_at, 256, placed_address(kernel, u), 256));

  std::vector<float> x = random_values<float>(64, 43, -10, 10), z(128, 0.0f);
  run_model(kernel, 1, {buffer_arg(x), buffer_arg(z)});
  std::vector<float> want(128);
  for (size_t j = 0; j < want.size(); ++j) want[j] = 4 * x[j % 64];  // (x + x) + (x + x), exact
  EXPECT_TRUE(same_bits(z, want));
}

// ---- 3b. double buffering ----------------------------------------------------------------

// The ops of `code` in a region (not in its nested regions).
std::vector<const asc::Op*> ops_of(const asc::Region& r, asc::OpCode code) {
  std::vector<const asc::Op*> out;
  for (const auto& op : r.ops)
    if (op->code == code) out.push_back(op.get());
  return out;
}

int64_t const_operand(const asc::Kernel& k, const asc::Op& op, size_t i) {
  int64_t v = -1;
  if (!asc::OpView{op, k}.operand_const_int(i, &v)) throw std::logic_error("operand is not a constant");
  return v;
}

// for i in range(lb, ub, step): t (marked double_buffer) = x[i*64 : i*64+64]; u = t + t; z[i*64 ...] = u.
// The loop becomes a loop over pairs (t of copy 0 is one tensor of two halves, copy 1's t its second half;
// u, unmarked, is a tensor in each copy) and an if for the odd last iteration; every iteration runs once.
struct PairedLoop {
  int32_t lb, ub, step;
};

class DoubleBuffer : public ::testing::TestWithParam<PairedLoop> {};

TEST_P(DoubleBuffer, PairsTheIterationsAndGivesEachCopysLoadsTheirOwnHalf) {
  const PairedLoop p = GetParam();
  asc::Module m;
  CoreWriter w(m, "paired", gm_params(ASC_DTYPE_FLOAT32, 2));
  Value n = w.i32(64), zero = w.i32(0);
  Value x_gm = w.global_tensor(w.param(0), zero, w.i32(8 * 64)),
        z_gm = w.global_tensor(w.param(1), zero, w.i32(8 * 64));
  Value i = w.for_begin(w.i32(p.lb), w.i32(p.ub), w.i32(p.step));
  {
    Value at = w.op("arith.mul", {i, n});
    Value t = w.op("local_tensor.auto", {w.i32(64)},
                   {int_attr("dtype", ASC_DTYPE_FLOAT32), string_attr("name", "t"), int_attr("double_buffer", 1)});
    w.data_copy(t, w.global_slice(x_gm, at), n);
    Value u = auto_tensor(w, 64, "u");
    w.op("add", {u, t, t, n});
    w.data_copy(w.global_slice(z_gm, at), u, n);
  }
  w.for_end();
  const asc::Kernel& kernel = w.finish();
  SCOPED_TRACE(asc::print_kernel(kernel));

  const asc::Op& pairs = top_level_op(kernel, asc::OpCode::For);
  const auto creates = ops_of(pairs.regions[0], asc::OpCode::LocalCreate);
  const auto slices = ops_of(pairs.regions[0], asc::OpCode::LocalSlice);
  ASSERT_EQ(creates.size(), 3u);  // t of copy 0 (two halves), u of copy 0, u of copy 1
  ASSERT_EQ(slices.size(), 1u);   // t of copy 1
  EXPECT_EQ(const_operand(kernel, *creates[0], 1), 128);
  EXPECT_EQ(slices[0]->operands[0], creates[0]->result);
  EXPECT_EQ(const_operand(kernel, *slices[0], 1), 64);
  const asc::Op& last = top_level_op(kernel, asc::OpCode::If);
  const auto odd_creates = ops_of(last.regions[0], asc::OpCode::LocalCreate);
  ASSERT_EQ(odd_creates.size(), 2u);
  EXPECT_EQ(const_operand(kernel, *odd_creates[0], 1), 64);

  std::vector<float> x = random_values<float>(8 * 64, 44, -10, 10), z(8 * 64, -1.0f), want(8 * 64, -1.0f);
  run_model(kernel, 1, {buffer_arg(x), buffer_arg(z)});
  for (int32_t it = p.lb; p.step > 0 ? it < p.ub : it > p.ub; it += p.step)
    for (size_t j = 0; j < 64; ++j) want[static_cast<size_t>(it) * 64 + j] = x[static_cast<size_t>(it) * 64 + j] * 2;
  EXPECT_TRUE(same_bits(z, want));
}

INSTANTIATE_TEST_SUITE_P(Bounds, DoubleBuffer,
                         ::testing::Values(PairedLoop{0, 8, 1}, PairedLoop{0, 7, 1}, PairedLoop{1, 8, 3},
                                           PairedLoop{7, -1, -2}, PairedLoop{6, -1, -1}, PairedLoop{3, 3, 1}));

// A loop without marked tensors is left as it is.
TEST(DoubleBuffer, AnUnmarkedLoopIsNotPaired) {
  asc::Module m;
  CoreWriter w(m, "unpaired", gm_params(ASC_DTYPE_FLOAT32, 2));
  Value n = w.i32(64), zero = w.i32(0);
  Value x_gm = w.global_tensor(w.param(0), zero, w.i32(128)), z_gm = w.global_tensor(w.param(1), zero, w.i32(128));
  Value i = w.for_begin(zero, w.i32(2), w.i32(1));
  {
    Value at = w.op("arith.mul", {i, n});
    Value t = auto_tensor(w, 64, "t");
    w.data_copy(t, w.global_slice(x_gm, at), n);
    w.data_copy(w.global_slice(z_gm, at), t, n);
  }
  w.for_end();
  const asc::Kernel& kernel = w.finish();
  const asc::Op& loop = top_level_op(kernel, asc::OpCode::For);
  EXPECT_EQ(ops_of(loop.regions[0], asc::OpCode::LocalCreate).size(), 1u);
  EXPECT_TRUE(ops_of(kernel.body, asc::OpCode::If).empty());
}

// ---- 4. the sync inserter ---------------------------------------------------------------

// (a) copy-in -> add -> copy-out with no flags: one MTE2 -> V and one V -> MTE3 pair.
TEST(InsertSync, StraightLineGetsExactlyTheTwoHandOvers) {
  asc::Module m;
  CoreWriter w(m, "add_no_flags", gm_params(ASC_DTYPE_FLOAT32, 3));
  w.builder().set_option("insert_sync", 1);
  const int64_t count = 300;
  emit_ub_binary(w, {"add", ASC_DTYPE_FLOAT32, count, /*manual_sync=*/false});
  const asc::Kernel& kernel = w.finish();
  SCOPED_TRACE(asc::print_kernel(kernel));

  const Syncs s = syncs_in(kernel.body);
  EXPECT_EQ(s.sets, (std::vector<std::string>{"MTE2_V", "V_MTE3"}));
  EXPECT_EQ(s.waits, s.sets);
  EXPECT_TRUE(s.barriers.empty());
  EXPECT_EQ(kernel.inserted_syncs, 2);

  const size_t padded = static_cast<size_t>(padded_count(count, ASC_DTYPE_FLOAT32));
  std::vector<float> x = random_values<float>(padded, 51, -10, 10), y = random_values<float>(padded, 52, -10, 10);
  std::vector<float> z(padded, -7.0f), want(padded, -7.0f);
  for (size_t i = 0; i < static_cast<size_t>(count); ++i) want[i] = x[i] + y[i];
  run_model(kernel, 1, {buffer_arg(x), buffer_arg(y), buffer_arg(z)});
  EXPECT_TRUE(same_bits(z, want));
}

// (b) The tiled double-buffered loop: MTE2 -> V, V -> MTE3, and a single
// MTE3 -> MTE2 that orders both loop-carried hazards (next copy-in over what
// V read, next add over what MTE3 read).
TEST(InsertSync, TiledLoopGetsThreeFlagsInItsBody) {
  TiledBinary k;
  k.manual_sync = false;
  asc::Module m;
  CoreWriter w(m, "vadd_no_flags", k.params());
  w.builder().set_option("insert_sync", 1);
  emit_tiled_binary(w, k);
  const asc::Kernel& kernel = w.finish();
  SCOPED_TRACE(asc::print_kernel(kernel));

  const Syncs body = syncs_in(top_level_op(kernel, asc::OpCode::For).regions[0]);
  EXPECT_EQ(sorted(body.sets), (std::vector<std::string>{"MTE2_V", "MTE3_MTE2", "V_MTE3"}));
  EXPECT_EQ(sorted(body.waits), sorted(body.sets));
  EXPECT_EQ(syncs_in(kernel.body).sets.size(), 3u);  // nothing outside the loop
  EXPECT_EQ(kernel.inserted_syncs, 3);

  const uint32_t blocks = 4;
  const size_t n = blocks * static_cast<size_t>(k.block_length);
  std::vector<float> x = random_values<float>(n, 53, -1000, 1000), y = random_values<float>(n, 54, -1000, 1000);
  std::vector<float> z(n, std::nanf("")), want(n);
  for (size_t i = 0; i < n; ++i) want[i] = x[i] + y[i];
  run_model(kernel, blocks, {buffer_arg(x), buffer_arg(y), buffer_arg(z)});
  EXPECT_TRUE(same_bits(z, want));
}

// copy x in; c = a + a; c = c * a (V reads what V wrote); t[k] = 1.5 + k by
// set_value; copy t out to z. Params: x (64 floats), z (8 floats).
void emit_scalar_and_vector(CoreWriter& w) {
  Value n = w.i32(64), zero = w.i32(0);
  Value x_gm = w.global_tensor(w.param(0), zero, n), z_gm = w.global_tensor(w.param(1), zero, w.i32(8));
  Value a = w.local_tensor(0, 64, ASC_DTYPE_FLOAT32, ASC_POS_VECIN, "a");
  Value c = w.local_tensor(256, 64, ASC_DTYPE_FLOAT32, ASC_POS_VECCALC, "c");
  Value t = w.local_tensor(512, 8, ASC_DTYPE_FLOAT32, ASC_POS_VECOUT, "t");
  w.data_copy(a, x_gm, n);
  w.op("add", {c, a, a, n});
  w.op("mul", {c, c, a, n});
  for (int64_t k = 0; k < 8; ++k)
    w.op("local_tensor.set_value", {t, w.i32(k), w.constant_f(ASC_DTYPE_FLOAT32, 1.5 + static_cast<double>(k))});
  w.data_copy(z_gm, t, w.i32(8));
}

// (c) auto_sync alone orders S against the pipes and V against V, and leaves
// pipe-to-pipe hand-overs (here MTE2 -> V) to the user or the framework.
TEST(AutoSync, OrdersScalarAndVectorDependencesOnly) {
  asc::Module m;
  CoreWriter w(m, "auto_sync_only", gm_params(ASC_DTYPE_FLOAT32, 2));
  ASSERT_TRUE(w.builder().kernel().options.auto_sync);  // the default
  w.builder().set_option("insert_sync", 0);
  emit_scalar_and_vector(w);
  const asc::Kernel& kernel = w.finish();
  const std::string text = asc::print_kernel(kernel);
  SCOPED_TRACE(text);

  const Syncs s = syncs_in(kernel.body);
  EXPECT_FALSE(contains(s.sets, "MTE2_V"));
  EXPECT_EQ(s.sets, (std::vector<std::string>{"S_MTE3"}));
  EXPECT_EQ(s.waits, s.sets);
  EXPECT_EQ(s.barriers, (std::vector<int64_t>{kPipeV}));
  EXPECT_NE(text.find("pipe_barrier {pipe = V}"), std::string::npos);
  EXPECT_EQ(kernel.inserted_syncs, 2);

  // The MTE2 -> V hand-over auto_sync leaves alone is a race the sanitizer reports.
  std::vector<float> x(64, 1.0f), z(8, 0.0f);
  auto e = error_of([&] { run_model(kernel, 1, {buffer_arg(x), buffer_arg(z)}); });
  EXPECT_TRUE(is_error(e, ASC_ERR_RACE, {"read-after-write", "MTE2_V"}));
}

// (d) With both options off the kernel is left exactly as written.
TEST(AutoSync, OffInsertsNothing) {
  asc::Module m;
  CoreWriter w(m, "no_sync", gm_params(ASC_DTYPE_FLOAT32, 2));
  w.builder().set_option("auto_sync", 0);
  w.builder().set_option("insert_sync", 0);
  emit_scalar_and_vector(w);
  const asc::Kernel& kernel = w.finish();
  const std::string text = asc::print_kernel(kernel);
  SCOPED_TRACE(text);

  EXPECT_EQ(kernel.inserted_syncs, 0);
  for (const char* op : {"set_flag", "wait_flag", "pipe_barrier"}) EXPECT_EQ(text.find(op), std::string::npos) << op;
}

// (d') A vector op that reads what the one before it wrote, in loops nested three deep, the user's
// pipe_barrier(ALL)s around them: each vector op gets one pipe_barrier(V), however many passes each loop's analysis
// takes. (Merging a loop's states once kept the older path's V clock, so each barrier covered too little and every
// pending access asked for another: 6^depth barriers an op.) z = x after c = (c + x) - x eight times.
TEST(AutoSync, NestedLoopsGetOneVectorBarrierAnOp) {
  asc::Module m;
  CoreWriter w(m, "nested_vector_chain", gm_params(ASC_DTYPE_FLOAT32, 2));
  Value n = w.i32(64), zero = w.i32(0);
  Value x_gm = w.global_tensor(w.param(0), zero, n), z_gm = w.global_tensor(w.param(1), zero, n);
  Value a = w.local_tensor(0, 64, ASC_DTYPE_FLOAT32, ASC_POS_VECIN, "a");
  Value c = w.local_tensor(256, 64, ASC_DTYPE_FLOAT32, ASC_POS_VECCALC, "c");
  const std::vector<Attr> all = {int_attr("pipe", 6)};
  w.data_copy(a, x_gm, n);
  w.data_copy(c, x_gm, n);
  w.op("pipe_barrier", {}, all);
  for (int depth = 0; depth < 3; ++depth) w.for_begin(w.i32(0), w.i32(2), w.i32(1));
  w.op("add", {c, c, a, n});
  w.op("sub", {c, c, a, n});
  for (int depth = 0; depth < 3; ++depth) w.for_end();
  w.op("pipe_barrier", {}, all);
  w.data_copy(z_gm, c, n);
  const asc::Kernel& kernel = w.finish();
  SCOPED_TRACE(asc::print_kernel(kernel));

  const asc::Region* body = &top_level_op(kernel, asc::OpCode::For).regions[0];
  for (int depth = 1; depth < 3; ++depth) {
    auto inner =
        std::find_if(body->ops.begin(), body->ops.end(), [](const auto& op) { return op->code == asc::OpCode::For; });
    ASSERT_NE(inner, body->ops.end());
    body = &(*inner)->regions[0];
  }
  EXPECT_EQ(syncs_in(*body).barriers, (std::vector<int64_t>{kPipeV, kPipeV}));  // before the add and the sub
  EXPECT_EQ(syncs_in(kernel.body).barriers, (std::vector<int64_t>{6, kPipeV, kPipeV, 6}));

  std::vector<float> x = random_values<float>(64, 61, -100, 100), z(64, std::nanf(""));
  run_model(kernel, 1, {buffer_arg(x), buffer_arg(z)});
  EXPECT_TRUE(same_bits(z, x));
}

// (e) Data copied in before an `if` and read by a vector op in each branch:
// whichever branch runs must wait for the copy. z = x * x if square else x + x.
class InsertSyncIf : public ::testing::TestWithParam<int32_t> {};

TEST_P(InsertSyncIf, BothBranchesWaitForTheCopyIn) {
  asc::Module m;
  CoreWriter w(m, "branchy",
               {gm_addr_type(ASC_DTYPE_FLOAT32),
                gm_addr_type(ASC_DTYPE_FLOAT32),
                {ASC_TYPE_SCALAR, ASC_DTYPE_INT32, ASC_POS_GM}});
  w.builder().set_option("insert_sync", 1);
  Value n = w.i32(64), zero = w.i32(0);
  Value x_gm = w.global_tensor(w.param(0), zero, n), z_gm = w.global_tensor(w.param(1), zero, n);
  Value a = w.local_tensor(0, 64, ASC_DTYPE_FLOAT32, ASC_POS_VECIN, "a");
  Value c = w.local_tensor(256, 64, ASC_DTYPE_FLOAT32, ASC_POS_VECOUT, "c");
  w.data_copy(a, x_gm, n);
  w.if_begin(w.op("cmp.eq", {w.param(2), w.i32(1)}));
  w.op("mul", {c, a, a, n});
  w.builder().else_begin();
  w.op("add", {c, a, a, n});
  w.if_end();
  w.data_copy(z_gm, c, n);
  const asc::Kernel& kernel = w.finish();
  SCOPED_TRACE(asc::print_kernel(kernel));

  const asc::Op& branch = top_level_op(kernel, asc::OpCode::If);
  const bool waits_before_if = contains(syncs_around(kernel, asc::OpCode::If, /*after=*/false).waits, "MTE2_V");
  const bool waits_in_both =
      contains(syncs_in(branch.regions[0]).waits, "MTE2_V") && contains(syncs_in(branch.regions[1]).waits, "MTE2_V");
  EXPECT_TRUE(waits_before_if || waits_in_both);

  const int32_t square = GetParam();
  std::vector<float> x = random_values<float>(64, 55, -10, 10), z(64, 0.0f), want(64);
  for (size_t i = 0; i < want.size(); ++i) want[i] = square == 1 ? x[i] * x[i] : x[i] + x[i];
  run_model(kernel, 1, {buffer_arg(x), buffer_arg(z), int_scalar_arg(ASC_DTYPE_INT32, square)});
  EXPECT_TRUE(same_bits(z, want));
}

INSTANTIATE_TEST_SUITE_P(Square, InsertSyncIf, ::testing::Values(0, 1));

// Only the then-branch waits for the copy-in; a vector op after the `if` must
// not rely on that wait, since the else path never made it.
TEST(InsertSync, OpAfterAOneSidedIfStillWaitsForTheCopyIn) {
  asc::Module m;
  CoreWriter w(m, "one_sided",
               {gm_addr_type(ASC_DTYPE_FLOAT32),
                gm_addr_type(ASC_DTYPE_FLOAT32),
                {ASC_TYPE_SCALAR, ASC_DTYPE_INT32, ASC_POS_GM}});
  w.builder().set_option("insert_sync", 1);
  Value n = w.i32(64), zero = w.i32(0);
  Value x_gm = w.global_tensor(w.param(0), zero, n), z_gm = w.global_tensor(w.param(1), zero, n);
  Value a = w.local_tensor(0, 64, ASC_DTYPE_FLOAT32, ASC_POS_VECIN, "a");
  Value b = w.local_tensor(256, 64, ASC_DTYPE_FLOAT32, ASC_POS_VECCALC, "b");
  Value c = w.local_tensor(512, 64, ASC_DTYPE_FLOAT32, ASC_POS_VECOUT, "c");
  w.data_copy(a, x_gm, n);
  w.if_begin(w.op("cmp.eq", {w.param(2), w.i32(1)}));
  w.op("add", {b, a, a, n});
  w.if_end();
  w.op("mul", {c, a, a, n});
  w.data_copy(z_gm, c, n);
  const asc::Kernel& kernel = w.finish();
  SCOPED_TRACE(asc::print_kernel(kernel));

  // Every path to each vector op passes an MTE2_V wait.
  const asc::Op& branch = top_level_op(kernel, asc::OpCode::If);
  const bool before = contains(syncs_around(kernel, asc::OpCode::If, /*after=*/false).waits, "MTE2_V");
  const bool in_then = contains(syncs_in(branch.regions[0]).waits, "MTE2_V");
  const bool in_else = contains(syncs_in(branch.regions[1]).waits, "MTE2_V");
  const bool after = contains(syncs_around(kernel, asc::OpCode::If, /*after=*/true).waits, "MTE2_V");
  EXPECT_TRUE(before || in_then) << "the add";
  EXPECT_TRUE(before || (in_then && in_else) || after) << "the mul";
}

// A DataCopyPad (its extent depends on run-time lengths) touches only its own tensor: the vector op filling
// another tensor needs no flag after it, the one reading its tensor does.
TEST(InsertSync, ACopyOfRunTimeLengthIsBoundedByItsTensor) {
  asc::Module m;
  CoreWriter w(m, "pad_copy", {gm_addr_type(ASC_DTYPE_FLOAT32), {ASC_TYPE_SCALAR, ASC_DTYPE_INT32, ASC_POS_GM}});
  w.builder().set_option("insert_sync", 1);
  Value zero = w.i32(0), n = w.i32(64);
  Value x_gm = w.global_tensor(w.param(0), zero, n);
  Value a = w.local_tensor(0, 64, ASC_DTYPE_FLOAT32, ASC_POS_VECCALC, "a");
  Value b = w.local_tensor(1024, 64, ASC_DTYPE_FLOAT32, ASC_POS_VECCALC, "b");
  Value bytes = w.op("arith.mul", {w.param(1), w.i32(4)});
  w.op("data_copy_pad.gm_to_local",
       {a, x_gm, w.i32(1), bytes, zero, zero, zero, zero, w.constant_f(ASC_DTYPE_FLOAT32, 0), zero});
  w.op("duplicate", {b, w.constant_f(ASC_DTYPE_FLOAT32, 1), n});  // beyond `a`: independent of the copy
  w.op("add", {b, a, b, n});                                      // reads `a`: waits for the copy
  const asc::Kernel& kernel = w.finish();
  SCOPED_TRACE(asc::print_kernel(kernel));
  const Syncs s = syncs_in(kernel.body);
  EXPECT_EQ(s.sets, (std::vector<std::string>{"MTE2_V"}));
  // the one flag sits right before the add, after the duplicate
  bool seen_duplicate = false, flag_after_duplicate = false;
  for (const auto& op : kernel.body.ops) {
    if (op->code == asc::OpCode::VDuplicate) seen_duplicate = true;
    if (op->code == asc::OpCode::SetFlag) flag_after_duplicate = seen_duplicate;
  }
  EXPECT_TRUE(flag_after_duplicate);
}

// Nine copies in, each read by V before the next: each needs an MTE2 -> V flag, and MTE2 never learns that
// the earlier waits are done, so the ninth finds all eight ids pending and gets a barrier instead of an error.
TEST(InsertSync, WhenEveryEventIdIsPendingABarrierTakesItsPlace) {
  asc::Module m;
  CoreWriter w(m, "nine_copies", gm_params(ASC_DTYPE_FLOAT32, 2));
  w.builder().set_option("insert_sync", 1);
  const int copies = 9;
  Value n = w.i32(64), zero = w.i32(0);
  Value x_gm = w.global_tensor(w.param(0), zero, w.i32(64 * copies));
  Value z_gm = w.global_tensor(w.param(1), zero, w.i32(64 * copies));
  for (int i = 0; i < copies; ++i) {
    Value a = w.local_tensor(512 * i, 64, ASC_DTYPE_FLOAT32, ASC_POS_VECCALC, "a");
    Value b = w.local_tensor(8192 + 512 * i, 64, ASC_DTYPE_FLOAT32, ASC_POS_VECCALC, "b");
    w.data_copy(a, w.global_slice(x_gm, w.i32(64 * i)), n);
    w.op("add", {b, a, a, n});
    w.data_copy(w.global_slice(z_gm, w.i32(64 * i)), b, n);
  }
  const asc::Kernel& kernel = w.finish();
  SCOPED_TRACE(asc::print_kernel(kernel));
  const Syncs s = syncs_in(kernel.body);
  EXPECT_EQ(std::count(s.sets.begin(), s.sets.end(), "MTE2_V"), 8);
  EXPECT_EQ(s.barriers, (std::vector<int64_t>{static_cast<int64_t>(asc::Pipe::All)}));

  std::vector<float> x = random_values<float>(64 * copies, 61, -10, 10), z(64 * copies, 0.0f), want(64 * copies);
  for (size_t i = 0; i < want.size(); ++i) want[i] = x[i] + x[i];
  run_model(kernel, 1, {buffer_arg(x), buffer_arg(z)});
  EXPECT_TRUE(same_bits(z, want));
}

// ---- 5. get_value / set_value / duplicate on the Model ---------------------------------

// Values worth a round trip, put at the start of the random data.
template <typename T>
std::vector<T> edge_values() {
  if constexpr (std::is_same_v<T, float>)
    return {-0.0f,
            std::numeric_limits<float>::infinity(),
            -std::numeric_limits<float>::infinity(),
            std::numeric_limits<float>::denorm_min(),
            std::numeric_limits<float>::max(),
            std::numeric_limits<float>::lowest()};
  else if constexpr (std::is_same_v<T, _Float16>)
    return {static_cast<_Float16>(-0.0f),     static_cast<_Float16>(INFINITY),
            static_cast<_Float16>(-INFINITY), static_cast<_Float16>(0x1p-24f) /* smallest subnormal */,
            static_cast<_Float16>(65504.0f),  static_cast<_Float16>(-65504.0f)};
  else
    return {std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), T{-1}, T{0}};
}

// A duplicate scalar exactly representable in T.
template <typename T>
T fill_value() {
  if constexpr (std::is_same_v<T, int32_t>)
    return 123456789;  // not representable in float32
  else if constexpr (std::is_same_v<T, int16_t>)
    return -1234;
  else
    return static_cast<T>(-2.75f);
}

constexpr int64_t kN = 64;  // elements: whole 32-byte blocks for every dtype here

// b[N - 1 - i] = a.get_value(i) for every i: z is x reversed, bit for bit.
template <typename T>
void check_round_trip() {
  constexpr asc_dtype_t d = dtype_of<T>();
  asc::Module m;
  CoreWriter w(m, "reverse", gm_params(d, 2));
  Value n = w.i32(kN), zero = w.i32(0);
  Value x_gm = w.global_tensor(w.param(0), zero, n), z_gm = w.global_tensor(w.param(1), zero, n);
  Value a = w.local_tensor(0, kN, d, ASC_POS_VECIN, "a");
  Value b = w.local_tensor(kN * sizeof(T), kN, d, ASC_POS_VECOUT, "b");
  w.data_copy(a, x_gm, n);
  Value i = w.for_begin(zero, n, w.i32(1));
  {
    Value v = w.op("local_tensor.get_value", {a, i});
    w.op("local_tensor.set_value", {b, w.op("arith.sub", {w.i32(kN - 1), i}), v});
  }
  w.for_end();
  w.data_copy(z_gm, b, n);
  const asc::Kernel& kernel = w.finish();  // auto_sync orders MTE2 -> S and S -> MTE3

  std::vector<T> x = random_values<T>(kN, 61, -1000, 1000);
  const std::vector<T> edges = edge_values<T>();
  std::copy(edges.begin(), edges.end(), x.begin());
  std::vector<T> z(kN, static_cast<T>(7));
  run_model(kernel, 1, {buffer_arg(x), buffer_arg(z)});
  EXPECT_TRUE(same_bits(z, std::vector<T>(x.rbegin(), x.rend())));
}

// duplicate(z, v, 13) over a tensor of 64 copied in from z: the first 13
// elements become v, the other 51 keep their values.
template <typename T>
void check_duplicate() {
  constexpr asc_dtype_t d = dtype_of<T>();
  constexpr int64_t kCount = 13;
  const T value = fill_value<T>();
  asc::Module m;
  CoreWriter w(m, "fill", gm_params(d, 1));
  Value n = w.i32(kN), zero = w.i32(0);
  Value z_gm = w.global_tensor(w.param(0), zero, n);
  Value z = w.local_tensor(0, kN, d, ASC_POS_VECOUT, "z");
  Value scalar = ASC_NO_VALUE;
  if constexpr (std::is_integral_v<T>)
    scalar = w.constant(d, value);
  else
    scalar = w.constant_f(d, static_cast<double>(value));
  w.data_copy(z, z_gm, n);
  w.sync(MTE2_V, zero);
  w.op("duplicate", {z, scalar, w.i32(kCount)});
  w.sync(V_MTE3, zero);
  w.data_copy(z_gm, z, n);
  const asc::Kernel& kernel = w.finish();

  std::vector<T> zs = random_values<T>(kN, 62, -1000, 1000);
  std::vector<T> want = zs;
  std::fill(want.begin(), want.begin() + kCount, value);
  run_model(kernel, 1, {buffer_arg(zs)});
  EXPECT_TRUE(same_bits(zs, want));
}

// Calls f(T{}) with the host type T of `d`. (Not a typed test: libstdc++ 12
// has no typeinfo for _Float16.)
template <typename F>
void with_host_type(asc_dtype_t d, F&& f) {
  switch (d) {
    case ASC_DTYPE_FLOAT32: return f(float{});
    case ASC_DTYPE_FLOAT16: return f(_Float16{});
    case ASC_DTYPE_INT16: return f(int16_t{});
    case ASC_DTYPE_INT32: return f(int32_t{});
    default: FAIL() << "no host type for dtype " << d;
  }
}

std::string dtype_label(const ::testing::TestParamInfo<asc_dtype_t>& info) {
  switch (info.param) {
    case ASC_DTYPE_FLOAT32: return "float32";
    case ASC_DTYPE_FLOAT16: return "float16";
    case ASC_DTYPE_INT16: return "int16";
    case ASC_DTYPE_INT32: return "int32";
    default: return "other";
  }
}

class ScalarAccessTest : public ::testing::TestWithParam<asc_dtype_t> {};

TEST_P(ScalarAccessTest, GetAndSetValueRoundTrip) {
  with_host_type(GetParam(), [](auto host) { check_round_trip<decltype(host)>(); });
}

TEST_P(ScalarAccessTest, DuplicateFillsExactlyCount) {
  with_host_type(GetParam(), [](auto host) { check_duplicate<decltype(host)>(); });
}

TEST_P(ScalarAccessTest, GetValuePastTheEndIsOutOfBounds) {
  asc::Module m;
  CoreWriter w(m, "past_the_end", {});
  Value a = w.local_tensor(0, kN, GetParam(), ASC_POS_VECIN, "a");
  w.op("local_tensor.get_value", {a, w.i32(kN - 1)});  // the last element is fine
  w.op("local_tensor.get_value", {a, w.i32(kN)});
  const uint32_t line = w.last_line();
  // Without the sanitizer: its initcheck would stop at the first, unwritten read.
  auto e = error_of([&] { run_model(w.finish(), 1, {}, asc::LaunchOptions{false, false}); });
  ASSERT_TRUE(is_error(e, ASC_ERR_OUT_OF_BOUNDS, {"local_tensor.get_value", "index 64"}));
  EXPECT_EQ(e->loc().line, line);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, ScalarAccessTest,
                         ::testing::Values(ASC_DTYPE_FLOAT32, ASC_DTYPE_FLOAT16, ASC_DTYPE_INT16, ASC_DTYPE_INT32),
                         dtype_label);

// ---- 5. common values: repeated index arithmetic computed once ---------------------------

// The ops with `code` in `r` and its nested regions.
void collect_ops(const asc::Region& r, asc::OpCode code, std::vector<const asc::Op*>& out) {
  for (const auto& op : r.ops) {
    if (op->code == code) out.push_back(op.get());
    for (const asc::Region& sub : op->regions) collect_ops(sub, code, out);
  }
}

std::vector<const asc::Op*> ops_in(const asc::Region& r, asc::OpCode code) {
  std::vector<const asc::Op*> out;
  collect_ops(r, code, out);
  return out;
}

// z[i] = i*3 + i*3; z[4+i] = v * 2 after `v = v * 2` (v a var); z[8+i] = i+100 (then) or i+100+1 (else) of
// `if i > 1`; z[12+i] = i+100 after the if; for i in 0..3. Each pair of equal expressions is written apart.
TEST(CommonValues, RepeatsMergeWhereTheFirstDominatesAndNeverThroughAVar) {
  asc::Module m;
  CoreWriter w(m, "repeats", {gm_addr_type(ASC_DTYPE_INT32)});
  Value z = w.global_tensor(w.param(0), w.i32(0), w.i32(16));
  Value v = w.op("var", {w.i32(1)});
  Value i = w.for_begin(w.i32(0), w.i32(4), w.i32(1));
  Value a = w.op("arith.mul", {i, w.i32(3)});
  Value b = w.op("arith.mul", {i, w.i32(3)});
  w.op("global_tensor.set_value", {z, i, w.op("arith.add", {a, b})});
  w.op("assign", {v, w.op("arith.mul", {v, w.i32(2)})});
  w.op("global_tensor.set_value", {z, w.op("arith.add", {i, w.i32(4)}), w.op("arith.mul", {v, w.i32(2)})});
  Value at = w.op("arith.add", {i, w.i32(8)});
  w.if_begin(w.op("cmp.gt", {i, w.i32(1)}));
  w.op("global_tensor.set_value", {z, at, w.op("arith.add", {i, w.i32(100)})});
  w.builder().else_begin();
  w.op("global_tensor.set_value", {z, at, w.op("arith.add", {w.op("arith.add", {i, w.i32(100)}), w.i32(1)})});
  w.if_end();
  w.op("global_tensor.set_value", {z, w.op("arith.add", {i, w.i32(12)}), w.op("arith.add", {i, w.i32(100)})});
  w.for_end();
  const asc::Kernel& kernel = w.finish();
  SCOPED_TRACE(asc::print_kernel(kernel));

  // Every literal is made once, before everything else; the loop body has none.
  const asc::Op& loop = top_level_op(kernel, asc::OpCode::For);
  EXPECT_TRUE(ops_in(loop.regions[0], asc::OpCode::Const).empty());
  std::vector<int64_t> literals;
  for (const asc::Op* c : ops_in(kernel.body, asc::OpCode::Const)) literals.push_back(c->attr(1).i);
  EXPECT_EQ(std::set<int64_t>(literals.begin(), literals.end()).size(), literals.size());
  // i * 3 once; v * 2 twice (assign changes v in between).
  size_t by_three = 0, of_var = 0;
  for (const asc::Op* mul : ops_in(loop.regions[0], asc::OpCode::MulS)) {
    by_three += mul->operands[0] == i;
    of_var += mul->operands[0] == v;
  }
  EXPECT_EQ(by_three, 1u);
  EXPECT_EQ(of_var, 2u);
  // i + 100 in each branch and after the if: no branch dominates the other or what follows.
  const asc::Op& branch = *ops_in(loop.regions[0], asc::OpCode::If).at(0);
  auto adds_100 = [&](const asc::Region& r) {
    size_t n = 0;
    for (const auto& op : r.ops)
      n += op->code == asc::OpCode::AddS && op->operands[0] == i && kernel.value_def[op->operands[1]]->attr(1).i == 100;
    return n;
  };
  EXPECT_EQ(adds_100(branch.regions[0]), 1u);
  EXPECT_EQ(adds_100(branch.regions[1]), 1u);
  EXPECT_EQ(adds_100(loop.regions[0]), 1u);

  std::vector<int32_t> out(16, -1), want(16);
  for (int32_t k = 0; k < 4; ++k) {
    want[k] = 6 * k;
    want[4 + k] = 4 << k;
    want[8 + k] = k > 1 ? k + 100 : k + 101;
    want[12 + k] = k + 100;
  }
  run_model(kernel, 1, {buffer_arg(out)});
  EXPECT_EQ(out, want);
}

// The tiled add written as pyasc's tutorial writes it: each line slices its buffers anew (`x_local[buf_id *
// tile_length:]`), so the body computes the same offsets and slices several times. After the pass each offset
// is computed once an iteration and each buffer sliced once, and the result is still the add.
TEST(CommonValues, TheTutorialsRepeatedSlicesAreMadeOnceAnIteration) {
  TiledBinary k;
  const int64_t tile = k.tile_length();
  const int64_t buffer_bytes = tile * k.buffer_num * 4;
  asc::Module m;
  CoreWriter w(m, "vadd", k.params());
  Value length = w.i32(k.block_length);
  Value x_gm = w.global_tensor(w.param(0), w.i32(0), length), y_gm = w.global_tensor(w.param(1), w.i32(0), length);
  Value z_gm = w.global_tensor(w.param(2), w.i32(0), length);
  Value x_local = w.local_tensor(0, tile * k.buffer_num, ASC_DTYPE_FLOAT32, ASC_POS_VECIN, "x_local");
  Value y_local = w.local_tensor(buffer_bytes, tile * k.buffer_num, ASC_DTYPE_FLOAT32, ASC_POS_VECIN, "y_local");
  Value z_local = w.local_tensor(2 * buffer_bytes, tile * k.buffer_num, ASC_DTYPE_FLOAT32, ASC_POS_VECOUT, "z_local");
  Value i = w.for_begin(w.i32(0), w.i32(k.tile_num * k.buffer_num), w.i32(1));
  Value buf_id = w.op("arith.mod", {i, w.i32(k.buffer_num)});
  auto local = [&](Value t) { return w.local_slice(t, w.op("arith.mul", {buf_id, w.i32(tile)})); };
  auto global = [&](Value t) { return w.global_slice(t, w.op("arith.mul", {i, w.i32(tile)})); };
  w.data_copy(local(x_local), global(x_gm), w.i32(tile));
  w.data_copy(local(y_local), global(y_gm), w.i32(tile));
  w.sync(MTE2_V, buf_id);
  w.op("add", {local(z_local), local(x_local), local(y_local), w.i32(tile)});
  w.sync(V_MTE3, buf_id);
  w.data_copy(global(z_gm), local(z_local), w.i32(tile));
  w.sync(MTE3_MTE2, buf_id);
  w.for_end();
  const asc::Kernel& kernel = w.finish();
  SCOPED_TRACE(asc::print_kernel(kernel));

  const asc::Region& body = top_level_op(kernel, asc::OpCode::For).regions[0];
  EXPECT_EQ(ops_in(body, asc::OpCode::MulS).size(), 2u);  // buf_id * tile, i * tile
  std::vector<uint32_t> sliced;
  for (const asc::Op* op : ops_in(body, asc::OpCode::LocalSlice)) sliced.push_back(op->operands[0]);
  EXPECT_EQ(std::set<uint32_t>(sliced.begin(), sliced.end()), (std::set<uint32_t>{x_local, y_local, z_local}));
  EXPECT_EQ(sliced.size(), 3u);
  EXPECT_EQ(ops_in(body, asc::OpCode::GlobalSlice).size(), 3u);

  const size_t n = k.block_length;
  std::vector<float> x = random_values<float>(n, 41, -1000, 1000), y = random_values<float>(n, 42, -1000, 1000);
  std::vector<float> z(n, std::nanf(""));
  run_model(kernel, 1, {buffer_arg(x), buffer_arg(y), buffer_arg(z)});
  std::vector<float> want(n);
  for (size_t e = 0; e < n; ++e) want[e] = x[e] + y[e];
  EXPECT_TRUE(same_bits(z, want));
}

}  // namespace
