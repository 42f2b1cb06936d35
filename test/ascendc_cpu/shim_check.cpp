// Compiles kernel_operator.h with the vector shims generated from the op table
// (asc_cpu_vector_ops.inc), each instantiated for every dtype its row accepts,
// so that a shim the generator gets wrong fails the build, not a round trip.
#define ASC_CPU_SHIM_CHECK
#include "kernel_operator.h"

void asc_cpu_shim_check_all() { AscendC::asc_cpu_shim_check(); }
