#include "ir/printer.h"

#include <fmt/format.h>

namespace asc {
namespace {

class Printer {
 public:
  explicit Printer(const Kernel& k) : k_(k) {}

  std::string run() {
    out_ += fmt::format("kernel @{}(", k_.name);
    for (size_t i = 0; i < k_.num_params; ++i)
      out_ += fmt::format("{}%{}: {}", i ? ", " : "", i, k_.type_of(static_cast<uint32_t>(i)).str());
    out_ += ") {\n";
    region(k_.body, 1);
    out_ += "}\n";
    return out_;
  }

 private:
  void indent(int depth) { out_.append(static_cast<size_t>(depth) * 2, ' '); }

  std::string attr_text(const OpInfo& info, const Op& op) {
    std::string s;
    for (size_t i = 0; i < op.attrs.size(); ++i) {
      const Attr& a = op.attrs[i];
      const char* name = info.attrs[i].name;
      std::string v;
      if (std::string_view(name) == "dtype")
        v = dtype_name(static_cast<DType>(a.i));
      else if (std::string_view(name) == "position")
        v = position_name(static_cast<Position>(a.i));
      else if (std::string_view(name) == "event")
        v = hard_event(a.i).name;
      else if (std::string_view(name) == "pipe")
        v = pipe_name(static_cast<Pipe>(a.i));
      else if (a.kind == ASC_ATTR_STRING)
        v = fmt::format("\"{}\"", a.s);
      else if (a.kind == ASC_ATTR_FLOAT)
        v = fmt::format("{}", a.f);
      else
        v = fmt::format("{}", a.i);
      s += fmt::format("{}{} = {}", s.empty() ? "" : ", ", name, v);
    }
    return s.empty() ? s : " {" + s + "}";
  }

  void op(const Op& o, int depth) {
    const OpInfo& info = o.info();
    indent(depth);
    if (o.code == OpCode::For) {
      out_ += fmt::format("for %{} = %{} to %{} step %{} {{  // {}\n", o.result, o.operands[0], o.operands[1],
                          o.operands[2], o.loc.str());
      region(o.regions[0], depth + 1);
      indent(depth);
      out_ += "}\n";
      return;
    }
    if (o.code == OpCode::If) {
      out_ += fmt::format("if %{} {{  // {}\n", o.operands[0], o.loc.str());
      region(o.regions[0], depth + 1);
      if (!o.regions[1].ops.empty()) {
        indent(depth);
        out_ += "} else {\n";
        region(o.regions[1], depth + 1);
      }
      indent(depth);
      out_ += "}\n";
      return;
    }
    if (o.result != kNoValue) out_ += fmt::format("%{} = ", o.result);
    out_ += info.name;
    for (size_t i = 0; i < o.operands.size(); ++i) out_ += fmt::format("{}%{}", i ? ", " : " ", o.operands[i]);
    out_ += attr_text(info, o);
    if (o.result != kNoValue) out_ += " : " + k_.type_of(o.result).str();
    if (info.pipe_fn || info.pipe != Pipe::S) out_ += fmt::format(" [{}]", pipe_name(op_pipe(o)));
    out_ += fmt::format("  // {}\n", o.loc.str());
  }

  void region(const Region& r, int depth) {
    for (const auto& o : r.ops) op(*o, depth);
  }

  const Kernel& k_;
  std::string out_;
};

}  // namespace

std::string print_kernel(const Kernel& kernel) { return Printer(kernel).run(); }

}  // namespace asc
