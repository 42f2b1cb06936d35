/*
 * asc — the C ABI of libasc.so.
 *
 * Every entry point returns an asc_status_t; the message (and source location)
 * of the last failure on the calling thread is available from asc_last_error()
 * and asc_last_error_loc(). No C++ exception, abort or exit crosses this
 * boundary.
 *
 * Versioning: within one ASC_ABI_VERSION_MAJOR only additions are made.
 * asc_abi_version() returns (major << 16) | minor of the loaded library.
 *
 * The block between ASC_CDEF_BEGIN and ASC_CDEF_END is also read verbatim by
 * the Python package (cffi ABI mode), so it holds plain C declarations only.
 */
#ifndef ASC_ASC_H
#define ASC_ASC_H

#include <stddef.h>
#include <stdint.h>

#define ASC_ABI_VERSION_MAJOR 1
#define ASC_ABI_VERSION_MINOR 18

#if defined(_WIN32)
#define ASC_API __declspec(dllexport)
#else
#define ASC_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ASC_CDEF_BEGIN */

typedef enum asc_status {
  ASC_OK = 0,
  ASC_ERR_INVALID_ARGUMENT = 1,    /* null handle, bad index, bad enum value */
  ASC_ERR_UNKNOWN_OP = 2,          /* op name not in the op table */
  ASC_ERR_TYPE = 3,                /* operand kinds / dtypes do not fit the op */
  ASC_ERR_VERIFY = 4,              /* the verifier rejected the kernel */
  ASC_ERR_UNSUPPORTED = 5,         /* valid request this build cannot do */
  ASC_ERR_OUT_OF_BOUNDS = 6,       /* access outside a GM buffer or local memory */
  ASC_ERR_MISALIGNED = 7,          /* address or length breaks alignment rules */
  ASC_ERR_DEADLOCK = 8,            /* a wait_flag that no set_flag can satisfy */
  ASC_ERR_BACKEND_UNAVAILABLE = 9, /* e.g. NPU requested but CANN is absent */
  ASC_ERR_RUNTIME = 10,            /* other failure while running a kernel */
  ASC_ERR_BUFFER_TOO_SMALL = 11,   /* output buffer shorter than the result */
  ASC_ERR_INTERNAL = 12,           /* a bug in libasc; please report */
  ASC_ERR_RACE = 13,               /* since 1.2: pipes touch the same local memory unordered */
  ASC_ERR_UNINITIALIZED = 14,      /* since 1.2: a read of local memory nothing wrote */
  ASC_ERR_GM_CONFLICT = 15         /* since 1.2: two blocks wrote the same GM bytes */
} asc_status_t;

typedef enum asc_dtype {
  ASC_DTYPE_BOOL = 0,
  ASC_DTYPE_INT8 = 1,
  ASC_DTYPE_UINT8 = 2,
  ASC_DTYPE_INT16 = 3,
  ASC_DTYPE_UINT16 = 4,
  ASC_DTYPE_INT32 = 5,
  ASC_DTYPE_UINT32 = 6,
  ASC_DTYPE_INT64 = 7,
  ASC_DTYPE_UINT64 = 8,
  ASC_DTYPE_FLOAT16 = 9,
  ASC_DTYPE_BFLOAT16 = 10,
  ASC_DTYPE_FLOAT32 = 11,
  ASC_DTYPE_COUNT = 12
} asc_dtype_t;

typedef enum asc_type_kind {
  ASC_TYPE_NONE = 0,          /* ops without a result */
  ASC_TYPE_SCALAR = 1,        /* dtype */
  ASC_TYPE_GM_ADDR = 2,       /* pointer into a GM buffer of dtype */
  ASC_TYPE_GLOBAL_TENSOR = 3, /* dtype */
  ASC_TYPE_LOCAL_TENSOR = 4,  /* dtype + position (TPosition value) */
  /* since 1.1: the framework objects (lowered by asc_builder_finish) */
  ASC_TYPE_PIPE = 5,  /* TPipe */
  ASC_TYPE_QUEUE = 6, /* TQue / TQueBind */
  ASC_TYPE_TBUF = 7   /* TBuf */
} asc_type_kind_t;

/* TPosition values, as in pyasc / Ascend C. */
typedef enum asc_position {
  ASC_POS_GM = 0,
  ASC_POS_A1 = 1,
  ASC_POS_A2 = 2,
  ASC_POS_B1 = 3,
  ASC_POS_B2 = 4,
  ASC_POS_C1 = 5,
  ASC_POS_C2 = 6,
  ASC_POS_CO1 = 7,
  ASC_POS_CO2 = 8,
  ASC_POS_VECIN = 9,
  ASC_POS_VECOUT = 10,
  ASC_POS_VECCALC = 11
} asc_position_t;

typedef struct asc_type {
  uint32_t kind;     /* asc_type_kind_t */
  uint32_t dtype;    /* asc_dtype_t */
  uint32_t position; /* asc_position_t, local tensors only */
} asc_type_t;

/* A value inside the kernel under construction. */
typedef uint32_t asc_value_t;
#define ASC_NO_VALUE 0xFFFFFFFFu

typedef enum asc_attr_kind { ASC_ATTR_INT = 0, ASC_ATTR_FLOAT = 1, ASC_ATTR_STRING = 2 } asc_attr_kind_t;

typedef struct asc_attr {
  const char* name;
  size_t name_len;
  uint32_t kind; /* asc_attr_kind_t */
  int64_t i;
  double f;
  const char* s;
  size_t s_len;
} asc_attr_t;

/* Source location of an op: the user's Python (or other) file. */
typedef struct asc_loc {
  const char* file;
  size_t file_len;
  uint32_t line;
  uint32_t col;
} asc_loc_t;

typedef enum asc_backend { ASC_BACKEND_MODEL = 0, ASC_BACKEND_NPU = 1 } asc_backend_t;

typedef enum asc_arg_kind {
  ASC_ARG_SCALAR = 0,
  ASC_ARG_BUFFER = 1,       /* host memory (the NPU backend copies it in and out) */
  ASC_ARG_DEVICE_BUFFER = 2 /* since 1.7: memory already on the NPU (torch_npu); Backend.NPU only */
} asc_arg_kind_t;

/* One launch argument. Scalars use i (integer dtypes) or f (float dtypes);
   buffers use ptr/size (size in bytes; GM accesses outside it are errors). */
typedef struct asc_arg {
  uint32_t kind;  /* asc_arg_kind_t */
  uint32_t dtype; /* asc_dtype_t: scalar type or buffer element type */
  int64_t i;
  double f;
  void* ptr;
  uint64_t size;
} asc_arg_t;

typedef struct asc_platform_info {
  uint32_t aiv_cores;
  uint32_t aic_cores;
  uint64_t ub_bytes;
  uint64_t l1_bytes;
  uint64_t l0a_bytes;
  uint64_t l0b_bytes;
  uint64_t l0c_bytes;
  uint32_t block_bytes;  /* data block size (32) */
  uint32_t repeat_bytes; /* vector repeat size (256) */
  uint32_t max_event_id; /* event ids are 0 .. max_event_id-1 */
  double clock_ghz;
} asc_platform_info_t;

/* What the Model measured in a launch (since 1.2): estimated cycles at the
   platform clock, and busy cycles per pipe summed over blocks, indexed by
   PipeID value (S=0, V=1, M=2, MTE1=3, MTE2=4, MTE3=5, FIX=10). */
typedef struct asc_launch_stats {
  uint64_t cycles;
  double duration_us;
  uint32_t blocks;
  uint32_t n_warnings;
  uint64_t busy_cycles[11];
} asc_launch_stats_t;

/* One row of the op table (since 1.2), for tools and documentation. */
typedef struct asc_op_desc {
  const char* name;    /* IR op name, e.g. "add" or "add.mask" */
  const char* ascendc; /* Ascend C spelling, or "" */
  uint32_t pipe;       /* PipeID value of the pipe that runs it (S for scalar-unit ops) */
  uint32_t dtypes;     /* vector ops: bit d set = element dtype d accepted; else 0 */
  uint32_t family;     /* vector ops: 1 binary, 2 unary, 3 with a scalar, 4 fill (dst, scalar); else 0 */
  uint32_t mask_mode;  /* 1 for an instruction form that takes a mask (mask/repeat forms) */
} asc_op_desc_t;

typedef struct asc_module asc_module_t;
typedef struct asc_builder asc_builder_t;
typedef struct asc_kernel asc_kernel_t;
typedef struct asc_device asc_device_t;
typedef struct asc_stream asc_stream_t;

/* ---- library ---- */
ASC_API uint32_t asc_abi_version(void);
ASC_API const char* asc_last_error(void);
ASC_API asc_status_t asc_last_error_loc(const char** file, uint32_t* line, uint32_t* col);
ASC_API const char* asc_status_name(asc_status_t status);
/* 0 trace .. 6 off; the initial level comes from ASC_LOG_LEVEL. */
ASC_API asc_status_t asc_set_log_level(int32_t level);

/* ---- modules and kernel building ---- */
ASC_API asc_status_t asc_module_create(asc_module_t** out);
/* Destroys the module and every kernel built in it. */
ASC_API asc_status_t asc_module_destroy(asc_module_t* module);

ASC_API asc_status_t asc_build_kernel(asc_module_t* module, const char* name, size_t name_len, const asc_type_t* params,
                                      size_t n_params, asc_builder_t** out);
ASC_API asc_status_t asc_builder_param(asc_builder_t* builder, size_t index, asc_value_t* out);
/* Appends op `op_name` at the current insertion point. `result` receives the
   result value, or ASC_NO_VALUE for ops without one. */
ASC_API asc_status_t asc_builder_op(asc_builder_t* builder, const char* op_name, size_t op_name_len,
                                    const asc_value_t* operands, size_t n_operands, const asc_attr_t* attrs,
                                    size_t n_attrs, const asc_loc_t* loc, asc_value_t* result);
ASC_API asc_status_t asc_builder_value_type(const asc_builder_t* builder, asc_value_t value, asc_type_t* out);
/* for iv in range(lb, ub, step): opens the body region; iv is the induction variable. */
ASC_API asc_status_t asc_builder_for_begin(asc_builder_t* builder, asc_value_t lb, asc_value_t ub, asc_value_t step,
                                           const asc_loc_t* loc, asc_value_t* iv);
ASC_API asc_status_t asc_builder_for_end(asc_builder_t* builder);
ASC_API asc_status_t asc_builder_if_begin(asc_builder_t* builder, asc_value_t cond, const asc_loc_t* loc);
ASC_API asc_status_t asc_builder_else(asc_builder_t* builder);
ASC_API asc_status_t asc_builder_if_end(asc_builder_t* builder);
/* Compilation options (since 1.1), read by asc_builder_finish:
   "auto_sync" (default 1): order Scalar<->MTE2/MTE3/V and V<->V dependences;
   "insert_sync" (default 0): insert every set_flag/wait_flag/pipe_barrier the
   kernel's local-memory dependences need (implied by local_tensor.auto);
   "buffer_tokens" (default 0, since 1.14): with insert_sync, order them with
   Ascend 950's get_buf / rls_buf instead (a kernel for that generation);
   "split_cube_vector" (default 0, since 1.16): the kernel is one tile program
   of a mix kernel, split into the cube core's part and the vector cores' part
   (`if (ASCEND_IS_AIC) ... else ...`, each op where its memories are);
   "split_credits" (default 0, since 1.17): with split_cube_vector, a mask of
   the cross-core flags that hand a buffer back: for flag f (bit f), the part
   that sets it starts with one set and the part that waits for it ends with
   one wait. */
ASC_API asc_status_t asc_builder_set_option(asc_builder_t* builder, const char* name, size_t name_len, int64_t value);
/* Runs the verifier and the passes (framework lowering, local-memory
   allocation, sync insertion, verifier again). Always consumes the builder;
   on success *out is an immutable kernel owned by the module. */
ASC_API asc_status_t asc_builder_finish(asc_builder_t* builder, asc_kernel_t** out);
/* Abandons a kernel under construction. */
ASC_API asc_status_t asc_builder_destroy(asc_builder_t* builder);
/* Build logs (since 1.5): the building calls made on `builder` so far, as
   bytes, copied as asc_kernel_print copies text (plus a terminator the log
   does not count). A log replayed into a new builder with the same name and
   parameters makes the same calls, with the same checks, and so builds the
   same kernel: a persistent compile cache keeps logs, not kernels. A log that
   does not parse is ASC_ERR_INVALID_ARGUMENT naming the byte offset. Logs are
   for this build of the library only (they spell ops by IR name). */
ASC_API asc_status_t asc_builder_log(const asc_builder_t* builder, void* buf, size_t cap, size_t* len);
ASC_API asc_status_t asc_builder_replay(asc_builder_t* builder, const void* log, size_t len);

/* IR as text. Writes at most `cap` bytes (NUL-terminated when room allows)
   and the full length to *len; ASC_ERR_BUFFER_TOO_SMALL when cap <= length. */
ASC_API asc_status_t asc_kernel_print(const asc_kernel_t* kernel, char* buf, size_t cap, size_t* len);
ASC_API asc_status_t asc_builder_print(const asc_builder_t* builder, char* buf, size_t cap, size_t* len);
ASC_API asc_status_t asc_kernel_param_count(const asc_kernel_t* kernel, size_t* out);
/* (since 1.11) A compilation option the kernel was finished with, by the
   name asc_builder_set_option takes: "auto_sync", "insert_sync",
   "buffer_tokens" (since 1.14), "split_cube_vector" (since 1.16) (0 or 1),
   "split_credits" (since 1.17),
   "kernel_type" (the KernelType: 0 AIV_ONLY, 1 AIC_ONLY, 2 MIX_AIV_HARD_SYNC,
   ... 7 MIX_AIC_1_2). Another name is ASC_ERR_INVALID_ARGUMENT. */
ASC_API asc_status_t asc_kernel_option(const asc_kernel_t* kernel, const char* name, size_t name_len, int64_t* out);
/* Whether the kernel may write through parameter `index` (since 1.9): *out
   is 1 when some op's memory effect writes a GM tensor or address derived
   from it (data_copy, data_copy_pad, fixpipe, atomics, set_value ...), else
   0. Callers refuse read-only buffers for such parameters before launching.
   An index past the last parameter is ASC_ERR_INVALID_ARGUMENT. */
ASC_API asc_status_t asc_kernel_param_writes(const asc_kernel_t* kernel, size_t index, int32_t* out);
/* The kernel as Ascend C source (since 1.8): one self-contained file for the
   CANN compiler, copied out as asc_kernel_print copies text. A kernel using
   an op the emitter cannot spell yet gives ASC_ERR_UNSUPPORTED naming it and
   its source location (asc_last_error_loc). */
ASC_API asc_status_t asc_kernel_source(const asc_kernel_t* kernel, char* buf, size_t cap, size_t* len);
/* (since 1.13) The same source with each adv library call (asc.adv.sin,
   asc.adv.softmax, ...) written as the basic-API expansion the Model runs in
   place of the AscendC:: library call asc_kernel_source writes: the form a
   host build against a CPU implementation of the basic API compiles. */
ASC_API asc_status_t asc_kernel_source_expanded(const asc_kernel_t* kernel, char* buf, size_t cap, size_t* len);

ASC_API size_t asc_op_count(void);
ASC_API asc_status_t asc_op_describe(size_t index, asc_op_desc_t* out);
/* (since 1.9) What op `index` computes, one line: its op table row's doc (the
   vector instructions', e.g. "dst = src0 + src1"), "" for a row without one. */
ASC_API asc_status_t asc_op_doc(size_t index, const char** out);

/* ---- platforms, devices, streams, launch ---- */
ASC_API size_t asc_platform_count(void);
ASC_API const char* asc_platform_name(size_t index);
ASC_API asc_status_t asc_platform_query(const char* name, size_t name_len, asc_platform_info_t* out);
/* One of a platform's throughput figures (since 1.15), the physical bounds the Model's clock keeps to:
   "hbm_bytes_per_second" (all cores together), "mte_bytes_per_cycle" (one MTE engine of a vector core),
   "vector_bytes_per_cycle" (one vector core), "cube_f16_macs_per_cycle" (one cube core, float16).
   ASC_ERR_INVALID_ARGUMENT names an unknown key. */
ASC_API asc_status_t asc_platform_figure(const char* name, size_t name_len, const char* key, size_t key_len,
                                         double* out);

ASC_API asc_status_t asc_device_create(uint32_t backend, const char* platform, size_t platform_len, int32_t device_id,
                                       asc_device_t** out);
ASC_API asc_status_t asc_device_destroy(asc_device_t* device);
/* (since 1.11) The NPU backend's kernel compiler. At a kernel's first launch
   on the device, compile(user_data, kernel, buf, cap, &len) is called (on the
   launching thread, or an asynchronous stream's): it builds the kernel (its
   Ascend C is asc_kernel_source; the entry point is the kernel's name) and
   writes the absolute path of the object file ACL loads to buf, as
   asc_kernel_print copies text, returning ASC_OK; or it returns a failure
   status with the message in buf, which the launch fails with. The object is
   remembered with the kernel, so later launches call nothing. NULL (the
   default) restores libasc's own build (one bisheng command per kernel,
   cached on disk). The Model backend compiles nothing:
   ASC_ERR_INVALID_ARGUMENT. The Python package installs
   asc.runtime.compiler.Compiler here on every NPU device it creates. */
typedef asc_status_t (*asc_npu_compile_fn)(void* user_data, const asc_kernel_t* kernel, char* buf, size_t cap,
                                           size_t* len);
ASC_API asc_status_t asc_device_set_npu_compiler(asc_device_t* device, asc_npu_compile_fn compile, void* user_data);
ASC_API asc_status_t asc_stream_create(asc_device_t* device, asc_stream_t** out);
/* Runs what an asynchronous stream has queued first (failures are dropped). */
ASC_API asc_status_t asc_stream_destroy(asc_stream_t* stream);
/* Waits until the stream's launches ran. On an asynchronous stream, returns
   the first failure of the calling thread's launches since its last
   synchronize (launches queued after a failure, anyone's, did not run; the
   message says how many), or (since 1.10), when another thread's launch
   failed first, that this thread's did not run. */
ASC_API asc_status_t asc_stream_synchronize(asc_stream_t* stream);
/* Stream options (since 1.2): "sanitize" (default 1 unless ASC_SANITIZE=0)
   turns the Model's racecheck/initcheck/synccheck/GM-conflict checks on/off.
   "strict" (default 0 unless ASC_STRICT=1; new, no ABI version change): what the board runs
   and the Model otherwise warns about ("memcheck:" warnings) fails instead:
   a GM access into an argument's allocation padding (ASC_ERR_OUT_OF_BOUNDS),
   a local tensor used past its end inside its memory (ASC_ERR_OUT_OF_BOUNDS),
   blocks writing the same bytes to the same GM range (ASC_ERR_GM_CONFLICT).
   "async" (since 1.6, default 0): asc_launch checks the launch (block_dim,
   arguments) and queues it; the stream runs its launches in order on a
   thread of its own. Buffers must stay valid, and unchanged by the caller,
   until asc_stream_synchronize; the asc_stream_last_* calls describe the
   calling thread's launches since its last synchronize (their output and
   warnings added up) once they ran. Turning it off synchronizes.
   "max_ops" (since 1.7, default 2^32 or ASC_MAX_OPS; 0: no limit): a block
   that runs more ops than this, loop iterations included, fails the launch
   with ASC_ERR_RUNTIME, so a loop that never ends is an error, not a hang.
   Options are taken at each launch. */
ASC_API asc_status_t asc_stream_set_option(asc_stream_t* stream, const char* name, size_t name_len, int64_t value);
/* Directory for <kernel>.trace.json (Chrome trace) and <kernel>.lines.csv of
   each launch; empty disables. Starts from ASC_PROFILE. */
ASC_API asc_status_t asc_stream_set_profile_dir(asc_stream_t* stream, const char* dir, size_t dir_len);
/* About the calling thread's last successful launch on the stream (since
   1.10 each thread reads its own launches, whatever other threads launch on
   the stream meanwhile). Warnings are one per line; lines is CSV:
   file,line,cycles,count, most cycles first. Output (since 1.3) is the text
   of printf / dump_tensor, in block order, each line prefixed "[Block i/n] ",
   of the last launch even if it failed. */
ASC_API asc_status_t asc_stream_last_stats(const asc_stream_t* stream, asc_launch_stats_t* out);
ASC_API asc_status_t asc_stream_last_warnings(const asc_stream_t* stream, char* buf, size_t cap, size_t* len);
ASC_API asc_status_t asc_stream_last_output(const asc_stream_t* stream, char* buf, size_t cap, size_t* len);
ASC_API asc_status_t asc_stream_last_lines(const asc_stream_t* stream, char* buf, size_t cap, size_t* len);
/* (since 1.4) After every successful launch on the stream, from any thread,
   its stats are also written to *sink (NULL: no longer). `sink` must stay
   valid. Threads sharing a stream want asc_launch_with_stats instead. */
ASC_API asc_status_t asc_stream_set_stats_sink(asc_stream_t* stream, asc_launch_stats_t* sink);
/* Runs `kernel` on block_dim blocks. On the Model backend GM buffers are the
   caller's memory (no copies); results are visible when this returns, or on
   an asynchronous stream once asc_stream_synchronize returns. Threads may
   build kernels in one module and launch at once; launches on one stream run
   one after another (set a stream's options from one thread). */
ASC_API asc_status_t asc_launch(const asc_kernel_t* kernel, asc_stream_t* stream, uint32_t block_dim,
                                const asc_arg_t* args, size_t n_args);
/* (since 1.10) asc_launch, and *stats (unless NULL) receives this launch's
   stats once it ran successfully: before the call returns on a synchronous
   stream, by the time asc_stream_synchronize returns on an asynchronous one
   (then `stats` must stay valid until that; a launch that failed or did not
   run leaves it as it was). Unlike the stream's stats sink it is this launch's
   alone, so a caller that checks each launch for warnings needs no extra
   call, however many threads launch on the stream. */
ASC_API asc_status_t asc_launch_with_stats(const asc_kernel_t* kernel, asc_stream_t* stream, uint32_t block_dim,
                                           const asc_arg_t* args, size_t n_args, asc_launch_stats_t* stats);
/* (since 1.18) asc_launch_with_stats with its arguments in a struct the caller
   keeps: a caller whose calls cost per argument (cffi's ABI mode, where
   converting six arguments costs more than a small launch's blocks) fills it
   once and changes only what differs from its last launch. NULL `call` is
   ASC_ERR_INVALID_ARGUMENT. */
typedef struct asc_launch_request {
  const asc_kernel_t* kernel;
  asc_stream_t* stream;
  uint32_t block_dim;
  const asc_arg_t* args;
  size_t n_args;
  asc_launch_stats_t* stats; /* NULL: none */
} asc_launch_request_t;
ASC_API asc_status_t asc_launch_call(const asc_launch_request_t* call);

/* ---- NPU device memory, device binaries and device queries (since 1.12) ----
   The NPU backend's own memory, binaries and facts, through the Ascend
   runtime (ACL, loaded at run time). The Model has no memory of its own to
   allocate (its GM is the caller's host memory) and loads no binaries: the
   memory and binary calls on a Model device are ASC_ERR_INVALID_ARGUMENT. Without CANN (no libascendcl.so, or one
   without the ACL function a call needs) a call is ASC_ERR_BACKEND_UNAVAILABLE naming the function and what to install;
   an ACL call that fails is ASC_ERR_RUNTIME with ACL's error code and message. Pointers are device addresses, to be
   passed back as they are (asc_arg_t kind ASC_ARG_DEVICE_BUFFER takes them too). */
typedef enum asc_memcpy_kind {
  ASC_MEMCPY_HOST_TO_HOST = 0,
  ASC_MEMCPY_HOST_TO_DEVICE = 1,
  ASC_MEMCPY_DEVICE_TO_HOST = 2,
  ASC_MEMCPY_DEVICE_TO_DEVICE = 3
} asc_memcpy_kind_t;

typedef enum asc_malloc_policy {
  ASC_MALLOC_HUGE_FIRST = 0, /* huge pages when the size is over 1 MiB and there are some, else normal ones */
  ASC_MALLOC_HUGE_ONLY = 1,
  ASC_MALLOC_NORMAL_ONLY = 2
} asc_malloc_policy_t;

typedef enum asc_npu_info {
  ASC_NPU_INFO_AICORE_NUM = 0,     /* AI cores (on 910B: the cube cores) */
  ASC_NPU_INFO_CUBE_CORE_NUM = 1,  /* cube (AIC) cores */
  ASC_NPU_INFO_VECTOR_CORE_NUM = 2 /* vector (AIV) cores */
} asc_npu_info_t;

/* (since 1.12) `size` bytes (> 0) of device memory on the NPU device (aclrtMalloc
   with `policy`, an asc_malloc_policy_t), not initialised; *out is its address.
   Free it with asc_device_free before destroying the device. */
ASC_API asc_status_t asc_device_malloc(asc_device_t* device, uint64_t size, uint32_t policy, void** out);
/* (since 1.12) Frees what asc_device_malloc returned (aclrtFree). NULL is
   ASC_ERR_INVALID_ARGUMENT; another address is ACL's to refuse. */
ASC_API asc_status_t asc_device_free(asc_device_t* device, void* ptr);
/* (since 1.12) Copies `count` bytes from src to dst (aclrtMemcpy), `dst_max`
   the room at dst; `kind` (an asc_memcpy_kind_t) says which sides are device
   memory. count > dst_max and a null pointer are ASC_ERR_INVALID_ARGUMENT;
   count 0 copies nothing. The copy is complete when the call returns. */
ASC_API asc_status_t asc_device_memcpy(asc_device_t* device, void* dst, uint64_t dst_max, const void* src,
                                       uint64_t count, uint32_t kind);
/* (since 1.12) Device binaries built elsewhere (pyasc's register_device_binary_kernel):
   asc_device_load_binary loads `len` bytes of a kernel object file
   (aclrtBinaryLoadFromData) and gives its handle; asc_device_binary_function
   finds a kernel in it by name (aclrtBinaryGetFunction); asc_device_unload_binary
   releases it (aclrtBinaryUnLoad; its functions go with it). Model devices
   run only kernels asc builds: ASC_ERR_INVALID_ARGUMENT. */
ASC_API asc_status_t asc_device_load_binary(asc_device_t* device, const void* data, size_t len, void** out);
ASC_API asc_status_t asc_device_binary_function(asc_device_t* device, void* binary, const char* name, size_t name_len,
                                                void** out);
ASC_API asc_status_t asc_device_unload_binary(asc_device_t* device, void* binary);
/* (since 1.12) Runs a function asc_device_binary_function gave on block_dim
   (1..65535) cores of the device's stream and waits for it
   (aclrtLaunchKernelWithHostArgs, aclrtSynchronizeStream). The arguments are
   the kernel's C parameters in order, packed as asc_launch packs them:
   ASC_ARG_DEVICE_BUFFER (an 8-byte device address), ASC_ARG_BUFFER (host
   memory copied to the device before and back after), ASC_ARG_SCALAR (its
   dtype's C type). Nothing else is known about the kernel, so nothing else
   is checked. */
ASC_API asc_status_t asc_device_launch_function(asc_device_t* device, void* function, uint32_t block_dim,
                                                const asc_arg_t* args, size_t n_args);
/* (since 1.12) How many NPUs this process can use (aclrtGetDeviceCount). */
ASC_API asc_status_t asc_npu_device_count(uint32_t* out);
/* (since 1.12) A fact about NPU `device_id` (aclrtGetDeviceInfo); `info` is an
   asc_npu_info_t. Needs no device handle. */
ASC_API asc_status_t asc_npu_device_info(int32_t device_id, uint32_t info, int64_t* out);

/* ASC_CDEF_END */

#ifdef __cplusplus
}
#endif

#endif /* ASC_ASC_H */
