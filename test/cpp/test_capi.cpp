// The C ABI of libasc.so, used as a C program would: status codes, the
// thread-local last error, and a kernel built and launched through it.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "asc/asc.h"
#include "kernel_fixtures.h"

namespace {

using namespace asc_test;

constexpr std::string_view kPlatform = "Ascend910B1";

// `status` is `want` and asc_last_error() mentions every one of `needles`.
::testing::AssertionResult fails_with(asc_status_t status, asc_status_t want,
                                      std::initializer_list<std::string_view> needles = {}) {
  if (status != want)
    return ::testing::AssertionFailure() << "got " << asc_status_name(status) << " (" << asc_last_error()
                                         << "); expected " << asc_status_name(want);
  const std::string_view message = asc_last_error();
  if (message.empty()) return ::testing::AssertionFailure() << "asc_last_error() is empty";
  for (std::string_view needle : needles)
    if (message.find(needle) == std::string_view::npos)
      return ::testing::AssertionFailure()
             << "asc_last_error() \"" << message << "\" does not mention \"" << needle << "\"";
  return ::testing::AssertionSuccess();
}

// Leaves an unrelated message in asc_last_error(), so that a check of the next
// message proves the next call wrote it.
void scribble_last_error() { (void)asc_set_log_level(-1); }

class CapiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    check(asc_device_create(ASC_BACKEND_MODEL, kPlatform.data(), kPlatform.size(), 0, &device_), "device");
    check(asc_stream_create(device_, &stream_), "stream");
  }
  void TearDown() override {
    asc_stream_destroy(stream_);
    asc_device_destroy(device_);
  }

  asc_kernel_t* build_vadd(const TiledBinary& k = {}) {
    CapiWriter w(module_.get(), "vadd", k.params());
    emit_tiled_binary(w, k);
    return w.finish();
  }

  CapiModule module_;
  asc_device_t* device_ = nullptr;
  asc_stream_t* stream_ = nullptr;
};

TEST(CapiLibrary, AbiVersionMatchesTheHeader) {
  EXPECT_EQ(asc_abi_version(), (uint32_t{ASC_ABI_VERSION_MAJOR} << 16) | ASC_ABI_VERSION_MINOR);
}

TEST(CapiLibrary, StatusNamesSpellTheEnumerators) {
  EXPECT_STREQ(asc_status_name(ASC_OK), "ASC_OK");
  EXPECT_STREQ(asc_status_name(ASC_ERR_UNKNOWN_OP), "ASC_ERR_UNKNOWN_OP");
  EXPECT_STREQ(asc_status_name(ASC_ERR_DEADLOCK), "ASC_ERR_DEADLOCK");
  EXPECT_STREQ(asc_status_name(ASC_ERR_BUFFER_TOO_SMALL), "ASC_ERR_BUFFER_TOO_SMALL");
  EXPECT_STREQ(asc_status_name(ASC_ERR_INTERNAL), "ASC_ERR_INTERNAL");
  for (int s = ASC_ERR_INVALID_ARGUMENT; s <= ASC_ERR_GM_CONFLICT; ++s)
    EXPECT_EQ(std::string(asc_status_name(static_cast<asc_status_t>(s))),
              std::string("ASC_ERR_") + status_label(static_cast<asc_status_t>(s)));
  EXPECT_STREQ(asc_status_name(static_cast<asc_status_t>(16)), "ASC_ERR_UNKNOWN_STATUS");
}

TEST(CapiLibrary, LogLevelIsRangeChecked) {
  EXPECT_TRUE(fails_with(asc_set_log_level(7), ASC_ERR_INVALID_ARGUMENT, {"0..6", "7"}));
  EXPECT_EQ(asc_set_log_level(3), ASC_OK);
}

TEST(CapiLibrary, LastErrorIsPerThread) {
  scribble_last_error();
  const std::string mine = asc_last_error();
  std::string theirs;
  std::thread([&] {
    EXPECT_STREQ(asc_last_error(), "");  // a fresh thread has no error yet
    (void)asc_module_destroy(nullptr);
    theirs = asc_last_error();
  }).join();
  EXPECT_NE(theirs.find("module is null"), std::string::npos);
  EXPECT_EQ(asc_last_error(), mine);
}

// ---- null handles and pointers -----------------------------------------------------------

struct NullCase {
  const char* call;
  std::function<asc_status_t()> run;
  const char* null_what;  // the name asc_last_error() gives the null argument
};

TEST_F(CapiTest, EveryNullHandleOrPointerIsAnInvalidArgument) {
  asc_kernel_t* kernel = build_vadd();
  const asc_type_t param = gm_addr_type(ASC_DTYPE_FLOAT32);
  asc_builder_t* b = nullptr;
  check(asc_build_kernel(module_.get(), "k", 1, &param, 1, &b), "asc_build_kernel");
  asc_builder_t* consumed = nullptr;  // asc_builder_finish(b, NULL) consumes its builder
  check(asc_build_kernel(module_.get(), "k2", 2, &param, 1, &consumed), "asc_build_kernel");

  asc_module_t* m = module_.get();
  asc_builder_t* no_builder = nullptr;
  asc_value_t v = 0;
  asc_type_t t{};
  asc_kernel_t* k = nullptr;
  asc_device_t* d = nullptr;
  asc_stream_t* s = nullptr;
  asc_platform_info_t info{};
  char buf[8];
  size_t len = 0;
  int32_t i32 = 0;
  const asc_loc_t null_file{nullptr, 3, 1, 1};
  std::vector<float> data(8);
  const asc_arg_t args[3] = {buffer_arg(data), buffer_arg(data), buffer_arg(data)};

  const std::vector<NullCase> cases = {
      {"asc_module_create", [&] { return asc_module_create(nullptr); }, "out"},
      {"asc_module_destroy", [&] { return asc_module_destroy(nullptr); }, "module"},
      {"asc_build_kernel(module)", [&] { return asc_build_kernel(nullptr, "k", 1, &param, 1, &b); }, "module"},
      {"asc_build_kernel(out)", [&] { return asc_build_kernel(m, "k", 1, &param, 1, nullptr); }, "out"},
      {"asc_build_kernel(name)", [&] { return asc_build_kernel(m, nullptr, 1, &param, 1, &b); }, "name"},
      {"asc_build_kernel(params)", [&] { return asc_build_kernel(m, "k", 1, nullptr, 1, &b); }, "params"},
      {"asc_builder_param(builder)", [&] { return asc_builder_param(nullptr, 0, &v); }, "builder"},
      {"asc_builder_param(out)", [&] { return asc_builder_param(b, 0, nullptr); }, "out"},
      {"asc_builder_op(builder)",
       [&] { return asc_builder_op(nullptr, "get_block_idx", 13, nullptr, 0, nullptr, 0, nullptr, &v); }, "builder"},
      {"asc_builder_op(op_name)", [&] { return asc_builder_op(b, nullptr, 13, nullptr, 0, nullptr, 0, nullptr, &v); },
       "op name"},
      {"asc_builder_op(operands)", [&] { return asc_builder_op(b, "add", 3, nullptr, 4, nullptr, 0, nullptr, &v); },
       "operands"},
      {"asc_builder_op(attrs)", [&] { return asc_builder_op(b, "const", 5, nullptr, 0, nullptr, 2, nullptr, &v); },
       "attrs"},
      {"asc_builder_op(loc->file)",
       [&] { return asc_builder_op(b, "get_block_idx", 13, nullptr, 0, nullptr, 0, &null_file, &v); }, "loc->file"},
      {"asc_builder_value_type(builder)", [&] { return asc_builder_value_type(nullptr, 0, &t); }, "builder"},
      {"asc_builder_value_type(out)", [&] { return asc_builder_value_type(b, 0, nullptr); }, "out"},
      {"asc_builder_for_begin", [&] { return asc_builder_for_begin(nullptr, 0, 0, 0, nullptr, &v); }, "builder"},
      {"asc_builder_for_end", [&] { return asc_builder_for_end(nullptr); }, "builder"},
      {"asc_builder_if_begin", [&] { return asc_builder_if_begin(nullptr, 0, nullptr); }, "builder"},
      {"asc_builder_else", [&] { return asc_builder_else(nullptr); }, "builder"},
      {"asc_builder_if_end", [&] { return asc_builder_if_end(nullptr); }, "builder"},
      {"asc_builder_finish(builder)", [&] { return asc_builder_finish(no_builder, &k); }, "builder"},
      {"asc_builder_finish(out)", [&] { return asc_builder_finish(std::exchange(consumed, nullptr), nullptr); }, "out"},
      {"asc_builder_destroy", [&] { return asc_builder_destroy(nullptr); }, "builder"},
      {"asc_builder_print", [&] { return asc_builder_print(nullptr, buf, sizeof buf, &len); }, "builder"},
      {"asc_kernel_print", [&] { return asc_kernel_print(nullptr, buf, sizeof buf, &len); }, "kernel"},
      {"asc_kernel_param_count(kernel)", [&] { return asc_kernel_param_count(nullptr, &len); }, "kernel"},
      {"asc_kernel_param_count(out)", [&] { return asc_kernel_param_count(kernel, nullptr); }, "out"},
      {"asc_kernel_param_writes(kernel)", [&] { return asc_kernel_param_writes(nullptr, 0, &i32); }, "kernel"},
      {"asc_kernel_param_writes(out)", [&] { return asc_kernel_param_writes(kernel, 0, nullptr); }, "out"},
      {"asc_platform_query(name)", [&] { return asc_platform_query(nullptr, 11, &info); }, "platform name"},
      {"asc_platform_query(out)", [&] { return asc_platform_query(kPlatform.data(), kPlatform.size(), nullptr); },
       "out"},
      {"asc_device_create(platform)", [&] { return asc_device_create(ASC_BACKEND_MODEL, nullptr, 11, 0, &d); },
       "platform name"},
      {"asc_device_create(out)",
       [&] { return asc_device_create(ASC_BACKEND_MODEL, kPlatform.data(), kPlatform.size(), 0, nullptr); }, "out"},
      {"asc_device_destroy", [&] { return asc_device_destroy(nullptr); }, "device"},
      {"asc_stream_create(device)", [&] { return asc_stream_create(nullptr, &s); }, "device"},
      {"asc_stream_create(out)", [&] { return asc_stream_create(device_, nullptr); }, "out"},
      {"asc_stream_destroy", [&] { return asc_stream_destroy(nullptr); }, "stream"},
      {"asc_stream_synchronize", [&] { return asc_stream_synchronize(nullptr); }, "stream"},
      {"asc_stream_last_stats", [&] { return asc_stream_last_stats(nullptr, nullptr); }, "stream"},
      {"asc_stream_last_warnings", [&] { return asc_stream_last_warnings(nullptr, nullptr, 0, nullptr); }, "stream"},
      {"asc_stream_last_output", [&] { return asc_stream_last_output(nullptr, nullptr, 0, nullptr); }, "stream"},
      {"asc_stream_last_lines", [&] { return asc_stream_last_lines(nullptr, nullptr, 0, nullptr); }, "stream"},
      {"asc_stream_set_stats_sink", [&] { return asc_stream_set_stats_sink(nullptr, nullptr); }, "stream"},
      {"asc_stream_set_option(stream)", [&] { return asc_stream_set_option(nullptr, "async", 5, 0); }, "stream"},
      {"asc_stream_set_option(name)", [&] { return asc_stream_set_option(stream_, nullptr, 5, 0); }, "name"},
      {"asc_stream_set_profile_dir", [&] { return asc_stream_set_profile_dir(nullptr, "", 0); }, "stream"},
      {"asc_builder_set_option(builder)", [&] { return asc_builder_set_option(nullptr, "auto_sync", 9, 1); },
       "builder"},
      {"asc_builder_set_option(name)", [&] { return asc_builder_set_option(b, nullptr, 9, 1); }, "name"},
      {"asc_builder_log", [&] { return asc_builder_log(nullptr, buf, sizeof buf, &len); }, "builder"},
      {"asc_builder_replay(builder)", [&] { return asc_builder_replay(nullptr, buf, 0); }, "builder"},
      {"asc_builder_replay(log)", [&] { return asc_builder_replay(b, nullptr, 4); }, "log"},
      {"asc_op_describe", [&] { return asc_op_describe(0, nullptr); }, "out"},
      {"asc_op_doc", [&] { return asc_op_doc(0, nullptr); }, "out"},
      {"asc_launch(kernel)", [&] { return asc_launch(nullptr, stream_, 1, args, 3); }, "kernel"},
      {"asc_launch(stream)", [&] { return asc_launch(kernel, nullptr, 1, args, 3); }, "stream"},
      {"asc_launch(args)", [&] { return asc_launch(kernel, stream_, 1, nullptr, 3); }, "args"},
      {"asc_launch_with_stats(kernel)", [&] { return asc_launch_with_stats(nullptr, stream_, 1, args, 3, nullptr); },
       "kernel"},
      {"asc_launch_with_stats(stream)", [&] { return asc_launch_with_stats(kernel, nullptr, 1, args, 3, nullptr); },
       "stream"},
      {"asc_launch_call", [&] { return asc_launch_call(nullptr); }, "call"},
      {"asc_launch_call(kernel)",
       [&] {
         const asc_launch_request_t request{nullptr, stream_, 1, args, 3, nullptr};
         return asc_launch_call(&request);
       },
       "kernel"},
  };
  for (const NullCase& c : cases) {
    SCOPED_TRACE(c.call);
    scribble_last_error();
    EXPECT_TRUE(fails_with(c.run(), ASC_ERR_INVALID_ARGUMENT, {std::string(c.null_what) + " is null"}));
  }
  EXPECT_EQ(asc_builder_destroy(b), ASC_OK);

  // Null out-pointers of asc_last_error_loc are skipped, not dereferenced.
  EXPECT_EQ(asc_last_error_loc(nullptr, nullptr, nullptr), ASC_OK);
}

TEST_F(CapiTest, UnknownOptionsIndicesAndShortBuffersAreReported) {
  const asc_type_t param = gm_addr_type(ASC_DTYPE_FLOAT32);
  asc_builder_t* b = nullptr;
  check(asc_build_kernel(module_.get(), "k", 1, &param, 1, &b), "asc_build_kernel");
  EXPECT_TRUE(fails_with(asc_builder_set_option(b, "fast_math", 9, 1), ASC_ERR_INVALID_ARGUMENT,
                         {"unknown option 'fast_math'", "auto_sync"}));
  EXPECT_TRUE(fails_with(asc_stream_set_option(stream_, "turbo", 5, 1), ASC_ERR_INVALID_ARGUMENT,
                         {"unknown stream option 'turbo'", "max_ops"}));
  asc_op_desc_t desc;
  EXPECT_TRUE(fails_with(asc_op_describe(asc_op_count(), &desc), ASC_ERR_INVALID_ARGUMENT, {"out of range"}));
  const char* doc = nullptr;
  EXPECT_TRUE(fails_with(asc_op_doc(asc_op_count(), &doc), ASC_ERR_INVALID_ARGUMENT, {"out of range"}));
  EXPECT_EQ(asc_platform_name(asc_platform_count()), nullptr);

  // Text that does not fit: the status, the length it needs, and no byte written past `cap`.
  asc_value_t v;
  check(asc_builder_op(b, "get_block_idx", 13, nullptr, 0, nullptr, 0, nullptr, &v), "asc_builder_op");
  char small[4] = {'x', 'x', 'x', 'x'};
  size_t len = 0;
  EXPECT_EQ(asc_builder_print(b, small, 3, &len), ASC_ERR_BUFFER_TOO_SMALL);
  EXPECT_GT(len, 3u);
  EXPECT_EQ(small[3], 'x');
  EXPECT_EQ(asc_builder_log(b, small, 3, &len), ASC_ERR_BUFFER_TOO_SMALL);
  EXPECT_GT(len, 3u);
  EXPECT_EQ(small[3], 'x');
  EXPECT_EQ(asc_builder_destroy(b), ASC_OK);
}

TEST_F(CapiTest, DumpedFileNamesStayInsideTheDumpDirectory) {
  const std::string dir = ::testing::TempDir() + "/asc_dump_" + std::to_string(::getpid());
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  ::setenv("PYASC_DUMP_PATH", dir.c_str(), 1);
  CapiWriter w(module_.get(), "../escape", {gm_addr_type(ASC_DTYPE_FLOAT32)});
  w.finish();
  ::unsetenv("PYASC_DUMP_PATH");
  EXPECT_EQ(::access((dir + "/___escape-0.0-built.ir").c_str(), F_OK), 0);
  EXPECT_EQ(::access((dir + "/___escape-0.3-insert_sync.ir").c_str(), F_OK), 0);
  EXPECT_NE(::access((::testing::TempDir() + "/escape-0.0-built.ir").c_str(), F_OK), 0);
}

TEST_F(CapiTest, KernelSourceIsTheAscendCOfTheFinishedKernel) {
  TiledBinary k;
  CapiWriter w(module_.get(), "vadd", k.params());
  emit_tiled_binary(w, k);
  asc_kernel_t* kernel = w.finish();
  ASSERT_NE(kernel, nullptr);
  size_t len = 0;
  EXPECT_EQ(asc_kernel_source(kernel, nullptr, 0, &len), ASC_ERR_BUFFER_TOO_SMALL);
  ASSERT_GT(len, 100u);
  std::string text(len + 1, '\0');
  ASSERT_EQ(asc_kernel_source(kernel, text.data(), text.size(), &len), ASC_OK);
  text.resize(len);
  EXPECT_NE(text.find("extern \"C\" __global__ __aicore__ void vadd(GM_ADDR v0"), std::string::npos) << text;
  EXPECT_NE(text.find("AscendC::Add("), std::string::npos) << text;
  EXPECT_TRUE(
      fails_with(asc_kernel_source(nullptr, text.data(), text.size(), &len), ASC_ERR_INVALID_ARGUMENT, {"kernel"}));
}

// A mix kernel's register_matmul without the workspace and the tiling cannot register Ascend C's Matmul object:
// the C ABI says so with the op's line, and PYASC_DUMP_PATH leaves an #error in place of the source.
TEST_F(CapiTest, AnOpTheEmitterCannotSpellIsReportedAndDumpedAsAnError) {
  const std::string dir = ::testing::TempDir() + "/asc_dump_src_" + std::to_string(::getpid());
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  ::setenv("PYASC_DUMP_PATH", dir.c_str(), 1);
  CapiWriter w(module_.get(), "mixed", {gm_addr_type(ASC_DTYPE_FLOAT32)}, "mix.py");
  EXPECT_EQ(asc_builder_set_option(w.builder(), "kernel_type", 11, 7), ASC_OK);  // MIX_AIC_1_2
  w.at_line(9);
  w.op("matmul.server", {});
  asc_kernel_t* kernel = w.finish();
  ::unsetenv("PYASC_DUMP_PATH");
  ASSERT_NE(kernel, nullptr);
  size_t len = 0;
  EXPECT_TRUE(fails_with(asc_kernel_source(kernel, nullptr, 0, &len), ASC_ERR_UNSUPPORTED,
                         {"cannot spell matmul.server", "Matmul object", "needs the workspace"}));
  const char* file = nullptr;
  uint32_t line = 0, col = 0;
  asc_last_error_loc(&file, &line, &col);
  EXPECT_EQ(line, 9u);
  std::ifstream in(dir + "/mixed-0.ascendc.cpp");
  std::string dumped((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(dumped.rfind("#error \"mix.py:9:", 0), 0u) << dumped;
  EXPECT_NE(dumped.find("cannot spell matmul.server"), std::string::npos) << dumped;
}

TEST_F(CapiTest, RegionsNestAtMost32Deep) {
  CapiWriter w(module_.get(), "deep", {gm_addr_type(ASC_DTYPE_FLOAT32)});
  for (int depth = 0; depth < 32; ++depth) w.for_begin(w.i32(0), w.i32(2), w.i32(1));
  asc_value_t cond = w.i32(1), iv = ASC_NO_VALUE;
  EXPECT_TRUE(fails_with(asc_builder_for_begin(w.builder(), cond, cond, cond, nullptr, &iv), ASC_ERR_UNSUPPORTED,
                         {"for nested 33 regions deep", "at most 32"}));
  EXPECT_TRUE(fails_with(asc_builder_if_begin(w.builder(), cond, nullptr), ASC_ERR_UNSUPPORTED, {"if nested 33"}));
  for (int depth = 0; depth < 32; ++depth) w.for_end();
  EXPECT_NE(w.finish(), nullptr);
}

// The fuzzer's nested-loops-sync input: insert_sync walked each loop body twice per pass of every enclosing loop,
// 2^depth walks, and hung. A body that changes nothing the analysis knows is now walked once; any other nest is
// bounded: it synchronises, or gives up with an error.
TEST_F(CapiTest, InsertSyncOnDeeplyNestedLoopsEndsQuickly) {
  enum Body { kScalar, kCopyInOut, kCopyIn };
  auto nest = [&](int depth, Body body) {
    CapiWriter w(module_.get(), "nested", {gm_addr_type(ASC_DTYPE_FLOAT32)});
    EXPECT_EQ(asc_builder_set_option(w.builder(), "insert_sync", 11, 1), ASC_OK);
    Value x_gm = w.global_tensor(w.param(0), w.i32(0), w.i32(64));
    Value t = w.local_tensor(0, 64, ASC_DTYPE_FLOAT32, ASC_POS_VECIN, "t");
    for (int d = 0; d < depth; ++d) w.for_begin(w.i32(0), w.i32(1), w.i32(1));
    if (body == kScalar) w.op("arith.add", {w.i32(1), w.i32(2)});
    if (body != kScalar) w.op("data_copy", {t, x_gm, w.i32(64)});
    if (body == kCopyInOut) w.op("data_copy", {x_gm, t, w.i32(64)});
    for (int d = 0; d < depth; ++d) w.for_end();
    asc_kernel_t* kernel = nullptr;
    return asc_builder_finish(w.release(), &kernel);
  };
  EXPECT_EQ(nest(30, kScalar), ASC_OK) << asc_last_error();
  for (int d = 1; d <= 2; ++d) EXPECT_EQ(nest(d, kCopyInOut), ASC_OK) << d << ": " << asc_last_error();
  // Each level's body changes what the analysis knows, so each needs its second pass: 2^30 walks, over budget.
  EXPECT_TRUE(fails_with(nest(30, kCopyIn), ASC_ERR_UNSUPPORTED, {"insert_sync gave up", "by hand"}));
  // Deeper nests of copies run out of event ids (a limit of the analysis, reported) or out of its work budget:
  // an error either way, in milliseconds.
  asc_status_t deep = nest(30, kCopyInOut);
  EXPECT_TRUE(deep == ASC_ERR_VERIFY || deep == ASC_ERR_UNSUPPORTED) << asc_status_name(deep);
}

// ---- building ------------------------------------------------------------------------------

TEST_F(CapiTest, UnknownOpIsReportedWithItsLocation) {
  CapiWriter w(module_.get(), "k", {});
  const asc_loc_t loc{"user/vadd.py", 12, 42, 9};
  asc_value_t result = 0;
  EXPECT_TRUE(fails_with(asc_builder_op(w.builder(), "vmadd", 5, nullptr, 0, nullptr, 0, &loc, &result),
                         ASC_ERR_UNKNOWN_OP, {"vmadd", "user/vadd.py:42:9"}));
  const char* file = nullptr;
  uint32_t line = 0, col = 0;
  ASSERT_EQ(asc_last_error_loc(&file, &line, &col), ASC_OK);
  EXPECT_STREQ(file, "user/vadd.py");
  EXPECT_EQ(line, 42u);
  EXPECT_EQ(col, 9u);

  // An error without a location clears the previous one.
  scribble_last_error();
  ASSERT_EQ(asc_last_error_loc(&file, &line, &col), ASC_OK);
  EXPECT_STREQ(file, "");
  EXPECT_EQ(line, 0u);
}

TEST_F(CapiTest, TypeErrorsNameTheOp) {
  CapiWriter w(module_.get(), "k", {});
  Value n = w.i32(64);
  Value x = w.local_tensor(0, 64, ASC_DTYPE_FLOAT32, ASC_POS_VECIN, "x");
  const asc_value_t operands[] = {n, x, x, n};
  EXPECT_TRUE(fails_with(asc_builder_op(w.builder(), "add", 3, operands, 4, nullptr, 0, nullptr, nullptr), ASC_ERR_TYPE,
                         {"add", "operand 0"}));
  const asc_value_t unknown[] = {12345};
  EXPECT_TRUE(fails_with(asc_builder_op(w.builder(), "arith.neg", 9, unknown, 1, nullptr, 0, nullptr, nullptr),
                         ASC_ERR_INVALID_ARGUMENT, {"%12345"}));
}

TEST_F(CapiTest, BadParameterTypesAreRejected) {
  asc_builder_t* b = nullptr;
  const asc_type_t bad_kind{9, ASC_DTYPE_FLOAT32, ASC_POS_GM};
  EXPECT_TRUE(
      fails_with(asc_build_kernel(module_.get(), "k", 1, &bad_kind, 1, &b), ASC_ERR_INVALID_ARGUMENT, {"type kind 9"}));
  const asc_type_t bad_dtype{ASC_TYPE_GM_ADDR, ASC_DTYPE_COUNT, ASC_POS_GM};
  EXPECT_TRUE(
      fails_with(asc_build_kernel(module_.get(), "k", 1, &bad_dtype, 1, &b), ASC_ERR_INVALID_ARGUMENT, {"dtype 12"}));
  const asc_type_t bad_position{ASC_TYPE_LOCAL_TENSOR, ASC_DTYPE_FLOAT32, 99};
  EXPECT_TRUE(fails_with(asc_build_kernel(module_.get(), "k", 1, &bad_position, 1, &b), ASC_ERR_INVALID_ARGUMENT,
                         {"position 99"}));
  const asc_type_t local{ASC_TYPE_LOCAL_TENSOR, ASC_DTYPE_FLOAT32, ASC_POS_VECIN};
  EXPECT_TRUE(fails_with(asc_build_kernel(module_.get(), "k", 1, &local, 1, &b), ASC_ERR_TYPE, {"kernel parameters"}));
  EXPECT_TRUE(fails_with(asc_build_kernel(module_.get(), "", 0, nullptr, 0, &b), ASC_ERR_INVALID_ARGUMENT, {"name"}));
  EXPECT_EQ(b, nullptr);
}

TEST_F(CapiTest, BadAttributeKindIsRejected) {
  CapiWriter w(module_.get(), "k", {});
  const asc_attr_t attrs[] = {{"dtype", 5, ASC_ATTR_INT, ASC_DTYPE_INT32, 0, nullptr, 0},
                              {"value", 5, 7, 1, 0, nullptr, 0}};
  EXPECT_TRUE(fails_with(asc_builder_op(w.builder(), "const", 5, nullptr, 0, attrs, 2, nullptr, nullptr),
                         ASC_ERR_INVALID_ARGUMENT, {"'value'", "kind 7"}));
}

TEST_F(CapiTest, FinishConsumesTheBuilderEvenOnFailure) {
  CapiWriter w(module_.get(), "k", {});
  w.at_line(30);
  w.for_begin(w.i32(0), w.i32(4), w.i32(1));
  try {
    w.finish();
    FAIL() << "finish() with an open for region succeeded";
  } catch (const CapiError& e) {
    EXPECT_EQ(e.status(), ASC_ERR_VERIFY);
    EXPECT_NE(std::string(asc_last_error()).find("never closed"), std::string::npos);
  }
  EXPECT_EQ(w.builder(), nullptr);
}

TEST_F(CapiTest, ValueTypesAndParamCount) {
  CapiWriter w(module_.get(), "k", TiledBinary{}.params());
  asc_type_t t{};
  ASSERT_EQ(asc_builder_value_type(w.builder(), w.op("get_block_idx", {}), &t), ASC_OK);
  EXPECT_EQ(t.kind, uint32_t{ASC_TYPE_SCALAR});
  EXPECT_EQ(t.dtype, uint32_t{ASC_DTYPE_INT64});
  ASSERT_EQ(asc_builder_value_type(w.builder(), w.param(2), &t), ASC_OK);
  EXPECT_EQ(t.kind, uint32_t{ASC_TYPE_GM_ADDR});
  EXPECT_EQ(t.dtype, uint32_t{ASC_DTYPE_FLOAT32});
  size_t n = 0;
  ASSERT_EQ(asc_kernel_param_count(w.finish(), &n), ASC_OK);
  EXPECT_EQ(n, 3u);
}

TEST_F(CapiTest, ParamWritesNamesTheParametersTheKernelWritesThrough) {
  // vadd reads x and y and writes z (through a GlobalTensor set over an offset of it)
  asc_kernel_t* kernel = build_vadd();
  int32_t writes = -1;
  const int32_t expected[] = {0, 0, 1};
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_EQ(asc_kernel_param_writes(kernel, i, &writes), ASC_OK) << asc_last_error();
    EXPECT_EQ(writes, expected[i]) << "parameter " << i;
  }
  EXPECT_TRUE(fails_with(asc_kernel_param_writes(kernel, 3, &writes), ASC_ERR_INVALID_ARGUMENT,
                         {"parameter index 3", "kernel has 3"}));
  CapiWriter w(module_.get(), "reads_only", TiledBinary{}.params());  // no op writes GM
  w.op("get_block_idx", {});
  asc_kernel_t* nothing = w.finish();
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_EQ(asc_kernel_param_writes(nothing, i, &writes), ASC_OK);
    EXPECT_EQ(writes, 0) << "parameter " << i;
  }
}

TEST_F(CapiTest, KernelPrintReportsTheLengthItNeeds) {
  asc_kernel_t* kernel = build_vadd();
  size_t len = 0;
  EXPECT_TRUE(fails_with(asc_kernel_print(kernel, nullptr, 0, &len), ASC_ERR_BUFFER_TOO_SMALL));
  ASSERT_GT(len, 100u);

  std::vector<char> full(len + 1, 'x');
  size_t len2 = 0;
  ASSERT_EQ(asc_kernel_print(kernel, full.data(), full.size(), &len2), ASC_OK);
  EXPECT_EQ(len2, len);
  EXPECT_EQ(std::strlen(full.data()), len);
  const std::string text(full.data());
  EXPECT_EQ(text.rfind("kernel @vadd(", 0), 0u);
  EXPECT_NE(text.find("event = MTE2_V"), std::string::npos);

  // Too small by one and by a lot: a NUL-terminated prefix and the full length.
  for (size_t cap : {len, size_t{16}}) {
    std::vector<char> small(cap, 'x');
    size_t got = 0;
    EXPECT_TRUE(fails_with(asc_kernel_print(kernel, small.data(), cap, &got), ASC_ERR_BUFFER_TOO_SMALL));
    EXPECT_EQ(got, len);
    EXPECT_EQ(std::string(small.data()), text.substr(0, cap - 1));
  }
}

TEST_F(CapiTest, BuilderPrintShowsTheKernelSoFar) {
  CapiWriter w(module_.get(), "partial", {});
  w.op("get_block_idx", {});
  char buf[256];
  size_t len = 0;
  ASSERT_EQ(asc_builder_print(w.builder(), buf, sizeof buf, &len), ASC_OK);
  EXPECT_NE(std::string(buf).find("kernel @partial()"), std::string::npos);
  EXPECT_NE(std::string(buf).find("get_block_idx"), std::string::npos);
}

// ---- asynchronous streams ----------------------------------------------------------------------

void set_async(asc_stream_t* stream, bool on) {
  ASSERT_EQ(asc_stream_set_option(stream, "async", 5, on ? 1 : 0), ASC_OK) << asc_last_error();
}

TEST_F(CapiTest, AsynchronousLaunchesRunInOrderAndAreVisibleAfterSynchronize) {
  TiledBinary k;
  k.block_length = 4096;
  asc_kernel_t* kernel = build_vadd(k);
  set_async(stream_, true);
  const size_t n = 4 * static_cast<size_t>(k.block_length);
  std::vector<float> x = random_values<float>(n, 11, -9, 9), y = random_values<float>(n, 12, -9, 9);
  std::vector<float> z(n, 0.0f), w(n, 0.0f);
  // z = x + y, then w = z + y: the second reads what the first wrote, so order matters.
  const asc_arg_t first[] = {buffer_arg(x), buffer_arg(y), buffer_arg(z)};
  const asc_arg_t second[] = {buffer_arg(z), buffer_arg(y), buffer_arg(w)};
  for (int rep = 0; rep < 20; ++rep) {
    ASSERT_EQ(asc_launch(kernel, stream_, 4, first, 3), ASC_OK) << asc_last_error();
    ASSERT_EQ(asc_launch(kernel, stream_, 4, second, 3), ASC_OK) << asc_last_error();
  }
  ASSERT_EQ(asc_stream_synchronize(stream_), ASC_OK) << asc_last_error();
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(w[i], (x[i] + y[i]) + y[i]) << i;
  asc_launch_stats_t stats{};
  ASSERT_EQ(asc_stream_last_stats(stream_, &stats), ASC_OK);
  EXPECT_EQ(stats.blocks, 4u);
  set_async(stream_, false);
}

TEST_F(CapiTest, AsynchronousArgumentErrorsAreReportedAtTheCall) {
  asc_kernel_t* kernel = build_vadd();
  set_async(stream_, true);
  std::vector<float> x(64);
  const asc_arg_t args[] = {buffer_arg(x), buffer_arg(x)};
  EXPECT_TRUE(fails_with(asc_launch(kernel, stream_, 1, args, 2), ASC_ERR_TYPE, {"takes 3 argument(s), got 2"}));
  EXPECT_TRUE(fails_with(asc_launch(kernel, stream_, 0, args, 2), ASC_ERR_INVALID_ARGUMENT, {"block_dim"}));
  EXPECT_EQ(asc_stream_synchronize(stream_), ASC_OK);  // nothing was queued
}

TEST_F(CapiTest, AsynchronousKernelFailuresAreReportedBySynchronize) {
  TiledBinary k;
  k.block_length = 4096;
  asc_kernel_t* kernel = build_vadd(k);
  set_async(stream_, true);
  const size_t n = static_cast<size_t>(k.block_length);
  std::vector<float> x(n, 1.0f), y(n, 2.0f), z(n, 0.0f), small(n / 2, 0.0f);
  // z too short: out of bounds (strict: the board would write the rest of its allocator's segment)
  ASSERT_EQ(asc_stream_set_option(stream_, "strict", 6, 1), ASC_OK);
  const asc_arg_t bad[] = {buffer_arg(x), buffer_arg(y), buffer_arg(small)};
  const asc_arg_t good[] = {buffer_arg(x), buffer_arg(y), buffer_arg(z)};
  ASSERT_EQ(asc_launch(kernel, stream_, 1, bad, 3), ASC_OK) << asc_last_error();
  ASSERT_EQ(asc_launch(kernel, stream_, 1, good, 3), ASC_OK);
  ASSERT_EQ(asc_launch(kernel, stream_, 1, good, 3), ASC_OK);
  EXPECT_TRUE(fails_with(asc_stream_synchronize(stream_), ASC_ERR_OUT_OF_BOUNDS,
                         {"asynchronous launch failed", "2 later launches on this stream did not run"}));
  EXPECT_EQ(z[0], 0.0f);                               // the launches after the failure did not run
  EXPECT_EQ(asc_stream_synchronize(stream_), ASC_OK);  // reported once
  ASSERT_EQ(asc_launch(kernel, stream_, 1, good, 3), ASC_OK);
  ASSERT_EQ(asc_stream_synchronize(stream_), ASC_OK) << asc_last_error();
  EXPECT_EQ(z[0], 3.0f);
  // A failure still queued when async is turned off is that call's.
  ASSERT_EQ(asc_launch(kernel, stream_, 1, bad, 3), ASC_OK);
  EXPECT_TRUE(fails_with(asc_stream_set_option(stream_, "async", 5, 0), ASC_ERR_OUT_OF_BOUNDS));
  set_async(stream_, false);
  ASSERT_EQ(asc_stream_set_option(stream_, "strict", 6, 0), ASC_OK);
}

// docs/model-backend.md "Memory like the board's": a write into the padding of z's allocation runs with a
// memcheck warning; the stream option strict (and ASC_STRICT=1 for new streams) makes it the error.
TEST_F(CapiTest, StrictStreamOptionTurnsMemcheckWarningsIntoErrors) {
  TiledBinary k;
  CapiWriter w(module_.get(), "vadd", k.params());
  emit_tiled_binary(w, k);
  asc_kernel_t* kernel = w.finish();
  ASSERT_NE(kernel, nullptr);
  const size_t n = static_cast<size_t>(k.block_length);
  std::vector<float> x(n, 1.0f), y(n, 2.0f), z(n, 0.0f);
  const asc_arg_t args[] = {buffer_arg(x), buffer_arg(y), buffer_arg(z, (n - 4) * sizeof(float))};
  ASSERT_EQ(asc_launch(kernel, stream_, 1, args, 3), ASC_OK) << asc_last_error();
  std::string warnings(4096, '\0');
  size_t len = 0;
  ASSERT_EQ(asc_stream_last_warnings(stream_, warnings.data(), warnings.size(), &len), ASC_OK);
  warnings.resize(len);
  EXPECT_NE(warnings.find("memcheck: "), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("of kernel argument 2, past its"), std::string::npos) << warnings;
  EXPECT_EQ(z[n - 5], 3.0f);
  EXPECT_EQ(z[n - 4], 0.0f);  // past the size passed: the caller's memory, untouched
  ASSERT_EQ(asc_stream_set_option(stream_, "strict", 6, 1), ASC_OK);
  EXPECT_TRUE(fails_with(asc_launch(kernel, stream_, 1, args, 3), ASC_ERR_OUT_OF_BOUNDS, {"strict mode"}));
  ASSERT_EQ(asc_stream_set_option(stream_, "strict", 6, 0), ASC_OK);
  EXPECT_EQ(asc_launch(kernel, stream_, 1, args, 3), ASC_OK) << asc_last_error();
  ::setenv("ASC_STRICT", "1", 1);
  asc_stream_t* strict = nullptr;
  ASSERT_EQ(asc_stream_create(device_, &strict), ASC_OK);
  ::unsetenv("ASC_STRICT");
  EXPECT_TRUE(fails_with(asc_launch(kernel, strict, 1, args, 3), ASC_ERR_OUT_OF_BOUNDS, {"strict mode"}));
  asc_stream_destroy(strict);
}

TEST_F(CapiTest, TwoAsynchronousStreamsRunSideBySide) {
  TiledBinary k;
  k.block_length = 2048;
  asc_kernel_t* kernel = build_vadd(k);
  asc_stream_t* other = nullptr;
  ASSERT_EQ(asc_stream_create(device_, &other), ASC_OK);
  set_async(stream_, true);
  set_async(other, true);
  constexpr uint32_t kBlocks = 32;  // enough that each launch wants the shared thread pool
  const size_t n = kBlocks * static_cast<size_t>(k.block_length);
  std::vector<float> x = random_values<float>(n, 21, -9, 9), y = random_values<float>(n, 22, -9, 9);
  std::vector<float> z1(n, 0.0f), z2(n, 0.0f);
  const asc_arg_t a1[] = {buffer_arg(x), buffer_arg(y), buffer_arg(z1)};
  const asc_arg_t a2[] = {buffer_arg(y), buffer_arg(x), buffer_arg(z2)};
  for (int rep = 0; rep < 8; ++rep) {
    ASSERT_EQ(asc_launch(kernel, stream_, kBlocks, a1, 3), ASC_OK) << asc_last_error();
    ASSERT_EQ(asc_launch(kernel, other, kBlocks, a2, 3), ASC_OK) << asc_last_error();
  }
  ASSERT_EQ(asc_stream_synchronize(stream_), ASC_OK) << asc_last_error();
  ASSERT_EQ(asc_stream_synchronize(other), ASC_OK) << asc_last_error();
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(z1[i], x[i] + y[i]) << i;
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(z2[i], y[i] + x[i]) << i;
  ASSERT_EQ(asc_stream_destroy(other), ASC_OK);
  set_async(stream_, false);
}

TEST_F(CapiTest, DestroyingAnAsynchronousStreamRunsWhatItQueued) {
  TiledBinary k;
  k.block_length = 4096;
  asc_kernel_t* kernel = build_vadd(k);
  asc_stream_t* stream = nullptr;
  ASSERT_EQ(asc_stream_create(device_, &stream), ASC_OK);
  set_async(stream, true);
  const size_t n = 2 * static_cast<size_t>(k.block_length);
  std::vector<float> x(n, 1.5f), y(n, 2.0f), z(n, 0.0f);
  const asc_arg_t args[] = {buffer_arg(x), buffer_arg(y), buffer_arg(z)};
  for (int i = 0; i < 10; ++i) ASSERT_EQ(asc_launch(kernel, stream, 2, args, 3), ASC_OK);
  ASSERT_EQ(asc_stream_destroy(stream), ASC_OK);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(z[i], 3.5f) << i;
}

// A caller that exits with launches still queued on an asynchronous stream (no synchronize, no destroy): the
// library's exit handler drops what has not started, lets the running launch finish and stops the queue's
// thread, saying so on stderr; the process exits normally instead of a thread running into static destructors.
TEST_F(CapiTest, AsynchronousLaunchesQueuedAtExitAreDroppedNotACrash) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto queue_and_exit = [&] {
    TiledBinary k;
    k.block_length = 8192;
    asc_kernel_t* kernel = build_vadd(k);
    // The caller's buffers, made before the stream: they are destroyed after the library's exit handler ran.
    static std::vector<float> x(8 * static_cast<size_t>(k.block_length), 1.0f), z(x.size(), 0.0f);
    asc_stream_t* stream = nullptr;
    check(asc_stream_create(device_, &stream), "stream");
    set_async(stream, true);
    const asc_arg_t args[] = {buffer_arg(x), buffer_arg(x), buffer_arg(z)};
    for (int i = 0; i < 500; ++i) check(asc_launch(kernel, stream, 8, args, 3), "launch");
    std::exit(0);
  };
  EXPECT_EXIT(queue_and_exit(), ::testing::ExitedWithCode(0),
              "launches queued on asynchronous streams did not run: the process exited");
}

// ---- threads ---------------------------------------------------------------------------------------

// Several threads at once, each building its own kernels in a shared module and launching them on a
// stream of its own; every result is checked. (Run under ThreadSanitizer by the sanitizer build.)
TEST_F(CapiTest, ThreadsBuildAndLaunchAtOnce) {
  constexpr int kThreads = 4, kRounds = 6;
  std::vector<std::thread> threads;
  std::vector<std::string> failures(kThreads);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      try {
        asc_stream_t* stream = nullptr;
        check(asc_stream_create(device_, &stream), "stream");
        if (t % 2) check(asc_stream_set_option(stream, "async", 5, 1), "async");
        for (int round = 0; round < kRounds; ++round) {
          TiledBinary k;
          k.block_length = 1024 * (1 + (t + round) % 3);
          CapiWriter w(module_.get(), "vadd", k.params());
          emit_tiled_binary(w, k);
          asc_kernel_t* kernel = w.finish();
          const uint32_t blocks = 1 + static_cast<uint32_t>((t + round) % 8);
          const size_t n = blocks * static_cast<size_t>(k.block_length);
          std::vector<float> x = random_values<float>(n, 100 + t, -9, 9),
                             y = random_values<float>(n, 200 + round, -9, 9);
          std::vector<float> z(n, 0.0f);
          const asc_arg_t args[] = {buffer_arg(x), buffer_arg(y), buffer_arg(z)};
          check(asc_launch(kernel, stream, blocks, args, 3), "asc_launch");
          check(asc_stream_synchronize(stream), "asc_stream_synchronize");
          for (size_t i = 0; i < n; ++i)
            if (z[i] != x[i] + y[i]) throw std::runtime_error("wrong result at " + std::to_string(i));
        }
        check(asc_stream_destroy(stream), "stream destroy");
      } catch (const std::exception& e) {
        failures[static_cast<size_t>(t)] = e.what();
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[static_cast<size_t>(t)], "") << "thread " << t;
}

// ---- build logs ------------------------------------------------------------------------------

std::string builder_log(const asc_builder_t* b) {
  size_t len = 0;
  EXPECT_EQ(asc_builder_log(b, nullptr, 0, &len), ASC_ERR_BUFFER_TOO_SMALL);
  std::string bytes(len + 1, '\0');
  EXPECT_EQ(asc_builder_log(b, bytes.data(), bytes.size(), &len), ASC_OK) << asc_last_error();
  bytes.resize(len);
  return bytes;
}

std::string kernel_text(const asc_kernel_t* k) {
  size_t len = 0;
  (void)asc_kernel_print(k, nullptr, 0, &len);
  std::string text(len + 1, '\0');
  EXPECT_EQ(asc_kernel_print(k, text.data(), text.size(), &len), ASC_OK);
  text.resize(len);
  return text;
}

TEST_F(CapiTest, ReplayedBuildLogBuildsTheSameKernel) {
  TiledBinary k;
  k.block_length = 4096;
  CapiWriter w(module_.get(), "vadd", k.params());
  emit_tiled_binary(w, k);
  const std::string log = builder_log(w.builder());
  const std::string original = kernel_text(w.finish());

  CapiWriter again(module_.get(), "vadd", k.params());
  ASSERT_EQ(asc_builder_replay(again.builder(), log.data(), log.size()), ASC_OK) << asc_last_error();
  EXPECT_EQ(builder_log(again.builder()), log);  // the replayed calls are recorded too
  asc_kernel_t* rebuilt = again.finish();
  EXPECT_EQ(kernel_text(rebuilt), original);

  // And it runs: z = x + y.
  const size_t n = 2 * static_cast<size_t>(k.block_length);
  std::vector<float> x = random_values<float>(n, 3, -9, 9), y = random_values<float>(n, 4, -9, 9), z(n, 0.0f);
  const asc_arg_t args[] = {buffer_arg(x), buffer_arg(y), buffer_arg(z)};
  ASSERT_EQ(asc_launch(rebuilt, stream_, 2, args, 3), ASC_OK) << asc_last_error();
  ASSERT_EQ(asc_stream_synchronize(stream_), ASC_OK);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(z[i], x[i] + y[i]) << i;
}

TEST_F(CapiTest, DamagedBuildLogsAreRefusedNeverMisread) {
  TiledBinary k;
  CapiWriter w(module_.get(), "vadd", k.params());
  emit_tiled_binary(w, k);
  const std::string log = builder_log(w.builder());
  ASSERT_GT(log.size(), 200u);
  // Every truncation: either an error, or (at a record boundary) a kernel the finish step judges.
  size_t refused = 0;
  for (size_t cut = 0; cut < log.size(); ++cut) {
    CapiWriter again(module_.get(), "vadd", k.params());
    asc_status_t status = asc_builder_replay(again.builder(), log.data(), cut);
    if (status != ASC_OK) {
      ++refused;
      EXPECT_NE(std::string_view(asc_last_error()), "");
    }
  }
  EXPECT_GT(refused, log.size() / 2);
  EXPECT_TRUE(fails_with(asc_builder_replay(w.builder(), log.data(), 7), ASC_ERR_INVALID_ARGUMENT,
                         {"build log is damaged at byte", "truncated"}));
  std::string other = log;
  other[0] = 'X';
  CapiWriter a(module_.get(), "vadd", k.params());
  EXPECT_TRUE(fails_with(asc_builder_replay(a.builder(), other.data(), other.size()), ASC_ERR_INVALID_ARGUMENT,
                         {"not a build log"}));
  // Every single-byte corruption is refused or replays into something the builder accepted; nothing crashes.
  for (size_t at = 8; at < log.size(); at += 3) {
    std::string bad = log;
    bad[at] = static_cast<char>(bad[at] ^ 0x5A);
    CapiWriter b(module_.get(), "vadd", k.params());
    (void)asc_builder_replay(b.builder(), bad.data(), bad.size());
  }
  EXPECT_TRUE(fails_with(asc_builder_replay(nullptr, log.data(), log.size()), ASC_ERR_INVALID_ARGUMENT, {"builder"}));
}

// ---- platforms and devices ------------------------------------------------------------------

TEST(CapiOps, EveryOpHasADocAndTheVectorOnesSayWhatTheyCompute) {
  size_t with_doc = 0;
  for (size_t i = 0; i < asc_op_count(); ++i) {
    asc_op_desc_t desc;
    const char* doc = nullptr;
    ASSERT_EQ(asc_op_describe(i, &desc), ASC_OK);
    ASSERT_EQ(asc_op_doc(i, &doc), ASC_OK);
    ASSERT_NE(doc, nullptr) << desc.name;
    if (desc.family) {
      EXPECT_STRNE(doc, "") << desc.name;
    }
    if (std::string(desc.name) == "add") {
      EXPECT_STREQ(doc, "dst = src0 + src1");
    }
    with_doc += *doc != 0;
  }
  EXPECT_GT(with_doc, 0u);
}

TEST(CapiPlatforms, Ascend910B1IsDescribed) {
  ASSERT_GE(asc_platform_count(), 12u);
  bool found = false;
  for (size_t i = 0; i < asc_platform_count(); ++i) {
    ASSERT_NE(asc_platform_name(i), nullptr);
    found = found || kPlatform == asc_platform_name(i);
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(asc_platform_name(asc_platform_count()), nullptr);

  asc_platform_info_t info{};
  ASSERT_EQ(asc_platform_query(kPlatform.data(), kPlatform.size(), &info), ASC_OK);
  EXPECT_EQ(info.ub_bytes, 196608u);
  EXPECT_EQ(info.aiv_cores, 48u);
  EXPECT_EQ(info.aic_cores, 24u);
  EXPECT_EQ(info.block_bytes, 32u);
  EXPECT_EQ(info.repeat_bytes, 256u);
  EXPECT_EQ(info.max_event_id, 8u);
  EXPECT_TRUE(fails_with(asc_platform_query("Ascend310P", 10, &info), ASC_ERR_INVALID_ARGUMENT, {"Ascend310P"}));

  // the throughput figures: Ascend910B1's published HBM bandwidth (1.6 TB/s), a vector core's 256 bytes and a
  // cube core's 16 x 16 x 16 float16 MACs per cycle
  auto figure = [&](std::string_view key, double* out) {
    return asc_platform_figure(kPlatform.data(), kPlatform.size(), key.data(), key.size(), out);
  };
  double value = 0;
  ASSERT_EQ(figure("hbm_bytes_per_second", &value), ASC_OK);
  EXPECT_NEAR(value, 1.6e12, 1e6);
  ASSERT_EQ(figure("vector_bytes_per_cycle", &value), ASC_OK);
  EXPECT_EQ(value, 256.0);
  ASSERT_EQ(figure("cube_f16_macs_per_cycle", &value), ASC_OK);
  EXPECT_EQ(value, 4096.0);
  EXPECT_TRUE(fails_with(figure("l2_bytes", &value), ASC_ERR_INVALID_ARGUMENT, {"no figure 'l2_bytes'"}));
  EXPECT_TRUE(fails_with(figure("hbm_bytes_per_second", nullptr), ASC_ERR_INVALID_ARGUMENT, {"out"}));
}

// Every pyasc platform (asc.runtime.config.Platform) is a row of its own, in the enum's order, with the core
// counts and clock of its source (src/target/platform.cpp: CANN's platform_config ini, or a transcription or
// quotation of it; Ascend910B2C's clock is the documented estimate, Ascend910B2's; the dav-c310 rows' from the AKG
// 950PR notes and AscendNPU-IR's NPUTargetSpec, estimates where the row says so).
TEST(CapiPlatforms, EveryPyascSocHasItsOwnRow) {
  struct Expected {
    const char* name;
    uint32_t aic, aiv;
    double ghz;
    bool c310;
  };
  const Expected expected[] = {
      {"Ascend910B1", 24, 48, 1.85, false},     {"Ascend910B2", 24, 48, 1.80, false},
      {"Ascend910B2C", 24, 48, 1.80, false},    {"Ascend910B3", 20, 40, 1.80, false},
      {"Ascend910B4", 20, 40, 1.50, false},     {"Ascend910B4-1", 20, 40, 1.50, false},
      {"Ascend910_9362", 20, 40, 1.50, false},  {"Ascend910_9372", 20, 40, 1.80, false},
      {"Ascend910_9381", 24, 48, 1.80, false},  {"Ascend910_9382", 24, 48, 1.80, false},
      {"Ascend910_9391", 24, 48, 1.85, false},  {"Ascend910_9392", 24, 48, 1.85, false},
      {"Ascend910_9579", 28, 56, 1.65, true},   {"Ascend910_9589", 32, 64, 1.65, true},
      {"Ascend910_9599", 36, 72, 1.80, true},   {"Ascend950PR_950z", 4, 8, 1.65, true},
      {"Ascend950PR_9579", 28, 56, 1.65, true}, {"Ascend950PR_957b", 28, 56, 1.65, true},
      {"Ascend950PR_957c", 28, 56, 1.65, true}, {"Ascend950PR_957d", 28, 56, 1.65, true},
      {"Ascend950PR_9589", 32, 64, 1.65, true}, {"Ascend950PR_958b", 32, 64, 1.65, true},
      {"Ascend950PR_9599", 36, 72, 1.80, true},
  };
  ASSERT_EQ(asc_platform_count(), std::size(expected));
  for (size_t i = 0; i < std::size(expected); ++i) {
    const Expected& e = expected[i];
    SCOPED_TRACE(e.name);
    ASSERT_NE(asc_platform_name(i), nullptr);
    EXPECT_STREQ(asc_platform_name(i), e.name);
    asc_platform_info_t info{};
    ASSERT_EQ(asc_platform_query(e.name, std::strlen(e.name), &info), ASC_OK);
    EXPECT_EQ(info.aic_cores, e.aic);
    EXPECT_EQ(info.aiv_cores, e.aiv);
    EXPECT_DOUBLE_EQ(info.clock_ghz, e.ghz);
    // the same buffers on every Atlas A2/A3 SoC (the A3 and Ascend910B4-1 inis agree with Ascend910B1..B4's); on
    // dav-c310 asc-devkit's __NPU_ARCH__ 3510 TOTAL_UB_SIZE 248 KiB and TOTAL_L0C_SIZE 256 KiB
    EXPECT_EQ(info.ub_bytes, e.c310 ? 253952u : 196608u);
    EXPECT_EQ(info.l1_bytes, 524288u);
    EXPECT_EQ(info.l0a_bytes, 65536u);
    EXPECT_EQ(info.l0b_bytes, 65536u);
    EXPECT_EQ(info.l0c_bytes, e.c310 ? 262144u : 131072u);
    EXPECT_EQ(info.block_bytes, 32u);
    EXPECT_EQ(info.repeat_bytes, 256u);
    EXPECT_EQ(info.max_event_id, 8u);
  }
}

TEST(CapiDevices, UnknownPlatformListsTheKnownOnes) {
  asc_device_t* d = nullptr;
  EXPECT_TRUE(fails_with(asc_device_create(ASC_BACKEND_MODEL, "Ascend310P", 10, 0, &d), ASC_ERR_INVALID_ARGUMENT,
                         {"Ascend310P", "Ascend910B1", "Ascend910B4"}));
  EXPECT_EQ(d, nullptr);
}

TEST(CapiDevices, NpuBackendNeedsCann) {
  asc_device_t* d = nullptr;
  EXPECT_TRUE(fails_with(asc_device_create(ASC_BACKEND_NPU, kPlatform.data(), kPlatform.size(), 0, &d),
                         ASC_ERR_BACKEND_UNAVAILABLE, {"libascendcl.so"}));
  EXPECT_TRUE(fails_with(asc_device_create(7, kPlatform.data(), kPlatform.size(), 0, &d), ASC_ERR_INVALID_ARGUMENT,
                         {"backend 7"}));
  EXPECT_EQ(d, nullptr);
}

TEST(CapiNpuMemory, WithoutCannTheQueriesSayWhatToInstall) {
  uint32_t n = 0;
  int64_t v = 0;
  EXPECT_TRUE(fails_with(asc_npu_device_count(&n), ASC_ERR_BACKEND_UNAVAILABLE,
                         {"asc_npu_device_count: ", "libascendcl.so could not be loaded", "install CANN"}));
  EXPECT_TRUE(fails_with(asc_npu_device_info(0, ASC_NPU_INFO_AICORE_NUM, &v), ASC_ERR_BACKEND_UNAVAILABLE,
                         {"asc_npu_device_info: ", "install CANN"}));
  EXPECT_TRUE(fails_with(asc_npu_device_count(nullptr), ASC_ERR_INVALID_ARGUMENT, {"out is null"}));
}

TEST(CapiNpuMemory, TheModelHasNoDeviceMemoryOfItsOwn) {
  asc_device_t* d = nullptr;
  ASSERT_EQ(asc_device_create(ASC_BACKEND_MODEL, kPlatform.data(), kPlatform.size(), 0, &d), ASC_OK);
  void* p = nullptr;
  char host[16] = {};
  EXPECT_TRUE(fails_with(asc_device_malloc(d, 16, ASC_MALLOC_HUGE_FIRST, &p), ASC_ERR_INVALID_ARGUMENT,
                         {"asc_device_malloc", "Model backend has no device memory of its own"}));
  EXPECT_TRUE(fails_with(asc_device_free(d, host), ASC_ERR_INVALID_ARGUMENT, {"asc_device_free"}));
  EXPECT_TRUE(fails_with(asc_device_memcpy(d, host, 16, host, 8, ASC_MEMCPY_HOST_TO_HOST), ASC_ERR_INVALID_ARGUMENT,
                         {"asc_device_memcpy"}));
  EXPECT_TRUE(fails_with(asc_device_malloc(nullptr, 16, 0, &p), ASC_ERR_INVALID_ARGUMENT, {"device is null"}));
  EXPECT_TRUE(fails_with(asc_device_malloc(d, 16, 0, nullptr), ASC_ERR_INVALID_ARGUMENT, {"out is null"}));
  EXPECT_EQ(asc_device_destroy(d), ASC_OK);
}

// ---- launching ---------------------------------------------------------------------------------

TEST_F(CapiTest, VaddBuiltAndLaunchedThroughTheCAbi) {
  TiledBinary k;
  k.block_length = 8192;  // 16 tiles of 512
  asc_kernel_t* kernel = build_vadd(k);
  constexpr uint32_t kBlocks = 8;
  const size_t n = kBlocks * static_cast<size_t>(k.block_length);
  std::vector<float> x = random_values<float>(n, 7, -50, 50), y = random_values<float>(n, 8, -50, 50), z(n, 0.0f);
  const asc_arg_t args[] = {buffer_arg(x), buffer_arg(y), buffer_arg(z)};
  ASSERT_EQ(asc_launch(kernel, stream_, kBlocks, args, 3), ASC_OK) << asc_last_error();
  ASSERT_EQ(asc_stream_synchronize(stream_), ASC_OK);
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) bad += z[i] != x[i] + y[i];
  EXPECT_EQ(bad, 0u);
}

// asc_launch_call is asc_launch_with_stats with its arguments in a struct: the same results and stats, and a
// request changed between launches launches as changed.
TEST_F(CapiTest, LaunchCallLaunchesWhatItsRequestSays) {
  TiledBinary k;
  k.block_length = 1024;
  asc_kernel_t* kernel = build_vadd(k);
  std::vector<float> x(8 * 1024), y(x.size(), 2.0f), z(x.size(), 0.0f), expected(x.size(), 0.0f);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  const asc_arg_t args[] = {buffer_arg(x), buffer_arg(y), buffer_arg(z)};
  asc_launch_stats_t direct{}, packed{};
  asc_launch_request_t request{kernel, stream_, 8, args, 3, &packed};
  for (uint32_t blocks : {8u, 3u}) {
    request.block_dim = blocks;
    std::fill(z.begin(), z.end(), 0.0f);
    ASSERT_EQ(asc_launch_call(&request), ASC_OK) << asc_last_error();
    for (size_t i = 0; i < x.size(); ++i) expected[i] = i < blocks * 1024 ? x[i] + 2.0f : 0.0f;
    EXPECT_EQ(z, expected);
    ASSERT_EQ(asc_launch_with_stats(kernel, stream_, blocks, args, 3, &direct), ASC_OK);
    EXPECT_EQ(packed.blocks, blocks);
    EXPECT_EQ(packed.cycles, direct.cycles);
  }
  request.stats = nullptr;  // none: the last stats stay as they were
  request.block_dim = 1;
  ASSERT_EQ(asc_launch_call(&request), ASC_OK);
  EXPECT_EQ(packed.blocks, 3u);
  request.block_dim = 0;
  EXPECT_TRUE(fails_with(asc_launch_call(&request), ASC_ERR_INVALID_ARGUMENT, {"block_dim"}));
}

TEST_F(CapiTest, StatsSinkIsFilledAfterEachLaunch) {
  TiledBinary k;
  k.block_length = 4096;
  asc_kernel_t* kernel = build_vadd(k);
  std::vector<float> x(8 * 4096, 1.0f), y(x.size(), 2.0f), z(x.size(), 0.0f);
  const asc_arg_t args[] = {buffer_arg(x), buffer_arg(y), buffer_arg(z)};
  asc_launch_stats_t sink{}, asked{};
  ASSERT_EQ(asc_stream_set_stats_sink(stream_, &sink), ASC_OK);
  for (uint32_t blocks : {2u, 8u}) {
    ASSERT_EQ(asc_launch(kernel, stream_, blocks, args, 3), ASC_OK) << asc_last_error();
    ASSERT_EQ(asc_stream_last_stats(stream_, &asked), ASC_OK);
    EXPECT_EQ(sink.blocks, blocks);
    EXPECT_EQ(sink.cycles, asked.cycles);
    EXPECT_GT(sink.cycles, 0u);
  }
  ASSERT_EQ(asc_stream_set_stats_sink(stream_, nullptr), ASC_OK);
  ASSERT_EQ(asc_launch(kernel, stream_, 1, args, 3), ASC_OK);
  EXPECT_EQ(sink.blocks, 8u);  // no longer written
}

// Two threads launching on one stream each read their own launch's report (asc_launch_with_stats and the
// asc_stream_last_* calls), never the other's, however the launches interleave.
TEST_F(CapiTest, ThreadsSharingAStreamReadTheirOwnLaunches) {
  TiledBinary k;
  k.block_length = 1024;
  asc_kernel_t* kernel = build_vadd(k);
  constexpr int kRounds = 200;
  std::vector<std::string> failures(2);
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < 2; ++t)
    threads.emplace_back([&, t] {
      const uint32_t blocks = t == 0 ? 2 : 7;  // what tells the two threads' launches apart
      std::vector<float> x(blocks * 1024, 1.0f), y(x.size(), 2.0f), z(x.size(), 0.0f);
      const asc_arg_t args[] = {buffer_arg(x), buffer_arg(y), buffer_arg(z)};
      for (int round = 0; round < kRounds && failures[t].empty(); ++round) {
        asc_launch_stats_t mine{}, last{};
        if (asc_launch_with_stats(kernel, stream_, blocks, args, 3, &mine) != ASC_OK ||
            asc_stream_last_stats(stream_, &last) != ASC_OK)
          failures[t] = asc_last_error();
        else if (mine.blocks != blocks || last.blocks != blocks || mine.cycles != last.cycles)
          failures[t] = "round " + std::to_string(round) + ": launched " + std::to_string(blocks) + " blocks, read " +
                        std::to_string(mine.blocks) + " (with stats) and " + std::to_string(last.blocks) + " (last)";
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures[0], "");
  EXPECT_EQ(failures[1], "");
  asc_launch_stats_t none{};
  none.blocks = 99;
  EXPECT_EQ(asc_stream_last_stats(stream_, &none), ASC_OK);  // this thread launched nothing on it
  EXPECT_EQ(none.blocks, 0u);
}

// On an asynchronous stream shared by two threads, a failure is reported to the thread whose launch failed; the
// other thread's launches queued after it did not run, and its synchronize says so (naming the failure).
TEST_F(CapiTest, AsynchronousFailuresGoToTheThreadThatLaunched) {
  TiledBinary k;
  k.block_length = 4096;
  asc_kernel_t* kernel = build_vadd(k);
  set_async(stream_, true);
  const size_t n = static_cast<size_t>(k.block_length);
  std::vector<float> x(n, 1.0f), y(n, 2.0f), z(n, 0.0f), small(n / 2, 0.0f);
  ASSERT_EQ(asc_stream_set_option(stream_, "strict", 6, 1), ASC_OK);  // out of bounds, not the board's segment
  const asc_arg_t bad[] = {buffer_arg(x), buffer_arg(y), buffer_arg(small)};
  const asc_arg_t good[] = {buffer_arg(x), buffer_arg(y), buffer_arg(z)};
  asc_launch_stats_t stats{};
  stats.blocks = 77;
  ASSERT_EQ(asc_launch(kernel, stream_, 1, bad, 3), ASC_OK) << asc_last_error();
  asc_status_t other_status = ASC_OK;
  std::string other_message;
  std::thread other([&] {
    other_status = asc_launch_with_stats(kernel, stream_, 1, good, 3, &stats);
    if (other_status == ASC_OK) other_status = asc_stream_synchronize(stream_);
    other_message = asc_last_error();
  });
  other.join();
  EXPECT_EQ(other_status, ASC_ERR_RUNTIME);
  EXPECT_NE(other_message.find("1 launch of this thread on this asynchronous stream did not run"), std::string::npos)
      << other_message;
  EXPECT_NE(other_message.find("which has only 8192 bytes"), std::string::npos) << other_message;
  EXPECT_EQ(stats.blocks, 77u);  // did not run: left as it was
  EXPECT_EQ(z[0], 0.0f);
  // This thread's own failure is still its own to hear.
  EXPECT_TRUE(fails_with(asc_stream_synchronize(stream_), ASC_ERR_OUT_OF_BOUNDS, {"asynchronous launch failed"}));
  EXPECT_EQ(asc_stream_synchronize(stream_), ASC_OK);  // reported once
  ASSERT_EQ(asc_launch_with_stats(kernel, stream_, 1, good, 3, &stats), ASC_OK);
  ASSERT_EQ(asc_stream_synchronize(stream_), ASC_OK) << asc_last_error();
  EXPECT_EQ(stats.blocks, 1u);
  EXPECT_EQ(z[0], 3.0f);
  set_async(stream_, false);
}

TEST_F(CapiTest, LaunchChecksBlockDimAndArguments) {
  asc_kernel_t* kernel = build_vadd();
  std::vector<float> x(2048), y(2048), z(2048);
  const asc_arg_t args[] = {buffer_arg(x), buffer_arg(y), buffer_arg(z)};
  EXPECT_TRUE(fails_with(asc_launch(kernel, stream_, 0, args, 3), ASC_ERR_INVALID_ARGUMENT, {"block_dim"}));
  EXPECT_TRUE(fails_with(asc_launch(kernel, stream_, 65536, args, 3), ASC_ERR_INVALID_ARGUMENT, {"block_dim"}));
  EXPECT_TRUE(fails_with(asc_launch(kernel, stream_, 1, args, 2), ASC_ERR_TYPE, {"takes 3"}));
  asc_arg_t bad_dtype[3] = {args[0], args[1], args[2]};
  bad_dtype[2].dtype = 99;
  EXPECT_TRUE(fails_with(asc_launch(kernel, stream_, 1, bad_dtype, 3), ASC_ERR_TYPE, {"argument 2", "unknown dtype"}));
  asc_arg_t on_npu[3] = {args[0], args[1], args[2]};
  on_npu[1].kind = ASC_ARG_DEVICE_BUFFER;
  EXPECT_TRUE(fails_with(asc_launch(kernel, stream_, 1, on_npu, 3), ASC_ERR_TYPE,
                         {"argument 1", "NPU device memory, which only Backend.NPU can use"}));
  EXPECT_EQ(asc_launch(kernel, stream_, 1, args, 3), ASC_OK) << asc_last_error();
}

// ASC_MAX_OPS is read when a stream is created: a whole number, or the creation fails saying so (before, text
// parsed as 0, no limit, and a negative number wrapped to a huge one).
TEST_F(CapiTest, AscMaxOpsMustBeAWholeNumber) {
  asc_stream_t* s = nullptr;
  for (const char* bad : {"abc", "-5", "", "12x", "99999999999999999999"}) {
    ::setenv("ASC_MAX_OPS", bad, 1);
    EXPECT_TRUE(fails_with(asc_stream_create(device_, &s), ASC_ERR_INVALID_ARGUMENT,
                           {"ASC_MAX_OPS must be a whole number", std::string("'") + bad + "'"}))
        << bad;
  }
  ::setenv("ASC_MAX_OPS", "1000", 1);
  ASSERT_EQ(asc_stream_create(device_, &s), ASC_OK) << asc_last_error();
  ::unsetenv("ASC_MAX_OPS");
  CapiWriter w(module_.get(), "long", {gm_addr_type(ASC_DTYPE_FLOAT32)});
  Value i = w.for_begin(w.i32(0), w.i32(5000), w.i32(1));
  w.op("arith.add", {i, i});
  w.for_end();
  asc_kernel_t* kernel = w.finish();
  std::vector<float> x(8);
  const asc_arg_t arg = buffer_arg(x);
  EXPECT_TRUE(fails_with(asc_launch(kernel, s, 1, &arg, 1), ASC_ERR_RUNTIME, {"more than 1000 operations"}));
  asc_stream_destroy(s);
}

TEST_F(CapiTest, ALoopThatNeverEndsIsStoppedByTheOpLimit) {
  CapiWriter w(module_.get(), "endless", {gm_addr_type(ASC_DTYPE_FLOAT32)});
  w.at_line(30);
  Value i = w.for_begin(w.i32(0), w.i32(INT32_MAX), w.i32(1));  // line 33: 2^31 iterations
  w.op("arith.add", {i, i});
  w.for_end();
  asc_kernel_t* kernel = w.finish();
  std::vector<float> x(8);
  const asc_arg_t arg = buffer_arg(x);
  EXPECT_TRUE(fails_with(asc_stream_set_option(stream_, "max_ops", 7, -1), ASC_ERR_INVALID_ARGUMENT, {"max_ops"}));
  ASSERT_EQ(asc_stream_set_option(stream_, "max_ops", 7, 1000), ASC_OK);
  EXPECT_TRUE(fails_with(asc_launch(kernel, stream_, 2, &arg, 1), ASC_ERR_RUNTIME,
                         {"kernels.py:3", "more than 1000 operations", "max_ops"}));
  // The count is per block and per launch: a limit the loop stays under lets it run.
  CapiWriter v(module_.get(), "bounded", {gm_addr_type(ASC_DTYPE_FLOAT32)});
  Value j = v.for_begin(v.i32(0), v.i32(400), v.i32(1));
  v.op("arith.add", {j, j});
  v.for_end();
  asc_kernel_t* bounded = v.finish();
  EXPECT_EQ(asc_launch(bounded, stream_, 2, &arg, 1), ASC_OK) << asc_last_error();
  EXPECT_EQ(asc_launch(bounded, stream_, 2, &arg, 1), ASC_OK) << asc_last_error();
}

TEST_F(CapiTest, KernelErrorsCarryTheOpLocation) {
  CapiWriter w(module_.get(), "stuck", {gm_addr_type(ASC_DTYPE_FLOAT32)});
  w.at_line(17);
  w.wait_flag(MTE2_V, w.i32(0));  // line 17: the constant, line 18: the wait
  asc_kernel_t* kernel = w.finish();
  std::vector<float> x(8);
  const asc_arg_t arg = buffer_arg(x);
  EXPECT_TRUE(fails_with(asc_launch(kernel, stream_, 1, &arg, 1), ASC_ERR_DEADLOCK, {"kernels.py:18:5: ", "MTE2_V"}));
  const char* file = nullptr;
  uint32_t line = 0, col = 0;
  asc_last_error_loc(&file, &line, &col);
  EXPECT_STREQ(file, "kernels.py");
  EXPECT_EQ(line, 18u);
}

}  // namespace

// ---- lifetimes, budgets and cancellation (issue 19) ------------------------------------------------

TEST_F(CapiTest, AStreamKeepsItsDeviceAfterTheDeviceHandleIsDestroyed) {
  asc_device_t* d = nullptr;
  asc_stream_t* s = nullptr;
  ASSERT_EQ(asc_device_create(ASC_BACKEND_MODEL, kPlatform.data(), kPlatform.size(), 0, &d), ASC_OK);
  ASSERT_EQ(asc_stream_create(d, &s), ASC_OK);
  ASSERT_EQ(asc_device_destroy(d), ASC_OK);
  TiledBinary k;
  asc_kernel_t* kernel = build_vadd(k);
  const size_t n = 4 * static_cast<size_t>(k.block_length);
  std::vector<float> x = random_values<float>(n, 1, -9, 9), y = random_values<float>(n, 2, -9, 9), z(n);
  const asc_arg_t args[] = {buffer_arg(x), buffer_arg(y), buffer_arg(z)};
  ASSERT_EQ(asc_launch(kernel, s, 4, args, 3), ASC_OK) << asc_last_error();
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(z[i], x[i] + y[i]) << i;
  // The destroyed device handle is no longer a device: a new stream on it is refused, not a use of freed memory.
  asc_stream_t* again = nullptr;
  EXPECT_TRUE(fails_with(asc_stream_create(d, &again), ASC_ERR_INVALID_ARGUMENT, {"not a live device"}));
  EXPECT_EQ(asc_stream_destroy(s), ASC_OK);
}

TEST_F(CapiTest, DestroyingAHandleTwiceIsAnInvalidArgument) {
  asc_device_t* d = nullptr;
  asc_stream_t* s = nullptr;
  asc_module_t* m = nullptr;
  asc_builder_t* b = nullptr;
  asc_builder_t* f = nullptr;
  asc_kernel_t* k = nullptr;
  const asc_type_t param = gm_addr_type(ASC_DTYPE_FLOAT32);
  ASSERT_EQ(asc_device_create(ASC_BACKEND_MODEL, kPlatform.data(), kPlatform.size(), 0, &d), ASC_OK);
  ASSERT_EQ(asc_stream_create(d, &s), ASC_OK);
  ASSERT_EQ(asc_module_create(&m), ASC_OK);
  ASSERT_EQ(asc_build_kernel(m, "k", 1, &param, 1, &b), ASC_OK);
  ASSERT_EQ(asc_build_kernel(m, "f", 1, &param, 1, &f), ASC_OK);
  // A module with open builders is freed when the last of them ends: until then it is no longer a live module,
  // and a builder that finishes into it fails (LeakSanitizer, in make hardening, sees that it is freed).
  ASSERT_EQ(asc_module_destroy(m), ASC_OK);
  asc_builder_t* late = nullptr;
  EXPECT_TRUE(
      fails_with(asc_build_kernel(m, "late", 4, &param, 1, &late), ASC_ERR_INVALID_ARGUMENT, {"not a live module"}));
  ASSERT_EQ(asc_builder_destroy(b), ASC_OK);
  EXPECT_TRUE(fails_with(asc_builder_destroy(b), ASC_ERR_INVALID_ARGUMENT, {"not a live builder"}));
  EXPECT_TRUE(fails_with(asc_builder_finish(f, &k), ASC_ERR_INVALID_ARGUMENT, {"module was destroyed"}));
  EXPECT_TRUE(fails_with(asc_builder_finish(f, &k), ASC_ERR_INVALID_ARGUMENT, {"not a live builder"}));
  EXPECT_TRUE(fails_with(asc_builder_destroy(f), ASC_ERR_INVALID_ARGUMENT, {"not a live builder"}));
  EXPECT_TRUE(fails_with(asc_module_destroy(m), ASC_ERR_INVALID_ARGUMENT, {"not a live module"}));
  ASSERT_EQ(asc_stream_destroy(s), ASC_OK);
  EXPECT_TRUE(fails_with(asc_stream_destroy(s), ASC_ERR_INVALID_ARGUMENT, {"not a live stream"}));
  ASSERT_EQ(asc_device_destroy(d), ASC_OK);
  EXPECT_TRUE(fails_with(asc_device_destroy(d), ASC_ERR_INVALID_ARGUMENT, {"not a live device"}));
  // A handle of one kind passed as another is named as what it is.
  EXPECT_TRUE(fails_with(asc_stream_destroy(reinterpret_cast<asc_stream_t*>(device_)), ASC_ERR_INVALID_ARGUMENT,
                         {"is a device, not a stream"}));
}

// Every call that takes a handle checks it is a live one of its kind first: a launch on a destroyed stream, of a
// kernel whose module was destroyed, or a builder call after its builder ended is an error, not a read of freed
// memory (ASan in make hardening would see that).
TEST_F(CapiTest, UsingADestroyedHandleIsAnInvalidArgument) {
  asc_module_t* m = nullptr;
  ASSERT_EQ(asc_module_create(&m), ASC_OK);
  asc_kernel_t* kernel = nullptr;
  asc_builder_t* ended = nullptr;
  {
    TiledBinary k;
    CapiWriter w(m, "vadd", k.params());
    emit_tiled_binary(w, k);
    kernel = w.finish();
  }
  const asc_type_t param = gm_addr_type(ASC_DTYPE_FLOAT32);
  ASSERT_EQ(asc_build_kernel(m, "ended", 5, &param, 1, &ended), ASC_OK);
  ASSERT_EQ(asc_builder_destroy(ended), ASC_OK);
  asc_value_t v = 0;
  EXPECT_TRUE(fails_with(asc_builder_param(ended, 0, &v), ASC_ERR_INVALID_ARGUMENT, {"not a live builder"}));
  std::vector<float> x(2048), y(2048), z(2048);
  const asc_arg_t args[] = {buffer_arg(x), buffer_arg(y), buffer_arg(z)};
  asc_stream_t* s = nullptr;
  ASSERT_EQ(asc_stream_create(device_, &s), ASC_OK);
  ASSERT_EQ(asc_launch(kernel, s, 1, args, 3), ASC_OK) << asc_last_error();
  ASSERT_EQ(asc_stream_destroy(s), ASC_OK);
  EXPECT_TRUE(fails_with(asc_launch(kernel, s, 1, args, 3), ASC_ERR_INVALID_ARGUMENT, {"not a live stream"}));
  EXPECT_TRUE(fails_with(asc_stream_synchronize(s), ASC_ERR_INVALID_ARGUMENT, {"not a live stream"}));
  asc_launch_stats_t stats{};
  EXPECT_TRUE(fails_with(asc_stream_last_stats(s, &stats), ASC_ERR_INVALID_ARGUMENT, {"not a live stream"}));
  size_t count = 0;
  ASSERT_EQ(asc_kernel_param_count(kernel, &count), ASC_OK);
  EXPECT_EQ(count, 3u);
  ASSERT_EQ(asc_module_destroy(m), ASC_OK);
  EXPECT_TRUE(fails_with(asc_launch(kernel, stream_, 1, args, 3), ASC_ERR_INVALID_ARGUMENT, {"not a live kernel"}));
  EXPECT_TRUE(fails_with(asc_kernel_param_count(kernel, &count), ASC_ERR_INVALID_ARGUMENT, {"not a live kernel"}));
  char buf[64];
  size_t len = 0;
  EXPECT_TRUE(
      fails_with(asc_kernel_print(kernel, buf, sizeof buf, &len), ASC_ERR_INVALID_ARGUMENT, {"not a live kernel"}));
  EXPECT_TRUE(fails_with(asc_launch(reinterpret_cast<asc_kernel_t*>(stream_), stream_, 1, args, 3),
                         ASC_ERR_INVALID_ARGUMENT, {"is a stream, not a kernel"}));
}

TEST_F(CapiTest, AModuleWithQueuedLaunchesIsNotDestroyed) {
  asc_module_t* m = nullptr;
  ASSERT_EQ(asc_module_create(&m), ASC_OK);
  asc_kernel_t* kernel = nullptr;
  {
    CapiWriter w(m, "slow", {gm_addr_type(ASC_DTYPE_FLOAT32)});
    Value i = w.for_begin(w.i32(0), w.i32(300000), w.i32(1));
    w.op("arith.add", {i, i});
    w.for_end();
    kernel = w.finish();
  }
  set_async(stream_, true);
  std::vector<float> x(8);
  const asc_arg_t arg = buffer_arg(x);
  for (int r = 0; r < 4; ++r) ASSERT_EQ(asc_launch(kernel, stream_, 1, &arg, 1), ASC_OK) << asc_last_error();
  EXPECT_TRUE(fails_with(asc_module_destroy(m), ASC_ERR_INVALID_ARGUMENT, {"'slow'", "still queued", "synchronize"}));
  ASSERT_EQ(asc_stream_synchronize(stream_), ASC_OK) << asc_last_error();
  EXPECT_EQ(asc_module_destroy(m), ASC_OK) << asc_last_error();
  set_async(stream_, false);
}

TEST_F(CapiTest, ScalarArgumentsOutsideTheirDtypeAreRefused) {
  struct Case {
    asc_dtype_t dtype;
    int64_t i;
    double f;
    const char* range;
  };
  const Case bad[] = {{ASC_DTYPE_INT8, 128, 0, "-128..127"},
                      {ASC_DTYPE_UINT8, -1, 0, "0..255"},
                      {ASC_DTYPE_INT32, int64_t{1} << 32, 0, "-2147483648..2147483647"},
                      {ASC_DTYPE_UINT32, (int64_t{1} << 32) + 1, 0, "0..4294967295"},
                      {ASC_DTYPE_BOOL, 2, 0, "0..1"},
                      {ASC_DTYPE_FLOAT16, 0, 70000.0, "float16"},
                      {ASC_DTYPE_FLOAT32, 0, 1e39, "float32"}};
  for (const Case& c : bad) {
    const asc_type_t params[] = {{ASC_TYPE_SCALAR, static_cast<uint32_t>(c.dtype), 0}};
    CapiWriter w(module_.get(), "takes", {params[0]});
    asc_kernel_t* kernel = w.finish();
    asc_arg_t arg{ASC_ARG_SCALAR, static_cast<uint32_t>(c.dtype), c.i, c.f, nullptr, 0};
    EXPECT_TRUE(fails_with(asc_launch(kernel, stream_, 1, &arg, 1), ASC_ERR_INVALID_ARGUMENT,
                           {"argument 0 of 'takes'", c.range}))
        << c.range;
    // In range (and a float's NaN or infinity) it runs.
    arg.i = c.dtype == ASC_DTYPE_UINT8 || c.dtype == ASC_DTYPE_BOOL || c.dtype == ASC_DTYPE_UINT32 ? 1 : -1;
    arg.f = c.dtype == ASC_DTYPE_FLOAT16 ? INFINITY : 65504.0;
    EXPECT_EQ(asc_launch(kernel, stream_, 1, &arg, 1), ASC_OK) << asc_last_error();
  }
}

asc_kernel_t* build_spin(asc_module_t* m, const char* name = "spin") {
  CapiWriter w(m, name, {gm_addr_type(ASC_DTYPE_FLOAT32)});
  w.at_line(40);
  Value i = w.for_begin(w.i32(0), w.i32(INT32_MAX), w.i32(1));
  Value j = w.for_begin(w.i32(0), w.i32(INT32_MAX), w.i32(1));
  w.op("arith.add", {i, j});
  w.for_end();
  w.for_end();
  return w.finish();
}

TEST_F(CapiTest, ALoopThatNeverEndsIsStoppedByTheTimeBudget) {
  asc_kernel_t* kernel = build_spin(module_.get());
  std::vector<float> x(8);
  const asc_arg_t arg = buffer_arg(x);
  EXPECT_TRUE(
      fails_with(asc_stream_set_option(stream_, "timeout_ms", 10, -1), ASC_ERR_INVALID_ARGUMENT, {"timeout_ms"}));
  ASSERT_EQ(asc_stream_set_option(stream_, "max_ops", 7, 0), ASC_OK);
  ASSERT_EQ(asc_stream_set_option(stream_, "timeout_ms", 10, 300), ASC_OK);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(fails_with(asc_launch(kernel, stream_, 2, &arg, 1), ASC_ERR_RUNTIME,
                         {"kernel 'spin'", "time budget of 0.3 s", "timeout_ms", "ASC_TIMEOUT_S"}));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  // ASC_TIMEOUT_S is read at stream creation, and checked.
  asc_stream_t* s = nullptr;
  ::setenv("ASC_TIMEOUT_S", "soon", 1);
  EXPECT_TRUE(fails_with(asc_stream_create(device_, &s), ASC_ERR_INVALID_ARGUMENT, {"ASC_TIMEOUT_S", "'soon'"}));
  ::setenv("ASC_TIMEOUT_S", "0.2", 1);
  ::setenv("ASC_MAX_OPS", "0", 1);
  ASSERT_EQ(asc_stream_create(device_, &s), ASC_OK) << asc_last_error();
  ::unsetenv("ASC_TIMEOUT_S");
  ::unsetenv("ASC_MAX_OPS");
  EXPECT_TRUE(fails_with(asc_launch(kernel, s, 1, &arg, 1), ASC_ERR_RUNTIME, {"time budget of 0.2 s"}));
  asc_stream_destroy(s);
}

TEST_F(CapiTest, TheOpLimitScalesWithTheTimeBudget) {
  // 2^32 ops at 60 s: at 60 ms the limit is 2^32 / 1000 ops, which a spin reaches long before 60 s of budget...
  asc_kernel_t* kernel = build_spin(module_.get());
  std::vector<float> x(8);
  const asc_arg_t arg = buffer_arg(x);
  ASSERT_EQ(asc_stream_set_option(stream_, "timeout_ms", 10, 60), ASC_OK);
  asc_status_t st = asc_launch(kernel, stream_, 1, &arg, 1);
  EXPECT_EQ(st, ASC_ERR_RUNTIME);
  const std::string message = asc_last_error();
  EXPECT_TRUE(message.find("more than 4294967 operations") != std::string::npos ||
              message.find("time budget of 0.06 s") != std::string::npos)
      << message;
  // ... and an explicit max_ops is kept whatever the budget.
  ASSERT_EQ(asc_stream_set_option(stream_, "max_ops", 7, 1000), ASC_OK);
  ASSERT_EQ(asc_stream_set_option(stream_, "timeout_ms", 10, 60000), ASC_OK);
  EXPECT_TRUE(fails_with(asc_launch(kernel, stream_, 1, &arg, 1), ASC_ERR_RUNTIME, {"more than 1000 operations"}));
}

TEST_F(CapiTest, SigintStopsAnInterruptibleLaunch) {
  asc_kernel_t* kernel = build_spin(module_.get());
  std::vector<float> x(8);
  const asc_arg_t arg = buffer_arg(x);
  ASSERT_EQ(asc_stream_set_option(stream_, "max_ops", 7, 0), ASC_OK);
  ASSERT_EQ(asc_stream_set_option(stream_, "timeout_ms", 10, 0), ASC_OK);
  ASSERT_EQ(asc_stream_set_option(stream_, "interrupt", 9, 1), ASC_OK);
  const auto start = std::chrono::steady_clock::now();
  std::thread sender([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::kill(::getpid(), SIGINT);
  });
  asc_status_t st = asc_launch(kernel, stream_, 2, &arg, 1);
  sender.join();
  EXPECT_TRUE(fails_with(st, ASC_ERR_RUNTIME, {"kernel 'spin' was interrupted (SIGINT)"}));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  // The stream goes on working: the next launch is not the interrupted one.
  CapiWriter v(module_.get(), "bounded", {gm_addr_type(ASC_DTYPE_FLOAT32)});
  Value j = v.for_begin(v.i32(0), v.i32(400), v.i32(1));
  v.op("arith.add", {j, j});
  v.for_end();
  EXPECT_EQ(asc_launch(v.finish(), stream_, 2, &arg, 1), ASC_OK) << asc_last_error();
}

// fork(): the child cannot use the parent's asynchronous stream (its thread stayed in the parent) and says so;
// a stream made in the child works, with many blocks (the simulator's thread pool is made anew there).
TEST_F(CapiTest, AForkedChildGetsAClearErrorFromTheParentsAsyncStreamAndCanMakeItsOwn) {
  TiledBinary k;
  k.block_length = 1024;
  asc_kernel_t* kernel = build_vadd(k);
  constexpr uint32_t kBlocks = 16;
  std::vector<float> x(kBlocks * 1024, 1.0f), y(x.size(), 2.0f), z(x.size(), 0.0f);
  const asc_arg_t args[] = {buffer_arg(x), buffer_arg(y), buffer_arg(z)};
  set_async(stream_, true);
  ASSERT_EQ(asc_launch(kernel, stream_, kBlocks, args, 3), ASC_OK);  // the queue thread and the pool exist
  ASSERT_EQ(asc_stream_synchronize(stream_), ASC_OK) << asc_last_error();
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // only async-signal-safe exits from here: a failed check is an exit code
    int code = 0;
    if (asc_stream_synchronize(stream_) != ASC_ERR_RUNTIME ||
        std::string(asc_last_error()).find("created before fork()") == std::string::npos)
      code = 1;
    asc_stream_t* mine = nullptr;
    std::fill(z.begin(), z.end(), 0.0f);
    if (!code && (asc_stream_create(device_, &mine) != ASC_OK || asc_launch(kernel, mine, kBlocks, args, 3) != ASC_OK))
      code = 2;
    if (!code && std::any_of(z.begin(), z.end(), [](float v) { return v != 3.0f; })) code = 3;
    ::_exit(code);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: no clear error from the parent's stream; 2: no launch; 3: wrong result";
  set_async(stream_, false);
}

TEST_F(CapiTest, PrintedOutputIsCappedPerLaunchAndSaysSo) {
  CapiWriter w(module_.get(), "chatty", {gm_addr_type(ASC_DTYPE_FLOAT32)});
  Value i = w.for_begin(w.i32(0), w.i32(1000), w.i32(1));
  w.op("printf", {i}, {string_attr("format", "line %d of a long story\n")});
  w.for_end();
  asc_kernel_t* kernel = w.finish();
  std::vector<float> x(8);
  const asc_arg_t arg = buffer_arg(x);
  ASSERT_EQ(asc_stream_set_option(stream_, "max_output", 10, 4096), ASC_OK);
  ASSERT_EQ(asc_launch(kernel, stream_, 4, &arg, 1), ASC_OK) << asc_last_error();
  size_t len = 0;
  asc_stream_last_output(stream_, nullptr, 0, &len);
  std::string out(len + 1, '\0');
  ASSERT_EQ(asc_stream_last_output(stream_, out.data(), out.size(), &len), ASC_OK);
  out.resize(len);
  EXPECT_LT(out.size(), 2u * 4096u);  // the cap counts the printed text, not the "[Block i/n] " prefixes
  EXPECT_NE(out.find("was cut at 4096 bytes"), std::string::npos) << out.substr(out.size() - 200);
  // Under the cap nothing is cut.
  ASSERT_EQ(asc_stream_set_option(stream_, "max_output", 10, 0), ASC_OK);
  ASSERT_EQ(asc_launch(kernel, stream_, 4, &arg, 1), ASC_OK) << asc_last_error();
  asc_stream_last_output(stream_, nullptr, 0, &len);
  EXPECT_GT(len, 4u * 1000u * 20u);
}

// Last in the file: once the stand-in ACL has loaded, it stays loaded for the process (as ACL does), so the
// tests that expect no CANN run before it when the binary runs every test in one process.
TEST(CapiNpuMemory, ThroughTheStandInAcl) {
  setenv("ASC_ACL_LIBRARY", STANDIN_ACL, 1);
  asc_device_t* d = nullptr;
  ASSERT_EQ(asc_device_create(ASC_BACKEND_NPU, kPlatform.data(), kPlatform.size(), 0, &d), ASC_OK) << asc_last_error();
  std::vector<int32_t> host(64), back(64, 0);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<int32_t>(i * i) - 7;
  const uint64_t bytes = host.size() * sizeof(int32_t);
  void *a = nullptr, *b = nullptr;
  ASSERT_EQ(asc_device_malloc(d, bytes, ASC_MALLOC_HUGE_FIRST, &a), ASC_OK) << asc_last_error();
  ASSERT_EQ(asc_device_malloc(d, bytes, ASC_MALLOC_NORMAL_ONLY, &b), ASC_OK) << asc_last_error();
  EXPECT_NE(a, b);
  EXPECT_EQ(asc_device_memcpy(d, a, bytes, host.data(), bytes, ASC_MEMCPY_HOST_TO_DEVICE), ASC_OK) << asc_last_error();
  EXPECT_EQ(asc_device_memcpy(d, b, bytes, a, bytes, ASC_MEMCPY_DEVICE_TO_DEVICE), ASC_OK) << asc_last_error();
  EXPECT_EQ(asc_device_memcpy(d, back.data(), bytes, b, bytes, ASC_MEMCPY_DEVICE_TO_HOST), ASC_OK) << asc_last_error();
  EXPECT_EQ(back, host);
  EXPECT_TRUE(fails_with(asc_device_memcpy(d, a, 16, host.data(), 32, ASC_MEMCPY_HOST_TO_DEVICE),
                         ASC_ERR_INVALID_ARGUMENT, {"32 bytes do not fit in a 16-byte destination"}));
  EXPECT_TRUE(fails_with(asc_device_memcpy(d, a, bytes, host.data(), 8, 9), ASC_ERR_INVALID_ARGUMENT, {"kind 9"}));
  EXPECT_TRUE(fails_with(asc_device_memcpy(d, host.data(), bytes, a, 8, ASC_MEMCPY_HOST_TO_DEVICE), ASC_ERR_RUNTIME,
                         {"aclrtMemcpy failed with ACL error 107000"}));
  void* none = nullptr;
  EXPECT_TRUE(fails_with(asc_device_malloc(d, 0, ASC_MALLOC_HUGE_FIRST, &none), ASC_ERR_INVALID_ARGUMENT,
                         {"size must be > 0"}));
  EXPECT_TRUE(fails_with(asc_device_malloc(d, 8, 5, &none), ASC_ERR_INVALID_ARGUMENT, {"policy 5"}));
  EXPECT_EQ(asc_device_free(d, a), ASC_OK) << asc_last_error();
  EXPECT_EQ(asc_device_free(d, b), ASC_OK) << asc_last_error();
  EXPECT_TRUE(fails_with(asc_device_free(d, a), ASC_ERR_RUNTIME, {"aclrtFree failed", "did not return"}));
  EXPECT_TRUE(fails_with(asc_device_free(d, nullptr), ASC_ERR_INVALID_ARGUMENT, {"ptr is null"}));

  uint32_t n = 0;
  EXPECT_EQ(asc_npu_device_count(&n), ASC_OK) << asc_last_error();
  EXPECT_EQ(n, 1u);
  int64_t v = 0;
  EXPECT_EQ(asc_npu_device_info(0, ASC_NPU_INFO_VECTOR_CORE_NUM, &v), ASC_OK) << asc_last_error();
  EXPECT_EQ(v, 48);
  EXPECT_TRUE(fails_with(asc_npu_device_info(0, 7, &v), ASC_ERR_INVALID_ARGUMENT, {"info 7"}));
  EXPECT_TRUE(fails_with(asc_npu_device_info(1, ASC_NPU_INFO_AICORE_NUM, &v), ASC_ERR_RUNTIME, {"no device 1"}));
  EXPECT_EQ(asc_device_destroy(d), ASC_OK);
  unsetenv("ASC_ACL_LIBRARY");
}

TEST(CapiNpuMemory, DeviceBinariesLoadFromMemoryAndLaunchOnDeviceMemory) {
  setenv("ASC_ACL_LIBRARY", STANDIN_ACL, 1);
  asc_device_t* d = nullptr;
  ASSERT_EQ(asc_device_create(ASC_BACKEND_NPU, kPlatform.data(), kPlatform.size(), 0, &d), ASC_OK) << asc_last_error();
  const std::string object = "stand-in kernel object";  // the stand-in runs "standin_vadd": z = x + y (float32)
  void *bin = nullptr, *func = nullptr;
  ASSERT_EQ(asc_device_load_binary(d, object.data(), object.size(), &bin), ASC_OK) << asc_last_error();
  ASSERT_EQ(asc_device_binary_function(d, bin, "standin_vadd", 12, &func), ASC_OK) << asc_last_error();
  std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8}, y(8, 0.5f), z(8, 0.0f);
  const uint64_t bytes = x.size() * sizeof(float);
  void* dev[3] = {};
  for (void*& p : dev) ASSERT_EQ(asc_device_malloc(d, bytes, ASC_MALLOC_HUGE_FIRST, &p), ASC_OK) << asc_last_error();
  ASSERT_EQ(asc_device_memcpy(d, dev[0], bytes, x.data(), bytes, ASC_MEMCPY_HOST_TO_DEVICE), ASC_OK);
  ASSERT_EQ(asc_device_memcpy(d, dev[1], bytes, y.data(), bytes, ASC_MEMCPY_HOST_TO_DEVICE), ASC_OK);
  asc_arg_t args[4] = {};
  for (int i = 0; i < 3; ++i) {
    args[i].kind = ASC_ARG_DEVICE_BUFFER;
    args[i].dtype = ASC_DTYPE_FLOAT32;
    args[i].ptr = dev[i];
    args[i].size = bytes;
  }
  args[3].kind = ASC_ARG_SCALAR;
  args[3].dtype = ASC_DTYPE_INT32;
  args[3].i = 8;
  ASSERT_EQ(asc_device_launch_function(d, func, 2, args, 4), ASC_OK) << asc_last_error();
  ASSERT_EQ(asc_device_memcpy(d, z.data(), bytes, dev[2], bytes, ASC_MEMCPY_DEVICE_TO_HOST), ASC_OK);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(z[i], x[i] + 0.5f) << i;

  // host buffers are copied in and back, as asc_launch copies them
  std::vector<float> w(8, 0.0f);
  asc_arg_t host_args[4] = {args[0], args[1], args[2], args[3]};
  host_args[2].kind = ASC_ARG_BUFFER;
  host_args[2].ptr = w.data();
  ASSERT_EQ(asc_device_launch_function(d, func, 1, host_args, 4), ASC_OK) << asc_last_error();
  EXPECT_EQ(w, z);

  EXPECT_TRUE(fails_with(asc_device_launch_function(d, func, 0, args, 4), ASC_ERR_INVALID_ARGUMENT,
                         {"block_dim 0 is not in 1..65535"}));
  asc_arg_t bad = args[3];
  bad.kind = 7;
  EXPECT_TRUE(fails_with(asc_device_launch_function(d, func, 1, &bad, 1), ASC_ERR_INVALID_ARGUMENT, {"kind 7"}));
  EXPECT_TRUE(
      fails_with(asc_device_launch_function(d, nullptr, 1, args, 4), ASC_ERR_INVALID_ARGUMENT, {"function is null"}));
  EXPECT_TRUE(fails_with(asc_device_load_binary(d, object.data(), 0, &bin), ASC_ERR_INVALID_ARGUMENT, {"empty"}));
  EXPECT_TRUE(
      fails_with(asc_device_binary_function(d, bin, "", 0, &func), ASC_ERR_INVALID_ARGUMENT, {"name is empty"}));
  EXPECT_EQ(asc_device_unload_binary(d, bin), ASC_OK) << asc_last_error();
  for (void* p : dev) EXPECT_EQ(asc_device_free(d, p), ASC_OK);
  EXPECT_EQ(asc_device_destroy(d), ASC_OK);

  asc_device_t* model = nullptr;
  ASSERT_EQ(asc_device_create(ASC_BACKEND_MODEL, kPlatform.data(), kPlatform.size(), 0, &model), ASC_OK);
  EXPECT_TRUE(fails_with(asc_device_load_binary(model, object.data(), object.size(), &bin), ASC_ERR_INVALID_ARGUMENT,
                         {"asc_device_load_binary", "runs the kernels asc builds, not device binaries"}));
  EXPECT_EQ(asc_device_destroy(model), ASC_OK);
  unsetenv("ASC_ACL_LIBRARY");
}
