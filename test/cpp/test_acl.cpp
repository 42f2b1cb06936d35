// The NPU launcher (src/runtime/acl) against a stand-in libascendcl.so
// (test/acl_standin), loaded through dlopen as the real one would be: the
// call sequence, the argument block, one registration per kernel, device
// memory never leaked, and clear errors for a missing library, a missing
// function and a failing call.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "asc/asc.h"
#include "kernel_fixtures.h"
#include "runtime/acl/acl_api.h"
#include "runtime/acl/acl_launcher.h"
#include "runtime/acl/acl_memory.h"
#include "runtime/acl/npu_compiler.h"
#include "runtime/device.h"
#include "support/error.h"

namespace {

using namespace asc;

// The stand-in's own controls, found in the copy the launcher loaded.
struct StandIn {
  StandIn() {
    handle = dlopen(STANDIN_ACL, RTLD_NOW | RTLD_LOCAL);
    EXPECT_NE(handle, nullptr) << dlerror();
    log = reinterpret_cast<const char* (*)()>(dlsym(handle, "standin_log"));
    reset = reinterpret_cast<void (*)()>(dlsym(handle, "standin_reset"));
    fail = reinterpret_cast<void (*)(const char*, int32_t)>(dlsym(handle, "standin_fail"));
    live = reinterpret_cast<size_t (*)()>(dlsym(handle, "standin_live_allocations"));
    reset();
  }
  ~StandIn() { dlclose(handle); }
  std::vector<std::string> calls() const {
    std::vector<std::string> out;
    std::istringstream in(log());
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }
  void* handle;
  const char* (*log)();
  void (*reset)();
  void (*fail)(const char*, int32_t);
  size_t (*live)();
};

// Each call's name (the first word of its log line).
std::vector<std::string> names(const std::vector<std::string>& calls) {
  std::vector<std::string> out;
  for (const auto& c : calls) out.push_back(c.substr(0, c.find(' ')));
  return out;
}

asc_status_t status_of(const std::function<void()>& f, std::string* message) {
  try {
    f();
  } catch (const Error& e) {
    *message = e.what();
    return e.status();
  }
  return ASC_OK;
}

// A file standing for the kernel's compiled object (the stand-in checks it exists, at an absolute path).
std::string binary_file() {
  std::string path = testing::TempDir() + "/kernel_" + std::to_string(getpid()) + ".o";
  std::ofstream(path) << "stand-in kernel object";
  return path;
}

asc_arg_t buffer(std::vector<float>& v) {
  asc_arg_t a{};
  a.kind = ASC_ARG_BUFFER;
  a.dtype = ASC_DTYPE_FLOAT32;
  a.ptr = v.data();
  a.size = v.size() * sizeof(float);
  return a;
}

asc_arg_t scalar(asc_dtype_t d, int64_t i, double f = 0) {
  asc_arg_t a{};
  a.kind = ASC_ARG_SCALAR;
  a.dtype = d;
  a.i = i;
  a.f = f;
  return a;
}

uint64_t word(const std::vector<uint8_t>& b, size_t at) {
  uint64_t w;
  std::memcpy(&w, b.data() + at, 8);
  return w;
}

TEST(AclLibrary, AMissingLibrarySaysWhatToInstall) {
  std::string message;
  EXPECT_EQ(status_of([] { acl::load_api("/nonexistent/libascendcl.so"); }, &message), ASC_ERR_BACKEND_UNAVAILABLE);
  EXPECT_NE(message.find("/nonexistent/libascendcl.so could not be loaded"), std::string::npos) << message;
  EXPECT_NE(message.find("CANN"), std::string::npos) << message;
  EXPECT_NE(message.find("Backend.Model"), std::string::npos) << message;
}

TEST(AclLibrary, AMissingFunctionIsNamed) {
  std::string message;
  EXPECT_EQ(status_of([] { acl::load_api(STANDIN_ACL_OLD); }, &message), ASC_ERR_BACKEND_UNAVAILABLE);
  EXPECT_NE(message.find("has no function aclrtLaunchKernelWithHostArgs"), std::string::npos) << message;
  EXPECT_NE(message.find("CANN 8.0"), std::string::npos) << message;
}

class AclLauncher : public ::testing::Test {
 protected:
  StandIn standin;
  acl::Api api = acl::load_api(STANDIN_ACL);
  std::string path = binary_file();
};

TEST_F(AclLauncher, RunsAKernelWithTheDocumentedCallSequence) {
  const int32_t n = 64;
  std::vector<float> x(n), y(n), z(n, -1.0f);
  for (int i = 0; i < n; ++i) x[i] = 0.5f * i, y[i] = 100.0f - i;
  const asc_arg_t args[] = {buffer(x), buffer(y), buffer(z), scalar(ASC_DTYPE_INT32, n)};
  {
    acl::Launcher launcher(api, 3);
    launcher.launch({path, "standin_vadd"}, 8, args, 4);
  }
  for (int i = 0; i < n; ++i) ASSERT_EQ(z[i], x[i] + y[i]) << i;  // the stand-in really added them on "device"
  const std::vector<std::string> expected = {"aclInit",
                                             "aclrtSetDevice",
                                             "aclrtCreateStream",
                                             "aclrtBinaryLoadFromFile",
                                             "aclrtBinaryGetFunction",
                                             "aclrtMalloc",
                                             "aclrtMemcpy",
                                             "aclrtMalloc",
                                             "aclrtMemcpy",
                                             "aclrtMalloc",
                                             "aclrtMemcpy",
                                             "aclrtLaunchKernelWithHostArgs",
                                             "aclrtSynchronizeStream",
                                             "aclrtMemcpy",
                                             "aclrtMemcpy",
                                             "aclrtMemcpy",
                                             "aclrtFree",
                                             "aclrtFree",
                                             "aclrtFree",
                                             "aclrtBinaryUnLoad",
                                             "aclrtDestroyStream",
                                             "aclrtResetDevice"};
  auto calls = standin.calls();
  EXPECT_EQ(names(calls), expected);
  EXPECT_EQ(calls[1], "aclrtSetDevice 3");
  EXPECT_EQ(calls[3], "aclrtBinaryLoadFromFile " + path);
  EXPECT_EQ(calls[4], "aclrtBinaryGetFunction standin_vadd");
  EXPECT_EQ(calls[5], "aclrtMalloc 256 policy 0");
  EXPECT_EQ(calls[6], "aclrtMemcpy host-to-device 256");
  EXPECT_EQ(calls[13], "aclrtMemcpy device-to-host 256");
  EXPECT_EQ(calls[11].rfind("aclrtLaunchKernelWithHostArgs standin_vadd 8 ", 0), 0u) << calls[11];
  EXPECT_EQ(standin.live(), 0u);
}

TEST_F(AclLauncher, TheArgumentBlockIsTheCParameterList) {
  // Pointers are 8-byte device addresses; scalars have their dtype's size and alignment; the block is padded to 8.
  const asc_arg_t args[] = {
      scalar(ASC_DTYPE_INT8, -3),          scalar(ASC_DTYPE_FLOAT16, 0, 1.5), scalar(ASC_DTYPE_INT64, int64_t{1} << 40),
      scalar(ASC_DTYPE_FLOAT32, 0, -2.25), scalar(ASC_DTYPE_BOOL, 1),         scalar(ASC_DTYPE_UINT16, 65535)};
  std::vector<void*> none(6, nullptr);
  std::vector<uint8_t> b = acl::pack_arguments(args, 6, none);
  ASSERT_EQ(b.size(), 24u);
  EXPECT_EQ(static_cast<int8_t>(b[0]), -3);
  EXPECT_EQ(b[2] | b[3] << 8, 0x3e00);  // 1.5 in float16
  EXPECT_EQ(word(b, 8), uint64_t{1} << 40);
  float f;
  std::memcpy(&f, b.data() + 16, 4);
  EXPECT_EQ(f, -2.25f);
  EXPECT_EQ(b[20], 1);
  EXPECT_EQ(b[22] | b[23] << 8, 65535);

  std::vector<float> x(4);
  const asc_arg_t mixed[] = {scalar(ASC_DTYPE_INT32, 7), buffer(x), scalar(ASC_DTYPE_INT32, 9)};
  std::vector<void*> ptrs = {nullptr, reinterpret_cast<void*>(0x1000), nullptr};
  b = acl::pack_arguments(mixed, 3, ptrs);
  ASSERT_EQ(b.size(), 24u);  // 4 + 4 padding, 8, 4 + 4 padding
  EXPECT_EQ(word(b, 8), 0x1000u);
  EXPECT_EQ(b[16], 9);
}

TEST_F(AclLauncher, LaunchedPointersAreDeviceAddresses) {
  std::vector<float> x(8), y(8), z(8);
  const asc_arg_t args[] = {buffer(x), buffer(y), buffer(z), scalar(ASC_DTYPE_INT32, 8)};
  acl::Launcher launcher(api, 0);
  launcher.launch({path, "standin_vadd"}, 1, args, 4);
  // (standin_vadd refuses host pointers: ACL error 507899.) And the block holds none of the host addresses.
  std::string launch_line;
  for (const auto& c : standin.calls())
    if (c.rfind("aclrtLaunchKernelWithHostArgs", 0) == 0) launch_line = c;
  for (const auto* host : {x.data(), y.data(), z.data()}) {
    char hex[17];
    uint64_t v = reinterpret_cast<uint64_t>(host);
    std::string le;
    for (int i = 0; i < 8; ++i) {
      std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned>((v >> (8 * i)) & 0xff));
      le += hex;
    }
    EXPECT_EQ(launch_line.find(le), std::string::npos) << "host address in the argument block";
  }
}

TEST_F(AclLauncher, EachKernelIsRegisteredOnceAcrossLaunches) {
  std::vector<float> x(8), y(8), z(8);
  const asc_arg_t args[] = {buffer(x), buffer(y), buffer(z), scalar(ASC_DTYPE_INT32, 8)};
  acl::Launcher launcher(api, 0);
  for (int i = 0; i < 3; ++i) launcher.launch({path, "standin_vadd"}, 2, args, 4);
  launcher.launch({path, "other_kernel"}, 2, args, 4);  // another function of the same object
  int loads = 0, lookups = 0, launches = 0;
  for (const auto& name : names(standin.calls())) {
    loads += name == "aclrtBinaryLoadFromFile";
    lookups += name == "aclrtBinaryGetFunction";
    launches += name == "aclrtLaunchKernelWithHostArgs";
  }
  EXPECT_EQ(loads, 1);
  EXPECT_EQ(lookups, 2);
  EXPECT_EQ(launches, 4);
}

TEST_F(AclLauncher, AFailingCallIsNamedWithAclsMessageAndFreesTheDeviceMemory) {
  std::vector<float> x(8, 1.0f), y(8, 2.0f), z(8, -1.0f);
  const asc_arg_t args[] = {buffer(x), buffer(y), buffer(z), scalar(ASC_DTYPE_INT32, 8)};
  acl::Launcher launcher(api, 0);
  for (const char* call : {"aclrtLaunchKernelWithHostArgs", "aclrtMalloc", "aclrtSynchronizeStream"}) {
    SCOPED_TRACE(call);
    standin.fail(call, 507899);
    std::string message;
    EXPECT_EQ(status_of([&] { launcher.launch({path, "standin_vadd"}, 1, args, 4); }, &message), ASC_ERR_RUNTIME);
    EXPECT_NE(
        message.find(std::string(call) + " failed with ACL error 507899: stand-in: " + call + " was told to fail"),
        std::string::npos)
        << message;
    EXPECT_EQ(standin.live(), 0u);
    EXPECT_EQ(z[0], -1.0f);  // nothing was copied back
    standin.reset();
  }
  launcher.launch({path, "standin_vadd"}, 1, args, 4);  // the launcher still works
  EXPECT_EQ(z[0], 3.0f);
}

TEST_F(AclLauncher, LoadingABinaryFromMemoryNeedsACannWithTheFunction) {
  acl::Api old = api;
  old.aclrtBinaryLoadFromData = nullptr;
  acl::Launcher launcher(old, 0);
  const char data[] = "object";
  std::string message;
  EXPECT_EQ(status_of([&] { launcher.load_binary(data, sizeof data); }, &message), ASC_ERR_BACKEND_UNAVAILABLE);
  EXPECT_NE(
      message.find("asc_device_load_binary: " + std::string(STANDIN_ACL) + " has no function aclrtBinaryLoadFromData"),
      std::string::npos)
      << message;
  acl::Launcher current(api, 0);
  void* bin = current.load_binary(data, sizeof data);
  EXPECT_EQ(standin.calls().back(), "aclrtBinaryLoadFromData 7 6f626a65637400");
  void* func = current.binary_function(bin, "standin_vadd");
  std::vector<float> x(4, 1.0f), y(4, 2.0f), z(4, 0.0f);
  const asc_arg_t args[] = {buffer(x), buffer(y), buffer(z), scalar(ASC_DTYPE_INT32, 4)};
  current.launch_function(func, 3, args, 4);
  EXPECT_EQ(z, std::vector<float>(4, 3.0f));
  current.unload_binary(bin);
  EXPECT_EQ(standin.live(), 0u);
}

TEST_F(AclLauncher, AMissingKernelObjectIsReported) {
  acl::Launcher launcher(api, 0);
  std::string message;
  EXPECT_EQ(status_of([&] { launcher.launch({"/nonexistent/k.o", "k"}, 1, nullptr, 0); }, &message), ASC_ERR_RUNTIME);
  EXPECT_NE(message.find("aclrtBinaryLoadFromFile failed with ACL error 507010"), std::string::npos) << message;
}

TEST_F(AclLauncher, DeviceBuffersArePassedAsTheyAre) {
  void* on_device = nullptr;
  ASSERT_EQ(api.aclrtMalloc(&on_device, 64, 0), 0);
  std::vector<float> y(16), z(16);
  asc_arg_t x_arg{};
  x_arg.kind = ASC_ARG_DEVICE_BUFFER;
  x_arg.dtype = ASC_DTYPE_FLOAT32;
  x_arg.ptr = on_device;
  x_arg.size = 64;
  const asc_arg_t args[] = {x_arg, buffer(y), buffer(z), scalar(ASC_DTYPE_INT32, 16)};
  {
    acl::Launcher launcher(api, 0);
    launcher.launch({path, "standin_vadd"}, 1, args, 4);
  }
  int copies_in = 0, mallocs = 0;
  for (const auto& c : standin.calls()) {
    copies_in += c.rfind("aclrtMemcpy host-to-device", 0) == 0;
    mallocs += c.rfind("aclrtMalloc", 0) == 0;
  }
  EXPECT_EQ(copies_in, 2);
  EXPECT_EQ(mallocs, 3);          // the test's own, then y and z
  EXPECT_EQ(standin.live(), 1u);  // the caller's device buffer is the caller's to free
  EXPECT_EQ(api.aclrtFree(on_device), 0);
}

TEST(AclDevice, TheNpuDeviceOpensItsDeviceAndStreamThroughAcl) {
  setenv("ASC_ACL_LIBRARY", STANDIN_ACL, 1);  // what acl::api() loads (this test's process only)
  StandIn standin;
  {
    auto device = make_npu_device(*find_platform("Ascend910B1"), 5);
    ASSERT_NE(device, nullptr);
  }
  auto calls = standin.calls();
  ASSERT_GE(calls.size(), 5u);
  EXPECT_EQ(calls[1], "aclrtSetDevice 5");
  EXPECT_EQ(names(calls).back(), "aclrtResetDevice");
}

// ---- compiling for the NPU: bisheng from a (fake) CANN tree, then the launcher ------------------------

// A CANN tree whose bisheng records its arguments (one line per run) and "compiles" by copying the source to
// the object, or fails with a compiler-style message when FAKE_BISHENG_FAIL is set.
struct FakeCann {
  FakeCann() {
    root = testing::TempDir() + "/fake_cann_" + std::to_string(getpid());
    std::string bin = root + "/compiler/ccec_compiler/bin";
    EXPECT_EQ(std::system(("mkdir -p " + bin).c_str()), 0);
    std::ofstream script(bin + "/bisheng");
    script << "#!/bin/sh\n"
              "echo \"$@\" >> \""
           << root
           << "/bisheng.args\"\n"
              "out=; src=; prev=\n"
              "for a in \"$@\"; do [ \"$prev\" = -o ] && out=$a; case $a in *.cpp) src=$a;; esac; prev=$a; done\n"
              "if [ -n \"$FAKE_BISHENG_FAIL\" ]; then echo \"$src:3:1: error: $FAKE_BISHENG_FAIL\" >&2; exit 1; fi\n"
              "cp \"$src\" \"$out\"\n";
    script.close();
    EXPECT_EQ(chmod((bin + "/bisheng").c_str(), 0755), 0);
    setenv("ASCEND_HOME_PATH", root.c_str(), 1);
    setenv("PYASC_CACHE_DIR", (root + "/cache").c_str(), 1);
    setenv("ASC_ACL_LIBRARY", STANDIN_ACL, 1);
  }
  std::vector<std::string> runs() const {
    std::vector<std::string> out;
    std::ifstream in(root + "/bisheng.args");
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }
  std::string root;
};

const asc::Kernel& tiled_add(asc::Module& module) {
  asc_test::TiledBinary k;
  asc_test::CoreWriter w(module, "vadd", k.params());
  asc_test::emit_tiled_binary(w, k);
  return w.finish();  // owned by the module
}

struct AddArgs {
  std::vector<float> x = std::vector<float>(8 * 2048, 1.0f), y = x, z = x;
  std::vector<asc_arg_t> args{buffer(x), buffer(y), buffer(z)};
};

// A fake CANN tree, the stand-in ACL, and the tiled Add kernel with its arguments.
class NpuCompile : public testing::Test {
 protected:
  FakeCann cann;
  StandIn standin;
  asc::Module module;
  const asc::Kernel& kernel = tiled_add(module);
  AddArgs a;
  std::string message;
};

bool contains(const std::vector<std::string>& v, const std::string& item) {
  return std::find(v.begin(), v.end(), item) != v.end();
}

TEST_F(NpuCompile, EachKernelIsCompiledOnceByBishengAndLaunchedThroughAcl) {
  {
    auto device = make_npu_device(*find_platform("Ascend910B1"), 0);
    device->launch(kernel, 8, a.args.data(), a.args.size(), {});
    device->launch(kernel, 8, a.args.data(), a.args.size(), {});
  }
  auto runs = cann.runs();
  ASSERT_EQ(runs.size(), 1u);  // the second launch found the object in the cache
  for (const char* flag :
       {"-c", "-O3", "-std=c++17", "--cce-aicore-lang", "--cce-aicore-arch=dav-c220-vec", "--cce-aicore-only"})
    EXPECT_NE((" " + runs[0] + " ").find(std::string(" ") + flag + " "), std::string::npos) << flag << ": " << runs[0];
  EXPECT_NE(runs[0].find("-I" + cann.root + "/compiler/asc/include "), std::string::npos) << runs[0];
  EXPECT_EQ(runs[0].find("--cce-auto-sync"), std::string::npos) << runs[0];

  std::string object = asc::acl::compile_for_npu(kernel, *find_platform("Ascend910B1"));  // the cached one
  EXPECT_EQ(cann.runs().size(), 1u);
  std::ifstream in(object);
  std::string compiled((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(compiled.find("extern \"C\" __global__ __aicore__ void vadd(GM_ADDR v0"), std::string::npos);

  auto calls = standin.calls();
  EXPECT_TRUE(contains(calls, "aclrtBinaryLoadFromFile " + object));
  EXPECT_TRUE(contains(calls, "aclrtBinaryGetFunction vadd"));
  auto n = names(calls);
  EXPECT_EQ(std::count(n.begin(), n.end(), "aclrtBinaryLoadFromFile"), 1);
  EXPECT_EQ(std::count(n.begin(), n.end(), "aclrtLaunchKernelWithHostArgs"), 2);
  EXPECT_EQ(standin.live(), 0u);
}

TEST_F(NpuCompile, MixAndCubeKernelsTargetTheirCores) {
  auto flags = [&](KernelType t, const char* platform = "Ascend910B1") {
    std::string all;
    for (const auto& f : asc::acl::npu_compile_flags(asc::acl::find_toolkit(), *find_platform(platform), t))
      all += f + " ";
    return all;
  };
  EXPECT_NE(flags(KernelType::AicOnly).find("--cce-aicore-arch=dav-c220-cube --cce-aicore-only"), std::string::npos);
  EXPECT_NE(flags(KernelType::MixAic1_2).find("--cce-aicore-arch=dav-c220 "), std::string::npos);
  EXPECT_EQ(flags(KernelType::MixAic1_2).find("--cce-aicore-only"), std::string::npos);
  // Ascend 950 is dav-c310
  EXPECT_NE(flags(KernelType::AivOnly, "Ascend950PR_9599").find("--cce-aicore-arch=dav-c310-vec "), std::string::npos);
  EXPECT_NE(flags(KernelType::MixAic1_2, "Ascend910_9589").find("--cce-aicore-arch=dav-c310 "), std::string::npos);
}

TEST_F(NpuCompile, ACompilerErrorIsReportedWithItsMessagesAndNothingIsLaunched) {
  setenv("FAKE_BISHENG_FAIL", "no member named 'Add2' in namespace 'AscendC'", 1);
  {
    auto device = make_npu_device(*find_platform("Ascend910B1"), 0);
    EXPECT_EQ(status_of([&] { device->launch(kernel, 8, a.args.data(), a.args.size(), {}); }, &message),
              ASC_ERR_RUNTIME);
  }
  EXPECT_NE(message.find("bisheng failed (exit 1) compiling kernel 'vadd'"), std::string::npos) << message;
  EXPECT_NE(message.find("error: no member named 'Add2'"), std::string::npos) << message;
  EXPECT_FALSE(contains(names(standin.calls()), "aclrtLaunchKernelWithHostArgs"));
  unsetenv("FAKE_BISHENG_FAIL");
}

TEST_F(NpuCompile, WithoutCannTheErrorSaysWhatToSet) {
  unsetenv("ASCEND_HOME_PATH");
  EXPECT_EQ(status_of([&] { asc::acl::compile_for_npu(kernel, *find_platform("Ascend910B1")); }, &message),
            ASC_ERR_BACKEND_UNAVAILABLE);
  EXPECT_NE(message.find("ASCEND_HOME_PATH is not set"), std::string::npos) << message;
  EXPECT_NE(message.find("set_env.sh"), std::string::npos) << message;

  std::string empty = testing::TempDir() + "/no_cann_" + std::to_string(getpid());
  ASSERT_EQ(std::system(("mkdir -p " + empty).c_str()), 0);
  setenv("ASCEND_HOME_PATH", empty.c_str(), 1);
  EXPECT_EQ(status_of([&] { asc::acl::compile_for_npu(kernel, *find_platform("Ascend910B1")); }, &message),
            ASC_ERR_BACKEND_UNAVAILABLE);
  EXPECT_NE(message.find("no bisheng under ASCEND_HOME_PATH=" + empty), std::string::npos) << message;
}

TEST_F(NpuCompile, BadArgumentsAndUnspellableOpsFailBeforeTheCompiler) {
  auto device = make_npu_device(*find_platform("Ascend910B1"), 0);
  std::vector<asc_arg_t> wrong = a.args;
  wrong[1] = scalar(ASC_DTYPE_FLOAT32, 0, 1.0);
  EXPECT_EQ(status_of([&] { device->launch(kernel, 8, wrong.data(), wrong.size(), {}); }, &message), ASC_ERR_TYPE);
  EXPECT_NE(message.find("argument 1 of 'vadd' must be a buffer"), std::string::npos) << message;
  EXPECT_EQ(status_of([&] { device->launch(kernel, 8, a.args.data(), 2, {}); }, &message), ASC_ERR_TYPE);

  asc_test::CoreWriter server(module, "server", {}, "mix.py");
  server.builder().set_option("kernel_type", static_cast<int64_t>(KernelType::MixAic1_2));
  server.op("matmul.server", {});
  const asc::Kernel& unspellable = server.finish();
  EXPECT_EQ(status_of([&] { device->launch(unspellable, 1, nullptr, 0, {}); }, &message), ASC_ERR_UNSUPPORTED);
  EXPECT_NE(message.find("cannot spell matmul.server"), std::string::npos) << message;
  EXPECT_TRUE(cann.runs().empty());
}

// ---- device memory and device queries (asc_device_malloc ..., asc_npu_device_count ...) ----

class AclMemory : public ::testing::Test {
 protected:
  StandIn standin;
  acl::Api api = acl::load_api(STANDIN_ACL);
};

TEST_F(AclMemory, CopiesGoEveryWayAndEachKindIsAclsOwn) {
  std::vector<uint8_t> host(64), back(64, 0), other(64, 0);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<uint8_t>(i * 7 + 1);
  void* a = acl::allocate(api, 64, ASC_MALLOC_HUGE_FIRST);
  void* b = acl::allocate(api, 64, ASC_MALLOC_NORMAL_ONLY);
  acl::copy(api, a, 64, host.data(), 64, ASC_MEMCPY_HOST_TO_DEVICE);
  acl::copy(api, b, 64, a, 64, ASC_MEMCPY_DEVICE_TO_DEVICE);
  acl::copy(api, back.data(), 64, b, 64, ASC_MEMCPY_DEVICE_TO_HOST);
  acl::copy(api, other.data(), 64, host.data(), 64, ASC_MEMCPY_HOST_TO_HOST);
  EXPECT_EQ(back, host);
  EXPECT_EQ(other, host);
  EXPECT_EQ(standin.live(), 2u);
  acl::release(api, a);
  acl::release(api, b);
  EXPECT_EQ(standin.live(), 0u);
  auto at = [](void* p) { return std::to_string(reinterpret_cast<uintptr_t>(p)); };
  const std::vector<std::string> expected = {"aclrtMalloc 64 policy 0",
                                             "aclrtMalloc 64 policy 2",
                                             "aclrtMemcpy host-to-device 64",
                                             "aclrtMemcpy device-to-device 64",
                                             "aclrtMemcpy device-to-host 64",
                                             "aclrtMemcpy host-to-host 64",
                                             "aclrtFree " + at(a),
                                             "aclrtFree " + at(b)};
  EXPECT_EQ(standin.calls(), expected);
}

TEST_F(AclMemory, BadArgumentsFailBeforeAcl) {
  std::vector<uint8_t> host(32);
  std::string message;
  EXPECT_EQ(status_of([&] { acl::allocate(api, 0, ASC_MALLOC_HUGE_FIRST); }, &message), ASC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(message.find("size must be > 0"), std::string::npos) << message;
  EXPECT_EQ(status_of([&] { acl::allocate(api, 64, 3); }, &message), ASC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(message.find("policy 3 is not an asc_malloc_policy_t"), std::string::npos) << message;
  EXPECT_EQ(status_of([&] { acl::release(api, nullptr); }, &message), ASC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(message.find("ptr is null"), std::string::npos) << message;
  EXPECT_EQ(
      status_of([&] { acl::copy(api, host.data(), 16, host.data() + 16, 32, ASC_MEMCPY_HOST_TO_HOST); }, &message),
      ASC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(message.find("32 bytes do not fit in a 16-byte destination"), std::string::npos) << message;
  EXPECT_EQ(status_of([&] { acl::copy(api, host.data(), 32, host.data(), 8, 4); }, &message), ASC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(message.find("kind 4 is not an asc_memcpy_kind_t"), std::string::npos) << message;
  EXPECT_EQ(status_of([&] { acl::copy(api, nullptr, 32, host.data(), 8, ASC_MEMCPY_HOST_TO_DEVICE); }, &message),
            ASC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(message.find("dst is null"), std::string::npos) << message;
  acl::copy(api, nullptr, 0, nullptr, 0, ASC_MEMCPY_DEVICE_TO_HOST);  // nothing to copy: nothing called
  EXPECT_TRUE(standin.calls().empty());
}

TEST_F(AclMemory, AclsRefusalsComeBackWithItsMessage) {
  std::vector<uint8_t> host(64);
  std::string message;
  EXPECT_EQ(status_of([&] { acl::release(api, host.data()); }, &message), ASC_ERR_RUNTIME);
  EXPECT_NE(message.find("aclrtFree failed with ACL error 107000: stand-in: aclrtFree of"), std::string::npos)
      << message;
  void* p = acl::allocate(api, 64, ASC_MALLOC_HUGE_ONLY);
  EXPECT_EQ(standin.calls().back(), "aclrtMalloc 64 policy 1");
  // a host pointer where the kind says device memory
  EXPECT_EQ(status_of([&] { acl::copy(api, host.data(), 64, p, 64, ASC_MEMCPY_HOST_TO_DEVICE); }, &message),
            ASC_ERR_RUNTIME);
  EXPECT_NE(message.find("aclrtMemcpy failed with ACL error 107000"), std::string::npos) << message;
  acl::release(api, p);
  EXPECT_EQ(status_of([&] { acl::release(api, p); }, &message), ASC_ERR_RUNTIME);  // freed twice
  EXPECT_EQ(status_of([&] { acl::allocate(api, 2 << 20, ASC_MALLOC_HUGE_FIRST); }, &message), ASC_ERR_RUNTIME);
  EXPECT_NE(message.find("aclrtMalloc failed with ACL error 207001"), std::string::npos) << message;
  standin.fail("aclrtMalloc", 207001);
  EXPECT_EQ(status_of([&] { acl::allocate(api, 64, ASC_MALLOC_HUGE_FIRST); }, &message), ASC_ERR_RUNTIME);
  EXPECT_NE(message.find("stand-in: aclrtMalloc was told to fail"), std::string::npos) << message;
  EXPECT_EQ(standin.live(), 0u);
}

TEST_F(AclMemory, AMissingQueryFunctionNamesTheCallThatNeedsIt) {
  acl::Api old = api;
  old.aclrtGetDeviceInfo = nullptr;  // a CANN that has the launch functions but not this one
  std::string message;
  EXPECT_EQ(status_of([&] { acl::require(old, old.aclrtGetDeviceInfo, "aclrtGetDeviceInfo", "asc_npu_device_info"); },
                      &message),
            ASC_ERR_BACKEND_UNAVAILABLE);
  EXPECT_NE(message.find("asc_npu_device_info: " + std::string(STANDIN_ACL) + " has no function aclrtGetDeviceInfo"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("install a newer CANN"), std::string::npos) << message;
  EXPECT_NE(api.aclrtGetDeviceCount, nullptr);
  EXPECT_NE(api.aclrtGetDeviceInfo, nullptr);
}

TEST(AclDevice, DeviceMemoryAndQueriesGoThroughAcl) {
  setenv("ASC_ACL_LIBRARY", STANDIN_ACL, 1);
  StandIn standin;
  auto set_count = reinterpret_cast<void (*)(uint32_t)>(dlsym(standin.handle, "standin_set_device_count"));
  ASSERT_NE(set_count, nullptr);
  set_count(4);
  EXPECT_EQ(npu_device_count(), 4u);
  EXPECT_EQ(npu_device_info(3, ASC_NPU_INFO_VECTOR_CORE_NUM), 48);
  EXPECT_EQ(npu_device_info(3, ASC_NPU_INFO_CUBE_CORE_NUM), 24);
  EXPECT_EQ(npu_device_info(0, ASC_NPU_INFO_AICORE_NUM), 24);
  auto calls = standin.calls();
  EXPECT_TRUE(contains(calls, "aclrtGetDeviceCount"));
  EXPECT_TRUE(contains(calls, "aclrtGetDeviceInfo 3 201"));
  EXPECT_TRUE(contains(calls, "aclrtGetDeviceInfo 3 102"));
  EXPECT_TRUE(contains(calls, "aclrtGetDeviceInfo 0 101"));
  std::string message;
  EXPECT_EQ(status_of([] { npu_device_info(4, ASC_NPU_INFO_AICORE_NUM); }, &message), ASC_ERR_RUNTIME);
  EXPECT_NE(message.find("aclrtGetDeviceInfo failed with ACL error 107001: stand-in: no device 4"), std::string::npos)
      << message;
  EXPECT_EQ(status_of([] { npu_device_info(0, 3); }, &message), ASC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(message.find("info 3 is not an asc_npu_info_t"), std::string::npos) << message;
  EXPECT_EQ(status_of([] { npu_device_info(-1, ASC_NPU_INFO_AICORE_NUM); }, &message), ASC_ERR_INVALID_ARGUMENT);
  set_count(1);

  auto npu = make_npu_device(*find_platform("Ascend910B1"), 0);
  std::vector<float> x = {1, 2, 3, 4}, y(4, 0);
  void* p = npu->allocate_memory(16, ASC_MALLOC_HUGE_FIRST);
  npu->copy_memory(p, 16, x.data(), 16, ASC_MEMCPY_HOST_TO_DEVICE);
  npu->copy_memory(y.data(), 16, p, 16, ASC_MEMCPY_DEVICE_TO_HOST);
  npu->free_memory(p);
  EXPECT_EQ(y, x);
  EXPECT_EQ(standin.live(), 0u);

  auto model = make_model_device(*find_platform("Ascend910B1"));
  EXPECT_EQ(status_of([&] { model->allocate_memory(16, ASC_MALLOC_HUGE_FIRST); }, &message), ASC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(message.find("asc_device_malloc: the Model backend has no device memory of its own"), std::string::npos)
      << message;
  EXPECT_EQ(status_of([&] { model->free_memory(p); }, &message), ASC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(status_of([&] { model->copy_memory(y.data(), 16, x.data(), 16, 0); }, &message), ASC_ERR_INVALID_ARGUMENT);
}

}  // namespace
