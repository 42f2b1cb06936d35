"""The operator API's tutorial operators (conv2d, matmul, max_pool2d, MyOp) at the tutorials' sizes,
checked against numpy, with the time of each call printed.

    python examples/operators.py -r Model -v Ascend910B1

The operators are the tutorials' textbook loops over numpy arrays. pyasc compiles each on its first
call: the conv2d and matmul nests are contractions and run on the cube, the max-pool nest is a window
reduction and runs on the vector unit, and `output[:] = input + alpha * weight` is tiled vector code
over all cores.
"""

import time

import numpy as np

import pyasc

from common import parse_args


@pyasc.operator("Conv2d")
def conv2d(input, weight, output, stride=1, padding=0):
    N, C, H, W = input.shape
    K, _, kH, kW = weight.shape
    oH = (H - kH + 2 * padding) // stride + 1
    oW = (W - kW + 2 * padding) // stride + 1
    output.resize((N, K, oH, oW))
    output[:] = 0
    for n in range(N):
        for k in range(K):
            for c in range(C):
                for oh in range(oH):
                    for ow in range(oW):
                        s = 0
                        for kh in range(kH):
                            for kw in range(kW):
                                ih = oh * stride + kh - padding
                                iw = ow * stride + kw - padding
                                if 0 <= ih < H and 0 <= iw < W:
                                    s += input[n, c, ih, iw] * weight[k, c, kh, kw]
                        output[n, k, oh, ow] += s


@pyasc.operator("Matmul")
def matmul(a, b, c, transpose_a=False, transpose_b=False):
    if transpose_a:
        a = a.T
    if transpose_b:
        b = b.T
    M, K = a.shape
    K_, N = b.shape
    if K != K_:
        raise ValueError(f"A's K ({K}) != B's K ({K_})")
    c.resize((M, N))
    for m in range(M):
        for n in range(N):
            s = 0
            for k in range(K):
                s += a[m, k] * b[k, n]
            c[m, n] = s


@pyasc.operator("MaxPool2d")
def max_pool2d(input, output, kernel_size=2, stride=2, padding=0):
    N, C, H, W = input.shape
    oH = (H - kernel_size + 2 * padding) // stride + 1
    oW = (W - kernel_size + 2 * padding) // stride + 1
    output.resize((N, C, oH, oW))
    for n in range(N):
        for c in range(C):
            for oh in range(oH):
                for ow in range(oW):
                    h_start = oh * stride - padding
                    w_start = ow * stride - padding
                    max_val = -np.inf
                    for kh in range(kernel_size):
                        for kw in range(kernel_size):
                            ih = h_start + kh
                            iw = w_start + kw
                            if 0 <= ih < H and 0 <= iw < W:
                                max_val = max(max_val, input[n, c, ih, iw])
                    output[n, c, oh, ow] = max_val


@pyasc.operator("MyOp")
def my_op(input, weight, output, alpha=1.0):
    output[:] = input + alpha * weight


def conv_reference(x, w, stride, padding):
    padded = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    windows = np.lib.stride_tricks.sliding_window_view(padded, w.shape[2:], axis=(2, 3))[:, :, ::stride, ::stride]
    return np.einsum("nchwij,kcij->nkhw", windows, w, optimize=True)


def timed(label, call):
    start = time.perf_counter()
    result = call()
    print(f"  {label}: {time.perf_counter() - start:.2f} s")
    return result


def check(name, got, want, rtol, atol):
    ok = got.shape == want.shape and np.allclose(got, want, rtol=rtol, atol=atol)
    error = np.abs(got - want).max() if got.shape == want.shape else float("nan")
    print(f"[{'PASS' if ok else 'FAIL'}] {name}: output {got.shape}, max |error| {error:.2e}")
    return ok


def main():
    parse_args(__doc__)
    rng = np.random.default_rng(0)
    results = []

    print("conv2d, input (1, 3, 224, 224), 64 filters 7x7, stride 2, padding 3:")
    x = rng.standard_normal((1, 3, 224, 224)).astype(np.float32)
    w = rng.standard_normal((64, 3, 7, 7)).astype(np.float32)
    out = np.empty((1, 64, 112, 112), np.float32)
    print("  " + "; ".join(conv2d.explain(x, w, out, stride=2, padding=3)))
    timed("first call (compiles)", lambda: conv2d(x, w, out, stride=2, padding=3))
    timed("second call", lambda: conv2d(x, w, out, stride=2, padding=3))
    want = timed("numpy, for reference", lambda: conv_reference(x, w, 2, 3))
    results.append(check("conv2d", out, want, 1e-4, 1e-3))

    print("matmul, (1024, 512) @ (512, 2048):")
    a = rng.standard_normal((1024, 512)).astype(np.float32)
    b = rng.standard_normal((512, 2048)).astype(np.float32)
    c = np.empty((1024, 2048), np.float32)
    timed("first call (compiles)", lambda: matmul(a, b, c))
    want = timed("numpy, for reference", lambda: a @ b)
    results.append(check("matmul", c, want, 1e-4, 1e-3))

    print("max_pool2d, input (1, 64, 224, 224), kernel 2, stride 2:")
    p = rng.standard_normal((1, 64, 224, 224)).astype(np.float32)
    pooled = np.empty((1, 64, 112, 112), np.float32)
    timed("first call (compiles)", lambda: max_pool2d(p, pooled, kernel_size=2, stride=2))
    want = timed("numpy, for reference", lambda: p.reshape(1, 64, 112, 2, 112, 2).max(axis=(3, 5)))
    results.append(check("max_pool2d", pooled, want, 0, 0))

    print("MyOp, output[:] = input + alpha * weight over (1024, 1024):")
    u = rng.standard_normal((1024, 1024)).astype(np.float32)
    v = rng.standard_normal((1024, 1024)).astype(np.float32)
    y = np.empty_like(u)
    timed("first call (compiles)", lambda: my_op(u, v, y, alpha=0.5))
    pyasc.compile("MyOp", backend="model", opt_level=3)  # ahead of time: nothing left to build on later calls
    timed("call after pyasc.compile", lambda: my_op(u, v, y, alpha=0.5))
    results.append(check("MyOp", y, u + np.float32(0.5) * v, 1e-6, 1e-6))

    outputs = pyasc.batch([(u[:4], v[:4]), (u[4:12], v[4:12])], func=my_op)
    results.append(check("batch of MyOp", np.concatenate(outputs), u[:12] + v[:12], 1e-6, 1e-6))
    raise SystemExit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
