#include "ir/builder.h"

#include <cstdlib>

#include "ir/op_check.h"

namespace asc {
namespace {

// ASC_MAX_KERNEL_OPS: a whole number (0: no limit); anything else is an error rather than a silent default.
uint64_t max_ops_from_environment() {
  const char* text = std::getenv("ASC_MAX_KERNEL_OPS");
  if (!text) return Builder::kDefaultMaxOps;
  std::string s(text);
  if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos)
    fail(ASC_ERR_INVALID_ARGUMENT, "ASC_MAX_KERNEL_OPS must be a whole number of operations (0: no limit), not '{}'",
         s);
  return std::stoull(s);
}

}  // namespace

Builder::Builder(std::string name, std::vector<Type> params) {
  if (name.empty()) fail(ASC_ERR_INVALID_ARGUMENT, "a kernel needs a name");
  kernel_ = std::make_unique<Kernel>();
  kernel_->name = std::move(name);
  kernel_->num_params = params.size();
  max_ops_ = max_ops_from_environment();
  for (const Type& t : params) {
    if (t.kind == TypeKind::None || t.kind == TypeKind::LocalTensor)
      fail(ASC_ERR_TYPE, "kernel parameters are scalars, GM addresses or GlobalTensors, not {}", t.str());
    new_value(t, nullptr);
  }
}

uint32_t Builder::new_value(const Type& t, const Op* def) {
  live_.push_back(1);
  return kernel_->new_value(t, def);
}

uint32_t Builder::param(size_t index) const {
  if (index >= kernel_->num_params)
    fail(ASC_ERR_INVALID_ARGUMENT, "parameter index {} out of range (kernel has {})", index, kernel_->num_params);
  return static_cast<uint32_t>(index);
}

const Type& Builder::value_type(uint32_t v) const {
  if (v >= kernel_->value_types.size()) fail(ASC_ERR_INVALID_ARGUMENT, "%{} is not a value of this kernel", v);
  return kernel_->value_types[v];
}

Location Builder::location(const char* file, size_t len, uint32_t line, uint32_t col) {
  Location loc;
  loc.line = line;
  loc.col = col;
  if (file && len) {
    std::string_view name(file, len);
    auto it = files_.find(name);
    if (it == files_.end()) it = files_.emplace(std::string(name), std::make_shared<const std::string>(name)).first;
    loc.file = it->second;
  }
  return loc;
}

Region& Builder::current_region() {
  if (stack_.empty()) return kernel_->body;
  return stack_.back().op->regions[stack_.back().region];
}

void Builder::check_operands_live(const std::vector<uint32_t>& operands, const Location& loc) const {
  for (size_t i = 0; i < operands.size(); ++i) {
    uint32_t v = operands[i];
    if (v >= live_.size()) fail(ASC_ERR_INVALID_ARGUMENT, loc, "operand {} (%{}) is not a value of this kernel", i, v);
    if (!live_[v]) fail(ASC_ERR_VERIFY, loc, "operand {} (%{}) was defined inside a region that has ended", i, v);
  }
}

Op& Builder::append(OpCode code, std::vector<uint32_t> operands, std::vector<Attr> attrs, const Location& loc) {
  if (max_ops_ && ++ops_ > max_ops_)
    fail(ASC_ERR_UNSUPPORTED, loc,
         "kernel '{}' has more than {} operations as built: device functions are inlined at every call, so calls "
         "nested in calls multiply (n levels of two calls each make 2^n copies); repeat work with a loop "
         "(for ... in range) instead of repeated calls, or raise the limit (ASC_MAX_KERNEL_OPS, 0: none)",
         kernel_->name, max_ops_);
  check_operands_live(operands, loc);
  Type result;
  auto op = make_op(*kernel_, code, std::move(operands), std::move(attrs), loc, &result);
  if (result.kind != TypeKind::None) op->result = new_value(result, op.get());
  Region& region = current_region();
  region.ops.push_back(std::move(op));
  return *region.ops.back();
}

uint32_t Builder::add_op(std::string_view name, const std::vector<uint32_t>& operands,
                         const std::vector<AttrInput>& attrs, const Location& loc) {
  check_operands_live(operands, loc);
  std::vector<Type> types;
  for (uint32_t v : operands) types.push_back(kernel_->value_types[v]);
  const OpInfo* info = find_op(name, types);
  if (!info) {
    if (name == "data_copy")
      fail(ASC_ERR_TYPE, loc,
           "data_copy copies (LocalTensor <- GlobalTensor), (GlobalTensor <- LocalTensor) or "
           "(LocalTensor <- LocalTensor) with a count or the 4 DataCopyParams fields; got {} operand(s)",
           operands.size());
    fail(ASC_ERR_UNKNOWN_OP, loc, "unknown op '{}'", name);
  }
  if (info->regions != 0)
    fail(ASC_ERR_INVALID_ARGUMENT, loc, "'{}' owns regions; use the asc_builder_{}_begin/end calls", name, name);

  std::vector<Attr> normalised(info->attrs.size());
  std::vector<uint8_t> seen(info->attrs.size(), 0);
  for (const auto& in : attrs) {
    int idx = attr_index(*info, in.name);
    if (idx < 0) fail(ASC_ERR_TYPE, loc, "{}: unknown attribute '{}'", info->name, in.name);
    normalised[idx] = in.value;
    if (in.value.kind == ASC_ATTR_INT && info->attrs[idx].kind == ASC_ATTR_FLOAT)
      normalised[idx].f = static_cast<double>(in.value.i);
    seen[idx] = 1;
  }
  for (size_t i = 0; i < info->attrs.size(); ++i) {
    if (seen[i]) continue;
    if (info->attrs[i].required) fail(ASC_ERR_TYPE, loc, "{}: missing attribute '{}'", info->name, info->attrs[i].name);
    normalised[i].kind = info->attrs[i].kind;
    normalised[i].i = info->attrs[i].default_int;
  }
  if (info->code == OpCode::LocalAuto) uses_auto_tensors_ = true;
  return append(info->code, operands, std::move(normalised), loc).result;
}

void Builder::set_option(std::string_view name, int64_t value) {
  if (name == "auto_sync")
    kernel_->options.auto_sync = value != 0;
  else if (name == "insert_sync")
    kernel_->options.insert_sync = value != 0;
  else if (name == "buffer_tokens")
    kernel_->options.buffer_tokens = value != 0;
  else if (name == "split_cube_vector")
    kernel_->options.split_cube_vector = value != 0;
  else if (name == "split_credits" && value >= 0 && value < (1 << 16))
    kernel_->options.split_credits = static_cast<uint32_t>(value);
  else if (name == "split_credits")
    fail(ASC_ERR_INVALID_ARGUMENT, "split_credits is a mask of the 16 cross-core flags, not {}", value);
  else if (name == "kernel_type" && value >= 0 && value < kKernelTypeCount)
    kernel_->options.kernel_type = static_cast<KernelType>(value);
  else if (name == "max_ops" && value >= 0)
    max_ops_ = static_cast<uint64_t>(value);
  else if (name == "max_ops")
    fail(ASC_ERR_INVALID_ARGUMENT, "builder option max_ops must be >= 0 (0: no limit), not {}", value);
  else if (name == "kernel_type")
    fail(ASC_ERR_INVALID_ARGUMENT, "kernel_type must be 0..{} (pyasc's KernelType), got {}", kKernelTypeCount - 1,
         value);
  else
    fail(ASC_ERR_INVALID_ARGUMENT,
         "unknown option '{}' (known: auto_sync, buffer_tokens, insert_sync, kernel_type, max_ops, split_credits, "
         "split_cube_vector)",
         name);
}

// Every pass walks regions recursively: a bound on nesting keeps the recursion (and the sync analysis, which
// re-walks each loop body) small. Kernels nest a handful of levels.
constexpr size_t kMaxNesting = 32;

void Builder::open_region(const char* what, const Location& loc) {
  if (stack_.size() >= kMaxNesting)
    fail(ASC_ERR_UNSUPPORTED, loc, "{} nested {} regions deep; kernels may nest for/if at most {} deep", what,
         stack_.size() + 1, kMaxNesting);
}

uint32_t Builder::for_begin(uint32_t lb, uint32_t ub, uint32_t step, const Location& loc) {
  open_region("for", loc);
  Op& op = append(OpCode::For, {lb, ub, step}, {}, loc);
  stack_.push_back({&op, 0});
  return op.result;
}

Builder::Frame& Builder::top(OpCode expected, const char* what) {
  if (stack_.empty() || stack_.back().op->code != expected)
    fail(ASC_ERR_INVALID_ARGUMENT, "{} without a matching begin", what);
  return stack_.back();
}

void Builder::close_region(Region& region) {
  for (const auto& op : region.ops)
    if (op->result != kNoValue) live_[op->result] = 0;
}

void Builder::for_end() {
  Frame& f = top(OpCode::For, "for_end");
  close_region(f.op->regions[0]);
  live_[f.op->result] = 0;  // the induction variable
  stack_.pop_back();
}

void Builder::if_begin(uint32_t cond, const Location& loc) {
  open_region("if", loc);
  Op& op = append(OpCode::If, {cond}, {}, loc);
  stack_.push_back({&op, 0});
}

void Builder::else_begin() {
  Frame& f = top(OpCode::If, "else");
  if (f.region != 0) fail(ASC_ERR_INVALID_ARGUMENT, "else given twice for one if");
  close_region(f.op->regions[0]);
  f.region = 1;
}

void Builder::if_end() {
  Frame& f = top(OpCode::If, "if_end");
  close_region(f.op->regions[f.region]);
  stack_.pop_back();
}

std::unique_ptr<Kernel> Builder::take() {
  if (!kernel_) fail(ASC_ERR_INVALID_ARGUMENT, "the builder's kernel was already taken");
  if (!stack_.empty())
    fail(ASC_ERR_VERIFY, stack_.back().op->loc, "'{}' region was never closed", stack_.back().op->info().name);
  // LocalTensorAuto hands placement and synchronisation to the compiler.
  if (uses_auto_tensors_) kernel_->options.insert_sync = true;
  return std::move(kernel_);
}

const char* kernel_type_name(KernelType t) {
  static constexpr const char* kNames[] = {"AIV_ONLY",    "AIC_ONLY",    "MIX_AIV_HARD_SYNC", "MIX_AIC_HARD_SYNC",
                                           "MIX_AIV_1_0", "MIX_AIC_1_0", "MIX_AIC_1_1",       "MIX_AIC_1_2"};
  return kNames[static_cast<size_t>(t)];
}

}  // namespace asc
