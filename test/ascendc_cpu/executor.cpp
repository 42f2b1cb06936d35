// libasc_cpu.so: runs a kernel compiled from emitted Ascend C against
// kernel_operator.h on the CPU. Each API call becomes a one-op IR kernel
// (cached by op, operand types and attributes) whose parameters are the call's
// operands; a Block runs it on the core's persistent on-chip memories, with
// the vector mask, compare and atomic registers carried from call to call.
// What it computes is therefore what the Model's handlers compute, op by op.
#include <dlfcn.h>

#include <array>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "asc/asc.h"
#include "asc_cpu_runtime.h"
#include "ir/builder.h"
#include "runtime/compile.h"
#include "sim/block.h"
#include "sim/cross_core.h"
#include "target/cores.h"
#include "target/platform.h"
#include "target/scalar_arith.h"

namespace ascendc_cpu {
namespace {

using namespace asc;

// One core's state for the whole run of the kernel on it.
struct Core {
  const Platform* platform = nullptr;
  CoreInstance instance{};
  uint32_t block_dim = 0;
  KernelType kernel_type = KernelType::AivOnly;
  std::vector<sim::GmBuffer> gm;
  std::array<std::vector<uint8_t>, kMemoryCount> memories;
  sim::VectorMaskReg mask{};
  sim::AtomicMode atomic{};
  uint64_t cmp_mask[2] = {0, 0};
  uint64_t fixpipe_quant = 0;
  uint16_t mrg_sort_result[4] = {0, 0, 0, 0};
  sim::DeqScaleReg deq{};           // DEQSCALE (set_deq_scale)
  uint64_t gather_mask_remain = 0;  // RSVD_CNT (the last gather_mask's kept count)
  sim::CubeModes cube;              // HF32, load_data (3-D) registers, the sparse index buffer
  sim::PadValueReg pad_value{};
  sim::AippRegs aipp{};
  // Per (HardEvent, id): sets minus waits so far. A wait may come first in
  // program order (issued to its pipe before the set on another pipe); a wait
  // still unmatched when the kernel ends would hang the NPU.
  std::map<std::pair<int, int64_t>, int64_t> flags;
  std::mutex* gm_atomic = nullptr;  // shared by the launch's cores
  sim::CrossCore* cross = nullptr;  // set when the cores run on threads of their own
  std::string output;               // printf / DumpTensor text
  bool line_start = true;           // the next text printed starts a line
};
thread_local Core* current = nullptr;

constexpr uint32_t kNowhere = UINT32_MAX;  // Operand::mem of a GlobalTensor outside every GM buffer

Core& core() {
  if (!current) throw std::runtime_error("an Ascend C call outside asc_cpu_run");
  return *current;
}

struct OneOp {
  const Kernel* kernel;
  uint32_t result;
};

// The one-op kernels, shared by all runs in the process.
struct Cache {
  std::mutex mutex;
  Module module;
  std::map<std::string, OneOp> kernels;
};
Cache& cache() {
  static Cache c;
  return c;
}

Type operand_type(const Operand& o) {
  auto dtype = static_cast<DType>(o.dtype);
  switch (o.kind) {
    case ASC_TYPE_SCALAR: return Type::scalar(dtype);
    case ASC_TYPE_GLOBAL_TENSOR: return Type::global_tensor(dtype);
    case ASC_TYPE_LOCAL_TENSOR: return Type::local_tensor(dtype, static_cast<Position>(o.position));
    default: throw std::runtime_error("an operand of unknown kind");
  }
}

// A local tensor is not a kernel parameter: the one-op kernel creates it from
// three integer parameters, an aligned address, a length and an element offset
// (a slice need not start on the memory's alignment).
bool is_local(const Operand& o) { return o.kind == ASC_TYPE_LOCAL_TENSOR; }

std::vector<Type> param_types(const Operand* operands, size_t n) {
  std::vector<Type> types;
  for (size_t i = 0; i < n; ++i) {
    if (is_local(operands[i]))
      types.insert(types.end(), 3, Type::scalar(DType::Int64));
    else if (!operands[i].constant)
      types.push_back(operand_type(operands[i]));
  }
  return types;
}

void add_param_values(const Operand& o, std::vector<sim::RtValue>& values) {
  if (o.constant) return;  // built into the one-op kernel
  if (!is_local(o)) {
    sim::RtValue v;
    v.i = o.i;
    v.f = o.f;
    v.addr = o.addr;
    v.len = o.len;
    v.mem = o.mem;
    values.push_back(v);
    return;
  }
  int64_t align = memory_alignment(position_memory(static_cast<Position>(o.position)));
  int64_t size = dtype_size(static_cast<DType>(o.dtype));
  int64_t base = o.addr / align * align, offset = (o.addr - base) / size;
  for (int64_t x : {base, static_cast<int64_t>(o.len) + offset, offset}) {
    sim::RtValue v;
    v.i = x;
    values.push_back(v);
  }
}

OneOp one_op(const char* name, const Operand* operands, size_t n, const int64_t* attrs, size_t n_attrs,
             const char* text, KernelType kernel_type) {
  std::vector<Type> types = param_types(operands, n);
  std::string key = name;
  if (text) key += std::string("\"") + text;
  key += "@" + std::to_string(static_cast<int>(kernel_type));
  for (size_t i = 0; i < n; ++i) {
    key += "|" + operand_type(operands[i]).str();
    if (operands[i].constant) key += "=" + std::to_string(operands[i].i);
  }
  for (size_t i = 0; i < n_attrs; ++i) key += "#" + std::to_string(attrs[i]);
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  auto it = c.kernels.find(key);
  if (it != c.kernels.end()) return it->second;
  std::vector<Type> op_types;
  for (size_t i = 0; i < n; ++i) op_types.push_back(operand_type(operands[i]));
  const OpInfo* info = find_op(name, op_types);
  if (!info) throw std::runtime_error(std::string("no IR op named ") + name);
  if (n_attrs > info->attrs.size()) throw std::runtime_error(std::string(name) + ": too many attributes");
  Builder b(std::string("cpu_") + name, types);
  b.set_option("kernel_type", static_cast<int64_t>(kernel_type));  // errors and printf name the core as the Model does
  std::vector<uint32_t> op_operands;
  size_t param = 0;
  for (size_t i = 0; i < n; ++i) {
    if (operands[i].constant) {
      Attr dtype, value;
      dtype.i = operands[i].dtype;
      value.i = operands[i].i;
      op_operands.push_back(b.add_op("const", {}, {{"dtype", dtype}, {"value", value}}, Location{}));
      continue;
    }
    if (!is_local(operands[i])) {
      op_operands.push_back(b.param(param++));
      continue;
    }
    Attr dtype, position;
    dtype.i = operands[i].dtype;
    position.i = operands[i].position;
    uint32_t whole = b.add_op("local_tensor.create", {b.param(param), b.param(param + 1)},
                              {{"dtype", dtype}, {"position", position}}, Location{});
    op_operands.push_back(b.add_op("local_tensor.slice", {whole, b.param(param + 2)}, {}, Location{}));
    param += 3;
  }
  std::vector<AttrInput> attr_inputs;
  for (size_t i = 0; i < n_attrs; ++i) {
    Attr a;
    a.i = attrs[i];
    attr_inputs.push_back({info->attrs[i].name, a});
  }
  if (text) {
    Attr a;
    a.kind = ASC_ATTR_STRING;
    a.s = text;
    attr_inputs.push_back({info->attrs.at(0).name, a});
  }
  uint32_t result = b.add_op(name, op_operands, attr_inputs, Location{});
  OneOp made{compile_kernel(c.module, b), result};
  c.kernels.emplace(key, made);
  return made;
}

Operand from_rt(const sim::RtValue& v, const Type& t) {
  Operand o;
  o.kind = static_cast<uint8_t>(t.kind);
  o.dtype = static_cast<uint8_t>(t.dtype);
  o.position = static_cast<uint8_t>(t.position);
  o.i = v.i;
  o.f = v.f;
  o.addr = v.addr;
  o.len = v.len;
  o.mem = v.mem;
  return o;
}

}  // namespace

namespace {

Operand run_op(const char* name, const Operand* operands, size_t n, const int64_t* attrs, size_t n_attrs,
               const char* text) {
  Core& c = core();
  std::vector<sim::RtValue> values;
  for (size_t i = 0; i < n; ++i) {
    if (operands[i].kind == ASC_TYPE_GLOBAL_TENSOR && operands[i].mem == kNowhere)
      throw std::runtime_error(std::string(name) +
                               ": a GlobalTensor whose address is in none of the kernel's GM "
                               "buffers");
    add_param_values(operands[i], values);
  }
  try {
    OneOp op = one_op(name, operands, n, attrs, n_attrs, text, c.kernel_type);
    sim::LaunchOptions options;
    options.sanitize = false;
    options.max_ops = 0;
    sim::LaunchContext ctx{*op.kernel, *c.platform, c.block_dim, c.gm, values, options};
    ctx.gm_atomic = c.gm_atomic;
    ctx.cross = c.cross;
    std::array<uint8_t*, kMemoryCount> local{};
    for (size_t m = 0; m < kMemoryCount; ++m) local[m] = c.memories[m].data();
    std::vector<sim::LineCost> per_op(op.kernel->num_ops);  // (the executor reports no timing)
    sim::Block block(ctx, c.instance, local, per_op.data());
    block.mask_register() = c.mask;
    block.atomic_mode() = c.atomic;
    std::memcpy(block.cmp_mask(), c.cmp_mask, sizeof c.cmp_mask);
    block.fixpipe_quant_scalar() = c.fixpipe_quant;
    std::memcpy(block.mrg_sort_result(), c.mrg_sort_result, sizeof c.mrg_sort_result);
    block.deq_register() = c.deq;
    block.gather_mask_remain() = c.gather_mask_remain;
    block.cube_modes() = c.cube;
    block.pad_value_register() = c.pad_value;
    block.aipp_registers() = c.aipp;
    block.output_line_start() = c.line_start;
    block.run();
    c.output += block.take_output();
    c.line_start = block.output_line_start();
    c.mask = block.mask_register();
    c.atomic = block.atomic_mode();
    std::memcpy(c.cmp_mask, block.cmp_mask(), sizeof c.cmp_mask);
    c.fixpipe_quant = block.fixpipe_quant_scalar();
    std::memcpy(c.mrg_sort_result, block.mrg_sort_result(), sizeof c.mrg_sort_result);
    c.deq = block.deq_register();
    c.gather_mask_remain = block.gather_mask_remain();
    c.cube = std::move(block.cube_modes());
    c.pad_value = block.pad_value_register();
    c.aipp = block.aipp_registers();
    if (op.result == kNoValue) return Operand{};
    return from_rt(block.reg(op.result), op.kernel->type_of(op.result));
  } catch (const Error& e) {
    throw std::runtime_error(std::string(name) + ": " + e.what());
  }
}

}  // namespace

Operand call(const char* name, const Operand* operands, size_t n, const int64_t* attrs, size_t n_attrs) {
  return run_op(name, operands, n, attrs, n_attrs, nullptr);
}

Operand call_with_text(const char* name, const Operand* operands, size_t n, const char* text) {
  return run_op(name, operands, n, nullptr, 0, text);
}

Operand global_tensor(const void* p, uint8_t dtype, bool has_length, uint64_t length) {
  Core& c = core();
  const auto* ptr = static_cast<const uint8_t*>(p);
  for (size_t i = 0; i < c.gm.size(); ++i) {
    const sim::GmBuffer& b = c.gm[i];
    if (!b.ptr || ptr < b.ptr || ptr > b.ptr + b.size) continue;
    Operand o;
    o.kind = ASC_TYPE_GLOBAL_TENSOR;
    o.dtype = dtype;
    o.mem = static_cast<uint32_t>(i);
    o.addr = ptr - b.ptr;
    o.len = has_length ? length : sim::kUnknownLength;
    return o;
  }
  // Setting such an address is harmless (the Model too checks GM when it is accessed): a call using it fails.
  Operand o;
  o.kind = ASC_TYPE_GLOBAL_TENSOR;
  o.dtype = dtype;
  o.mem = kNowhere;
  return o;
}

std::vector<std::pair<uint64_t, uint64_t>> origins;  // the caller's (address, bytes) of each launch argument

uint64_t relocate_gm(uint64_t address) {
  Core& c = core();
  for (size_t i = 0; i < origins.size() && i < c.gm.size(); ++i) {
    auto [base, size] = origins[i];
    if (c.gm[i].ptr && address >= base && address < base + size)
      return reinterpret_cast<uintptr_t>(c.gm[i].ptr) + (address - base);
  }
  return address;
}

void flag(bool set, int event, int64_t id) { core().flags[{event, id}] += set ? 1 : -1; }

void check_gm(const void* begin, const void* end) {
  const auto *b = static_cast<const uint8_t*>(begin), *e = static_cast<const uint8_t*>(end);
  for (const sim::GmBuffer& buffer : core().gm)
    if (buffer.ptr && b >= buffer.ptr && e <= buffer.ptr + buffer.size && b <= e) return;
  throw std::runtime_error("the Matmul reads GM outside the launch's buffers");
}

void write_local(const Operand& tensor, const void* bytes, size_t n) {
  Memory m = position_memory(static_cast<Position>(tensor.position));
  std::vector<uint8_t>& memory = core().memories[static_cast<size_t>(m)];
  if (tensor.addr < 0 || static_cast<uint64_t>(tensor.addr) + n > memory.size())
    throw std::runtime_error("the Matmul's result block does not fit its on-chip memory on this core");
  std::memcpy(memory.data() + tensor.addr, bytes, n);
}

int64_t block_idx() { return core().instance.block_idx; }
int64_t block_num() { return core().block_dim; }
int64_t sub_block_idx() { return core().instance.sub_block_idx; }
int64_t sub_block_num() { return core().instance.sub_block_num; }
bool is_aic() { return core().instance.kind == CoreKind::AIC; }

}  // namespace ascendc_cpu

namespace {

// The kernel's arguments as the entry point takes them: a pointer to each value.
struct EntryArgs {
  std::vector<std::array<uint8_t, 8>> storage;
  std::vector<void*> pointers;

  explicit EntryArgs(const asc_arg_t* args, size_t n) : storage(n), pointers(n) {
    for (size_t i = 0; i < n; ++i) {
      uint8_t* s = storage[i].data();
      const asc_arg_t& a = args[i];
      if (a.kind != ASC_ARG_SCALAR) {
        std::memcpy(s, &a.ptr, sizeof a.ptr);
      } else {
        auto d = static_cast<asc::DType>(a.dtype);
        asc::store_arg_scalar(s, d, a.i, a.f);
      }
      pointers[i] = s;
    }
  }
};

void write_error(char* err, size_t cap, const std::string& message) {
  if (!err || !cap) return;
  size_t n = std::min(cap - 1, message.size());
  std::memcpy(err, message.data(), n);
  err[n] = 0;
}

std::string last_output;  // what the last asc_cpu_run printed, in core order

// One core's run of the kernel; a failure is kept in `error`.
void run_core(void (*entry)(void* const*), void* const* args, ascendc_cpu::Core& c, std::string& error) {
  ascendc_cpu::current = &c;
  try {
    entry(args);
    for (const auto& [key, balance] : c.flags)
      if (balance < 0)
        throw std::runtime_error(std::string("WaitFlag<") + asc::hard_event(key.first).name + ">(" +
                                 std::to_string(key.second) + ") is never set: the NPU would wait forever");
  } catch (const std::exception& e) {
    error = asc::core_label(c.kernel_type, c.instance) + ": " + e.what();
    if (c.cross) c.cross->abort();
  }
  if (c.cross) c.cross->finished();
  ascendc_cpu::current = nullptr;
}

}  // namespace

// Runs the kernel in `so_path` (its entry point `asc_cpu_entry(void* const* args)`) on every core of a launch:
// one after another, or (`threads`, for kernels that synchronise cores) each on a thread of its own, as the Model
// does. The on-chip memories start filled with the byte `fill` (a second run with another fill shows which
// results depend on memory the kernel never wrote). Returns 0, or -1 with the first failing core's error in `err`.
extern "C" __attribute__((visibility("default"))) int asc_cpu_run(const char* so_path, const char* platform,
                                                                  int kernel_type, uint32_t block_dim, int threads,
                                                                  int fill, const asc_arg_t* args, size_t n_args,
                                                                  char* err, size_t err_cap) {
  using namespace asc;
  last_output.clear();
  void* so = dlopen(so_path, RTLD_NOW | RTLD_LOCAL);
  if (!so) {
    write_error(err, err_cap, std::string("dlopen: ") + dlerror());
    return -1;
  }
  using Entry = void (*)(void* const*);
  auto entry = reinterpret_cast<Entry>(dlsym(so, "asc_cpu_entry"));
  int status = 0;
  try {
    if (!entry) throw std::runtime_error("no asc_cpu_entry in the kernel library");
    const Platform* p = find_platform(platform);
    if (!p) throw std::runtime_error(std::string("unknown platform ") + platform);
    auto type = static_cast<KernelType>(kernel_type);
    EntryArgs entry_args(args, n_args);
    std::vector<CoreInstance> instances = core_instances(type, block_dim);
    std::unique_ptr<sim::CrossCore> cross;
    if (threads) cross = std::make_unique<sim::CrossCore>(instances);
    std::mutex gm_atomic;
    std::vector<std::unique_ptr<ascendc_cpu::Core>> cores;
    for (const CoreInstance& instance : instances) {
      auto c = std::make_unique<ascendc_cpu::Core>();
      c->platform = p;
      c->instance = instance;
      c->block_dim = block_dim;
      c->kernel_type = type;
      c->gm_atomic = &gm_atomic;
      c->cross = cross.get();
      for (size_t i = 0; i < n_args; ++i)
        c->gm.push_back(args[i].kind == ASC_ARG_SCALAR
                            ? sim::GmBuffer{nullptr, 0}
                            : sim::GmBuffer{static_cast<uint8_t*>(args[i].ptr), args[i].size});
      for (size_t m = 0; m < kMemoryCount; ++m)
        if (core_has_memory(type, instance.kind, static_cast<Memory>(m)))
          c->memories[m].assign(memory_bytes(*p, static_cast<Memory>(m)), static_cast<uint8_t>(fill));
      cores.push_back(std::move(c));
    }
    std::vector<std::string> errors(cores.size());
    if (threads) {
      std::vector<std::thread> running;
      for (size_t i = 0; i < cores.size(); ++i)
        running.emplace_back(run_core, entry, entry_args.pointers.data(), std::ref(*cores[i]), std::ref(errors[i]));
      for (auto& t : running) t.join();
    } else {
      for (size_t i = 0; i < cores.size(); ++i) {
        run_core(entry, entry_args.pointers.data(), *cores[i], errors[i]);
        if (!errors[i].empty()) break;  // the Model stops at the first failing block too
      }
    }
    for (size_t i = 0; i < cores.size(); ++i) {
      last_output += cores[i]->output;
      if (!cores[i]->output.empty() && cores[i]->output.back() != '\n') last_output += '\n';
    }
    // the first failure that is not a core abandoned because another failed
    std::string first;
    for (const std::string& e : errors)
      if (!e.empty() && (first.empty() || first.find(sim::CrossCore::kAbandoned) != std::string::npos)) first = e;
    if (!first.empty()) throw std::runtime_error(first);
  } catch (const std::exception& e) {
    write_error(err, err_cap, e.what());
    status = -1;
  }
  dlclose(so);
  return status;
}

// Where the next asc_cpu_run's buffers came from: argument i copies `sizes[i]` bytes at `addresses[i]` (0: a scalar).
extern "C" __attribute__((visibility("default"))) void asc_cpu_set_origins(const uint64_t* addresses,
                                                                           const uint64_t* sizes, size_t n) {
  ascendc_cpu::origins.clear();
  for (size_t i = 0; i < n; ++i) ascendc_cpu::origins.emplace_back(addresses[i], sizes[i]);
}

// What the last asc_cpu_run printed (printf, DumpTensor), as the Model's stream output reads.
extern "C" __attribute__((visibility("default"))) size_t asc_cpu_last_output(char* buf, size_t cap) {
  if (buf && cap) write_error(buf, cap, last_output);
  return last_output.size();
}
