// The Ascend C emitter (src/codegen): what it writes for the constructs every
// kernel has, and the errors it gives. Whether the text is valid C++ with the
// API's semantics is the round trip's job (ctest roundtrip.suite).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "codegen/ascendc_emitter.h"
#include "codegen/ascendc_spelling.h"
#include "ir/matmul_api.h"
#include "kernel_fixtures.h"

namespace {

using namespace asc_test;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string emit_tiled_add() {
  asc::Module module;
  TiledBinary k;
  CoreWriter w(module, "vadd", k.params());
  emit_tiled_binary(w, k);
  return asc::emit_ascendc(w.finish());
}

TEST(Emitter, TiledAddIsAscendCWithTheIRsAddressesAndFlags) {
  std::string src = emit_tiled_add();
  EXPECT_TRUE(has(src, "#include \"kernel_operator.h\"")) << src;
  EXPECT_TRUE(has(src, "extern \"C\" __global__ __aicore__ void vadd(GM_ADDR v0, GM_ADDR v1, GM_ADDR v2)")) << src;
  EXPECT_TRUE(has(src, "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);")) << src;
  // static tensor programming: the allocator's byte addresses, no TPipe
  EXPECT_TRUE(has(src, "AscendC::LocalTensor<float> v")) << src;
  EXPECT_TRUE(has(src, "(AscendC::TPosition::VECIN, static_cast<uint32_t>(")) << src;
  EXPECT_TRUE(has(src, "(AscendC::TPosition::VECOUT, static_cast<uint32_t>(")) << src;
  EXPECT_FALSE(has(src, "TPipe")) << src;
  EXPECT_TRUE(has(src, ".SetGlobalBuffer(reinterpret_cast<__gm__ float*>(")) << src;
  EXPECT_TRUE(has(src, "AscendC::DataCopy(")) << src;
  EXPECT_TRUE(has(src, "AscendC::Add(")) << src;
  EXPECT_TRUE(has(src, "AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(")) << src;
  EXPECT_TRUE(has(src, "AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(")) << src;
  EXPECT_TRUE(has(src, "for (int32_t v")) << src;
}

TEST(Emitter, LineDirectivesFollowTheSourceLines) {
  std::string src = emit_tiled_add();
  // one directive per source line that emits ops, each naming the kernel's file
  size_t first = src.find("#line "), count = 0;
  ASSERT_NE(first, std::string::npos) << src;
  for (size_t at = first; at != std::string::npos; at = src.find("#line ", at + 1)) ++count;
  EXPECT_GT(count, 5u);
  EXPECT_TRUE(has(src.substr(first, 40), "\"kernels.py\"")) << src.substr(first, 40);
}

TEST(Emitter, FileNamesAreEscapedInLineDirectives) {
  asc::Module module;
  CoreWriter w(module, "k", {gm_addr_type(ASC_DTYPE_FLOAT32)}, "dir\\with \"quotes\".py");
  w.i32(1);
  std::string src = asc::emit_ascendc(w.finish());
  EXPECT_TRUE(has(src, "#line 1 \"dir\\\\with \\\"quotes\\\".py\"")) << src;
}

TEST(Emitter, ConstantsAreExactAfterTheModelsRounding) {
  asc::Module module;
  CoreWriter w(module, "consts", {});
  w.constant_f(ASC_DTYPE_FLOAT32, 0.1);  // rounds to the float nearest 0.1
  w.constant_f(ASC_DTYPE_FLOAT16, 1.0 / 3);
  w.constant_f(ASC_DTYPE_FLOAT32, std::numeric_limits<double>::infinity());
  w.constant_f(ASC_DTYPE_FLOAT32, std::nan(""));
  w.constant(ASC_DTYPE_INT64, std::numeric_limits<int64_t>::min());
  w.constant(ASC_DTYPE_INT8, 300);  // wraps to the width, as the Model does
  w.constant(ASC_DTYPE_BOOL, 5);
  std::string src = asc::emit_ascendc(w.finish());
  EXPECT_TRUE(has(src, "static_cast<float>(0x1.99999ap-4)")) << src;  // 0.1f exactly
  EXPECT_TRUE(has(src, "static_cast<half>(0x1.554p-2)")) << src;      // 1/3 in half precision
  EXPECT_TRUE(has(src, "static_cast<float>(__builtin_huge_valf())")) << src;
  EXPECT_TRUE(has(src, "static_cast<float>(__builtin_nanf(\"\"))")) << src;
  EXPECT_TRUE(has(src, "static_cast<int64_t>(0x8000000000000000ULL)")) << src;
  EXPECT_TRUE(has(src, "static_cast<int8_t>(44)")) << src;
  EXPECT_TRUE(has(src, "bool v6 = true;")) << src;
}

TEST(Emitter, PythonDivisionAndShiftsUseTheHelpers) {
  asc::Module module;
  CoreWriter w(module, "arith", {{ASC_TYPE_SCALAR, ASC_DTYPE_INT32, ASC_POS_GM}});
  Value seven = w.i32(7);
  w.op("arith.floordiv", {w.param(0), seven});
  w.op("arith.mod", {w.param(0), seven});
  w.op("arith.shl", {w.param(0), seven});
  std::string src = asc::emit_ascendc(w.finish());
  EXPECT_TRUE(has(src, "asc_floordiv<int32_t>(v0, v1)")) << src;
  EXPECT_TRUE(has(src, "asc_mod<int32_t>(v0, v1)")) << src;
  EXPECT_TRUE(has(src, "asc_shl(v0, v1)")) << src;
  EXPECT_TRUE(has(src, "__aicore__ inline T asc_floordiv(T a, T b)")) << src;
}

TEST(Emitter, BranchesAndNegativeStepLoops) {
  asc::Module module;
  CoreWriter w(module, "flow", {{ASC_TYPE_SCALAR, ASC_DTYPE_INT32, ASC_POS_GM}});
  Value from = w.i32(10), to = w.i32(0), step = w.i32(-2);  // v1, v2, v3 (argument order is unspecified)
  Value i = w.for_begin(from, to, step);
  w.if_begin(w.op("cmp.gt", {i, w.param(0)}));
  w.op("arith.add", {i, w.param(0)});
  w.builder().else_begin();
  w.op("arith.sub", {i, w.param(0)});
  w.if_end();
  w.for_end();
  std::string src = asc::emit_ascendc(w.finish());
  EXPECT_TRUE(has(src, "for (int32_t v4 = v1; v3 > 0 ? v4 < v2 : v4 > v2; v4 = static_cast<int32_t>(v4 + v3))")) << src;
  EXPECT_TRUE(has(src, "if (v5) {")) << src;
  EXPECT_TRUE(has(src, "} else {")) << src;
}

TEST(Emitter, AnOpItCannotSpellIsAnErrorNamingItAndItsLine) {
  asc::Module module;
  CoreWriter w(module, "server", {}, "mix.py");
  w.builder().set_option("kernel_type", static_cast<int64_t>(asc::KernelType::MixAic1_2));
  w.at_line(12);
  w.op("matmul.server", {});  // no workspace and tiling to register the Matmul object with
  const asc::Kernel& k = w.finish();
  auto err = error_of([&] { asc::emit_ascendc(k); });
  ASSERT_TRUE(err.has_value());
  EXPECT_EQ(err->status(), ASC_ERR_UNSUPPORTED);
  EXPECT_TRUE(has(err->what(), "cannot spell matmul.server")) << err->what();
  EXPECT_TRUE(has(err->what(), "needs the workspace")) << err->what();
  EXPECT_EQ(err->loc().line, 12u);
  EXPECT_EQ(*err->loc().file, "mix.py");
}

// A Matmul kernel as the front end builds it: register_matmul with the workspace and the tiling's fields, the
// A / B set-up calls, `with mm.iterate() as count:` (block counts before the loop, the block at the top of the
// body) and get_tensor_c into a UB tensor. Each expansion is one marked `arith.add` standing for the Model's work.
struct MatmulKernel {
  std::string fields;
  std::vector<Value> tiling;

  void build(CoreWriter& w, const char* last_api = "End", bool use_escaped = false) {
    for (size_t i = 0; i < asc::kTilingFields; ++i) {
      fields += (i ? ",f" : "f") + std::to_string(i);
      tiling.push_back(w.i32(static_cast<int64_t>(i) + 1));
    }
    std::vector<Value> server{w.param(0)};
    server.insert(server.end(), tiling.begin(), tiling.end());
    std::vector<Attr> attrs{int_attr("id", 0), string_attr("fields", fields)};
    const int64_t types[4][3] = {{ASC_POS_GM, 0, ASC_DTYPE_FLOAT16},
                                 {ASC_POS_GM, 0, ASC_DTYPE_FLOAT16},
                                 {ASC_POS_VECCALC, 0, ASC_DTYPE_FLOAT32},
                                 {ASC_POS_VECCALC, 0, ASC_DTYPE_FLOAT32}};
    const char* names[4][3] = {{"a_position", "a_format", "a_dtype"},
                               {"b_position", "b_format", "b_dtype"},
                               {"c_position", "c_format", "c_dtype"},
                               {"bias_position", "bias_format", "bias_dtype"}};
    for (int m = 0; m < 4; ++m)
      for (int f = 0; f < 3; ++f) attrs.push_back(int_attr(names[m][f], types[m][f]));
    w.op("matmul.server", server, attrs);
    Value a = w.global_tensor(w.param(1), w.i32(0), w.i32(4096));
    call(w, "SetTensorA", {a}, 1);
    call(w, "SetTensorB", {a});
    call(w, "Prepare", {});
    Value blocks = w.op("arith.add", {tiling[8], tiling[9]});
    w.op("matmul.call_end", {});
    Value iv = w.for_begin(w.i32(0), blocks, w.i32(1));
    call(w, "Iterate", {});
    w.op("arith.add", {tiling[10], tiling[10]});
    w.op("matmul.call_end", {});
    Value ub = w.local_tensor(0, 1024, ASC_DTYPE_FLOAT32, ASC_POS_VECCALC, "block");
    call(w, "GetTensorC", {ub}, 0, 1);
    Value escaped = w.op("arith.add", {iv, iv});  // the Model's work, which the object keeps to itself
    w.op("matmul.call_end", {});
    if (use_escaped) w.op("arith.add", {escaped, iv});
    w.for_end();
    if (std::string(last_api) != "IterateBatch") return call(w, last_api, {});
    call(w, last_api, {a});
    w.op("matmul.call_end", {});
  }
  static void call(CoreWriter& w, const char* api, const std::vector<Value>& operands, int64_t flag = 0,
                   int64_t sequential = 0) {
    w.op("matmul.call", operands,
         {int_attr("id", 0), string_attr("api", api), int_attr("flag", flag), int_attr("sequential", sequential)});
  }
};

// Lines of the kernel's body (past the prelude) that contain `part`.
int body_lines_with(const std::string& src, const std::string& part) {
  int n = 0;
  size_t at = src.find("__global__ __aicore__ void");
  for (size_t end; at != std::string::npos && (end = src.find('\n', at)) != std::string::npos; at = end + 1)
    n += src.substr(at, end - at).find(part) != std::string::npos;
  return n;
}

std::vector<asc_type_t> matmul_params() { return {gm_addr_type(ASC_DTYPE_UINT8), gm_addr_type(ASC_DTYPE_FLOAT16)}; }

TEST(Emitter, AMixKernelsMatmulIsAscendCsMatmulObject) {
  asc::Module module;
  CoreWriter w(module, "mix_mm", matmul_params());
  w.builder().set_option("kernel_type", static_cast<int64_t>(asc::KernelType::MixAic1_2));
  MatmulKernel k;
  k.build(w);
  std::string src = asc::emit_ascendc(w.finish());
  EXPECT_TRUE(has(src, "#include \"lib/matmul_intf.h\"")) << src;
  EXPECT_TRUE(has(src,
                  "AscendC::Matmul<AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half, true>, "
                  "AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half, false>, "
                  "AscendC::MatmulType<AscendC::TPosition::VECCALC, CubeFormat::ND, float, false>, "
                  "AscendC::MatmulType<AscendC::TPosition::VECCALC, CubeFormat::ND, float, false>> asc_mm0;"))
      << src;
  EXPECT_TRUE(has(src, "asc_tiling0.f0 = v")) << src;
  EXPECT_TRUE(has(src, "asc_tiling0.f48 = v")) << src;
  EXPECT_TRUE(has(src, "REGIST_MATMUL_OBJ(&asc_pipe, v0, asc_mm0, &asc_tiling0);")) << src;
  EXPECT_TRUE(has(src, ".SetTensorA(v")) << src;
  EXPECT_TRUE(has(src, ", true);\n")) << src;  // SetTensorA's transpose flag
  EXPECT_TRUE(has(src, "asc_mm0.Iterate();")) << src;
  EXPECT_TRUE(has(src, "asc_mm0.GetTensorC(v")) << src;
  EXPECT_TRUE(has(src, ", static_cast<uint8_t>(0), true);")) << src;
  EXPECT_TRUE(has(src, "asc_mm0.End();")) << src;
  // the Model's expansions are left out: of the body's additions only A's GM offset and the loop step remain
  EXPECT_EQ(body_lines_with(src, " + "), 2) << src;
}

TEST(Emitter, OutsideMixKernelsTheMatmulExpansionIsTheCode) {
  asc::Module module;
  CoreWriter w(module, "cube_mm", matmul_params());
  w.builder().set_option("kernel_type", static_cast<int64_t>(asc::KernelType::AicOnly));
  MatmulKernel k;
  k.build(w);
  std::string src = asc::emit_ascendc(w.finish());
  EXPECT_FALSE(has(src, "asc_mm0")) << src;
  EXPECT_FALSE(has(src, "matmul_intf")) << src;
  EXPECT_TRUE(has(src, "// register_matmul: this core runs its own Matmul")) << src;
  EXPECT_TRUE(has(src, " > 0 ? ")) << src;           // an ordinary counted loop
  EXPECT_EQ(body_lines_with(src, " + "), 5) << src;  // and the three expansions' additions
}

TEST(Emitter, MixKernelMatmulsItCannotSpellAreErrors) {
  auto failure = [](const std::function<void(CoreWriter&)>& more, const char* last_api = "End",
                    bool use_escaped = false) {
    asc::Module module;
    CoreWriter w(module, "mix_mm", matmul_params());
    w.builder().set_option("kernel_type", static_cast<int64_t>(asc::KernelType::MixAic1_2));
    MatmulKernel k;
    k.build(w, last_api, use_escaped);
    more(w);
    const asc::Kernel& kernel = w.finish();
    auto err = error_of([&] { asc::emit_ascendc(kernel); });
    return err ? std::string(err->what()) : std::string("no error");
  };
  std::string escaped = failure([](CoreWriter&) {}, "End", true);
  EXPECT_TRUE(has(escaped, "uses a value computed by a Matmul call")) << escaped;
  std::string batch = failure([](CoreWriter&) {}, "IterateBatch");
  EXPECT_TRUE(has(batch, "Matmul.IterateBatch is not written")) << batch;
  std::string two = failure([](CoreWriter& w) {
    std::vector<Value> server{w.param(0)};
    for (size_t i = 0; i < asc::kTilingFields; ++i) server.push_back(w.i32(0));
    std::string fields = "x";
    for (size_t i = 1; i < asc::kTilingFields; ++i) fields += ",x";
    w.op("matmul.server", server, {int_attr("id", 1), string_attr("fields", fields)});
  });
  EXPECT_TRUE(has(two, "one Matmul object")) << two;
}

TEST(Emitter, AKernelNameThatIsNotACIdentifierIsAnError) {
  for (const char* name : {"../escape", "9lives", "int", "with space"}) {
    asc::Module module;
    CoreWriter w(module, name, {});
    const asc::Kernel& k = w.finish();
    auto err = error_of([&] { asc::emit_ascendc(k); });
    ASSERT_TRUE(err.has_value()) << name;
    EXPECT_EQ(err->status(), ASC_ERR_UNSUPPORTED) << name;
    EXPECT_TRUE(has(err->what(), std::string("cannot name kernel '") + name + "'")) << err->what();
  }
}

TEST(Emitter, RegisterMatmulOutsideAMixKernelIsNothingToServe) {
  asc::Module module;
  CoreWriter w(module, "cube_only", {});
  w.builder().set_option("kernel_type", static_cast<int64_t>(asc::KernelType::AicOnly));
  w.op("matmul.server", {});
  std::string src = asc::emit_ascendc(w.finish());
  EXPECT_TRUE(has(src, "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);")) << src;
  EXPECT_TRUE(has(src, "// register_matmul: this core runs its own Matmul")) << src;
}

}  // namespace

// Every op is spelled by its row's template (which must parse against the row), by the emitter's own code, or
// says why it is never emitted: a missing spelling is found here, not when a kernel using the op is emitted.
TEST(Codegen, EveryOpIsSpelledOrSaysWhyNot) {
  int templates = 0, hand = 0, never = 0;
  for (int i = 0; i < asc::kOpCount; ++i) {
    const asc::OpInfo& row = asc::op_info(static_cast<asc::OpCode>(i));
    SCOPED_TRACE(row.name);
    EXPECT_EQ(row.emit == asc::EmitForm::Hand, asc::ascendc_hand_spelled(row.code));
    switch (row.emit) {
      case asc::EmitForm::Template:
        EXPECT_NO_THROW(asc::check_spelling(row));
        ++templates;
        break;
      case asc::EmitForm::Hand: ++hand; break;
      case asc::EmitForm::None:
        EXPECT_STRNE(row.why_not_emitted, "");
        EXPECT_TRUE(row.framework) << "only the framework's ops are lowered before emission";
        ++never;
        break;
    }
  }
  EXPECT_GT(templates, 3 * hand);  // hand code is the exception
  EXPECT_EQ(templates + hand + never, asc::kOpCount);
}

// A spelling that names an operand the row does not have is refused, naming the row and the placeholder.
TEST(Codegen, BadSpellingIsRefused) {
  asc::OpInfo row = asc::op_info(asc::OpCode::VAdd);
  for (const char* bad : {"{api}({3..9});", "{7};", "{enum:no_such_attr};", "{mask:2}", "{lone", "x }"}) {
    row.spelling = bad;
    auto err = error_of([&] { asc::check_spelling(row); });
    ASSERT_TRUE(err) << bad;
    EXPECT_TRUE(has(err->what(), "'add'")) << err->what();
  }
}
