"""asc.printf and asc.dump_tensor on the Model: the text arrives after the
launch, in block order, each line prefixed with "[Block i/n] ", and it arrives
even when the launch fails (it is what explains the failure)."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt

CASES = [  # (numpy dtype, format, value)
    (np.int8, "%d", -7), (np.int16, "%6d|", -300), (np.int32, "%-5i|", 42), (np.int64, "%d", -(2**40)),
    (np.uint8, "%u", 200), (np.uint16, "%x", 0xBEEF), (np.uint32, "%08X", 0xCAFE), (np.int16, "%x", -1),
    (np.float32, "%f", 3.25), (np.float32, "%.3e", -12345.678), (np.float16, "%5.1f", 1.5),
    (np.float32, "%g", 0.0001), (np.int32, "%c", 65), (np.int32, "%o", 64), (np.uint64, "%llu", 2**63 + 5),
]  # fmt: skip


def c_format(fmt, value, dtype):
    """What C's printf prints for the value as the kernel holds it (%u/%x/%o see the dtype's bits)."""
    held = np.array([value], dtype)[0]
    if fmt[-1] == "c":
        return chr(int(held))
    if fmt[-1] in "uxXo":
        return fmt.replace("ll", "") % int(held.astype(np.dtype(dtype).str.replace("i", "u")))
    return fmt % (float(held) if np.dtype(dtype).kind == "f" else int(held))


@asc.jit
def print_value(x: asc.GlobalAddress, FMT: asc.ConstExpr[str]):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, 1)
    asc.printf("value=" + FMT + " done %d%% of %s\\n", x_gm.get_value(0), 100, "it")


@pytest.mark.parametrize("dtype,fmt,value", CASES, ids=[f"{np.dtype(d).name}-{f}" for d, f, _ in CASES])
def test_printf_formats_like_c(dtype, fmt, value, capsys):
    print_value[1, rt.current_stream()](np.array([value], dtype), fmt)
    assert capsys.readouterr().out == f"[Block 0/1] value={c_format(fmt, value, dtype)} done 100% of it\n"


@asc.jit
def per_block(x: asc.GlobalAddress, n: int):
    i = asc.get_block_idx()
    asc.printf("first line of block %d, ", i)
    asc.printf("n=%d\nsecond line %d\n", n, i * 10)


@pytest.mark.parametrize("blocks", [1, 4, 48])
def test_output_is_in_block_order_with_the_block_index(blocks, capsys):
    per_block[blocks, rt.current_stream()](np.zeros(8, np.float32), 3)
    want = "".join(
        f"[Block {b}/{blocks}] first line of block {b}, n=3\n[Block {b}/{blocks}] second line {b * 10}\n"
        for b in range(blocks)
    )
    assert capsys.readouterr().out == want


@asc.jit
def dump(x: asc.GlobalAddress, n: int, ROWS: asc.ConstExpr[int], COLS: asc.ConstExpr[int]):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, 64)
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 256, 64)
    asc.data_copy(t, x_gm, 64)
    if ROWS == 0:
        asc.dump_tensor(t, 5, n)
    else:
        asc.dump_tensor(x_gm, 6, n, asc.ShapeInfo(asc.array(asc.uint32, [ROWS, COLS])))


def text(v):
    return f"{float(v):f}" if isinstance(v, np.floating) else str(int(v))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int32, np.uint16])
@pytest.mark.parametrize("n", [1, 16, 64])
def test_dump_tensor_prints_the_elements(dtype, n, rng, capsys):
    x = (rng.uniform(-50, 50, 64) if np.dtype(dtype).kind != "u" else rng.uniform(0, 900, 64)).astype(dtype)
    dump[1, rt.current_stream()](x, n, 0, 0)
    values = ", ".join(text(v) for v in x[:n])
    head = f"DumpTensor: desc=5, addr=0x100, data_type={np.dtype(dtype).name}, position=UB, dump_size={n}"
    assert capsys.readouterr().out == f"[Block 0/1] {head}\n[Block 0/1] [{values}]\n"


@pytest.mark.parametrize("n,rows,cols", [(8, 2, 4), (6, 2, 4), (12, 2, 3)])
def test_dump_tensor_with_shape_info(n, rows, cols, capsys):
    x = np.arange(64, dtype=np.int32) * 3
    dump[1, rt.current_stream()](x, n, rows, cols)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"[Block 0/1] DumpTensor: desc=6, addr=0x0, data_type=int32, position=GM, dump_size={n}"
    body = [line.removeprefix("[Block 0/1] ") for line in lines[1:]]
    if rows * cols != n:
        assert ("larger" if rows * cols > n else "smaller") in body.pop(0)
    cells = [str(v) if i < n else "-" for i, v in enumerate(x[: rows * cols])]
    rows_text = ["[" + ", ".join(cells[r * cols : (r + 1) * cols]) + "]" for r in range(rows)]
    want = [f"{row}," for row in rows_text[:-1]] + [rows_text[-1]]
    want[0], want[-1] = "[" + want[0], want[-1] + "]"  # the outer bracket: [[row0],\n[row1]]
    assert body == want


@asc.jit
def prints_then_fails(x: asc.GlobalAddress, n: int):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, 8)
    asc.printf("about to read %d elements\n", n)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(t, x_gm, n)


def test_output_of_a_failing_launch_is_printed_before_the_error(capsys):
    stream = rt.current_stream()
    stream.set_strict(True)  # 32 elements (128 bytes) from 8: strict, past the caller's 32 bytes is the fault
    try:
        with pytest.raises(asc.errors.OutOfBoundsError):
            prints_then_fails[2, stream](np.zeros(8, np.float32), 32)
    finally:
        stream.set_strict(False)
    assert capsys.readouterr().out == "[Block 0/2] about to read 32 elements\n"  # block 0 failed: no block 1


def bad(fmt, *values):
    @asc.jit
    def kernel(x: asc.GlobalAddress):
        asc.printf(fmt, *values)

    kernel[1, rt.current_stream()](np.zeros(8, np.float32))


@pytest.mark.parametrize("fmt,values,message", [
    ("%d %d", (1,), "more conversions than the 1 values"),
    ("%d", (1, 2), "1 values more than the format"),
    ("%f", (1,), "%f .value 1. needs a floating-point value, got int32"),
    ("%d", (1.5,), "%d .value 1. needs an integer value, got float32"),
    ("%s", (3,), "%s takes a Python string or a GM address"),
    ("%p", (3,), "%p takes a GM address"),
    ("%y", (3,), "unsupported conversion '%y'"),
])  # fmt: skip
def test_printf_errors_name_the_problem_and_line(fmt, values, message):
    with pytest.raises(asc.CodegenError, match=message) as err:
        bad(fmt, *values)
    assert "test_debug_print.py" in str(err.value)


@asc.jit
def print_text(text: asc.GlobalAddress, at: int):
    asc.printf("name=[%s] padded=[%8s] at %p\\n", text + at, text, text + at)


def test_printf_of_a_gm_address_prints_the_text_there_and_its_offset(capsys):
    text = np.frombuffer(b"hello\0world\0", np.uint8).copy()
    print_text[1, rt.current_stream()](text, 6)
    assert capsys.readouterr().out == "[Block 0/1] name=[world] padded=[   hello] at 0x6\n"


def test_printf_of_text_without_a_nul_is_an_error_not_a_read_past_the_buffer():
    text = np.frombuffer(b"abc", np.uint8).copy()
    with pytest.raises(asc.errors.OutOfBoundsError, match="no NUL before the buffer ends .3 bytes.") as e:
        print_text[1, rt.current_stream()](text, 1)
    assert "test_debug_print.py" in str(e.value)


def test_dump_past_the_tensor_is_out_of_bounds():
    # Past the local tensor but inside the Unified Buffer runs as on the board (the initialisation check still
    # sees the bytes it reads, which nothing wrote); past the Unified Buffer it is an error.
    with pytest.raises(asc.errors.UninitializedReadError, match=r"dump_tensor reads Unified Buffer bytes \[512, 516\)"):
        dump[1, rt.current_stream()](np.zeros(64, np.float32), 65, 0, 0)
    with pytest.raises(asc.errors.OutOfBoundsError, match="dump_tensor reads 60000 elements"):
        dump[1, rt.current_stream()](np.zeros(64, np.float32), 60000, 0, 0)
