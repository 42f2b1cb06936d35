// The NPU launcher (src/runtime/acl) against a stand-in libascendcl.so
// (test/acl_standin), loaded through dlopen as the real one would be: the
// call sequence, the argument block, one registration per kernel, device
// memory never leaked, and clear errors for a missing library, a missing
// function and a failing call.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "asc/asc.h"
#include "runtime/acl/acl_api.h"
#include "runtime/acl/acl_launcher.h"
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

}  // namespace
