// Kernels for the C++ tests and the benchmark, written once against a small
// KernelWriter interface and emitted through either API of libasc:
//   * CoreWriter: the C++ asc::Builder (test_ir, test_sim link the core);
//   * CapiWriter: the C ABI of libasc.so (test_capi, bench_launch).
//
// Layout of this header:
//   1. header-only, C ABI types only: KernelWriter, kernel recipes, CapiWriter,
//      launch-argument and random-input helpers (every target can use them);
//   2. header-only, C++ API: CoreWriter and error checks (test_ir, test_sim);
//   3. declared here, defined in kernel_fixtures.cpp, linked into test_sim
//      only: running on the Model and the scalar read-back probe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "asc/asc.h"

namespace asc_test {

using Value = asc_value_t;

// HardEvent values (pyasc numbering) used by the fixtures and tests.
enum HardEvent : int64_t { MTE2_V = 4, V_MTE3 = 7, MTE3_MTE2 = 19, MTE2_MTE3 = 20, MTE2_S = 24 };

inline constexpr uint64_t kUbBytes = 196608;  // Unified Buffer of the Ascend910B parts
inline constexpr uint64_t kBlockBytes = 32;   // DataCopy moves whole 32-byte blocks

inline uint32_t dtype_bytes(asc_dtype_t d) {
  switch (d) {
    case ASC_DTYPE_INT16:
    case ASC_DTYPE_UINT16:
    case ASC_DTYPE_FLOAT16:
    case ASC_DTYPE_BFLOAT16: return 2;
    case ASC_DTYPE_INT32:
    case ASC_DTYPE_UINT32:
    case ASC_DTYPE_FLOAT32: return 4;
    case ASC_DTYPE_INT64:
    case ASC_DTYPE_UINT64: return 8;
    default: return 1;
  }
}

// Host element type -> asc dtype.
template <typename T>
constexpr asc_dtype_t dtype_of() {
  if constexpr (std::is_same_v<T, float>) return ASC_DTYPE_FLOAT32;
  if constexpr (std::is_same_v<T, _Float16>) return ASC_DTYPE_FLOAT16;
  if constexpr (std::is_same_v<T, int16_t>) return ASC_DTYPE_INT16;
  if constexpr (std::is_same_v<T, int32_t>) return ASC_DTYPE_INT32;
  if constexpr (std::is_same_v<T, int64_t>) return ASC_DTYPE_INT64;
  if constexpr (std::is_same_v<T, uint32_t>) return ASC_DTYPE_UINT32;
  if constexpr (std::is_same_v<T, int8_t>) return ASC_DTYPE_INT8;
  if constexpr (std::is_same_v<T, uint8_t>) return ASC_DTYPE_UINT8;
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, _Float16> || std::is_same_v<T, int16_t> ||
                    std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t> || std::is_same_v<T, uint32_t> ||
                    std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>,
                "no asc dtype for this host type");
  return ASC_DTYPE_COUNT;
}

// The enumerator's name, for messages (test_ir and test_sim do not link the
// C ABI's asc_status_name).
inline const char* status_label(asc_status_t s) {
  static const char* const kNames[] = {
      "OK",          "INVALID_ARGUMENT", "UNKNOWN_OP", "TYPE",     "VERIFY",
      "UNSUPPORTED", "OUT_OF_BOUNDS",    "MISALIGNED", "DEADLOCK", "BACKEND_UNAVAILABLE",
      "RUNTIME",     "BUFFER_TOO_SMALL", "INTERNAL",   "RACE",     "UNINITIALIZED",
      "GM_CONFLICT"};
  const auto i = static_cast<size_t>(s);
  return i < sizeof kNames / sizeof kNames[0] ? kNames[i] : "?";
}

inline asc_type_t gm_addr_type(asc_dtype_t d) { return {ASC_TYPE_GM_ADDR, static_cast<uint32_t>(d), ASC_POS_GM}; }

// ---- 1. the writer interface and kernel recipes --------------------------------

struct Attr {
  const char* name;
  asc_attr_kind_t kind;
  int64_t i = 0;
  double f = 0;
  std::string s;
};
inline Attr int_attr(const char* name, int64_t v) { return {name, ASC_ATTR_INT, v, 0, {}}; }
inline Attr float_attr(const char* name, double v) { return {name, ASC_ATTR_FLOAT, 0, v, {}}; }
inline Attr string_attr(const char* name, std::string v) { return {name, ASC_ATTR_STRING, 0, 0, std::move(v)}; }

// Emits a kernel op by op. Every op gets a source location in file(): line
// numbers count up from 1 (at_line() moves on), the column is always kCol.
class KernelWriter {
 public:
  static constexpr uint32_t kCol = 5;

  explicit KernelWriter(std::string file) : file_(std::move(file)) {}
  virtual ~KernelWriter() = default;
  KernelWriter(const KernelWriter&) = delete;
  KernelWriter& operator=(const KernelWriter&) = delete;

  virtual Value param(size_t index) = 0;
  virtual void for_end() = 0;
  virtual void if_end() = 0;

  // Appends op `name`; returns its result, or ASC_NO_VALUE for ops without one.
  Value op(std::string_view name, const std::vector<Value>& operands, const std::vector<Attr>& attrs = {}) {
    return emit_op(name, operands, attrs, next_line_++);
  }
  // for iv in range(lb, ub, step): returns iv; close with for_end().
  Value for_begin(Value lb, Value ub, Value step) { return emit_for_begin(lb, ub, step, next_line_++); }
  void if_begin(Value cond) { emit_if_begin(cond, next_line_++); }

  const std::string& file() const { return file_; }
  void at_line(uint32_t line) { next_line_ = line; }
  uint32_t last_line() const { return next_line_ - 1; }

  // Shorthands for the ops the recipes use.
  Value constant(asc_dtype_t d, int64_t v) { return op("const", {}, {int_attr("dtype", d), int_attr("value", v)}); }
  Value constant_f(asc_dtype_t d, double v) { return op("const", {}, {int_attr("dtype", d), float_attr("value", v)}); }
  Value i32(int64_t v) { return constant(ASC_DTYPE_INT32, v); }
  Value cast(Value v, asc_dtype_t to) { return op("arith.cast", {v}, {int_attr("dtype", to)}); }
  // GlobalTensor over `length` elements of the GM address `addr` + `offset` elements.
  Value global_tensor(Value addr, Value offset, Value length) {
    return op("global_tensor.set_global_buffer", {op("gm.offset", {addr, offset}), length});
  }
  Value local_tensor(int64_t offset_bytes, int64_t length, asc_dtype_t d, asc_position_t pos, std::string name) {
    return op("local_tensor.create", {i32(offset_bytes), i32(length)},
              {int_attr("dtype", d), int_attr("position", pos), string_attr("name", std::move(name))});
  }
  Value global_slice(Value t, Value start) { return op("global_tensor.slice", {t, start}); }
  Value local_slice(Value t, Value start) { return op("local_tensor.slice", {t, start}); }
  void data_copy(Value dst, Value src, Value count) { op("data_copy", {dst, src, count}); }
  void set_flag(HardEvent e, Value id) { op("set_flag", {id}, {int_attr("event", e)}); }
  void wait_flag(HardEvent e, Value id) { op("wait_flag", {id}, {int_attr("event", e)}); }
  void sync(HardEvent e, Value id) {
    set_flag(e, id);
    wait_flag(e, id);
  }

 protected:
  virtual Value emit_op(std::string_view name, const std::vector<Value>& operands, const std::vector<Attr>& attrs,
                        uint32_t line) = 0;
  virtual Value emit_for_begin(Value lb, Value ub, Value step, uint32_t line) = 0;
  virtual void emit_if_begin(Value cond, uint32_t line) = 0;

 private:
  std::string file_;
  uint32_t next_line_ = 1;
};

// Elementwise z = op(x, y) over GM, tiled and double buffered with manual
// synchronisation, as in the pyasc vadd sample:
//
//   offset = get_block_idx() * BLOCK_LENGTH
//   x_gm/y_gm/z_gm = set_global_buffer(x/y/z + offset, BLOCK_LENGTH)
//   x_local, y_local (VECIN), z_local (VECOUT): TILE_LENGTH * BUFFER_NUM each
//   for i in range(TILE_NUM * BUFFER_NUM):
//       buf_id = i % BUFFER_NUM
//       data_copy x/y tile i -> x/y_local[buf_id]; set/wait_flag(MTE2_V, buf_id)
//       op(z_local[buf_id], x_local[buf_id], y_local[buf_id], TILE_LENGTH)
//       set/wait_flag(V_MTE3, buf_id); data_copy z_local[buf_id] -> z tile i
//       set/wait_flag(MTE3_MTE2, buf_id)
//
// Kernel parameters: x, y, z, GM addresses of `dtype`. Block b handles
// elements [b * block_length, (b + 1) * block_length). With manual_sync off
// the set/wait_flag pairs are left out (for the sync inserter to add).
struct TiledBinary {
  std::string op = "add";
  asc_dtype_t dtype = ASC_DTYPE_FLOAT32;
  int64_t block_length = 2048;
  int64_t tile_num = 8;
  int64_t buffer_num = 2;
  bool manual_sync = true;

  int64_t tile_length() const { return block_length / tile_num / buffer_num; }
  std::vector<asc_type_t> params() const { return {gm_addr_type(dtype), gm_addr_type(dtype), gm_addr_type(dtype)}; }
};

inline void emit_tiled_binary(KernelWriter& w, const TiledBinary& k) {
  const asc_dtype_t index = ASC_DTYPE_INT32;  // index arithmetic; get_block_idx() (int64) is cast to it
  const int64_t tile = k.tile_length();
  const int64_t buffer_bytes = tile * k.buffer_num * dtype_bytes(k.dtype);

  Value block_length = w.i32(k.block_length);
  Value offset = w.op("arith.mul", {w.cast(w.op("get_block_idx", {}), index), block_length});
  Value x_gm = w.global_tensor(w.param(0), offset, block_length);
  Value y_gm = w.global_tensor(w.param(1), offset, block_length);
  Value z_gm = w.global_tensor(w.param(2), offset, block_length);
  Value x_local = w.local_tensor(0, tile * k.buffer_num, k.dtype, ASC_POS_VECIN, "x_local");
  Value y_local = w.local_tensor(buffer_bytes, tile * k.buffer_num, k.dtype, ASC_POS_VECIN, "y_local");
  Value z_local = w.local_tensor(2 * buffer_bytes, tile * k.buffer_num, k.dtype, ASC_POS_VECOUT, "z_local");
  Value tile_length = w.i32(tile);

  Value i = w.for_begin(w.i32(0), w.i32(k.tile_num * k.buffer_num), w.i32(1));
  {
    Value buf_id = w.op("arith.mod", {i, w.i32(k.buffer_num)});
    Value local_at = w.op("arith.mul", {buf_id, tile_length});
    Value gm_at = w.op("arith.mul", {i, tile_length});
    Value x = w.local_slice(x_local, local_at), y = w.local_slice(y_local, local_at);
    Value z = w.local_slice(z_local, local_at);
    w.data_copy(x, w.global_slice(x_gm, gm_at), tile_length);
    w.data_copy(y, w.global_slice(y_gm, gm_at), tile_length);
    if (k.manual_sync) w.sync(MTE2_V, buf_id);
    w.op(k.op, {z, x, y, tile_length});
    if (k.manual_sync) w.sync(V_MTE3, buf_id);
    w.data_copy(w.global_slice(z_gm, gm_at), z, tile_length);
    if (k.manual_sync) w.sync(MTE3_MTE2, buf_id);
  }
  w.for_end();
}

// The same computation written with the framework, as in Ascend C's
// add_framework sample: a TPipe, VECIN queues for x and y and a VECOUT queue
// for z, each of depth (and num) k.buffer_num; the lowering supplies the
// synchronisation (k.manual_sync is ignored).
//
//   for i in range(TILE_NUM * BUFFER_NUM):
//       x, y = in_x/in_y.alloc_tensor(); data_copy x/y tile i; in_x/in_y.enque(x/y)   # CopyIn
//       x, y = in_x/in_y.deque(); z = out_z.alloc_tensor(); op(z, x, y, TILE_LENGTH)   # Compute
//       out_z.enque(z); in_x/in_y.free_tensor(x/y)
//       z = out_z.deque(); data_copy z -> z tile i; out_z.free_tensor(z)              # CopyOut
inline void emit_framework_binary(KernelWriter& w, const TiledBinary& k) {
  const asc_dtype_t index = ASC_DTYPE_INT32;
  const int64_t tile = k.tile_length();
  const Attr dtype = int_attr("dtype", k.dtype);

  Value block_length = w.i32(k.block_length);
  Value offset = w.op("arith.mul", {w.cast(w.op("get_block_idx", {}), index), block_length});
  Value x_gm = w.global_tensor(w.param(0), offset, block_length);
  Value y_gm = w.global_tensor(w.param(1), offset, block_length);
  Value z_gm = w.global_tensor(w.param(2), offset, block_length);
  Value pipe = w.op("tpipe.create", {});
  auto queue = [&](asc_position_t pos, const char* name) {
    Value q = w.op("tque.create", {},
                   {int_attr("src_position", pos), int_attr("dst_position", pos), int_attr("depth", k.buffer_num),
                    string_attr("name", name)});
    w.op("tpipe.init_buffer", {pipe, q, w.i32(k.buffer_num), w.i32(tile * dtype_bytes(k.dtype))});
    return q;
  };
  Value in_x = queue(ASC_POS_VECIN, "in_queue_x"), in_y = queue(ASC_POS_VECIN, "in_queue_y");
  Value out_z = queue(ASC_POS_VECOUT, "out_queue_z");
  Value tile_length = w.i32(tile);

  Value i = w.for_begin(w.i32(0), w.i32(k.tile_num * k.buffer_num), w.i32(1));
  {
    Value gm_at = w.op("arith.mul", {i, tile_length});
    Value x_in = w.op("tque.alloc_tensor", {in_x}, {dtype}), y_in = w.op("tque.alloc_tensor", {in_y}, {dtype});
    w.data_copy(x_in, w.global_slice(x_gm, gm_at), tile_length);
    w.data_copy(y_in, w.global_slice(y_gm, gm_at), tile_length);
    w.op("tque.enque", {in_x, x_in});
    w.op("tque.enque", {in_y, y_in});

    Value x = w.op("tque.deque", {in_x}, {dtype}), y = w.op("tque.deque", {in_y}, {dtype});
    Value z_out = w.op("tque.alloc_tensor", {out_z}, {dtype});
    w.op(k.op, {z_out, x, y, tile_length});
    w.op("tque.enque", {out_z, z_out});
    w.op("tque.free_tensor", {in_x, x});
    w.op("tque.free_tensor", {in_y, y});

    Value z = w.op("tque.deque", {out_z}, {dtype});
    w.data_copy(w.global_slice(z_gm, gm_at), z, tile_length);
    w.op("tque.free_tensor", {out_z, z});
  }
  w.for_end();
}

// ---- 1b. the C ABI writer (calls into libasc.so: only for targets linking it) -------

class CapiError : public std::runtime_error {
 public:
  CapiError(asc_status_t status, const std::string& what)
      : std::runtime_error(what + ": " + asc_status_name(status) + ": " + asc_last_error()), status_(status) {}
  asc_status_t status() const { return status_; }

 private:
  asc_status_t status_;
};

inline void check(asc_status_t status, const std::string& what) {
  if (status != ASC_OK) throw CapiError(status, what);
}

// Owns an asc_module_t (and with it every kernel built in it).
class CapiModule {
 public:
  CapiModule() { check(asc_module_create(&module_), "asc_module_create"); }
  ~CapiModule() { asc_module_destroy(module_); }
  CapiModule(const CapiModule&) = delete;
  CapiModule& operator=(const CapiModule&) = delete;
  asc_module_t* get() const { return module_; }

 private:
  asc_module_t* module_ = nullptr;
};

class CapiWriter final : public KernelWriter {
 public:
  CapiWriter(asc_module_t* module, std::string_view name, const std::vector<asc_type_t>& params,
             std::string file = "kernels.py")
      : KernelWriter(std::move(file)) {
    check(asc_build_kernel(module, name.data(), name.size(), params.data(), params.size(), &builder_),
          "asc_build_kernel");
  }
  ~CapiWriter() override {
    if (builder_) asc_builder_destroy(builder_);
  }

  Value param(size_t index) override {
    Value v = ASC_NO_VALUE;
    check(asc_builder_param(builder_, index, &v), "asc_builder_param");
    return v;
  }
  void for_end() override { check(asc_builder_for_end(builder_), "asc_builder_for_end"); }
  void if_end() override { check(asc_builder_if_end(builder_), "asc_builder_if_end"); }
  // Verifies the kernel; the builder is consumed either way.
  asc_kernel_t* finish() {
    asc_kernel_t* kernel = nullptr;
    asc_builder_t* b = std::exchange(builder_, nullptr);
    check(asc_builder_finish(b, &kernel), "asc_builder_finish");
    return kernel;
  }
  asc_builder_t* builder() const { return builder_; }
  asc_builder_t* release() { return std::exchange(builder_, nullptr); }  // the caller finishes or destroys it
  asc_loc_t loc(uint32_t line) const { return {file().data(), file().size(), line, kCol}; }

 protected:
  Value emit_op(std::string_view name, const std::vector<Value>& operands, const std::vector<Attr>& attrs,
                uint32_t line) override {
    std::vector<asc_attr_t> c_attrs;
    for (const Attr& a : attrs)
      c_attrs.push_back({a.name, std::char_traits<char>::length(a.name), static_cast<uint32_t>(a.kind), a.i, a.f,
                         a.s.data(), a.s.size()});
    asc_loc_t l = loc(line);
    Value result = ASC_NO_VALUE;
    check(asc_builder_op(builder_, name.data(), name.size(), operands.data(), operands.size(), c_attrs.data(),
                         c_attrs.size(), &l, &result),
          std::string(name));
    return result;
  }
  Value emit_for_begin(Value lb, Value ub, Value step, uint32_t line) override {
    asc_loc_t l = loc(line);
    Value iv = ASC_NO_VALUE;
    check(asc_builder_for_begin(builder_, lb, ub, step, &l, &iv), "asc_builder_for_begin");
    return iv;
  }
  void emit_if_begin(Value cond, uint32_t line) override {
    asc_loc_t l = loc(line);
    check(asc_builder_if_begin(builder_, cond, &l), "asc_builder_if_begin");
  }

 private:
  asc_builder_t* builder_ = nullptr;
};

// ---- 1c. launch arguments and inputs ----------------------------------------------

// A GM buffer argument at v.data(), declared `bytes` long (default: all of v).
template <typename T>
asc_arg_t buffer_arg(std::vector<T>& v, uint64_t bytes = std::numeric_limits<uint64_t>::max()) {
  uint64_t size = bytes == std::numeric_limits<uint64_t>::max() ? v.size() * sizeof(T) : bytes;
  return {ASC_ARG_BUFFER, static_cast<uint32_t>(dtype_of<T>()), 0, 0, v.data(), size};
}

inline asc_arg_t int_scalar_arg(asc_dtype_t d, int64_t v) {
  return {ASC_ARG_SCALAR, static_cast<uint32_t>(d), v, 0, nullptr, 0};
}

// n values drawn uniformly from [lo, hi] with a fixed seed.
template <typename T>
std::vector<T> random_values(size_t n, uint32_t seed, double lo, double hi) {
  std::mt19937 gen(seed);
  std::vector<T> out(n);
  if constexpr (std::is_integral_v<T>) {
    std::uniform_int_distribution<int64_t> dist(static_cast<int64_t>(lo), static_cast<int64_t>(hi));
    for (T& x : out) x = static_cast<T>(dist(gen));
  } else {
    std::uniform_real_distribution<float> dist(static_cast<float>(lo), static_cast<float>(hi));
    for (T& x : out) x = static_cast<T>(dist(gen));
  }
  return out;
}

// Elements in whole 32-byte blocks covering `count` elements of `d`.
inline int64_t padded_count(int64_t count, asc_dtype_t d) {
  const int64_t per_block = static_cast<int64_t>(kBlockBytes / dtype_bytes(d));
  return (count + per_block - 1) / per_block * per_block;
}

}  // namespace asc_test

// ---- 2. the C++ API writer ---------------------------------------------------------
// test_capi and bench_launch link only libasc.so (whose C++ symbols are hidden)
// and see only include/, so this part compiles away there.

#if __has_include("ir/builder.h")
#include <gtest/gtest.h>

#include <initializer_list>
#include <memory>
#include <optional>

#include "ir/builder.h"
#include "runtime/compile.h"
#include "runtime/device.h"
#include "sim/block.h"
#include "support/error.h"

namespace asc_test {

class CoreWriter final : public KernelWriter {
 public:
  CoreWriter(asc::Module& module, std::string name, const std::vector<asc_type_t>& params,
             std::string file = "kernels.py")
      : KernelWriter(file),
        file_ptr_(std::make_shared<const std::string>(std::move(file))),
        module_(module),
        builder_(std::move(name), to_types(params)) {}

  Value param(size_t index) override { return builder_.param(index); }
  void for_end() override { builder_.for_end(); }
  void if_end() override { builder_.if_end(); }
  const asc::Kernel& finish() { return *asc::compile_kernel(module_, builder_); }
  asc::Builder& builder() { return builder_; }
  asc::Location loc(uint32_t line) const { return asc::Location{file_ptr_, line, kCol}; }

 protected:
  Value emit_op(std::string_view name, const std::vector<Value>& operands, const std::vector<Attr>& attrs,
                uint32_t line) override {
    std::vector<asc::AttrInput> in;
    for (const Attr& a : attrs) in.push_back({a.name, asc::Attr{a.kind, a.i, a.f, a.s}});
    return builder_.add_op(name, operands, in, loc(line));
  }
  Value emit_for_begin(Value lb, Value ub, Value step, uint32_t line) override {
    return builder_.for_begin(lb, ub, step, loc(line));
  }
  void emit_if_begin(Value cond, uint32_t line) override { builder_.if_begin(cond, loc(line)); }

 private:
  static std::vector<asc::Type> to_types(const std::vector<asc_type_t>& params) {
    std::vector<asc::Type> out;
    for (const asc_type_t& t : params) {
      auto kind = static_cast<asc::TypeKind>(t.kind);
      out.push_back({kind, static_cast<asc::DType>(t.dtype),
                     kind == asc::TypeKind::LocalTensor ? static_cast<asc::Position>(t.position) : asc::Position::GM});
    }
    return out;
  }

  std::shared_ptr<const std::string> file_ptr_;  // shared by the ops' locations
  asc::Module& module_;
  asc::Builder builder_;
};

// The asc::Error thrown by f(), or nullopt if it returned normally.
template <typename F>
std::optional<asc::Error> error_of(F&& f) {
  try {
    std::forward<F>(f)();
  } catch (const asc::Error& e) {
    return e;
  }
  return std::nullopt;
}

// For ASSERT_TRUE / EXPECT_TRUE: `e` is an error with `status` whose message
// contains every one of `needles`.
inline ::testing::AssertionResult is_error(const std::optional<asc::Error>& e, asc_status_t status,
                                           std::initializer_list<std::string_view> needles = {}) {
  if (!e) return ::testing::AssertionFailure() << "no error; expected " << status_label(status);
  if (e->status() != status)
    return ::testing::AssertionFailure() << "got " << status_label(e->status()) << " (" << e->what() << "); expected "
                                         << status_label(status);
  for (std::string_view needle : needles)
    if (std::string_view(e->what()).find(needle) == std::string_view::npos)
      return ::testing::AssertionFailure() << "message \"" << e->what() << "\" does not mention \"" << needle << "\"";
  return ::testing::AssertionSuccess();
}

// ---- 3. test_sim only (defined in kernel_fixtures.cpp) ---------------------------

// Runs `kernel` on the Model of Ascend910B1; throws asc::Error.
void run_model(const asc::Kernel& kernel, uint32_t block_dim, std::vector<asc_arg_t> args,
               asc::LaunchOptions options = {});

// z[:count] = op(x[:count], y[:count]) on one block, on data already in the
// Unified Buffer. DataCopy moves whole blocks, so x, y and z are copied in
// padded_count(count) elements each (z too, so that z[count:] comes back
// unchanged unless the op writes past `count`). Params: x, y, z GM addresses.
// With manual_sync off the MTE2_V and V_MTE3 pairs are left out.
struct UbBinary {
  std::string op;
  asc_dtype_t dtype;
  int64_t count;
  bool manual_sync = true;
};
void emit_ub_binary(KernelWriter& w, const UbBinary& k);

// Reads int32 scalar results back from a kernel. There is no scalar store op,
// so observe(v) emits, for each bit k of v,
//   if (v >> k) & 1: data_copy(out[(slot * 32 + k) * 8 :], ones_local, 8)
// and decode() rebuilds v from the blocks that were written.
// Kernel params (params()): ones (int32 GM, kOnes elements of 1), out (int32 GM,
// out_elements(n) zeros).
class ScalarProbe {
 public:
  static constexpr int64_t kOnes = 8;
  static std::vector<asc_type_t> params();
  static size_t out_elements(size_t n_values) { return n_values * 32 * kOnes; }
  static int32_t decode(const std::vector<int32_t>& out, size_t slot);

  explicit ScalarProbe(KernelWriter& w);  // loads the ones block into the UB
  size_t observe(Value int32_value);      // returns the slot

 private:
  KernelWriter& w_;
  Value ones_ = ASC_NO_VALUE, out_ = ASC_NO_VALUE;
  size_t slots_ = 0;
};

}  // namespace asc_test
#endif
