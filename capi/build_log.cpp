#include "build_log.h"

#include <cstring>
#include <vector>

#include "build_calls.h"

namespace asc::capi {
namespace {

// "ASCL", then the format version: a log from another format is refused, not misread.
constexpr char kMagic[4] = {'A', 'S', 'C', 'L'};
constexpr uint32_t kFormat = 1;

class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  bool done() const { return pos_ == bytes_.size(); }
  uint8_t u8() { return static_cast<uint8_t>(*take(1)); }
  uint32_t u32() { return load<uint32_t>(); }
  int64_t i64() { return load<int64_t>(); }
  double f64() { return load<double>(); }
  std::string_view str() {
    uint32_t n = u32();
    return std::string_view(take(n), n);
  }
  [[noreturn]] void damaged(const char* what) const {
    fail(ASC_ERR_INVALID_ARGUMENT, "build log is damaged at byte {}: {}", pos_, what);
  }

 private:
  template <typename T>
  T load() {
    T v;
    std::memcpy(&v, take(sizeof(T)), sizeof(T));
    return v;
  }
  const char* take(size_t n) {
    if (n > bytes_.size() - pos_) damaged("truncated");
    const char* p = bytes_.data() + pos_;
    pos_ += n;
    return p;
  }
  std::string_view bytes_;
  size_t pos_ = 0;
};

// A location as the C ABI takes it; `file` keeps the text alive across records.
struct LocReader {
  std::string file;
  asc_loc_t loc{};
  const asc_loc_t* read(Reader& r) {
    if (r.u8()) file = std::string(r.str());
    loc.file = file.data();
    loc.file_len = file.size();
    loc.line = r.u32();
    loc.col = r.u32();
    return &loc;
  }
};

}  // namespace

BuildLog::BuildLog() {
  out_.append(kMagic, sizeof(kMagic));
  u32(kFormat);
}

void BuildLog::u32(uint32_t v) { out_.append(reinterpret_cast<const char*>(&v), sizeof(v)); }
void BuildLog::i64(int64_t v) { out_.append(reinterpret_cast<const char*>(&v), sizeof(v)); }

void BuildLog::str(std::string_view s) {
  u32(static_cast<uint32_t>(s.size()));
  out_.append(s);
}

void BuildLog::location(const asc_loc_t* loc) {
  std::string_view file = loc && loc->file ? std::string_view(loc->file, loc->file_len) : std::string_view();
  bool changed = file != file_;
  u8(changed ? 1 : 0);
  if (changed) {
    file_ = std::string(file);
    str(file);
  }
  u32(loc ? loc->line : 0);
  u32(loc ? loc->col : 0);
}

void BuildLog::op(std::string_view name, const asc_value_t* operands, size_t n_operands, const asc_attr_t* attrs,
                  size_t n_attrs, const asc_loc_t* loc) {
  out_.push_back(kLogOp);
  str(name);
  u32(static_cast<uint32_t>(n_operands));
  for (size_t i = 0; i < n_operands; ++i) u32(operands[i]);
  u32(static_cast<uint32_t>(n_attrs));
  for (size_t i = 0; i < n_attrs; ++i) {
    const asc_attr_t& a = attrs[i];
    str(std::string_view(a.name, a.name_len));
    u8(static_cast<uint8_t>(a.kind));
    if (a.kind == ASC_ATTR_STRING)
      str(std::string_view(a.s, a.s_len));
    else if (a.kind == ASC_ATTR_FLOAT)
      out_.append(reinterpret_cast<const char*>(&a.f), sizeof(a.f));
    else
      i64(a.i);
  }
  location(loc);
}

void BuildLog::for_begin(asc_value_t lb, asc_value_t ub, asc_value_t step, const asc_loc_t* loc) {
  out_.push_back(kLogFor);
  u32(lb);
  u32(ub);
  u32(step);
  location(loc);
}

void BuildLog::if_begin(asc_value_t cond, const asc_loc_t* loc) {
  out_.push_back(kLogIf);
  u32(cond);
  location(loc);
}

void BuildLog::mark(char tag) { out_.push_back(tag); }

void BuildLog::set_option(std::string_view name, int64_t value) {
  out_.push_back(kLogOption);
  str(name);
  i64(value);
}

void replay(asc_builder& b, std::string_view log) {
  Reader r(log);
  for (char c : kMagic)
    if (static_cast<char>(r.u8()) != c) r.damaged("not a build log");
  if (r.u32() != kFormat) r.damaged("a build log of another format version");
  LocReader where;
  std::vector<asc_value_t> operands;
  std::vector<asc_attr_t> attrs;
  while (!r.done()) {
    char tag = static_cast<char>(r.u8());
    switch (tag) {
      case kLogOp: {
        std::string_view name = r.str();
        operands.clear();
        for (uint32_t i = 0, n = r.u32(); i < n; ++i) operands.push_back(r.u32());
        attrs.clear();
        for (uint32_t i = 0, n = r.u32(); i < n; ++i) {
          asc_attr_t a{};
          std::string_view key = r.str();
          a.name = key.data();
          a.name_len = key.size();
          a.kind = static_cast<asc_attr_kind_t>(r.u8());
          if (a.kind == ASC_ATTR_STRING) {
            std::string_view s = r.str();
            a.s = s.data();
            a.s_len = s.size();
          } else if (a.kind == ASC_ATTR_FLOAT) {
            a.f = r.f64();
          } else if (a.kind == ASC_ATTR_INT) {
            a.i = r.i64();
          } else {
            r.damaged("unknown attribute kind");
          }
          attrs.push_back(a);
        }
        builder_op(b, name, operands.data(), operands.size(), attrs.data(), attrs.size(), where.read(r));
        break;
      }
      case kLogFor: {
        asc_value_t lb = r.u32(), ub = r.u32(), step = r.u32();
        builder_for_begin(b, lb, ub, step, where.read(r));
        break;
      }
      case kLogIf: {
        asc_value_t cond = r.u32();
        builder_if_begin(b, cond, where.read(r));
        break;
      }
      case kLogForEnd: builder_for_end(b); break;
      case kLogElse: builder_else(b); break;
      case kLogIfEnd: builder_if_end(b); break;
      case kLogOption: {
        std::string_view name = r.str();
        builder_set_option(b, name, r.i64());
        break;
      }
      default: r.damaged("unknown record");
    }
  }
}

}  // namespace asc::capi
