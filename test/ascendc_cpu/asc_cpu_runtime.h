// The boundary between the CPU Ascend C header (kernel_operator.h, compiled
// into each emitted kernel) and libasc_cpu.so, which runs every API call as
// one IR op on the Model simulator's own handlers. Both sides are built by the
// same host compiler, so plain C++ crosses it, exceptions included.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ascendc_cpu {

// A run-time value as the simulator holds it, with its IR type.
struct Operand {
  uint8_t kind = 1;       // asc_type_kind_t: ASC_TYPE_SCALAR, _GLOBAL_TENSOR, _LOCAL_TENSOR
  uint8_t dtype = 0;      // asc_dtype_t
  uint8_t position = 0;   // asc_position_t (local tensors)
  int64_t i = 0;          // integer scalars
  double f = 0;           // floating-point scalars
  int64_t addr = 0;       // tensors: byte offset in their memory
  uint64_t len = 0;       // tensors: elements
  uint32_t mem = 0;       // tensors: GM argument index, or the simulator's local memory id
  bool constant = false;  // an integer the op's rules need at compile time (a reduction's result count)
};

// Runs IR op `name` with these operands and integer attributes (in the op
// table's attribute order) on the current block, and returns its result
// (a default Operand for ops without one). Throws std::runtime_error naming
// the op on any failure the Model reports (bounds, alignment, dtypes...).
Operand call(const char* name, const Operand* operands, size_t n, const int64_t* attrs, size_t n_attrs);

// The same for an op whose one attribute is text (printf's format).
Operand call_with_text(const char* name, const Operand* operands, size_t n, const char* text);

// A GlobalTensor over host pointer `p` (inside one of the launch's buffers).
Operand global_tensor(const void* p, uint8_t dtype, bool has_length, uint64_t length);

// The CPU Matmul (lib/matmul_intf.h) computes natively: it reads GM through host pointers, checked to lie in one
// of the launch's buffers, and puts its result block into on-chip memory under a local tensor, as the cube unit's
// mmad would. Both throw std::runtime_error when the bytes are out of bounds.
void check_gm(const void* begin, const void* end);
void write_local(const Operand& tensor, const void* bytes, size_t n);

// set_flag / wait_flag: the calls run eagerly in program order, which is one
// legal order of the pipes; a wait is checked against an earlier set.
void flag(bool set, int event, int64_t id);

// A GM address a launch's buffer holds (a ListTensorDesc's data pointers) names the caller's buffer; the CPU runs
// on copies of the buffers (asc_cpu_set_origins says where the originals are): the same byte of the copy, or
// `address` itself when it is in no original.
uint64_t relocate_gm(uint64_t address);

// The current core: block index, block count, sub-block index and count, and whether it is a cube core.
int64_t block_idx();
int64_t block_num();
int64_t sub_block_idx();
int64_t sub_block_num();
bool is_aic();

}  // namespace ascendc_cpu
