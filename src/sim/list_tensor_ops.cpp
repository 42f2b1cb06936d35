// ListTensorDesc and TensorDesc (ir/ops_list_tensor.cpp has the buffer's layout). A ListTensorDesc's register is
// its buffer's GM address; a TensorDesc's holds the list's buffer (mem, addr), its index (i) and dim (f), dim -1
// before get_desc fills it. Each op reads the words it needs from GM again: the buffer is the host's input.
//
// A data pointer in the buffer is a GM address: on the Model, the address of a byte of one of the launch's GM
// arguments (a numpy array's data, a torch tensor's data_ptr()). A pointer into no argument is an error: the
// Model's GM is the launch's arguments, so the list's tensors must be passed to the kernel as well.
#include <cstring>

#include "sim/handlers.h"
#include "sim/scalar_math.h"

namespace asc::sim {
namespace {

constexpr uint64_t kNoCheck = 0xffffffffu;  // Init's length / shapeSize default: not checked
constexpr uint32_t kShapeSlots = 8;         // the shape slots the emitted Ascend C declares with a TensorDesc

uint64_t word(Block& b, const Op& op, const RtValue& list, uint64_t at, const char* what) {
  const auto& gm = b.gm();
  if (list.mem >= gm.size() || !gm[list.mem].ptr)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: the ListTensorDesc's data is not a GM buffer", op.info().name);
  const GmBuffer& buf = gm[list.mem];
  uint64_t lo = static_cast<uint64_t>(list.addr) + at;
  if (lo + 8 > buf.size)
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc,
         "{}: {} is the uint64 word at byte {} of the list's buffer, past its {} bytes (a buffer ListTensorDesc "
         "can decode holds the pointer offset, the records and the pointers)",
         op.info().name, what, lo, buf.size);
  uint64_t w;
  std::memcpy(&w, buf.ptr + lo, 8);
  return w;
}

struct Layout {
  uint64_t ptr_offset;  // bytes from the buffer's start to the pointer array
  uint32_t dim;
  uint32_t record_words;  // 1 + dim (2 for a list of pointers only)
  uint32_t count;
};

// ListTensorDesc::Init's decoding, with the board's asserts as errors.
Layout decode(Block& b, const Op& op, const RtValue& list) {
  Layout l{};
  l.ptr_offset = word(b, op, list, 0, "the pointer offset");
  uint64_t head = word(b, op, list, 8, "the first record's header");
  l.dim = static_cast<uint32_t>(head & 0xffffffffu);
  uint32_t first_high = static_cast<uint32_t>(head >> 32);
  l.record_words = l.dim == 0 ? 2 : 1 + l.dim;
  if (l.ptr_offset % 8 != 0 || l.ptr_offset < 8 + 8ull * l.record_words)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "{}: the pointer offset (word 0) is {} bytes; it must be a multiple of 8 past the pointer offset and at least "
         "one record of {} words",
         op.info().name, l.ptr_offset, l.record_words);
  if (first_high != 0) {
    l.count = first_high;
  } else {
    uint64_t last = word(b, op, list, l.ptr_offset - 8ull * l.record_words, "the last record's header");
    l.count = static_cast<uint32_t>(last >> 32) + 1;
  }
  if (l.dim == 0) {
    if (l.ptr_offset != 24 || word(b, op, list, 16, "the shape word of a list of pointers") != 0xffffffffu)
      fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
           "{}: a list of pointers only (dim 0) has its shape word 0xffffffff and its pointers at byte 24, got the "
           "pointers at byte {}",
           op.info().name, l.ptr_offset);
  } else if (l.count != (l.ptr_offset - 8) / (8ull * l.record_words) || (l.ptr_offset - 8) % (8ull * l.record_words)) {
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "{}: {} records of dim {} ({} words each) do not fill the {} bytes before the pointers: the records must "
         "all have the first's dim and the count must match",
         op.info().name, l.count, l.dim, l.record_words, l.ptr_offset - 8);
  }
  return l;
}

void check_index(const Op& op, int64_t index, const Layout& l) {
  if (index < 0 || index >= static_cast<int64_t>(l.count))
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc, "{}: index {} is outside the list's {} tensors", op.info().name, index,
         l.count);
}

// GM address `p` as the launch argument whose bytes hold it.
RtValue resolve(Block& b, const Op& op, uint64_t p, int64_t index) {
  const auto& gm = b.gm();
  for (size_t j = 0; j < gm.size(); ++j) {
    uint64_t base = reinterpret_cast<uintptr_t>(gm[j].ptr);
    if (gm[j].ptr && p >= base && p < base + gm[j].size) {
      RtValue v;
      v.mem = static_cast<uint32_t>(j);
      v.addr = static_cast<int64_t>(p - base);
      v.len = kUnknownLength;
      return v;
    }
  }
  fail(ASC_ERR_OUT_OF_BOUNDS, op.loc,
       "{}: tensor {}'s data pointer {:#x} is in none of the launch's GM buffers (the Model's GM is the launch's "
       "arguments: pass the list's tensors to the kernel as well)",
       op.info().name, index, p);
}

uint64_t data_word(Block& b, const Op& op, const RtValue& list, const Layout& l, int64_t index) {
  return word(b, op, list, l.ptr_offset + 8ull * static_cast<uint64_t>(index), "a data pointer");
}

bool filled(const RtValue& desc) { return desc.f >= 0; }

void require_filled(const Op& op, const RtValue& desc) {
  if (!filled(desc))
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
         "{}: the TensorDesc has no tensor yet: fill it with ListTensorDesc.get_desc(desc, index) first",
         op.info().name);
}

}  // namespace

void exec_ListTensorDescInit(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  Layout l = decode(b, op, in[0]);
  uint64_t length = static_cast<uint64_t>(in[1].i) & 0xffffffffu,
           shape_size = static_cast<uint64_t>(in[2].i) & 0xffffffffu;
  if (length != kNoCheck && shape_size != kNoCheck) {
    if (shape_size != l.count)
      fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: shape_size is {} but the list holds {} tensors", op.info().name,
           shape_size, l.count);
    uint64_t bytes = l.ptr_offset + 8ull * l.count;
    if (length != bytes)
      fail(ASC_ERR_INVALID_ARGUMENT, op.loc,
           "{}: length is {} but the list's layout takes {} bytes (pointer offset {} + {} pointers)", op.info().name,
           length, bytes, l.ptr_offset, l.count);
  }
  // the pointer array must be there too
  word(b, op, in[0], l.ptr_offset + 8ull * l.count - 8, "the last data pointer");
  *out = in[0];
}

void exec_ListTensorDescGetSize(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  set_int(*out, DType::UInt32, decode(b, op, in[0]).count);
}

void exec_ListTensorDescGetDataPtr(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  Layout l = decode(b, op, in[0]);
  check_index(op, in[1].i, l);
  *out = resolve(b, op, data_word(b, op, in[0], l, in[1].i), in[1].i);
}

void exec_ListTensorDescGetDesc(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  Layout l = decode(b, op, in[0]);
  check_index(op, in[2].i, l);
  if (l.dim == 0)
    fail(ASC_ERR_INVALID_ARGUMENT, op.loc, "{}: the list holds data pointers only (dim 0): it has no shapes to get",
         op.info().name);
  if (l.dim > kShapeSlots)
    fail(ASC_ERR_UNSUPPORTED, op.loc, "{}: the list's tensors have {} dimensions; a TensorDesc holds up to {}",
         op.info().name, l.dim, kShapeSlots);
  // GetDesc's data pointer must be a GM address (the board asserts it is not null)
  resolve(b, op, data_word(b, op, in[0], l, in[2].i), in[2].i);
  RtValue d = in[0];
  d.i = in[2].i;
  d.f = l.dim;
  *out = d;
}

void exec_TensorDescCreate(Block&, const Op&, const RtValue*, RtValue* out) {
  *out = RtValue{};
  out->f = -1;
}

void exec_TensorDescSetShapeAddr(Block&, const Op& op, const RtValue* in, RtValue*) {
  fail(ASC_ERR_UNSUPPORTED, op.loc,
       "set_shape_addr({:#x}): a shape address is in the scalar unit's memory, which the Model does not have; every "
       "TensorDesc already has {} shape slots of its own for get_desc to fill",
       static_cast<uint64_t>(in[1].i), kShapeSlots);
}

void exec_TensorDescGetDim(Block&, const Op&, const RtValue* in, RtValue* out) {
  set_int(*out, DType::UInt64, filled(in[0]) ? static_cast<int64_t>(in[0].f) : 0);
}

void exec_TensorDescGetIndex(Block&, const Op&, const RtValue* in, RtValue* out) {
  set_int(*out, DType::UInt64, filled(in[0]) ? in[0].i : 0);
}

void exec_TensorDescGetShape(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  int64_t dim = filled(in[0]) ? static_cast<int64_t>(in[0].f) : 0, offset = in[1].i;
  if (offset < 0 || offset >= dim)
    fail(ASC_ERR_OUT_OF_BOUNDS, op.loc, "get_shape({}): the TensorDesc has {} dimensions", offset, dim);
  uint64_t record = 8 + 8ull * static_cast<uint64_t>(in[0].i) * (1 + static_cast<uint64_t>(dim));
  set_int(*out, DType::UInt64,
          static_cast<int64_t>(word(b, op, in[0], record + 8 + 8ull * static_cast<uint64_t>(offset), "a shape word")));
}

void exec_TensorDescGetDataPtr(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  require_filled(op, in[0]);
  Layout l = decode(b, op, in[0]);
  *out = resolve(b, op, data_word(b, op, in[0], l, in[0].i), in[0].i);
}

void exec_TensorDescGetDataObj(Block& b, const Op& op, const RtValue* in, RtValue* out) {
  require_filled(op, in[0]);
  Layout l = decode(b, op, in[0]);
  *out = resolve(b, op, data_word(b, op, in[0], l, in[0].i), in[0].i);
  // as long as the shape's elements
  uint64_t record = 8 + 8ull * static_cast<uint64_t>(in[0].i) * (1 + l.dim), elements = 1;
  for (uint32_t k = 0; k < l.dim; ++k) {
    uint64_t s = word(b, op, in[0], record + 8 + 8ull * k, "a shape word");
    if (s != 0 && elements > (uint64_t{1} << 48) / s)
      fail(ASC_ERR_OUT_OF_BOUNDS, op.loc, "get_data_obj: tensor {}'s shape has more elements than any memory", in[0].i);
    elements *= s;
  }
  out->len = elements;
}

}  // namespace asc::sim
