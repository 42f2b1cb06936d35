#include "codegen/ascendc_emitter.h"

#include <cctype>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <unordered_set>

#include "codegen/ascendc_matmul.h"
#include "codegen/ascendc_spelling.h"
#include "ir/adv_call.h"
#include "ir/matmul_api.h"
#include "target/cores.h"
#include "target/scalar_arith.h"

namespace asc {
namespace {

// Scalar arithmetic with the IR's semantics (Python's // and %, shifts past
// the width) where C++ differs; emitted once at the top of every file.
constexpr const char* kPrelude = R"(// Scalar helpers: the IR's semantics where C++'s differ.
template <typename T>
__aicore__ inline T asc_floordiv(T a, T b) {
  if (static_cast<T>(-1) < static_cast<T>(0) && b == static_cast<T>(-1)) return static_cast<T>(0 - a);
  T q = static_cast<T>(a / b);
  return (a % b != 0 && ((a < 0) != (b < 0))) ? static_cast<T>(q - 1) : q;
}
template <typename T>
__aicore__ inline T asc_mod(T a, T b) {
  if (static_cast<T>(-1) < static_cast<T>(0) && b == static_cast<T>(-1)) return 0;
  T r = static_cast<T>(a % b);
  return (r != 0 && ((r < 0) != (b < 0))) ? static_cast<T>(r + b) : r;
}
template <typename T, typename S>
__aicore__ inline T asc_shl(T a, S s) {
  if (s < 0 || s >= static_cast<S>(sizeof(T) * 8)) return 0;
  return static_cast<T>(static_cast<uint64_t>(a) << s);
}
template <typename T, typename S>
__aicore__ inline T asc_shr(T a, S s) {
  if (s < 0) return 0;
  if (s >= static_cast<S>(sizeof(T) * 8)) return (static_cast<T>(-1) < static_cast<T>(0) && a < 0) ? static_cast<T>(-1) : 0;
  return static_cast<T>(a >> s);
}
)";

// QuantMode_t by name (the compiler defines the enum), from pyasc's QuantModes value.
constexpr const char* kQuantPrelude = R"(__aicore__ inline QuantMode_t asc_quant_mode(int64_t mode) {
  switch (mode) {
    case 1: return QuantMode_t::F322F16;
    case 2: return QuantMode_t::F322BF16;
    case 3: return QuantMode_t::DEQF16;
    case 4: return QuantMode_t::VDEQF16;
    case 5: return QuantMode_t::QF322B8_PRE;
    case 6: return QuantMode_t::VQF322B8_PRE;
    case 7: return QuantMode_t::REQ8;
    case 8: return QuantMode_t::VREQ8;
    default: return QuantMode_t::NoQuant;
  }
}
)";

// Fixpipe into the Unified Buffer (Ascend 950) names its destination in a FixpipeConfig with isToUB set, a template
// argument with static storage.
constexpr const char* kFixpipeUbPrelude = R"(namespace asc_fixpipe {
constexpr AscendC::FixpipeConfig NZ_UB = {AscendC::CO2Layout::NZ, true};
constexpr AscendC::FixpipeConfig ROW_MAJOR_UB = {AscendC::CO2Layout::ROW_MAJOR, true};
}  // namespace asc_fixpipe
)";

const char* c_type(DType d) { return ascendc_type(d); }

const char* kernel_type_macro(KernelType t) {
  switch (t) {
    case KernelType::AivOnly: return "KERNEL_TYPE_AIV_ONLY";
    case KernelType::AicOnly: return "KERNEL_TYPE_AIC_ONLY";
    case KernelType::MixAivHardSync: return "KERNEL_TYPE_MIX_AIV_1_0";
    case KernelType::MixAicHardSync: return "KERNEL_TYPE_MIX_AIC_1_1";
    case KernelType::MixAiv1_0: return "KERNEL_TYPE_MIX_AIV_1_0";
    case KernelType::MixAic1_0: return "KERNEL_TYPE_MIX_AIC_1_0";
    case KernelType::MixAic1_1: return "KERNEL_TYPE_MIX_AIC_1_1";
    case KernelType::MixAic1_2: return "KERNEL_TYPE_MIX_AIC_1_2";
  }
  return "KERNEL_TYPE_AIV_ONLY";
}

// A C++ literal for a floating-point constant, exact (hex float) after the
// rounding the Model applies to a constant of that dtype.
std::string float_literal(double v, DType d) {
  double r = round_to(v, d);
  std::string body;
  if (std::isnan(r)) {
    body = "__builtin_nanf(\"\")";
  } else if (std::isinf(r)) {
    body = r > 0 ? "__builtin_huge_valf()" : "-__builtin_huge_valf()";
  } else {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%a", r);
    body = buf;
  }
  return fmt::format("static_cast<{}>({})", c_type(d), body);
}

std::string int_literal(int64_t v, DType d) {
  int64_t w = wrap_to(v, d);
  if (d == DType::Bool) return w ? "true" : "false";
  if (d == DType::UInt64 || d == DType::Int64)
    return fmt::format("static_cast<{}>(0x{:x}ULL)", c_type(d), static_cast<uint64_t>(w));
  return fmt::format("static_cast<{}>({})", c_type(d), w);
}

class Emitter {
 public:
  Emitter(const Kernel& k, AdvCalls adv) : k_(k), matmul_(k), adv_(adv) {}

  std::string run() {
    check_name(k_.name);
    out_ += fmt::format("\nextern \"C\" __global__ __aicore__ void {}(", k_.name);
    for (size_t i = 0; i < k_.num_params; ++i) {
      const Type& t = k_.type_of(static_cast<uint32_t>(i));
      out_ += fmt::format("{}{} {}", i ? ", " : "", t.is_scalar() ? c_type(t.dtype) : "GM_ADDR", v(i));
    }
    out_ += ") {\n";
    indent_ = 1;
    line(fmt::format("KERNEL_TASK_TYPE_DEFAULT({});  // KernelType {}", kernel_type_macro(k_.options.kernel_type),
                     static_cast<int>(k_.options.kernel_type)));
    if (matmul_.active())
      for (const std::string& declaration : matmul_.declarations()) line(declaration);
    region(k_.body);
    out_ += "}\n";
    std::string head = fmt::format("// Ascend C for kernel `{}`, generated by asc from its finished IR.\n", k_.name);
    head += "#include \"kernel_operator.h\"\n";
    if (matmul_.active()) head += "#include \"kernel_tiling/kernel_tiling.h\"\n#include \"lib/matmul_intf.h\"\n";
    head += "\n";
    head += kPrelude;
    if (uses_quant_) head += kQuantPrelude;
    if (uses_fixpipe_ub_) head += kFixpipeUbPrelude;
    if (matmul_.active()) head += matmul_.globals();
    return head + out_;
  }

 private:
  // The kernel's name is its C symbol: a C identifier that is neither a C++ keyword nor one of the file's own names.
  static void check_name(const std::string& name) {
    static const char* const reserved[] = {"alignas",       "alignof",      "and",       "asm",       "auto",
                                           "bool",          "break",        "case",      "catch",     "char",
                                           "class",         "const",        "constexpr", "continue",  "default",
                                           "delete",        "do",           "double",    "else",      "enum",
                                           "explicit",      "export",       "extern",    "false",     "float",
                                           "for",           "friend",       "goto",      "if",        "inline",
                                           "int",           "long",         "mutable",   "namespace", "new",
                                           "not",           "nullptr",      "operator",  "or",        "private",
                                           "protected",     "public",       "register",  "return",    "short",
                                           "signed",        "sizeof",       "static",    "struct",    "switch",
                                           "template",      "this",         "throw",     "true",      "try",
                                           "typedef",       "typename",     "union",     "unsigned",  "using",
                                           "virtual",       "void",         "volatile",  "while",     "xor",
                                           "half",          "asc_floordiv", "asc_mod",   "asc_shl",   "asc_shr",
                                           "asc_quant_mode"};
    bool ok = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
    for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    for (const char* r : reserved) ok = ok && name != r;
    ok = ok && name != "asc_fixpipe";  // kFixpipeUbPrelude's namespace
    if (!ok)
      fail(ASC_ERR_UNSUPPORTED,
           "the Ascend C emitter cannot name kernel '{}': its name is the NPU binary's symbol, so it must be a C "
           "identifier that is not a C++ keyword",
           name);
  }

  static std::string v(size_t id) { return fmt::format("v{}", id); }
  std::string o(const Op& op, size_t i) const { return v(op.operands[i]); }
  const Type& ot(const Op& op, size_t i) const { return k_.type_of(op.operands[i]); }
  DType od(const Op& op, size_t i) const { return ot(op, i).dtype; }
  const char* ct(const Op& op, size_t i) const { return c_type(od(op, i)); }
  const char* rt(const Op& op) const { return c_type(k_.type_of(op.result).dtype); }

  void line(const std::string& text) {
    out_.append(static_cast<size_t>(indent_) * 2, ' ');
    out_ += text;
    out_ += '\n';
  }

  // `#line` before an op whose source line differs from the previous op's.
  void locate(const Op& op) {
    if (!op.loc.known()) return;
    if (op.loc.file == last_file_ && op.loc.line == last_line_) return;
    last_file_ = op.loc.file;
    last_line_ = op.loc.line;
    std::string file;
    for (char c : *op.loc.file) {
      if (c == '\\' || c == '"') file += '\\';
      file += c;
    }
    out_ += fmt::format("#line {} \"{}\"\n", op.loc.line, file);
  }

  [[noreturn]] void unsupported(const Op& op, const char* why = nullptr) {
    fail(ASC_ERR_UNSUPPORTED, op.loc, "the Ascend C emitter cannot spell {} yet{}{}", op.info().name, why ? ": " : "",
         why ? why : "");
  }

  // In a mix kernel a Matmul call's expansion (its marker up to matmul.call_end) is left out: the call spells it.
  // So is an adv call's (up to its adv.call_end; adv calls nest) unless the adv calls are expanded.
  void region(const Region& r) {
    bool skipping = false;
    int adv_depth = 0;  // inside a left-out adv expansion: the adv.call_ends still to come
    for (const auto& op : r.ops) {
      if (adv_depth > 0) {
        adv_depth += op->code == OpCode::AdvCall ? 1 : op->code == OpCode::AdvCallEnd ? -1 : 0;
        if (op->result != kNoValue) skipped_.insert(op->result);
        continue;
      }
      if (skipping) {
        skipping = op->code != OpCode::MatmulCallEnd;
        if (op->result != kNoValue) skipped_.insert(op->result);
        continue;
      }
      emit(*op);
      skipping = matmul_.active() && MatmulSpelling::opens_expansion(*op);
      if (op->code == OpCode::AdvCall && adv_ == AdvCalls::Spelled) adv_depth = 1;
    }
    if (skipping)
      fail(ASC_ERR_VERIFY, "kernel '{}': a matmul.call opening an expansion has no matmul.call_end in its region",
           k_.name);
    if (adv_depth > 0) fail(ASC_ERR_VERIFY, "kernel '{}': an adv.call has no adv.call_end in its region", k_.name);
  }

  // An adv call's statement: {N} is operand N's variable, {T:N} its dtype's C type, {{ and }} braces.
  std::string adv_call(const Op& op) {
    std::string text, error;
    auto placeholder = [&](size_t i, bool is_type) {
      uint32_t operand = op.operands[i];
      return is_type ? std::string(c_type(k_.type_of(operand).dtype)) : v(operand);
    };
    if (!expand_adv_call(op.attr(0).s, op.operands.size(), placeholder, &text, &error))
      fail(ASC_ERR_INTERNAL, op.loc, "adv.call: {} (the verifier passed it)", error);
    return text + ";";
  }

  void define(const Op& op, const std::string& type, const std::string& expr) {
    line(fmt::format("{} {} = {};", type, v(op.result), expr));
  }
  void scalar(const Op& op, const std::string& expr) {
    define(op, rt(op), fmt::format("static_cast<{}>({})", rt(op), expr));
  }
  void call(const Op& op, const std::string& args) { line(fmt::format("{}({});", api(op), args)); }
  static std::string api(const Op& op) {
    std::string a = op.info().ascendc;
    return a.rfind("AscendC::", 0) == 0 ? a : "AscendC::" + a;
  }
  // Operands [from, to) separated by commas.
  std::string list(const Op& op, size_t from, size_t to) const {
    std::string s;
    for (size_t i = from; i < to; ++i) s += (i > from ? ", " : "") + o(op, i);
    return s;
  }

  void emit(const Op& op) {
    locate(op);
    const OpInfo& info = op.info();
    bool iterate_loop = matmul_.is_iterate_loop(op);
    for (size_t i = 0; i < op.operands.size() && !iterate_loop; ++i)
      if (skipped_.count(op.operands[i]))
        unsupported(op, "it uses a value computed by a Matmul call, which Ascend C's Matmul object keeps to itself");
    if (info.emit == EmitForm::Template) {
      for (const std::string& text : spell_ascendc(op, k_)) line(text);
      return;
    }
    if (info.emit == EmitForm::None) unsupported(op, info.why_not_emitted);
    hand(op);
  }

  // The ops whose spelling is code (kHandSpelled): control flow, literals, and calls whose arguments depend on
  // the attributes or on optional operands.
  void hand(const Op& op) {
    const OpInfo& info = op.info();
    bool iterate_loop = matmul_.is_iterate_loop(op);
    switch (op.code) {
      case OpCode::For: {
        if (iterate_loop) {  // `with mm.iterate() as count`: as many iterations as the Matmul has blocks
          line(fmt::format("for ({0} {1} = {2}; {3}.Iterate(); {1} = static_cast<{0}>({1} + {4})) {{", ct(op, 0),
                           v(op.result), o(op, 0), MatmulSpelling::object(*op.regions[0].ops.front()), o(op, 2)));
          block(op.regions[0]);
          line("}");
          return;
        }
        const char* t = ct(op, 0);
        line(fmt::format("for ({0} {1} = {2}; {4} > 0 ? {1} < {3} : {1} > {3}; {1} = static_cast<{0}>({1} + {4})) {{",
                         t, v(op.result), o(op, 0), o(op, 1), o(op, 2)));
        block(op.regions[0]);
        line("}");
        return;
      }
      case OpCode::If:
        line(fmt::format("if ({}) {{", o(op, 0)));
        block(op.regions[0]);
        if (!op.regions[1].ops.empty()) {
          line("} else {");
          block(op.regions[1]);
        }
        line("}");
        return;
      case OpCode::Const: {
        DType d = k_.type_of(op.result).dtype;
        const Attr& a = op.attr(1);
        std::string lit = dtype_is_float(d) ? float_literal(a.kind == ASC_ATTR_INT ? static_cast<double>(a.i) : a.f, d)
                                            : int_literal(a.kind == ASC_ATTR_INT ? a.i : static_cast<int64_t>(a.f), d);
        return define(op, rt(op), lit);
      }
      case OpCode::Cast: return arith_cast(op);
      case OpCode::FloorDivS:
      case OpCode::ModS:
        if (dtype_is_float(od(op, 0))) unsupported(op, "floating-point // and % need a math library call");
        return scalar(op, fmt::format("{}<{}>({}, {})", op.code == OpCode::ModS ? "asc_mod" : "asc_floordiv", ct(op, 0),
                                      o(op, 0), o(op, 1)));
      case OpCode::GlobalSetBuffer: {
        line(fmt::format("AscendC::GlobalTensor<{}> {};", rt(op), v(op.result)));
        std::string len = op.operands.size() > 1 ? fmt::format(", static_cast<uint64_t>({})", o(op, 1)) : "";
        return line(fmt::format("{}.SetGlobalBuffer(reinterpret_cast<__gm__ {}*>({}){});", v(op.result), rt(op),
                                o(op, 0), len));
      }
      case OpCode::SetVectorMask: {
        bool counter = op.attr_int(2) != 0;
        const char* t = c_type(static_cast<DType>(op.attr_int(1)));
        const char* mode = counter ? "COUNTER" : "NORMAL";
        if (op.attr_int(0) == 0)  // one word: a count, or the low bits
          return line(
              fmt::format("{}<{}, AscendC::MaskMode::{}>(static_cast<uint64_t>({}));", api(op), t, mode, o(op, 0)));
        return line(fmt::format("{}<{}, AscendC::MaskMode::{}>(static_cast<uint64_t>({}), static_cast<uint64_t>({}));",
                                api(op), t, mode, o(op, 1), o(op, 0)));
      }
      case OpCode::Fixpipe:
      case OpCode::FixpipeVectorQuant:
      case OpCode::FixpipeToL1: return fixpipe(op);
      case OpCode::FixpipeToUb: return fixpipe_ub(op);
      case OpCode::MatmulServer:  // outside mix kernels the core runs the Matmul itself: nothing to serve
        if (!matmul_.active()) {  // the object the expansion computes, named for the reader
          std::string object = matmul_.expanded_object(op);
          return line("// register_matmul: this core runs its own Matmul" +
                      (object.empty() ? std::string() : ", expanded: " + object));
        }
        for (const std::string& text : matmul_.server(op, v)) line(text);
        return;
      case OpCode::MatmulCall: {  // outside mix kernels the expansion that follows is the code
        std::string text = matmul_.active() ? matmul_.call(op, v) : "";
        if (!text.empty()) line(text);
        return;
      }
      case OpCode::MatmulCallEnd: return;
      case OpCode::AdvCall:  // spelled: the library call replaces the expansion; expanded: the call as a comment
        return line(adv_ == AdvCalls::Spelled ? adv_call(op) : "// " + adv_call(op) + " (expanded)");
      case OpCode::AdvCallEnd: return;
      case OpCode::AdvRequire: return line(fmt::format("if (!({})) AscendC::Trap();  // {}", o(op, 0), op.attr(0).s));
      case OpCode::StackBuffer:  // the framework's temporary buffer: the Unified Buffer from the operand on
        return line(
            fmt::format("AscendC::LocalTensor<uint8_t> {0}(AscendC::TPosition::VECCALC, {1}, "
                        "static_cast<uint32_t>(AscendC::TOTAL_UB_SIZE) - {1});",
                        v(op.result), fmt::format("static_cast<uint32_t>({})", o(op, 0))));
      case OpCode::Printf:
        return call(op, c_string(op.attr(0).s) + (op.operands.empty() ? "" : ", ") + list(op, 0, op.operands.size()));
      case OpCode::DumpTensor: {
        std::string head =
            fmt::format("{}, static_cast<uint32_t>({}), static_cast<uint32_t>({})", o(op, 0), o(op, 1), o(op, 2));
        if (op.operands.size() == 3) return call(op, head);
        std::string shape = fmt::format("asc_shape{}", op.index);
        line(fmt::format("uint32_t {}[] = {{{}}};", shape, int_list(op, 3, op.operands.size())));
        return call(op, fmt::format("{}, AscendC::ShapeInfo(static_cast<uint8_t>({}), {})", head,
                                    op.operands.size() - 3, shape));
      }
      case OpCode::CopySliceGmToLocal:
      case OpCode::CopySliceLocalToGm: {  // two SliceInfo arrays of dims entries, declared first
        size_t dims = static_cast<size_t>(op.attr_int(0));
        std::string names[2];
        for (size_t side = 0; side < 2; ++side) {
          std::string entries;
          for (size_t d = 0; d < dims; ++d) {
            size_t first = 2 + (side * dims + d) * 5;
            std::string fields;
            for (size_t i = first; i < first + 5; ++i)
              fields += fmt::format("{}static_cast<uint32_t>({})", i > first ? ", " : "", o(op, i));
            entries += fmt::format("{}{{{}}}", d ? ", " : "", fields);
          }
          names[side] = fmt::format("asc_slices{}_{}", op.index, side ? "src" : "dst");
          line(fmt::format("AscendC::SliceInfo {}[] = {{{}}};", names[side], entries));
        }
        return call(
            op, fmt::format("{}, {}, {}, {}, static_cast<uint32_t>({})", o(op, 0), o(op, 1), names[0], names[1], dims));
      }
      case OpCode::TransDataTo5HDList: {  // the uint64_t address arrays, declared first
        std::string dst = fmt::format("asc_5hd{}_dst", op.index), src = fmt::format("asc_5hd{}_src", op.index);
        auto addrs = [&](size_t from) {
          std::string s;
          for (size_t i = from; i < from + 16; ++i)
            s += fmt::format("{}static_cast<uint64_t>({})", i > from ? ", " : "", o(op, i));
          return s;
        };
        line(fmt::format("uint64_t {}[16] = {{{}}};", dst, addrs(0)));
        line(fmt::format("uint64_t {}[16] = {{{}}};", src, addrs(16)));
        return line(
            fmt::format("{}<{}>({}, {}, AscendC::TransDataTo5HDParams(static_cast<bool>({}), static_cast<bool>({}), "
                        "static_cast<uint8_t>({}), static_cast<uint16_t>({}), static_cast<uint16_t>({})));",
                        api(op), c_type(static_cast<DType>(op.attr_int(0))), dst, src, o(op, 32), o(op, 33), o(op, 34),
                        o(op, 35), o(op, 36)));
      }
      default:
        fail(ASC_ERR_INTERNAL, op.loc, "{} is hand-spelled in its row but the emitter has no code for it", info.name);
    }
  }

  static std::string c_string(const std::string& text) {
    std::string s = "\"";
    for (char c : text) {
      switch (c) {
        case '"': s += "\\\""; break;
        case '\\': s += "\\\\"; break;
        case '\n': s += "\\n"; break;
        case '\t': s += "\\t"; break;
        default:
          if (static_cast<unsigned char>(c) < 0x20)
            s += fmt::format("\\{:03o}", static_cast<unsigned char>(c));
          else
            s += c;
      }
    }
    return s + "\"";
  }

  // L0C -> GM. With the quantisation scalar from the register (data_copy with DataCopyCO12DstParams): DataCopy;
  // else Fixpipe with FixpipeParamsV220 (and the per-column quant words of fixpipe.vector_quant). IR fields:
  // n, m, src_stride, dst_stride, quant_pre, deq_scalar, nd_num, src_nd_stride, dst_nd_stride, relu.
  void fixpipe(const Op& op) {
    int64_t nz2nd = op.attr_int(0), deq_register = op.attr_int(1);
    std::string q = fmt::format("asc_quant_mode({})", o(op, 6));
    uses_quant_ = true;
    if (deq_register)
      return line(
          fmt::format("AscendC::DataCopy({}, AscendC::DataCopyCO12DstParams(static_cast<uint16_t>({}), "
                      "static_cast<uint16_t>({}), static_cast<uint32_t>({}), static_cast<uint16_t>({}), {}, "
                      "static_cast<uint8_t>({}), false, {}));",
                      list(op, 0, 2), o(op, 2), o(op, 3), o(op, 5), o(op, 4), q, o(op, 11), nz2nd ? "true" : "false"));
    std::string params = fmt::format(
        "AscendC::FixpipeParamsV220(static_cast<uint16_t>({}), static_cast<uint16_t>({}), static_cast<uint16_t>({}), "
        "static_cast<uint32_t>({}), {} != 0, {}, static_cast<int64_t>({}), static_cast<uint16_t>({}), "
        "static_cast<uint16_t>({}), static_cast<uint16_t>({}), 0)",
        o(op, 2), o(op, 3), o(op, 4), o(op, 5), o(op, 11), q, o(op, 7), o(op, 8), o(op, 9), o(op, 10));
    std::string workspace = op.code == OpCode::FixpipeVectorQuant ? o(op, 12) + ", " : "";
    line(fmt::format("{}<{}, {}, AscendC::{}>({}, {}{});", api(op), ct(op, 0), ct(op, 1),
                     nz2nd ? "CFG_ROW_MAJOR" : "CFG_NZ", list(op, 0, 2), workspace, params));
  }

  // L0C -> UB (Ascend 950): Fixpipe with FixpipeParamsArch3510 and a FixpipeConfig into UB. IR fields: fixpipe's,
  // then dual_dst_ctl and sub_block_id.
  void fixpipe_ub(const Op& op) {
    bool nz2nd = op.attr_int(0) != 0;
    uses_quant_ = uses_fixpipe_ub_ = true;
    line("{");
    ++indent_;
    line(
        fmt::format("AscendC::FixpipeParamsArch3510<AscendC::CO2Layout::{}> asc_fp(static_cast<uint16_t>({}), "
                    "static_cast<uint16_t>({}), static_cast<uint16_t>({}), static_cast<uint32_t>({}));",
                    nz2nd ? "ROW_MAJOR" : "NZ", o(op, 2), o(op, 3), o(op, 4), o(op, 5)));
    line(fmt::format("asc_fp.quantPre = asc_quant_mode({});", o(op, 6)));
    line(fmt::format("asc_fp.deqScalar = static_cast<uint64_t>({});", o(op, 7)));
    line(fmt::format("asc_fp.reluEn = {} != 0;", o(op, 11)));
    line(fmt::format("asc_fp.dualDstCtl = static_cast<uint8_t>({});", o(op, 12)));
    line(fmt::format("asc_fp.subBlockId = {} != 0;", o(op, 13)));
    if (nz2nd)
      line(
          fmt::format("asc_fp.params = {{static_cast<uint16_t>({}), static_cast<uint16_t>({}), "
                      "static_cast<uint32_t>({})}};",
                      o(op, 8), o(op, 9), o(op, 10)));
    line(fmt::format("{}<{}, {}, asc_fixpipe::{}_UB>({}, asc_fp);", api(op), ct(op, 0), ct(op, 1),
                     nz2nd ? "ROW_MAJOR" : "NZ", list(op, 0, 2)));
    --indent_;
    line("}");
  }

  std::string int_list(const Op& op, size_t from, size_t to) const {
    std::string s;
    for (size_t i = from; i < to; ++i) s += fmt::format("{}static_cast<int32_t>({})", i > from ? ", " : "", o(op, i));
    return s;
  }

  void block(const Region& r) {
    ++indent_;
    region(r);
    --indent_;
  }

  void arith_cast(const Op& op) {
    DType from = od(op, 0), to = k_.type_of(op.result).dtype;
    if (to == DType::Bool) return define(op, "bool", fmt::format("{} != 0", o(op, 0)));
    if (!dtype_is_float(to) && dtype_is_float(from))  // truncates towards zero, then wraps to the width
      return scalar(op, fmt::format("static_cast<int64_t>({})", o(op, 0)));
    scalar(op, o(op, 0));
  }

  const Kernel& k_;
  std::string out_;
  int indent_ = 0;
  MatmulSpelling matmul_;
  AdvCalls adv_;
  std::unordered_set<uint32_t> skipped_;  // values defined in a left-out Matmul expansion
  bool uses_quant_ = false;               // fixpipe: the QuantMode_t helper goes into the file
  bool uses_fixpipe_ub_ = false;          // fixpipe L0C -> UB: its FixpipeConfigs go into the file
  std::shared_ptr<const std::string> last_file_;
  uint32_t last_line_ = 0;
};

}  // namespace

bool ascendc_hand_spelled(OpCode code) {
  static constexpr OpCode kHandSpelled[] = {
      OpCode::For,
      OpCode::If,
      OpCode::Const,
      OpCode::Cast,
      OpCode::FloorDivS,
      OpCode::ModS,
      OpCode::GlobalSetBuffer,
      OpCode::SetVectorMask,
      OpCode::Fixpipe,
      OpCode::FixpipeVectorQuant,
      OpCode::FixpipeToL1,
      OpCode::FixpipeToUb,
      OpCode::MatmulServer,
      OpCode::MatmulCall,
      OpCode::MatmulCallEnd,
      OpCode::AdvCall,
      OpCode::AdvCallEnd,
      OpCode::AdvRequire,
      OpCode::StackBuffer,
      OpCode::Printf,
      OpCode::DumpTensor,
      OpCode::CopySliceGmToLocal,
      OpCode::CopySliceLocalToGm,
      OpCode::TransDataTo5HDList,
  };
  for (OpCode c : kHandSpelled)
    if (c == code) return true;
  return false;
}

const char* ascendc_type(DType d) {
  switch (d) {
    case DType::Bool: return "bool";
    case DType::Int8: return "int8_t";
    case DType::UInt8: return "uint8_t";
    case DType::Int16: return "int16_t";
    case DType::UInt16: return "uint16_t";
    case DType::Int32: return "int32_t";
    case DType::UInt32: return "uint32_t";
    case DType::Int64: return "int64_t";
    case DType::UInt64: return "uint64_t";
    case DType::Float16: return "half";
    case DType::BFloat16: return "bfloat16_t";
    case DType::Float32: return "float";
  }
  return "void";
}

std::string emit_ascendc(const Kernel& kernel) { return Emitter(kernel, AdvCalls::Spelled).run(); }
std::string emit_ascendc_expanded(const Kernel& kernel) { return Emitter(kernel, AdvCalls::Expanded).run(); }

}  // namespace asc
