-- The Add kernel (z = x + y) built and launched from LuaJIT through its FFI:
-- the same kernel as examples/c/vadd.c, on the Model backend, checked here.
--
--     luajit vadd.lua [path/to/libasc.so] [path/to/asc.h]     (prints PASS)
--
-- The declarations come from asc.h itself: the block between its
-- ASC_CDEF_BEGIN and ASC_CDEF_END markers, without preprocessor lines.
local ffi = require("ffi")

local library_path = arg[1] or os.getenv("ASC_LIBRARY") or "libasc.so.1"
local header_path = arg[2] or os.getenv("ASC_HEADER") or "/usr/local/include/asc/asc.h"

local function declarations(path)
  local file = assert(io.open(path, "r"), "cannot read " .. path)
  local text = file:read("*a")
  file:close()
  local body = text:match("/%* ASC_CDEF_BEGIN %*/(.-)/%* ASC_CDEF_END %*/")
  assert(body, path .. " has no ASC_CDEF_BEGIN/END block")
  local lines = {}
  for line in body:gmatch("[^\n]*") do
    if not line:match("^%s*#") then lines[#lines + 1] = line end
  end
  return (table.concat(lines, "\n"):gsub("ASC_API%s+", ""))
end

ffi.cdef(declarations(header_path))
local asc = ffi.load(library_path)

local BLOCKS, TILES, BUFFERS, BLOCK_LENGTH = 8, 16, 2, 4096
local N = BLOCKS * BLOCK_LENGTH
local EVENT_MTE2_V, EVENT_V_MTE3, EVENT_MTE3_MTE2 = 4, 7, 19 -- pyasc's HardEvent values

local function check(status, what)
  if status ~= asc.ASC_OK then error(what .. ": " .. ffi.string(asc.asc_last_error()), 2) end
end

local builder

local function op(name, operands, attrs)
  local n = #operands
  local c_operands = ffi.new("asc_value_t[?]", math.max(n, 1), operands)
  local c_attrs = ffi.new("asc_attr_t[?]", math.max(#attrs, 1))
  for i, a in ipairs(attrs) do -- `attrs` keeps the name strings alive for the call
    c_attrs[i - 1].name, c_attrs[i - 1].name_len = a[1], #a[1]
    c_attrs[i - 1].kind, c_attrs[i - 1].i = asc.ASC_ATTR_INT, a[2]
  end
  local result = ffi.new("asc_value_t[1]")
  check(asc.asc_builder_op(builder, name, #name, c_operands, n, c_attrs, #attrs, nil, result), name)
  return result[0]
end

local function konst(v) return op("const", {}, {{"dtype", asc.ASC_DTYPE_INT32}, {"value", v}}) end
local function binary(name, a, b) return op(name, {a, b}, {}) end

local function build(module)
  local params = ffi.new("asc_type_t[4]")
  for i = 0, 2 do params[i].kind, params[i].dtype = asc.ASC_TYPE_GM_ADDR, asc.ASC_DTYPE_FLOAT32 end
  params[3].kind, params[3].dtype = asc.ASC_TYPE_SCALAR, asc.ASC_DTYPE_INT32
  local out = ffi.new("asc_builder_t*[1]")
  check(asc.asc_build_kernel(module, "vadd", 4, params, 4, out), "asc_build_kernel")
  builder = out[0]
  local p = {}
  for i = 0, 3 do
    local v = ffi.new("asc_value_t[1]")
    check(asc.asc_builder_param(builder, i, v), "asc_builder_param")
    p[i] = v[0]
  end
  local block_length = p[3]
  -- offset = get_block_idx() * block_length: each block's slice.
  local offset = binary("arith.mul", op("get_block_idx", {}, {}),
    op("arith.cast", {block_length}, {{"dtype", asc.ASC_DTYPE_INT64}}))
  local tile = binary("arith.floordiv", block_length, konst(TILES * BUFFERS))
  local both = binary("arith.mul", tile, konst(BUFFERS))
  local bytes = binary("arith.mul", both, konst(4))
  local positions = {asc.ASC_POS_VECIN, asc.ASC_POS_VECIN, asc.ASC_POS_VECOUT}
  local gm, loc = {}, {}
  for i = 0, 2 do
    gm[i] = binary("global_tensor.set_global_buffer", binary("gm.offset", p[i], offset), block_length)
    loc[i] = op("local_tensor.create", {binary("arith.mul", bytes, konst(i)), both},
      {{"dtype", asc.ASC_DTYPE_FLOAT32}, {"position", positions[i + 1]}})
  end
  local iv = ffi.new("asc_value_t[1]")
  check(asc.asc_builder_for_begin(builder, konst(0), konst(TILES * BUFFERS), konst(1), nil, iv), "for")
  local buf = binary("arith.mod", iv[0], konst(BUFFERS))
  local at_buf, at_tile = binary("arith.mul", buf, tile), binary("arith.mul", iv[0], tile)
  local function lslice(t) return binary("local_tensor.slice", t, at_buf) end
  local function gslice(t) return binary("global_tensor.slice", t, at_tile) end
  local function flag(name, event) op(name, {buf}, {{"event", event}}) end
  op("data_copy", {lslice(loc[0]), gslice(gm[0]), tile}, {})
  op("data_copy", {lslice(loc[1]), gslice(gm[1]), tile}, {})
  flag("set_flag", EVENT_MTE2_V)
  flag("wait_flag", EVENT_MTE2_V)
  op("add", {lslice(loc[2]), lslice(loc[0]), lslice(loc[1]), tile}, {})
  flag("set_flag", EVENT_V_MTE3)
  flag("wait_flag", EVENT_V_MTE3)
  op("data_copy", {gslice(gm[2]), lslice(loc[2]), tile}, {})
  flag("set_flag", EVENT_MTE3_MTE2)
  flag("wait_flag", EVENT_MTE3_MTE2)
  check(asc.asc_builder_for_end(builder), "for_end")
  local kernel = ffi.new("asc_kernel_t*[1]")
  check(asc.asc_builder_finish(builder, kernel), "asc_builder_finish")
  return kernel[0]
end

local module_out = ffi.new("asc_module_t*[1]")
check(asc.asc_module_create(module_out), "asc_module_create")
local module = ffi.gc(module_out[0], asc.asc_module_destroy)
local kernel = build(module)

local device_out, stream_out = ffi.new("asc_device_t*[1]"), ffi.new("asc_stream_t*[1]")
check(asc.asc_device_create(asc.ASC_BACKEND_MODEL, "Ascend910B1", 11, 0, device_out), "asc_device_create")
check(asc.asc_stream_create(device_out[0], stream_out), "asc_stream_create")

local x, y, z = ffi.new("float[?]", N), ffi.new("float[?]", N), ffi.new("float[?]", N)
for k = 0, N - 1 do
  x[k], y[k] = (k % 1000) * 0.25, (k % 77) - 30
end
local args = ffi.new("asc_arg_t[4]")
for i, buffer in ipairs({x, y, z}) do
  local a = args[i - 1]
  a.kind, a.dtype, a.ptr, a.size = asc.ASC_ARG_BUFFER, asc.ASC_DTYPE_FLOAT32, buffer, N * 4
end
args[3].kind, args[3].dtype, args[3].i = asc.ASC_ARG_SCALAR, asc.ASC_DTYPE_INT32, BLOCK_LENGTH
check(asc.asc_launch(kernel, stream_out[0], BLOCKS, args, 4), "asc_launch")

for k = 0, N - 1 do
  if z[k] ~= x[k] + y[k] then
    print(string.format("FAIL: z[%d] = %g, expected %g", k, z[k], x[k] + y[k]))
    os.exit(1)
  end
end
asc.asc_stream_destroy(stream_out[0])
asc.asc_device_destroy(device_out[0])
print(string.format("PASS: z = x + y for %d float32 on %d blocks of the Model, from LuaJIT", N, BLOCKS))
