// libFuzzer target: drives the C ABI's builder and launcher with whatever the
// input says. The input is a small program (test/fuzz/README.md gives the
// format): kernel parameters, then either building calls (op names from the
// op table or made up, operands, attributes, nesting, options) or a build log
// to replay, then a launch (block dim, arguments derived from the parameters
// or deliberately wrong). Every call must return a status; the sanitizers and
// libFuzzer catch anything else (a crash, a leak, undefined behaviour, a
// hang past -timeout).
#include <asc/asc.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

// Reads the input front to back; past its end every read gives zeros.
class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool done() const { return pos_ >= size_; }
  uint8_t u8() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint32_t below(uint32_t n) { return n ? u8() % n : 0; }
  uint64_t bits(int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= uint64_t{u8()} << (8 * i);
    return v;
  }
  // Small values most of the time (what kernels use), any 64-bit value sometimes.
  int64_t integer() {
    uint8_t tag = u8();
    if (tag < 200) return static_cast<int64_t>(tag) - 16;
    return static_cast<int64_t>(bits(tag < 240 ? 2 : 8));
  }
  double real() {
    uint64_t b = bits(8);
    double d;
    std::memcpy(&d, &b, sizeof d);
    return d;
  }
  std::string text(size_t max) {
    size_t n = below(static_cast<uint32_t>(max + 1));
    std::string s;
    for (size_t i = 0; i < n; ++i) s.push_back(static_cast<char>(u8()));
    return s;
  }
  // The rest of the input, up to `max` bytes.
  std::string block(size_t max) {
    size_t n = std::min(max, size_ - std::min(pos_, size_));
    std::string s(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return s;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// ASC_FUZZ_VERBOSE=1 prints how far an input got (for writing seeds and checking they run).
const bool kVerbose = std::getenv("ASC_FUZZ_VERBOSE") != nullptr;

asc_status_t said(const char* call, asc_status_t status) {
  if (kVerbose) std::fprintf(stderr, "%s: %s %s\n", call, asc_status_name(status), status ? asc_last_error() : "");
  return status;
}

const char* const kAttrNames[] = {
    "aiv_only", "cmp_mode", "counter",    "depth",    "deq_register", "dst_position",   "dtype",
    "event",    "format",   "mask_mode",  "mode",     "name",         "nz2nd",          "order",
    "pipe",     "position", "round_mode", "sel_mode", "src_position", "transpose_type", "value",
    "api",      "fields",   "id",         "flag",     "sequential"};
const char* const kBuildOptions[] = {"auto_sync", "insert_sync", "kernel_type"};
const char* const kStreamOptions[] = {"sanitize", "async", "max_ops"};

struct Fuzz {
  Reader in;
  std::vector<asc_type_t> params;
  std::vector<asc_value_t> values;  // what operands can name: parameters and results

  asc_value_t operand() {
    uint32_t pick = in.u8();
    if (pick < 230 && !values.empty()) return values[pick % values.size()];
    return pick < 245 ? static_cast<asc_value_t>(in.bits(2)) : ASC_NO_VALUE;
  }

  std::string op_name() {
    size_t n = asc_op_count();
    if (in.u8() < 240 && n) {
      asc_op_desc_t d;
      if (asc_op_describe(in.bits(2) % n, &d) == ASC_OK) return d.name;
    }
    return in.text(24);
  }

  void op(asc_builder_t* b) {
    std::string name = op_name();
    std::vector<asc_value_t> operands(in.below(10));
    for (auto& v : operands) v = operand();
    std::vector<std::string> strings;  // attribute names and texts outlive the call
    std::vector<asc_attr_t> attrs(in.below(4));
    strings.reserve(2 * attrs.size());
    for (auto& a : attrs) {
      uint8_t pick = in.u8();
      strings.push_back(pick < 230 ? kAttrNames[pick % std::size(kAttrNames)] : in.text(12));
      a.name = strings.back().data();
      a.name_len = strings.back().size();
      a.kind = in.below(4);  // 3 is no kind at all
      a.i = in.integer();
      a.f = in.real();
      strings.push_back(in.text(8));
      a.s = strings.back().data();
      a.s_len = strings.back().size();
    }
    std::string file = in.u8() < 200 ? "kernel.py" : in.text(16);
    asc_loc_t loc{file.data(), file.size(), static_cast<uint32_t>(in.bits(2)), in.u8()};
    asc_value_t result = ASC_NO_VALUE;
    if (asc_builder_op(b, name.data(), name.size(), operands.data(), operands.size(), attrs.data(), attrs.size(),
                       in.u8() < 240 ? &loc : nullptr, &result) == ASC_OK &&
        result != ASC_NO_VALUE)
      values.push_back(result);
  }

  // Building calls until the input says stop (or 64 of them).
  void build(asc_builder_t* b) {
    for (int step = 0; step < 64 && !in.done(); ++step) {
      switch (in.below(12)) {
        case 0:
        case 1:
        case 2:
        case 3: op(b); break;
        case 4: {
          asc_value_t iv = ASC_NO_VALUE;
          asc_value_t lb = operand(), ub = operand(), st = operand();
          if (asc_builder_for_begin(b, lb, ub, st, nullptr, &iv) == ASC_OK) values.push_back(iv);
          break;
        }
        case 5: asc_builder_for_end(b); break;
        case 6: asc_builder_if_begin(b, operand(), nullptr); break;
        case 7: asc_builder_else(b); break;
        case 8: asc_builder_if_end(b); break;
        case 9: {
          uint8_t pick = in.u8();
          std::string name = pick < 230 ? kBuildOptions[pick % std::size(kBuildOptions)] : in.text(12);
          asc_builder_set_option(b, name.data(), name.size(), in.integer());
          break;
        }
        case 10: {
          asc_type_t t;
          asc_builder_value_type(b, operand(), &t);
          break;
        }
        default: return;
      }
    }
  }

  // A buffer of `bytes` bytes (its exact size, so that the sanitizer sees any access past it) or a scalar.
  asc_arg_t argument(const asc_type_t& p, std::vector<std::vector<uint8_t>>& buffers) {
    asc_arg_t a{};
    a.kind = p.kind == ASC_TYPE_SCALAR ? ASC_ARG_SCALAR : ASC_ARG_BUFFER;
    a.dtype = p.dtype;
    uint8_t wrong = in.u8();
    if (wrong >= 250) a.kind = in.below(3);
    if (wrong >= 245 && wrong < 250) a.dtype = in.below(ASC_DTYPE_COUNT + 2);
    if (a.kind == ASC_ARG_SCALAR) {
      a.i = in.integer();
      a.f = in.real();
      return a;
    }
    buffers.emplace_back(in.bits(2) % 8193);
    for (size_t k = 0; k < buffers.back().size(); ++k) buffers.back()[k] = static_cast<uint8_t>(k * 37 + 11);
    a.ptr = buffers.back().empty() ? nullptr : buffers.back().data();
    a.size = buffers.back().size();
    return a;
  }

  void launch(const asc_kernel_t* k) {
    asc_device_t* dev = nullptr;
    if (asc_device_create(ASC_BACKEND_MODEL, "Ascend910B1", 11, 0, &dev) != ASC_OK) __builtin_trap();
    asc_stream_t* stream = nullptr;
    if (asc_stream_create(dev, &stream) != ASC_OK) __builtin_trap();
    // Loops the input makes must end quickly: libFuzzer's -timeout stops the run otherwise.
    asc_stream_set_option(stream, "max_ops", 7, 1 << 16);
    for (int i = 0, n = in.below(3); i < n; ++i) {
      uint8_t pick = in.u8();
      const char* name = kStreamOptions[pick % std::size(kStreamOptions)];
      int64_t value = in.integer();
      if (std::strcmp(name, "max_ops") == 0 && (value <= 0 || value > (1 << 16))) value = 1 << 16;
      asc_stream_set_option(stream, name, std::strlen(name), value);
    }
    uint8_t dim = in.u8();
    uint32_t block_dim = dim < 250 ? dim % 9 : static_cast<uint32_t>(in.bits(4));
    std::vector<std::vector<uint8_t>> buffers;
    buffers.reserve(params.size() + 2);
    std::vector<asc_arg_t> args;
    for (const auto& p : params) args.push_back(argument(p, buffers));
    uint8_t count = in.u8();
    if (count >= 250 && !args.empty()) args.pop_back();
    if (count >= 245 && count < 250) args.push_back(argument(asc_type_t{ASC_TYPE_GM_ADDR, in.below(12), 0}, buffers));
    said("asc_launch", asc_launch(k, stream, block_dim, args.data(), args.size()));
    said("asc_stream_synchronize", asc_stream_synchronize(stream));
    asc_launch_stats_t stats;
    asc_stream_last_stats(stream, &stats);
    char text[64];
    size_t len = 0;
    asc_stream_last_output(stream, text, sizeof text, &len);
    asc_stream_last_warnings(stream, text, sizeof text, &len);
    asc_stream_destroy(stream);
    asc_device_destroy(dev);
  }

  void run() {
    asc_module_t* m = nullptr;
    if (asc_module_create(&m) != ASC_OK) __builtin_trap();
    uint8_t mode = in.u8();
    params.resize(in.below(7));
    for (auto& p : params) {
      uint8_t pick = in.u8();
      p.kind = pick < 240 ? (pick % 2 ? ASC_TYPE_SCALAR : ASC_TYPE_GM_ADDR) : in.below(10);
      p.dtype = in.below(ASC_DTYPE_COUNT + 1);
      p.position = in.below(13);
    }
    std::string name = in.u8() < 240 ? "fuzzed" : in.text(8);
    asc_builder_t* b = nullptr;
    if (said("asc_build_kernel", asc_build_kernel(m, name.data(), name.size(), params.data(), params.size(), &b)) ==
        ASC_OK) {
      for (size_t i = 0; i < params.size(); ++i) {
        asc_value_t v;
        if (asc_builder_param(b, i, &v) == ASC_OK) values.push_back(v);
      }
      if (mode % 2) {
        std::string log = in.block(in.bits(2));
        said("asc_builder_replay", asc_builder_replay(b, log.data(), log.size()));
      } else {
        build(b);
      }
      size_t len = 0;
      char text[128];
      asc_builder_print(b, text, in.below(sizeof text), &len);
      asc_builder_log(b, text, in.below(sizeof text), &len);
      asc_kernel_t* k = nullptr;
      if (said("asc_builder_finish", asc_builder_finish(b, &k)) == ASC_OK) {
        size_t cap = in.below(sizeof text);
        asc_kernel_print(k, text, cap, &len);
        asc_kernel_source(k, text, cap, &len);  // the Ascend C emitter on whatever was built
        launch(k);
      }
    }
    asc_module_destroy(m);
  }
};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  asc_set_log_level(6);  // the statuses are what is checked; the log would only flood the output
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Fuzz{Reader(data, size), {}, {}}.run();
  return 0;
}
