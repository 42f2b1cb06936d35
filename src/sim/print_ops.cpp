// printf, dump_tensor, dump_acc_chk_point and print_time_stamp on the scalar unit: text goes to the block's
// output (Block::print), which the launch returns in block order. Also the instructions that have no functional
// effect on the Model: the msProf markers and the cache instructions (their cost is the timing model's).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "ir/printf_format.h"
#include "sim/handlers.h"
#include "sim/scalar_math.h"

namespace asc::sim {
namespace {

// One conversion with snprintf, widened to long long / double.
std::string format_one(const FormatPiece& piece, const RtValue& v, DType d) {
  std::string spec = piece.text;
  char buf[128];
  if (!conversion_is_integer(piece.conversion)) {
    std::snprintf(buf, sizeof buf, spec.c_str(), v.f);
  } else if (piece.conversion == 'c') {
    std::snprintf(buf, sizeof buf, spec.c_str(), static_cast<int>(v.i));
  } else {
    spec.insert(spec.size() - 1, "ll");
    bool is_signed = piece.conversion == 'd' || piece.conversion == 'i';
    uint64_t bits = static_cast<uint64_t>(v.i);
    if (!is_signed && dtype_size(d) < 8) bits &= (uint64_t{1} << (8 * dtype_size(d))) - 1;  // %u/%x of a narrow value
    if (is_signed)
      std::snprintf(buf, sizeof buf, spec.c_str(), static_cast<long long>(v.i));
    else
      std::snprintf(buf, sizeof buf, spec.c_str(), static_cast<unsigned long long>(bits));
  }
  return buf;
}

// %p: the Model's GM has no device addresses: a GM address prints as its byte offset in its kernel argument.
// %s: the bytes there up to a NUL, which must come before the argument's buffer ends (the board would read on into
// whatever follows it).
std::string format_address(const Block& b, const Op& op, const FormatPiece& piece, const RtValue& v) {
  char buf[64];
  if (piece.conversion == 'p') {
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v.addr));
    return buf;
  }
  const GmBuffer& gm = b.gm()[v.mem];
  if (v.addr < 0 || static_cast<uint64_t>(v.addr) > gm.size)
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc, "printf: %s of GM byte {} outside kernel argument {}'s {} bytes", v.addr, v.mem,
         gm.size);
  const char* start = reinterpret_cast<const char*>(gm.ptr) + v.addr;
  const size_t room = gm.size - static_cast<uint64_t>(v.addr);
  size_t n = strnlen(start, room);
  if (n == room)
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc,
         "printf: %s of kernel argument {} from byte {}: no NUL before the buffer ends ({} bytes); the board would "
         "read on into whatever follows it",
         v.mem, v.addr, gm.size);
  std::string spec = piece.text;  // width and precision apply as printf's
  std::string text(start, n);
  int len = std::snprintf(nullptr, 0, spec.c_str(), text.c_str());
  std::string out(static_cast<size_t>(std::max(len, 0)), '\0');
  std::snprintf(out.data(), out.size() + 1, spec.c_str(), text.c_str());
  return out;
}

std::string element_text(const uint8_t* p, DType d) {
  RtValue v;
  load_scalar(v, d, p);
  char buf[64];
  if (dtype_is_float(d))
    std::snprintf(buf, sizeof buf, "%f", v.f);
  else if (dtype_is_int(d) && !dtype_is_signed(d))
    std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(v.i));
  else
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v.i));
  return buf;
}

}  // namespace

void exec_Printf(Block& b, const Op& op, const RtValue* in, RtValue*) {
  std::string text;
  size_t arg = 0;
  for (const FormatPiece& piece : parse_printf_format(op.attr(0).s)) {
    if (!piece.conversion) {
      text += piece.text;
      continue;
    }
    if (conversion_is_address(piece.conversion))
      text += format_address(b, op, piece, in[arg]);
    else
      text += format_one(piece, in[arg], b.kernel().type_of(op.operands[arg]).dtype);
    ++arg;
  }
  b.print(text);
}

// "DumpTensor: desc=..., addr=..., data_type=..., position=..., dump_size=N"
// then the values: one bracketed list, or rows of the ShapeInfo's last
// dimension ("-" where the shape asks for more elements than were dumped).
void exec_DumpTensor(Block& b, const Op& op, const RtValue* in, RtValue*) {
  const Type& t = b.kernel().type_of(op.operands[0]);
  DType d = t.dtype;
  int64_t n = in[2].i, size = dtype_size(d);
  const char* position = t.kind == TypeKind::GlobalTensor ? "GM" : "UB";
  std::string text = fmt::format("DumpTensor: desc={}, addr={:#x}, data_type={}, position={}, dump_size={}\n", in[1].i,
                                 in[0].addr, dtype_name(d), position, n);
  const uint8_t* data = b.effect_ptr(0);
  std::vector<int64_t> shape;
  for (size_t i = 3; i < op.operands.size(); ++i) shape.push_back(in[i].i);
  int64_t shape_size = shape.empty() ? n : 1;
  for (int64_t s : shape) shape_size *= s;
  if (!shape.empty() && shape_size < n)
    text +=
        fmt::format("shape size {} is smaller than dump_size {}: only the shape's elements are shown\n", shape_size, n);
  if (!shape.empty() && shape_size > n)
    text +=
        fmt::format("shape size {} is larger than dump_size {}: the missing elements are shown as -\n", shape_size, n);
  int64_t depth = std::max<size_t>(shape.size(), 1);
  text += std::string(static_cast<size_t>(depth), '[');
  for (int64_t i = 0; i < shape_size; ++i) {
    if (i > 0) {
      // close and reopen one bracket per dimension that wraps here
      int64_t closing = 0, stride = 1;
      for (size_t k = shape.size(); k-- > 0 && i % (stride *= shape[k]) == 0;) ++closing;
      text += closing ? std::string(static_cast<size_t>(closing), ']') + ",\n" +
                            std::string(static_cast<size_t>(closing), '[')
                      : ", ";
    }
    text += i < n ? element_text(data + i * size, d) : "-";
  }
  text += std::string(static_cast<size_t>(depth), ']') + "\n";
  b.print(text);
}

// "DumpAccChkPoint: index=I, count_off=C, addr=A, data_type=..., position=..., dump_size=N", then the N elements
// from element C on, as dump_tensor prints them; addr is element C's.
void exec_DumpAccChkPoint(Block& b, const Op& op, const RtValue* in, RtValue*) {
  const Type& t = b.kernel().type_of(op.operands[0]);
  DType d = t.dtype;
  int64_t index = in[1].i, off = in[2].i, n = in[3].i, size = dtype_size(d);
  const char* position = t.kind == TypeKind::GlobalTensor ? "GM" : "UB";
  const uint8_t* data = b.dynamic_access(0, off * size, n * size);
  std::string text = fmt::format(
      "DumpAccChkPoint: index={}, count_off={}, addr={:#x}, data_type={}, position={}, "
      "dump_size={}\n[",
      index, off, in[0].addr + off * size, dtype_name(d), position, n);
  for (int64_t i = 0; i < n; ++i) text += (i ? ", " : "") + element_text(data + i * size, d);
  b.print(text + "]\n");
}

// Ascend C's line; the timestamp is the cycle the scalar unit dispatches this instruction at, on the core's
// timeline from 0 at the launch (the board's is a system cycle counter); the Model has no program counter
void exec_PrintTimeStamp(Block& b, const Op&, const RtValue* in, RtValue*) {
  b.print(fmt::format("descId is {}, rsv is 0, timeStamp is {}, pcPtr is 0, entry is 0.\n",
                      static_cast<uint32_t>(in[0].i), b.timeline().scalar_cycle()));
}

void exec_MetricsProfStart(Block&, const Op&, const RtValue*, RtValue*) {}
void exec_MetricsProfStop(Block&, const Op&, const RtValue*, RtValue*) {}
void exec_DataCacheCleanAndInvalid(Block&, const Op&, const RtValue*, RtValue*) {}
void exec_DataCacheCleanAndInvalidNoDst(Block&, const Op&, const RtValue*, RtValue*) {}
void exec_DataCachePreload(Block&, const Op&, const RtValue*, RtValue*) {}
void exec_ICachePreload(Block&, const Op&, const RtValue*, RtValue*) {}
void exec_GetICachePreloadStatus(Block&, const Op&, const RtValue*, RtValue* out) { set_int(*out, DType::Int64, 0); }

}  // namespace asc::sim
