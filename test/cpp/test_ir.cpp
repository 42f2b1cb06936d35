// Builder, verifier and printer: every op is checked as it is added, so each
// rule below fails at the offending op, with its source location.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>

#include "ir/matmul_api.h"
#include "ir/printer.h"
#include "kernel_fixtures.h"
#include "passes/verifier.h"

namespace {

using namespace asc_test;

// A kernel with params x, y, z (float32 GM addresses) and helpers for the
// operands the rules are about.
class IrTest : public ::testing::Test {
 protected:
  asc::Module module_;
  CoreWriter w_{module_, "k", TiledBinary{}.params()};

  Value ub(asc_dtype_t d, asc_position_t pos, int64_t offset_bytes = 0) {
    return w_.local_tensor(offset_bytes, 64, d, pos, "t");
  }
  asc::Type type(Value v) { return w_.builder().value_type(v); }
};

// The line of `needle` in `text`, or "" if absent.
std::string line_with(const std::string& text, std::string_view needle) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.find(needle) != std::string::npos) return line;
  return {};
}

TEST_F(IrTest, ResultTypesFollowTheOpTable) {
  Value idx = w_.op("get_block_idx", {});
  EXPECT_EQ(type(idx), asc::Type::scalar(asc::DType::Int64));
  EXPECT_EQ(type(w_.cast(idx, ASC_DTYPE_INT32)), asc::Type::scalar(asc::DType::Int32));
  Value x = ub(ASC_DTYPE_FLOAT16, ASC_POS_VECIN);
  EXPECT_EQ(type(x), asc::Type::local_tensor(asc::DType::Float16, asc::Position::VecIn));
  EXPECT_EQ(type(w_.local_slice(x, w_.i32(16))), type(x));
  Value gm = w_.global_tensor(w_.param(0), w_.i32(0), w_.i32(64));
  EXPECT_EQ(type(gm), asc::Type::global_tensor(asc::DType::Float32));
  EXPECT_EQ(type(w_.op("cmp.lt", {w_.i32(1), w_.i32(2)})), asc::Type::scalar(asc::DType::Bool));
  EXPECT_EQ(w_.op("data_copy", {ub(ASC_DTYPE_FLOAT32, ASC_POS_VECIN), gm, w_.i32(64)}), ASC_NO_VALUE);
}

TEST_F(IrTest, UnknownOpNameIsRejectedAtItsLocation) {
  w_.at_line(42);
  auto e = error_of([&] { w_.op("vadd_fused", {}); });
  ASSERT_TRUE(is_error(e, ASC_ERR_UNKNOWN_OP, {"vadd_fused"}));
  ASSERT_TRUE(e->loc().known());
  EXPECT_EQ(*e->loc().file, "kernels.py");
  EXPECT_EQ(e->loc().line, 42u);
  EXPECT_EQ(e->loc().col, KernelWriter::kCol);
}

TEST_F(IrTest, ScalarAsVectorDestinationIsATypeError) {
  Value x = ub(ASC_DTYPE_FLOAT32, ASC_POS_VECIN), n = w_.i32(64);
  EXPECT_TRUE(is_error(error_of([&] {
                         w_.op("add", {n, x, x, n});
                       }),
                       ASC_ERR_TYPE, {"add", "operand 0", "LocalTensor"}));
}

TEST_F(IrTest, WrongOperandCountIsATypeError) {
  Value x = ub(ASC_DTYPE_FLOAT32, ASC_POS_VECIN);
  EXPECT_TRUE(is_error(error_of([&] { w_.op("add", {x, x, x}); }), ASC_ERR_TYPE, {"add", "4 operand"}));
  EXPECT_TRUE(is_error(error_of([&] { w_.op("data_copy", {x, x}); }), ASC_ERR_TYPE, {"data_copy", "2 operand"}));
}

TEST_F(IrTest, VectorAddNeedsOneDtype) {
  Value x = ub(ASC_DTYPE_FLOAT32, ASC_POS_VECIN), y = ub(ASC_DTYPE_FLOAT16, ASC_POS_VECIN, 256);
  Value z = ub(ASC_DTYPE_FLOAT32, ASC_POS_VECOUT, 512), n = w_.i32(64);
  EXPECT_TRUE(is_error(error_of([&] { w_.op("add", {z, x, y, n}); }), ASC_ERR_TYPE, {"add", "float16", "float32"}));
  w_.op("add", {z, x, x, n});  // the same op with matching dtypes is fine
}

TEST_F(IrTest, UbToUbCopyWritesAnyUnifiedBufferPosition) {
  Value src = ub(ASC_DTYPE_FLOAT32, ASC_POS_VECIN), n = w_.i32(64);
  w_.data_copy(ub(ASC_DTYPE_FLOAT32, ASC_POS_VECIN, 256), src, n);
  w_.data_copy(ub(ASC_DTYPE_FLOAT32, ASC_POS_VECCALC, 512), src, n);
  w_.data_copy(ub(ASC_DTYPE_FLOAT32, ASC_POS_VECOUT, 768), src, n);
}

TEST_F(IrTest, LocalTensorsLiveInOnChipMemories) {
  ub(ASC_DTYPE_FLOAT16, ASC_POS_A1);   // L1
  ub(ASC_DTYPE_FLOAT32, ASC_POS_CO1);  // L0C
  EXPECT_TRUE(is_error(error_of([&] { ub(ASC_DTYPE_FLOAT32, ASC_POS_CO2); }), ASC_ERR_TYPE, {"CO2 is GM"}));
  EXPECT_TRUE(is_error(error_of([&] { ub(ASC_DTYPE_FLOAT32, ASC_POS_GM); }), ASC_ERR_TYPE, {"local_tensor.create"}));
  Value a = ub(ASC_DTYPE_FLOAT32, ASC_POS_VECIN), z = ub(ASC_DTYPE_FLOAT32, ASC_POS_A1, 256), n = w_.i32(64);
  EXPECT_TRUE(is_error(error_of([&] { w_.op("add", {z, a, a, n}); }), ASC_ERR_TYPE, {"A1", "Unified Buffer"}));
}

TEST_F(IrTest, DivIsFloatOnly) {
  Value x = ub(ASC_DTYPE_INT32, ASC_POS_VECIN), z = ub(ASC_DTYPE_INT32, ASC_POS_VECOUT, 256), n = w_.i32(64);
  EXPECT_TRUE(is_error(error_of([&] { w_.op("div", {z, x, x, n}); }), ASC_ERR_TYPE, {"div", "int32"}));
  Value h = ub(ASC_DTYPE_FLOAT16, ASC_POS_VECIN, 512);
  w_.op("div", {h, h, h, n});
}

TEST_F(IrTest, IntegerVectorOpsAcceptInt16AndInt32Only) {
  Value b = ub(ASC_DTYPE_INT8, ASC_POS_VECIN), n = w_.i32(64);
  EXPECT_TRUE(is_error(error_of([&] { w_.op("mul", {b, b, b, n}); }), ASC_ERR_TYPE, {"mul", "int8"}));
  Value s = ub(ASC_DTYPE_INT16, ASC_POS_VECIN, 256);
  w_.op("mul", {s, s, s, n});
}

TEST_F(IrTest, EventIdsAreZeroToSeven) {
  EXPECT_TRUE(is_error(error_of([&] { w_.set_flag(MTE2_V, w_.i32(8)); }), ASC_ERR_TYPE, {"set_flag", "8"}));
  EXPECT_TRUE(is_error(error_of([&] { w_.wait_flag(MTE2_V, w_.i32(-1)); }), ASC_ERR_TYPE, {"wait_flag", "-1"}));
  EXPECT_TRUE(is_error(error_of([&] { w_.op("set_flag", {w_.i32(0)}, {int_attr("event", 35)}); }), ASC_ERR_TYPE,
                       {"HardEvent 35"}));
  w_.set_flag(MTE2_V, w_.i32(7));
  w_.wait_flag(MTE2_V, w_.i32(7));
}

TEST_F(IrTest, ConstantLocalTensorOffsetMustBe32ByteAligned) {
  EXPECT_TRUE(is_error(error_of([&] { ub(ASC_DTYPE_FLOAT32, ASC_POS_VECIN, 16); }), ASC_ERR_MISALIGNED, {"16"}));
  ub(ASC_DTYPE_FLOAT32, ASC_POS_VECIN, 32);
}

// A negative address is out of bounds, not misaligned (-32 is a multiple of
// 32); the run-time check for a computed address says OUT_OF_BOUNDS, and the
// constant case should agree with it.
TEST_F(IrTest, NegativeConstantLocalOffsetIsOutOfBoundsNotMisaligned) {
  EXPECT_TRUE(is_error(error_of([&] { ub(ASC_DTYPE_FLOAT32, ASC_POS_VECIN, -32); }), ASC_ERR_OUT_OF_BOUNDS, {"-32"}));
}

TEST_F(IrTest, ScalarArithmeticNeedsOneDtype) {
  Value idx = w_.op("get_block_idx", {}), four = w_.i32(4);  // int64, int32
  EXPECT_TRUE(is_error(error_of([&] {
                         w_.op("arith.mul", {idx, four});
                       }),
                       ASC_ERR_TYPE, {"arith.mul", "int64", "int32"}));
  Value a = w_.constant_f(ASC_DTYPE_FLOAT32, 1), b = w_.constant_f(ASC_DTYPE_FLOAT32, 2);
  EXPECT_TRUE(is_error(error_of([&] { w_.op("arith.and", {a, b}); }), ASC_ERR_TYPE, {"arith.and", "integer"}));
  w_.op("arith.mul", {w_.cast(idx, ASC_DTYPE_INT32), four});
}

TEST_F(IrTest, AttributesAreChecked) {
  Value one = w_.i32(1);
  auto cast_with = [&](std::vector<Attr> attrs) { return error_of([&] { w_.op("arith.cast", {one}, attrs); }); };
  EXPECT_TRUE(is_error(cast_with({}), ASC_ERR_TYPE, {"missing attribute 'dtype'"}));
  EXPECT_TRUE(is_error(cast_with({int_attr("dtype", ASC_DTYPE_INT16), int_attr("colour", 1)}), ASC_ERR_TYPE,
                       {"unknown attribute 'colour'"}));
  EXPECT_TRUE(is_error(cast_with({string_attr("dtype", "int16")}), ASC_ERR_TYPE, {"'dtype' has the wrong kind"}));
  EXPECT_TRUE(is_error(cast_with({int_attr("dtype", ASC_DTYPE_COUNT)}), ASC_ERR_TYPE, {"unknown dtype 12"}));
  EXPECT_TRUE(is_error(error_of([&] { w_.op("const", {}, {int_attr("dtype", ASC_DTYPE_INT32)}); }), ASC_ERR_TYPE,
                       {"missing attribute 'value'"}));
  // An integer constant from a float value the conversion cannot represent (found by the fuzzer: undefined
  // behaviour in the emitter and the simulator alike).
  for (double bad : {-3.19808e+261, 9.3e18, std::nan("")})
    EXPECT_TRUE(is_error(error_of([&] {
                           w_.op("const", {}, {int_attr("dtype", ASC_DTYPE_INT64), float_attr("value", bad)});
                         }),
                         ASC_ERR_TYPE, {"const", "not an integer an int64 can hold"}))
        << bad;
  w_.op("const", {}, {int_attr("dtype", ASC_DTYPE_INT32), float_attr("value", -2.5)});  // in range: truncated
}

// The scalar unit's conversion and bit counting: ScalarCast's documented (dtype, round mode) pairs, the bit
// counters' uint64 / int64 operands and their 0-or-1 template argument.
TEST_F(IrTest, ScalarCastAndBitCountingRowsAreChecked) {
  Value f = w_.constant_f(ASC_DTYPE_FLOAT32, 2.5);
  auto cast_to = [&](asc_dtype_t d, int64_t mode) {
    return w_.op("scalar_cast", {f}, {int_attr("dtype", d), int_attr("round_mode", mode)});
  };
  EXPECT_EQ(type(cast_to(ASC_DTYPE_INT32, 4)), asc::Type::scalar(asc::DType::Int32));      // CAST_ROUND
  EXPECT_EQ(type(cast_to(ASC_DTYPE_FLOAT16, 6)), asc::Type::scalar(asc::DType::Float16));  // CAST_ODD
  EXPECT_TRUE(is_error(error_of([&] { cast_to(ASC_DTYPE_FLOAT16, 1); }), ASC_ERR_TYPE,
                       {"scalar_cast", "does not accept CAST_RINT", "CAST_ODD"}));
  EXPECT_TRUE(is_error(error_of([&] { cast_to(ASC_DTYPE_INT32, 5); }), ASC_ERR_TYPE, {"does not accept CAST_TRUNC"}));
  EXPECT_TRUE(is_error(error_of([&] { cast_to(ASC_DTYPE_INT32, 7); }), ASC_ERR_TYPE, {"unknown RoundMode 7"}));
  EXPECT_TRUE(is_error(error_of([&] { cast_to(ASC_DTYPE_INT64, 1); }), ASC_ERR_TYPE, {"float16 or int32"}));
  EXPECT_TRUE(
      is_error(error_of([&] {
                 w_.op("scalar_cast", {w_.i32(1)}, {int_attr("dtype", ASC_DTYPE_INT32), int_attr("round_mode", 1)});
               }),
               ASC_ERR_TYPE, {"float32"}));
  Value u = w_.cast(w_.i32(28), ASC_DTYPE_UINT64), s = w_.cast(w_.i32(-1), ASC_DTYPE_INT64);
  EXPECT_EQ(type(w_.op("scalar_get_sff_value", {u}, {int_attr("count_value", 1)})),
            asc::Type::scalar(asc::DType::Int64));
  EXPECT_TRUE(is_error(error_of([&] { w_.op("scalar_get_count_of_value", {u}, {int_attr("count_value", 2)}); }),
                       ASC_ERR_TYPE, {"count_value must be 0 or 1"}));
  EXPECT_TRUE(is_error(error_of([&] { w_.op("scalar_count_leading_zero", {s}); }), ASC_ERR_TYPE, {"uint64"}));
  EXPECT_TRUE(is_error(error_of([&] { w_.op("count_bits_cnt_same_as_sign_bit", {u}); }), ASC_ERR_TYPE, {"int64"}));
  EXPECT_EQ(type(w_.op("count_bits_cnt_same_as_sign_bit", {s})), asc::Type::scalar(asc::DType::Int64));
}

// The sorting rows: float16/float32 scores with uint32 indices, the merge's valid_bit, element lengths and the
// condition for its repeats, the structure-size queries' dtype, the merge result register's list.
TEST_F(IrTest, SortRowsAreChecked) {
  Value f = ub(ASC_DTYPE_FLOAT32, ASC_POS_VECIN), d = ub(ASC_DTYPE_FLOAT32, ASC_POS_VECOUT, 1024);
  Value u = ub(ASC_DTYPE_UINT32, ASC_POS_VECIN, 2048), i = ub(ASC_DTYPE_INT32, ASC_POS_VECIN, 3072);
  w_.op("sort32", {d, f, u, w_.i32(2)});
  EXPECT_TRUE(is_error(error_of([&] {
                         w_.op("sort32", {d, f, f, w_.i32(1)});
                       }),
                       ASC_ERR_TYPE, {"sort32", "src1 must be a LocalTensor of uint32 indices"}));
  EXPECT_TRUE(is_error(error_of([&] { w_.op("sort32", {i, i, u, w_.i32(1)}); }), ASC_ERR_TYPE, {"int32"}));
  EXPECT_TRUE(is_error(error_of([&] {
                         w_.op("sort32", {d, f, u, w_.i32(256)});
                       }),
                       ASC_ERR_TYPE, {"repeat_time must be in [0, 255], got 256"}));
  w_.op("sort", {d, f, u, d, w_.i32(4)}, {int_attr("is_full_sort", 1)});
  auto merge = [&](int64_t valid, int64_t length, int64_t repeat, int64_t suspension) {
    return w_.op("mrg_sort",
                 {d, f, f, f, f, w_.i32(length), w_.i32(4), w_.i32(4), w_.i32(4), w_.i32(valid), w_.i32(repeat)},
                 {int_attr("if_exhausted_suspension", suspension), int_attr("lists", 4)});
  };
  merge(15, 4, 2, 0);
  merge(3, 4, 1, 1);
  EXPECT_TRUE(is_error(error_of([&] { merge(5, 4, 1, 0); }), ASC_ERR_TYPE, {"valid_bit must be 3 (2 lists)"}));
  EXPECT_TRUE(is_error(error_of([&] { merge(15, 4096, 1, 0); }), ASC_ERR_TYPE, {"element length 0", "4095"}));
  EXPECT_TRUE(is_error(error_of([&] { merge(15, 4, 2, 1); }), ASC_ERR_TYPE, {"repeat_times 2 needs 4 valid lists"}));
  EXPECT_TRUE(is_error(error_of([&] { merge(7, 4, 2, 0); }), ASC_ERR_TYPE, {"repeat_times 2 needs 4 valid lists"}));
  EXPECT_TRUE(is_error(error_of([&] {
                         w_.op("mrg_sort.counts",
                               {d, f, f, f, f, w_.i32(4), w_.i32(4), w_.i32(4), w_.i32(4), w_.i32(7), w_.i32(1)},
                               {int_attr("is_exhausted_suspension", 0), int_attr("lists", 2)});
                       }),
                       ASC_ERR_TYPE, {"valid_bit 7 merges 3 lists, the MrgSortSrcList has 2"}));
  EXPECT_EQ(type(w_.op("get_mrg_sort_result", {}, {int_attr("list", 3)})), asc::Type::scalar(asc::DType::UInt16));
  EXPECT_TRUE(is_error(error_of([&] { w_.op("get_mrg_sort_result", {}, {int_attr("list", 4)}); }), ASC_ERR_TYPE,
                       {"list must be 0..3"}));
  Value n = w_.cast(w_.i32(32), ASC_DTYPE_UINT32);
  EXPECT_EQ(type(w_.op("get_sort_len", {n}, {int_attr("dtype", ASC_DTYPE_FLOAT16)})),
            asc::Type::scalar(asc::DType::UInt32));
  EXPECT_TRUE(is_error(error_of([&] { w_.op("get_sort_offset", {n}, {int_attr("dtype", ASC_DTYPE_INT32)}); }),
                       ASC_ERR_TYPE, {"float16 or float32"}));
  EXPECT_TRUE(is_error(error_of([&] {
                         w_.op("proposal_concat", {d, f, w_.i32(1), w_.i32(6)});
                       }),
                       ASC_ERR_TYPE, {"mode_number must be in [0, 5], got 6"}));
}

// The fused conversions, cast_deq, set_deq_scale and the gather additions: their dtype pairs and operands.
TEST_F(IrTest, FusedConversionAndGatherRowsAreChecked) {
  Value f32 = ub(ASC_DTYPE_FLOAT32, ASC_POS_VECIN), f16 = ub(ASC_DTYPE_FLOAT16, ASC_POS_VECIN, 1024);
  Value i8 = ub(ASC_DTYPE_INT8, ASC_POS_VECOUT, 2048), i16 = ub(ASC_DTYPE_INT16, ASC_POS_VECIN, 4096);
  Value u32 = ub(ASC_DTYPE_UINT32, ASC_POS_VECIN, 8192), u8 = ub(ASC_DTYPE_UINT8, ASC_POS_VECCALC, 12288);
  Value n = w_.i32(64);
  w_.op("add_relu_cast", {f16, f32, f32, n});
  w_.op("sub_relu_cast", {i8, i16, i16, n});
  EXPECT_TRUE(is_error(error_of([&] {
                         w_.op("add_relu_cast", {i8, f32, f32, n});
                       }),
                       ASC_ERR_TYPE,
                       {"add_relu_cast", "float32 -> float16, float16 -> int8, int16 -> int8", "got float32 -> int8"}));
  EXPECT_TRUE(is_error(error_of([&] {
                         w_.op("mul_cast", {i8, f16, f32, n});
                       }),
                       ASC_ERR_TYPE, {"src0 holds float16 but src1 holds float32"}));
  EXPECT_TRUE(is_error(error_of([&] {
                         w_.op("add_deq_relu", {f16, i16, i16, n});
                       }),
                       ASC_ERR_TYPE, {"int32 -> float16", "got int16 -> float16"}));
  w_.op("cast_deq", {i8, i16, n}, {int_attr("is_vec_deq", 0), int_attr("half_block", 1)});
  EXPECT_TRUE(is_error(error_of([&] {
                         w_.op("cast_deq", {f16, i16, n}, {int_attr("is_vec_deq", 0), int_attr("half_block", 1)});
                       }),
                       ASC_ERR_TYPE, {"cast_deq", "got int16 -> float16"}));
  EXPECT_TRUE(is_error(error_of([&] { w_.op("set_deq_scale", {n}); }), ASC_ERR_TYPE, {"scale must be a float16"}));
  Value vdeq = ub(ASC_DTYPE_UINT64, ASC_POS_VECCALC, 16384);
  std::vector<Value> groups{vdeq, w_.i32(15)};
  for (int i = 0; i < 16; ++i) groups.push_back(w_.constant_f(ASC_DTYPE_FLOAT32, 1.0));
  for (int i = 0; i < 32; ++i) groups.push_back(w_.i32(0));
  EXPECT_TRUE(
      is_error(error_of([&] { w_.op("set_deq_scale.vector", groups); }), ASC_ERR_TYPE, {"16 words of vdeq", "got 15"}));
  groups[0] = f16;
  groups[1] = w_.i32(16);
  EXPECT_TRUE(is_error(error_of([&] { w_.op("set_deq_scale.vector", groups); }), ASC_ERR_TYPE,
                       {"vdeq must be a LocalTensor of uint64"}));
  EXPECT_TRUE(is_error(error_of([&] {
                         w_.op("gatherb", {f16, f16, f16, n, n, n});
                       }),
                       ASC_ERR_TYPE, {"gatherb", "offset must be a LocalTensor of uint32"}));
  w_.op("gatherb", {f16, f16, u32, n, n, n});
  std::vector<Value> bilinear{f16, f16, u32, f16, n, n, n, n, n, n, n, u8};
  w_.op("bilinear_interpolation", bilinear, {int_attr("mask_mode", 0)});
  bilinear[0] = f32;
  EXPECT_TRUE(is_error(error_of([&] { w_.op("bilinear_interpolation", bilinear, {int_attr("mask_mode", 0)}); }),
                       ASC_ERR_TYPE, {"dst must hold float16"}));
  EXPECT_EQ(type(w_.op("get_gather_mask_remain_count", {})), asc::Type::scalar(asc::DType::UInt64));
}

// The cube extras' rows: positions, dtypes, the init value's dtype and the attribute that picks its pipe.
// L1 -> the bias table keeps the dtype, or widens a half / bfloat16 bias into the float32 table (the Matmul's
// half bias); a matmul.call may carry an error (a call the Model cannot run, e.g. get_tensor_c before iterate).
TEST_F(IrTest, BiasTableWideningAndMatmulErrorMarkersAreChecked) {
  auto to_bt = [&](asc_dtype_t dst, asc_dtype_t src) {
    return error_of([&] { w_.op("data_copy", {ub(dst, ASC_POS_C2), ub(src, ASC_POS_C1), w_.i32(64)}); });
  };
  EXPECT_FALSE(to_bt(ASC_DTYPE_FLOAT32, ASC_DTYPE_FLOAT32).has_value());
  EXPECT_FALSE(to_bt(ASC_DTYPE_FLOAT32, ASC_DTYPE_FLOAT16).has_value());
  EXPECT_FALSE(to_bt(ASC_DTYPE_FLOAT32, ASC_DTYPE_BFLOAT16).has_value());
  EXPECT_TRUE(is_error(to_bt(ASC_DTYPE_INT32, ASC_DTYPE_FLOAT16), ASC_ERR_TYPE, {"must have the same dtype"}));
  auto marker = [&](const char* api, std::vector<Value> operands) {
    return error_of([&] {
      w_.op("matmul.call", operands,
            {int_attr("id", 0), string_attr("api", api), int_attr("flag", 0), int_attr("sequential", 0),
             string_attr("error", "Matmul.get_tensor_c is called before iterate")});
    });
  };
  EXPECT_FALSE(marker("GetTensorC", {ub(ASC_DTYPE_FLOAT32, ASC_POS_VECCALC)}).has_value());
  EXPECT_FALSE(marker("IterateNBatch", {w_.i32(2), w_.i32(2), w_.i32(2), w_.i32(0), w_.i32(0), w_.i32(0)}).has_value());
  EXPECT_TRUE(is_error(marker("GetOffsetC", {w_.i32(0)}), ASC_ERR_TYPE, {"Matmul.GetOffsetC takes 5 operands, got 1"}));
}

TEST_F(IrTest, CubeExtraRowsAreChecked) {
  auto init = [&](asc_dtype_t d, asc_position_t pos, int64_t l1, Value value) {
    return error_of([&] {
      w_.op("init_const_value", {ub(d, pos), w_.i32(1), w_.i32(1), w_.i32(0), value}, {int_attr("l1", l1)});
    });
  };
  Value half = w_.cast(w_.constant_f(ASC_DTYPE_FLOAT32, 1.5), ASC_DTYPE_FLOAT16);
  EXPECT_FALSE(init(ASC_DTYPE_FLOAT16, ASC_POS_A1, 1, half).has_value());
  EXPECT_FALSE(init(ASC_DTYPE_FLOAT16, ASC_POS_B2, 0, half).has_value());
  EXPECT_TRUE(is_error(init(ASC_DTYPE_FLOAT16, ASC_POS_VECIN, 0, half), ASC_ERR_TYPE, {"A1, B1 (L1), A2 (L0A) or B2"}));
  EXPECT_TRUE(is_error(init(ASC_DTYPE_FLOAT16, ASC_POS_A2, 1, half), ASC_ERR_TYPE, {"attribute l1 disagrees"}));
  EXPECT_TRUE(is_error(init(ASC_DTYPE_FLOAT16, ASC_POS_A1, 1, w_.i32(1)), ASC_ERR_TYPE, {"init_value is"}));
  EXPECT_TRUE(
      is_error(init(ASC_DTYPE_INT8, ASC_POS_A1, 1, w_.cast(w_.i32(1), ASC_DTYPE_INT8)), ASC_ERR_TYPE, {"int8"}));
  std::vector<Value> fields;
  for (int i = 0; i < 7; ++i) fields.push_back(w_.i32(0));
  auto sparse = [&](asc_dtype_t d, asc_dtype_t idx) {
    std::vector<Value> operands{ub(d, ASC_POS_B2), ub(d, ASC_POS_B1), ub(idx, ASC_POS_B1, 1024)};
    operands.insert(operands.end(), fields.begin(), fields.end());
    return error_of([&] { w_.op("load_data_with_sparse", operands); });
  };
  EXPECT_FALSE(sparse(ASC_DTYPE_INT8, ASC_DTYPE_UINT8).has_value());
  EXPECT_TRUE(is_error(sparse(ASC_DTYPE_FLOAT16, ASC_DTYPE_UINT8), ASC_ERR_TYPE, {"dst and src must be int8"}));
  EXPECT_TRUE(is_error(sparse(ASC_DTYPE_INT8, ASC_DTYPE_INT8), ASC_ERR_TYPE, {"idx must be uint8"}));
  auto mmad = [&](asc_dtype_t c, asc_dtype_t ab) {
    return error_of([&] {
      w_.op("mmad_with_sparse", {ub(c, ASC_POS_CO1), ub(ab, ASC_POS_A2), ub(ab, ASC_POS_B2), w_.i32(16), w_.i32(16),
                                 w_.i32(16), w_.i32(1), w_.i32(0)});
    });
  };
  EXPECT_FALSE(mmad(ASC_DTYPE_INT32, ASC_DTYPE_INT8).has_value());
  EXPECT_TRUE(is_error(mmad(ASC_DTYPE_FLOAT32, ASC_DTYPE_FLOAT16), ASC_ERR_TYPE, {"int8 x int8 into int32"}));
  auto load3d = [&](asc_dtype_t d, asc_position_t dst) {
    std::vector<Value> operands{ub(d, dst), ub(d, ASC_POS_A1)};
    for (int i = 0; i < 8; ++i) operands.push_back(w_.i32(0));
    return error_of([&] { w_.op("load_data.3dv2pro", operands); });
  };
  EXPECT_FALSE(load3d(ASC_DTYPE_INT8, ASC_POS_A2).has_value());
  EXPECT_FALSE(load3d(ASC_DTYPE_FLOAT32, ASC_POS_B2).has_value());
  EXPECT_TRUE(is_error(load3d(ASC_DTYPE_INT8, ASC_POS_B2), ASC_ERR_TYPE, {"does not move 1-byte types"}));
  EXPECT_TRUE(is_error(load3d(ASC_DTYPE_FLOAT16, ASC_POS_VECIN), ASC_ERR_TYPE, {"A2 (L0A) or B2 (L0B)"}));
}

// List tensors: a ListTensorDesc is the uint64 GM address list_tensor_desc.init makes, a TensorDesc a GM address
// of its dtype from tensor_desc.create / get_desc; the methods take nothing else. The cache rows' enumerators.
TEST_F(IrTest, ListTensorAndCacheRowsAreChecked) {
  Value list = w_.op("list_tensor_desc.init", {w_.param(0), w_.i32(-1), w_.i32(-1)});
  EXPECT_EQ(type(list), asc::Type::gm_addr(asc::DType::UInt64));
  EXPECT_EQ(type(w_.op("list_tensor_desc.get_size", {list})), asc::Type::scalar(asc::DType::UInt32));
  EXPECT_TRUE(is_error(error_of([&] { w_.op("list_tensor_desc.get_size", {w_.param(0)}); }), ASC_ERR_TYPE,
                       {"must come from ListTensorDesc"}));
  Value desc = w_.op("tensor_desc.create", {}, {int_attr("dtype", ASC_DTYPE_FLOAT16)});
  EXPECT_EQ(type(desc), asc::Type::gm_addr(asc::DType::Float16));
  Value filled = w_.op("list_tensor_desc.get_desc", {list, desc, w_.i32(0)});
  EXPECT_EQ(type(filled), type(desc));
  EXPECT_EQ(type(w_.op("tensor_desc.get_data_obj", {filled})), asc::Type::global_tensor(asc::DType::Float16));
  EXPECT_TRUE(is_error(error_of([&] {
                         w_.op("list_tensor_desc.get_desc", {list, w_.param(1), w_.i32(0)});
                       }),
                       ASC_ERR_TYPE, {"the TensorDesc must come from TensorDesc()"}));
  EXPECT_TRUE(is_error(error_of([&] { w_.op("tensor_desc.get_dim", {list}); }), ASC_ERR_TYPE, {"TensorDesc"}));
  EXPECT_TRUE(is_error(error_of([&] { w_.op("tensor_desc.create", {}, {int_attr("dtype", ASC_DTYPE_BOOL)}); }),
                       ASC_ERR_TYPE, {"bool"}));
  EXPECT_EQ(type(w_.op("list_tensor_desc.get_data_ptr", {list, w_.i32(1)}, {int_attr("dtype", ASC_DTYPE_INT8)})),
            asc::Type::gm_addr(asc::DType::Int8));
  Value gm = w_.global_tensor(w_.param(0), w_.i32(0), w_.i32(64));
  EXPECT_TRUE(is_error(error_of([&] { w_.op("data_cache_preload", {gm, w_.i32(0)}); }), ASC_ERR_TYPE, {"uint64"}));
  EXPECT_TRUE(
      is_error(error_of([&] {
                 w_.op("data_cache_clean_and_invalid", {gm}, {int_attr("entire_type", 2), int_attr("dcci_dst", 0)});
               }),
               ASC_ERR_TYPE, {"unknown CacheLine 2"}));
  EXPECT_TRUE(
      is_error(error_of([&] {
                 w_.op("data_cache_clean_and_invalid", {gm}, {int_attr("entire_type", 0), int_attr("dcci_dst", 4)});
               }),
               ASC_ERR_TYPE, {"unknown DcciDst 4"}));
  w_.op("data_cache_clean_and_invalid.no_dst", {gm}, {int_attr("entire_type", 1)});
  EXPECT_TRUE(is_error(error_of([&] {
                         w_.op("dump_acc_chk_point", {w_.i32(1), w_.i32(0), w_.i32(0), w_.i32(1)});
                       }),
                       ASC_ERR_TYPE, {"LocalTensor or a GlobalTensor"}));
  EXPECT_EQ(type(w_.op("get_icache_preload_status", {})), asc::Type::scalar(asc::DType::Int64));
}

// The data-movement rows (ir/ops_data_movement.cpp): SliceInfo lists, the pad register's position, the AIPP
// forms and their output dtype, TransDataTo5HD's address tensors and data dtype.
TEST_F(IrTest, DataMovementRowsAreChecked) {
  Value gm = w_.global_tensor(w_.param(0), w_.i32(0), w_.i32(64));
  Value x = ub(ASC_DTYPE_FLOAT32, ASC_POS_VECIN);
  auto slice = [&](int64_t dims, int64_t burst1, int64_t attr_dims = 0) {
    std::vector<Value> operands{x, gm};
    for (int side = 0; side < 2; ++side)
      for (int64_t d = 0; d < dims; ++d)
        for (int64_t f : {int64_t{0}, int64_t{7}, int64_t{0}, d ? burst1 : 1, int64_t{8}})
          operands.push_back(w_.i32(f));
    return error_of(
        [&] { w_.op("data_copy.slice.gm_to_local", operands, {int_attr("dims", attr_dims ? attr_dims : dims)}); });
  };
  EXPECT_FALSE(slice(2, 1).has_value());
  EXPECT_TRUE(is_error(slice(2, 2), ASC_ERR_TYPE, {"burst_len of dimension 1 must be 1"}));
  EXPECT_TRUE(is_error(slice(1, 1, 9), ASC_ERR_TYPE, {"dim_value must be 1 to 8"}));
  EXPECT_TRUE(is_error(slice(1, 1, 2), ASC_ERR_TYPE, {"takes 20 SliceInfo fields for dim_value 2"}));
  auto pad_value = [&](int64_t pos) {
    return error_of([&] { w_.op("set_pad_value", {w_.i32(3)}, {int_attr("pos", pos)}); });
  };
  EXPECT_FALSE(pad_value(ASC_POS_VECOUT).has_value());
  EXPECT_TRUE(is_error(pad_value(ASC_POS_A1), ASC_ERR_TYPE, {"pos must be TPosition.VECIN, VECOUT or MAX"}));
  auto aipp = [&](const char* name, std::vector<Value> srcs, int64_t format, asc_dtype_t out) {
    Value zero = w_.cast(w_.i32(0), ASC_DTYPE_INT8);
    for (int i = 0; i < 37; ++i) srcs.push_back(i >= 1 && i <= 4 ? zero : i == 20 ? zero : w_.i32(0));
    return error_of([&] { w_.op(name, srcs, {int_attr("format", format), int_attr("dtype", out)}); });
  };
  EXPECT_FALSE(aipp("set_aipp_functions", {gm}, 4, ASC_DTYPE_INT8).has_value());
  EXPECT_FALSE(aipp("set_aipp_functions.dual", {gm, gm}, 0, ASC_DTYPE_INT8).has_value());
  EXPECT_TRUE(is_error(aipp("set_aipp_functions", {gm}, 0, ASC_DTYPE_INT8), ASC_ERR_TYPE, {"needs src1"}));
  EXPECT_TRUE(is_error(aipp("set_aipp_functions", {gm}, 5, ASC_DTYPE_INT8), ASC_ERR_TYPE, {"unknown AippInputFormat"}));
  EXPECT_TRUE(is_error(aipp("set_aipp_functions", {gm}, 4, ASC_DTYPE_FLOAT16), ASC_ERR_TYPE, {"padding values"}));
  Value list = ub(ASC_DTYPE_UINT64, ASC_POS_VECCALC, 1024);
  auto trans = [&](Value d, Value s, asc_dtype_t data, int64_t high) {
    return error_of([&] {
      w_.op("trans_data_to_5hd", {d, s, w_.i32(high), w_.i32(0), w_.i32(1), w_.i32(0), w_.i32(0)},
            {int_attr("dtype", data)});
    });
  };
  EXPECT_FALSE(trans(list, list, ASC_DTYPE_FLOAT16, 0).has_value());
  EXPECT_TRUE(is_error(trans(x, list, ASC_DTYPE_FLOAT16, 0), ASC_ERR_TYPE, {"uint64 addresses"}));
  EXPECT_TRUE(is_error(trans(list, list, ASC_DTYPE_FLOAT16, 1), ASC_ERR_TYPE, {"int8 and uint8 only"}));
  EXPECT_TRUE(is_error(trans(list, list, ASC_DTYPE_INT64, 0), ASC_ERR_TYPE, {"not int64"}));
}

// The Matmul markers the front end writes for the Ascend C emitter: a known call with its operands, and a
// register_matmul with the workspace, the tiling's 49 fields and valid MatmulTypes.
TEST_F(IrTest, MatmulMarkersAreChecked) {
  auto call = [&](const char* api, std::vector<Value> operands) {
    return error_of([&] { w_.op("matmul.call", operands, {int_attr("id", 0), string_attr("api", api)}); });
  };
  EXPECT_TRUE(is_error(call("Multiply", {}), ASC_ERR_TYPE, {"unknown Matmul call 'Multiply'"}));
  EXPECT_TRUE(is_error(call("SetTail", {w_.i32(1)}), ASC_ERR_TYPE, {"Matmul.SetTail takes 3 operands, got 1"}));
  EXPECT_FALSE(call("SetTail", {w_.i32(1), w_.i32(2), w_.i32(3)}).has_value());
  std::vector<Value> server{w_.param(0)};
  for (size_t i = 0; i < asc::kTilingFields; ++i) server.push_back(w_.i32(0));
  std::string fields = "f";
  for (size_t i = 1; i < asc::kTilingFields; ++i) fields += ",f";
  auto serve = [&](std::vector<Value> operands, std::string names, int64_t position, int64_t dtype) {
    return error_of([&] {
      w_.op("matmul.server", operands,
            {string_attr("fields", names), int_attr("c_position", position), int_attr("c_dtype", dtype)});
    });
  };
  EXPECT_TRUE(is_error(serve({w_.param(0)}, fields, 0, 0), ASC_ERR_TYPE, {"the 49 TCubeTiling fields, got 1"}));
  EXPECT_TRUE(is_error(serve(server, "f,f", 0, 0), ASC_ERR_TYPE, {"`fields` must name the 49"}));
  std::string injected = fields;
  injected.replace(0, 1, "x;y");  // the names are written into the emitted source
  EXPECT_TRUE(is_error(serve(server, injected, 0, 0), ASC_ERR_TYPE, {"C identifiers"}));
  EXPECT_TRUE(is_error(serve(server, fields + ",", 0, 0), ASC_ERR_TYPE, {"C identifiers"}));
  EXPECT_TRUE(is_error(serve(server, fields, 12, 0), ASC_ERR_TYPE, {"unknown TPosition 12"}));
  EXPECT_TRUE(is_error(serve(server, fields, 0, ASC_DTYPE_COUNT), ASC_ERR_TYPE, {"unknown dtype 12"}));
  EXPECT_FALSE(serve(server, fields, ASC_POS_VECCALC, ASC_DTYPE_FLOAT32).has_value());
}

TEST_F(IrTest, ForBoundsShareADtypeAndStepIsNonZero) {
  Value idx = w_.op("get_block_idx", {});
  EXPECT_TRUE(is_error(error_of([&] { w_.for_begin(w_.i32(0), idx, w_.i32(1)); }), ASC_ERR_TYPE, {"for"}));
  EXPECT_TRUE(is_error(error_of([&] { w_.for_begin(w_.i32(0), w_.i32(4), w_.i32(0)); }), ASC_ERR_TYPE, {"zero"}));
}

TEST_F(IrTest, ValueFromForBodyIsDeadAfterForEnd) {
  Value iv = w_.for_begin(w_.i32(0), w_.i32(4), w_.i32(1));
  Value inner = w_.op("arith.add", {iv, w_.i32(1)});
  w_.for_end();
  EXPECT_TRUE(is_error(error_of([&] { w_.op("arith.add", {inner, w_.i32(1)}); }), ASC_ERR_VERIFY, {"region"}));
  EXPECT_TRUE(is_error(error_of([&] { w_.op("arith.add", {iv, w_.i32(1)}); }), ASC_ERR_VERIFY, {"region"}));
}

TEST_F(IrTest, ValueFromThenBranchIsDeadInElse) {
  w_.if_begin(w_.op("cmp.lt", {w_.i32(1), w_.i32(2)}));
  Value then_value = w_.i32(3);
  w_.builder().else_begin();
  EXPECT_TRUE(is_error(error_of([&] { w_.op("arith.neg", {then_value}); }), ASC_ERR_VERIFY));
  w_.if_end();
}

TEST_F(IrTest, UnclosedRegionFailsFinish) {
  w_.at_line(7);
  w_.for_begin(w_.i32(0), w_.i32(4), w_.i32(1));
  auto e = error_of([&] { w_.finish(); });
  ASSERT_TRUE(is_error(e, ASC_ERR_VERIFY, {"for", "never closed"}));
  EXPECT_EQ(e->loc().line, 10u);  // three constants, then the for
}

TEST_F(IrTest, UnbalancedRegionCallsAreRejected) {
  EXPECT_TRUE(is_error(error_of([&] { w_.for_end(); }), ASC_ERR_INVALID_ARGUMENT, {"for_end"}));
  EXPECT_TRUE(is_error(error_of([&] { w_.if_end(); }), ASC_ERR_INVALID_ARGUMENT, {"if_end"}));
  w_.for_begin(w_.i32(0), w_.i32(4), w_.i32(1));
  EXPECT_TRUE(is_error(error_of([&] { w_.if_end(); }), ASC_ERR_INVALID_ARGUMENT));
  w_.for_end();
  EXPECT_TRUE(is_error(error_of([&] {
                         w_.op("for", {w_.i32(0), w_.i32(1), w_.i32(1)});
                       }),
                       ASC_ERR_INVALID_ARGUMENT, {"regions"}));
}

TEST(IrParams, KernelParametersAreNotLocalTensors) {
  asc::Module m;
  asc_type_t local{ASC_TYPE_LOCAL_TENSOR, ASC_DTYPE_FLOAT32, ASC_POS_VECIN};
  EXPECT_TRUE(is_error(error_of([&] { CoreWriter w(m, "k", {local}); }), ASC_ERR_TYPE, {"kernel parameters"}));
  EXPECT_TRUE(is_error(error_of([&] { CoreWriter w(m, "", {}); }), ASC_ERR_INVALID_ARGUMENT, {"name"}));
  CoreWriter w(m, "k", {gm_addr_type(ASC_DTYPE_FLOAT32)});
  EXPECT_TRUE(is_error(error_of([&] { w.param(1); }), ASC_ERR_INVALID_ARGUMENT, {"parameter index 1"}));
}

// The kernel size limit: the documented default number of ops builds, one more fails naming the kernel and the
// op's line; the builder option max_ops changes it (0: no limit).
TEST(IrBuilder, AKernelPastTheSizeLimitFailsNamingIt) {
  asc::Module m;
  CoreWriter w(m, "big", {});
  for (uint64_t i = 0; i < asc::Builder::kDefaultMaxOps; ++i) w.i32(1);
  auto e = error_of([&] { w.i32(1); });
  EXPECT_TRUE(is_error(e, ASC_ERR_UNSUPPORTED, {"kernel 'big' has more than 100000 operations", "ASC_MAX_KERNEL_OPS"}));
  w.builder().set_option("max_ops", 0);
  EXPECT_FALSE(error_of([&] { w.i32(1); }).has_value());
  CoreWriter small(m, "small", {});
  small.builder().set_option("max_ops", 3);
  for (int i = 0; i < 3; ++i) small.i32(i);
  EXPECT_TRUE(is_error(error_of([&] { small.i32(3); }), ASC_ERR_UNSUPPORTED, {"more than 3 operations"}));
  EXPECT_TRUE(is_error(error_of([&] { small.builder().set_option("max_ops", -1); }), ASC_ERR_INVALID_ARGUMENT,
                       {"max_ops must be >= 0"}));
}

TEST(IrVadd, FixtureVerifiesAndPrints) {
  asc::Module m;
  TiledBinary k;
  CoreWriter w(m, "vadd", k.params());
  w.at_line(100);
  emit_tiled_binary(w, k);
  const asc::Kernel& kernel = w.finish();
  ASSERT_EQ(m.kernels.size(), 1u);
  EXPECT_NO_THROW(asc::verify_kernel(kernel));

  const std::string text = asc::print_kernel(kernel);
  SCOPED_TRACE(text);
  EXPECT_EQ(text.rfind("kernel @vadd(%0: !gm_addr<f32>, %1: !gm_addr<f32>, %2: !gm_addr<f32>) {", 0), 0u);
  for (const char* needle : {"get_block_idx", "arith.cast", "global_tensor.set_global_buffer", "local_tensor.create",
                             "name = \"x_local\"", "position = VECOUT", "for %", "arith.mod"})
    EXPECT_NE(text.find(needle), std::string::npos) << needle;
  EXPECT_NE(text.find("kernels.py:100:5"), std::string::npos);
  // Each pipe op shows the pipe that runs it; set_flag runs on the event's
  // source pipe, wait_flag on its destination.
  EXPECT_NE(line_with(text, "data_copy.gm_to_local").find("[MTE2]"), std::string::npos);
  EXPECT_NE(line_with(text, "set_flag %").find("event = MTE2_V} [MTE2]"), std::string::npos);
  EXPECT_NE(line_with(text, "wait_flag %").find("event = MTE2_V} [V]"), std::string::npos);
  EXPECT_NE(line_with(text, " add %").find("[V]"), std::string::npos);
  EXPECT_NE(line_with(text, "data_copy.local_to_gm").find("[MTE3]"), std::string::npos);
  EXPECT_NE(text.find("event = MTE3_MTE2} [MTE3]"), std::string::npos);
  EXPECT_EQ(line_with(text, "get_block_idx").find('['), std::string::npos);  // scalar ops have no pipe tag
}

TEST(IrVerifier, UseBeforeDefinitionIsCaughtOnAHandEditedKernel) {
  asc::Module m;
  CoreWriter w(m, "k", {});
  Value one = w.i32(1);
  w.op("arith.neg", {one});
  asc::Kernel* kernel = asc::compile_kernel(m, w.builder());
  std::swap(kernel->body.ops[0], kernel->body.ops[1]);  // neg now reads %0 before the const defines it
  EXPECT_TRUE(
      is_error(error_of([&] { asc::verify_kernel(*kernel); }), ASC_ERR_VERIFY, {"arith.neg", "outside the region"}));
}

}  // namespace

TEST_F(IrTest, AdvCallTextIsCheckedAgainstItsOperands) {
  Value x = ub(ASC_DTYPE_FLOAT32, ASC_POS_VECIN), n = w_.i32(64);
  auto call = [&](const std::string& text) {
    return error_of([&] { w_.op("adv.call", {x, x, n}, {string_attr("call", text)}); });
  };
  EXPECT_TRUE(is_error(call("AscendC::Sin<{T:0}>({0}, {3})"), ASC_ERR_TYPE, {"placeholder {3}", "call's 3"}));
  EXPECT_TRUE(is_error(call("AscendC::Sin({0}, {x})"), ASC_ERR_TYPE, {"placeholder {x}"}));
  EXPECT_TRUE(is_error(call("AscendC::Sin({0}, {1)"), ASC_ERR_TYPE, {"unterminated placeholder"}));
  EXPECT_TRUE(is_error(call("AscendC::Sin({0}})"), ASC_ERR_TYPE, {"unmatched '}'"}));
  EXPECT_TRUE(is_error(call("Sin({0})"), ASC_ERR_TYPE, {"an AscendC:: function"}));
  w_.op("adv.call", {x, x, n}, {string_attr("call", "AscendC::Sin<{T:0}, false>({0}, {1}, {2}, {{1}})")});  // fine
}
