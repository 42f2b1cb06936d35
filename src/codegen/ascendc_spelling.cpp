#include "codegen/ascendc_spelling.h"

#include <cctype>
#include <string_view>

#include "codegen/ascendc_emitter.h"

namespace asc {
namespace {

struct Placeholder {
  enum Kind { Api, Operand, Operands, Result, TypeOf, PositionOf, Mask, SetMask, Enum, AttrValue, AttrBool } kind;
  size_t first = 0, last = 0;  // Operand(s): [first, last); last 0 with `open`: to the last operand
  bool open = false;
  std::string cast;  // a C type for static_cast, or empty
  std::string name;  // an attribute's name, or "result"
};

[[noreturn]] void bad(const OpInfo& row, std::string_view placeholder, const char* why) {
  fail(ASC_ERR_INTERNAL, "op table: the Ascend C spelling of '{}' has placeholder {{{}}}: {}", row.name, placeholder,
       why);
}

bool digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

bool has_attr(const OpInfo& row, std::string_view name) { return attr_index(row, name) >= 0; }

// Parses one placeholder and checks it against the row (operands it has, attributes it names).
Placeholder parse(const OpInfo& row, std::string_view text) {
  Placeholder p{};
  auto prefixed = [&](std::string_view prefix, std::string_view* rest) {
    if (text.substr(0, prefix.size()) != prefix) return false;
    *rest = text.substr(prefix.size());
    return true;
  };
  auto attr = [&](Placeholder::Kind kind, std::string_view name) {
    if (!has_attr(row, name)) bad(row, text, "the row has no such attribute");
    p.kind = kind;
    p.name = std::string(name);
    return p;
  };
  std::string_view rest;
  if (text == "api") return p.kind = Placeholder::Api, p;
  if (text == "result") return p.kind = Placeholder::Result, p;
  if (text == "set_mask") {
    if (!has_attr(row, "mask_mode")) bad(row, text, "the row has no mask_mode attribute");
    return p.kind = Placeholder::SetMask, p;
  }
  if (prefixed("enum:", &rest)) return attr(Placeholder::Enum, rest);
  if (prefixed("attr:", &rest)) return attr(Placeholder::AttrValue, rest);
  if (prefixed("bool:", &rest)) return attr(Placeholder::AttrBool, rest);
  if (text == "pos:result") return p.kind = Placeholder::PositionOf, p.name = "result", p;
  if (prefixed("T:", &rest)) {
    p.kind = Placeholder::TypeOf;
    if (rest == "result") return p.name = "result", p;
    if (digits(rest)) {
      p.first = std::stoul(std::string(rest));
      if (p.first >= row.operands.size()) bad(row, text, "the row has no such operand");
      return p;
    }
    return attr(Placeholder::TypeOf, rest);
  }
  if (prefixed("mask:", &rest)) {
    if (!digits(rest) || std::stoul(std::string(rest)) + 1 >= row.operands.size())
      bad(row, text, "the mask is two operands of the row");
    if (!has_attr(row, "mask_mode")) bad(row, text, "the row has no mask_mode attribute");
    p.kind = Placeholder::Mask;
    p.first = std::stoul(std::string(rest));
    return p;
  }
  std::string_view operands = text.substr(0, text.find(':'));
  if (operands.size() < text.size()) p.cast = std::string(text.substr(operands.size() + 1));
  size_t dots = operands.find("..");
  if (dots == std::string_view::npos) {
    if (!digits(operands)) bad(row, text, "unknown placeholder");
    p.kind = Placeholder::Operand;
    p.first = std::stoul(std::string(operands));
    if (p.first >= row.operands.size()) bad(row, text, "the row has no such operand");
    return p;
  }
  std::string_view from = operands.substr(0, dots), to = operands.substr(dots + 2);
  if (!digits(from) || (!to.empty() && !digits(to))) bad(row, text, "unknown placeholder");
  p.kind = Placeholder::Operands;
  p.first = std::stoul(std::string(from));
  p.open = to.empty();
  p.last = p.open ? 0 : std::stoul(std::string(to));
  if ((!p.open && (p.last < p.first || p.last > row.operands.size())) || p.first > row.operands.size())
    bad(row, text, "the range is not within the row's operands");
  return p;
}

// Calls `literal(text)` and `placeholder(parsed, raw)` along the template.
template <typename Literal, typename Hole>
void walk(const OpInfo& row, Literal literal, Hole placeholder) {
  const std::string& t = row.spelling;
  for (size_t i = 0; i < t.size();) {
    char c = t[i];
    if ((c == '{' || c == '}') && i + 1 < t.size() && t[i + 1] == c) {
      literal(std::string_view(&t[i], 1));
      i += 2;
      continue;
    }
    if (c == '}') bad(row, "}", "a lone closing brace (write }} for a literal one)");
    if (c != '{') {
      size_t end = t.find_first_of("{}", i);
      if (end == std::string::npos) end = t.size();
      literal(std::string_view(t).substr(i, end - i));
      i = end;
      continue;
    }
    size_t close = t.find('}', i);
    if (close == std::string::npos) bad(row, std::string_view(t).substr(i), "it is never closed");
    std::string_view raw = std::string_view(t).substr(i + 1, close - i - 1);
    placeholder(parse(row, raw), raw);
    i = close + 1;
  }
}

template <size_t N>
std::string enumerator(const Op& op, const char* prefix, const char* const (&names)[N], int64_t v) {
  if (v < 0 || v >= static_cast<int64_t>(N))
    fail(ASC_ERR_UNSUPPORTED, op.loc,
         "the Ascend C emitter cannot spell {} yet: its attribute has no Ascend C enumerator", op.info().name);
  return std::string(prefix) + names[v];
}

std::string spell_enum(const Op& op, const std::string& attr, int64_t v) {
  static const char* const round[] = {"CAST_NONE",  "CAST_RINT",  "CAST_FLOOR", "CAST_CEIL",
                                      "CAST_ROUND", "CAST_TRUNC", "CAST_ODD"};
  static const char* const cmp[] = {"LT", "GT", "EQ", "LE", "GE", "NE"};
  static const char* const sel[] = {"VSEL_CMPMASK_SPR", "VSEL_TENSOR_SCALAR_MODE", "VSEL_TENSOR_TENSOR_MODE"};
  static const char* const order[] = {"ORDER_VALUE_INDEX", "ORDER_INDEX_VALUE", "ORDER_ONLY_VALUE", "ORDER_ONLY_INDEX"};
  static const char* const dsb[] = {"ALL", "DDR", "UB", "SEQ"};
  static const char* const cache_line[] = {"SINGLE_CACHE_LINE", "ENTIRE_DATA_CACHE"};
  static const char* const dcci_dst[] = {"CACHELINE_ALL", "CACHELINE_UB", "CACHELINE_OUT", "CACHELINE_ATOMIC"};
  if (attr == "round_mode") return enumerator(op, "AscendC::RoundMode::", round, v);
  if (attr == "entire_type") return enumerator(op, "AscendC::CacheLine::", cache_line, v);
  if (attr == "dcci_dst") return enumerator(op, "AscendC::DcciDst::", dcci_dst, v);
  if (attr == "cmp_mode") return enumerator(op, "AscendC::CMPMODE::", cmp, v);
  if (attr == "sel_mode") return enumerator(op, "AscendC::SELMODE::", sel, v);
  if (attr == "order") return enumerator(op, "AscendC::ReduceOrder::", order, v);
  if (attr == "mem") return enumerator(op, "AscendC::MemDsbT::", dsb, v);
  if (attr == "event" && hard_event_valid(v)) return std::string("AscendC::HardEvent::") + hard_event(v).name;
  if (attr == "pipe" && pipe_valid(v)) return std::string("PIPE_") + pipe_name(static_cast<Pipe>(v));
  if (attr == "pos" && v == 12) return "AscendC::TPosition::MAX";
  if (attr == "pos" && position_valid(static_cast<uint32_t>(v)))
    return std::string("AscendC::TPosition::") + position_name(static_cast<Position>(v));
  fail(ASC_ERR_UNSUPPORTED, op.loc,
       "the Ascend C emitter cannot spell {} yet: its attribute has no Ascend C enumerator", op.info().name);
}

std::string variable(uint32_t value) { return fmt::format("v{}", value); }

std::string cast(const std::string& type, const std::string& expr) {
  return type.empty() ? expr : fmt::format("static_cast<{}>({})", type, expr);
}

}  // namespace

std::vector<std::string> spell_ascendc(const Op& op, const Kernel& kernel) {
  const OpInfo& row = op.info();
  std::vector<std::string> lines;  // declarations first
  std::string text;
  auto attr = [&](const std::string& name) { return op.attr_int(attr_index(row, name)); };
  auto operand = [&](size_t i) { return variable(op.operands[i]); };
  walk(
      row, [&](std::string_view s) { text += s; },
      [&](const Placeholder& p, std::string_view) {
        switch (p.kind) {
          case Placeholder::Api: {
            std::string a = row.ascendc;
            text += a.rfind("AscendC::", 0) == 0 ? a : "AscendC::" + a;
            return;
          }
          case Placeholder::Operand: text += cast(p.cast, operand(p.first)); return;
          case Placeholder::Operands: {
            size_t last = p.open ? op.operands.size() : p.last;
            for (size_t i = p.first; i < last; ++i) text += (i > p.first ? ", " : "") + cast(p.cast, operand(i));
            return;
          }
          case Placeholder::Result: text += variable(op.result); return;
          case Placeholder::TypeOf: {
            DType d = p.name.empty()       ? kernel.type_of(op.operands[p.first]).dtype
                      : p.name == "result" ? kernel.type_of(op.result).dtype
                                           : static_cast<DType>(attr(p.name));
            text += ascendc_type(d);
            return;
          }
          case Placeholder::PositionOf: text += position_name(kernel.type_of(op.result).position); return;
          case Placeholder::Mask: {  // a count (mask_mode 0 or 2), or a {low, high} bit array (1)
            if (attr("mask_mode") != 1) {
              text += cast("uint64_t", operand(p.first));
              return;
            }
            std::string name = fmt::format("asc_mask{}", op.index);
            lines.push_back(fmt::format("uint64_t {}[2] = {{static_cast<uint64_t>({}), static_cast<uint64_t>({})}};",
                                        name, operand(p.first), operand(p.first + 1)));
            text += name;
            return;
          }
          case Placeholder::SetMask: text += attr("mask_mode") == kMaskFromRegister ? "false" : "true"; return;
          case Placeholder::Enum: text += spell_enum(op, p.name, attr(p.name)); return;
          case Placeholder::AttrValue: text += std::to_string(attr(p.name)); return;
          case Placeholder::AttrBool: text += attr(p.name) ? "true" : "false"; return;
        }
      });
  for (size_t start = 0;;) {
    size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return lines;
}

void check_spelling(const OpInfo& row) {
  walk(
      row, [](std::string_view) {}, [](const Placeholder&, std::string_view) {});
}

}  // namespace asc
