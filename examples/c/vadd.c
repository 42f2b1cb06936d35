/* The Add kernel (z = x + y) built and launched through the C ABI alone: the
 * shape of examples/add.py — every block adds its own slice, moving TILES
 * tiles through the Unified Buffer with double buffering and ordering its
 * pipes with flags — on the Model backend, checked against the host.
 *
 *     cc -std=c99 vadd.c -lasc -o vadd && ./vadd      (prints PASS)
 */
#include <asc/asc.h>
#include <stdio.h>
#include <string.h>

enum { BLOCKS = 8, TILES = 16, BUFFERS = 2, BLOCK_LENGTH = 4096, N = BLOCKS * BLOCK_LENGTH };
enum { EVENT_MTE2_V = 4, EVENT_V_MTE3 = 7, EVENT_MTE3_MTE2 = 19 }; /* pyasc's HardEvent values */

static asc_builder_t* builder;
static int failed;

/* Appends op `name`; remembers the first failure (checked once, at the end). */
static asc_value_t op(const char* name, const asc_value_t* in, size_t n, const asc_attr_t* attrs, size_t n_attrs) {
  asc_value_t r = ASC_NO_VALUE;
  if (!failed && asc_builder_op(builder, name, strlen(name), in, n, attrs, n_attrs, NULL, &r) != ASC_OK) {
    fprintf(stderr, "%s: %s\n", name, asc_last_error());
    failed = 1;
  }
  return r;
}

static asc_attr_t int_attr(const char* name, int64_t v) {
  asc_attr_t a = {name, strlen(name), ASC_ATTR_INT, v, 0.0, NULL, 0};
  return a;
}

static asc_value_t konst(int64_t v) {
  asc_attr_t attrs[2] = {int_attr("dtype", ASC_DTYPE_INT32), int_attr("value", v)};
  return op("const", NULL, 0, attrs, 2);
}

static asc_value_t binary(const char* name, asc_value_t a, asc_value_t b) {
  asc_value_t in[2] = {a, b};
  return op(name, in, 2, NULL, 0);
}

static void flag(const char* name, int event, asc_value_t id) {
  asc_attr_t attr = int_attr("event", event);
  op(name, &id, 1, &attr, 1);
}

static asc_value_t slice(const char* name, asc_value_t tensor, asc_value_t offset) {
  return binary(name, tensor, offset);
}

static void copy(asc_value_t dst, asc_value_t src, asc_value_t count) {
  asc_value_t in[3] = {dst, src, count};
  op("data_copy", in, 3, NULL, 0);
}

/* The kernel: vadd(x, y, z, block_length). */
static asc_kernel_t* build(asc_module_t* module) {
  asc_type_t params[4] = {{ASC_TYPE_GM_ADDR, ASC_DTYPE_FLOAT32, 0},
                          {ASC_TYPE_GM_ADDR, ASC_DTYPE_FLOAT32, 0},
                          {ASC_TYPE_GM_ADDR, ASC_DTYPE_FLOAT32, 0},
                          {ASC_TYPE_SCALAR, ASC_DTYPE_INT32, 0}};
  if (asc_build_kernel(module, "vadd", 4, params, 4, &builder) != ASC_OK) return NULL;
  asc_value_t p[4];
  for (size_t i = 0; i < 4; ++i) asc_builder_param(builder, i, &p[i]);
  asc_value_t block_length = p[3];

  /* offset = get_block_idx() * block_length; each block's GlobalTensors start there. */
  asc_attr_t to_i64 = int_attr("dtype", ASC_DTYPE_INT64);
  asc_value_t length64 = op("arith.cast", &block_length, 1, &to_i64, 1);
  asc_value_t offset = binary("arith.mul", op("get_block_idx", NULL, 0, NULL, 0), length64);
  asc_value_t gm[3], local[3];
  asc_value_t tile = binary("arith.floordiv", block_length, konst(TILES * BUFFERS));
  asc_value_t both = binary("arith.mul", tile, konst(BUFFERS));
  asc_value_t bytes = binary("arith.mul", both, konst(4));
  int positions[3] = {ASC_POS_VECIN, ASC_POS_VECIN, ASC_POS_VECOUT};
  for (int i = 0; i < 3; ++i) {
    gm[i] = binary("global_tensor.set_global_buffer", binary("gm.offset", p[i], offset), block_length);
    asc_attr_t attrs[2] = {int_attr("dtype", ASC_DTYPE_FLOAT32), int_attr("position", positions[i])};
    asc_value_t in[2] = {binary("arith.mul", bytes, konst(i)), both};
    local[i] = op("local_tensor.create", in, 2, attrs, 2);
  }

  /* for i in range(TILES * BUFFERS): copy in, add, copy out, with buffer i % BUFFERS. */
  asc_value_t i;
  if (asc_builder_for_begin(builder, konst(0), konst(TILES * BUFFERS), konst(1), NULL, &i) != ASC_OK) return NULL;
  asc_value_t buf = binary("arith.mod", i, konst(BUFFERS));
  asc_value_t at_buf = binary("arith.mul", buf, tile), at_tile = binary("arith.mul", i, tile);
  copy(slice("local_tensor.slice", local[0], at_buf), slice("global_tensor.slice", gm[0], at_tile), tile);
  copy(slice("local_tensor.slice", local[1], at_buf), slice("global_tensor.slice", gm[1], at_tile), tile);
  flag("set_flag", EVENT_MTE2_V, buf);
  flag("wait_flag", EVENT_MTE2_V, buf);
  asc_value_t add_in[4] = {slice("local_tensor.slice", local[2], at_buf), slice("local_tensor.slice", local[0], at_buf),
                           slice("local_tensor.slice", local[1], at_buf), tile};
  op("add", add_in, 4, NULL, 0);
  flag("set_flag", EVENT_V_MTE3, buf);
  flag("wait_flag", EVENT_V_MTE3, buf);
  copy(slice("global_tensor.slice", gm[2], at_tile), slice("local_tensor.slice", local[2], at_buf), tile);
  flag("set_flag", EVENT_MTE3_MTE2, buf);
  flag("wait_flag", EVENT_MTE3_MTE2, buf);
  if (asc_builder_for_end(builder) != ASC_OK || failed) return NULL;

  asc_kernel_t* kernel = NULL;
  if (asc_builder_finish(builder, &kernel) != ASC_OK) return NULL;
  return kernel;
}

int main(void) {
  static float x[N], y[N], z[N];
  for (int k = 0; k < N; ++k) x[k] = (float)(k % 1000) * 0.25f, y[k] = (float)(k % 77) - 30.0f;

  asc_module_t* module = NULL;
  asc_device_t* device = NULL;
  asc_stream_t* stream = NULL;
  asc_kernel_t* kernel = NULL;
  int ok = asc_module_create(&module) == ASC_OK && (kernel = build(module)) != NULL &&
           asc_device_create(ASC_BACKEND_MODEL, "Ascend910B1", 11, 0, &device) == ASC_OK &&
           asc_stream_create(device, &stream) == ASC_OK;
  if (ok) {
    asc_arg_t args[4] = {{ASC_ARG_BUFFER, ASC_DTYPE_FLOAT32, 0, 0.0, x, sizeof x},
                         {ASC_ARG_BUFFER, ASC_DTYPE_FLOAT32, 0, 0.0, y, sizeof y},
                         {ASC_ARG_BUFFER, ASC_DTYPE_FLOAT32, 0, 0.0, z, sizeof z},
                         {ASC_ARG_SCALAR, ASC_DTYPE_INT32, BLOCK_LENGTH, 0.0, NULL, 0}};
    ok = asc_launch(kernel, stream, BLOCKS, args, 4) == ASC_OK;
  }
  if (!ok) {
    fprintf(stderr, "FAIL: %s\n", asc_last_error());
    return 1;
  }
  for (int k = 0; k < N; ++k)
    if (z[k] != x[k] + y[k]) {
      printf("FAIL: z[%d] = %g, expected %g\n", k, z[k], x[k] + y[k]);
      return 1;
    }
  printf("PASS: z = x + y for %d float32 on %d blocks of the Model\n", N, BLOCKS);
  asc_stream_destroy(stream);
  asc_device_destroy(device);
  asc_module_destroy(module);
  return 0;
}
