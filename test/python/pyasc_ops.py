"""Operators for test_operator_api.py, written as the pyasc tutorials write them (plain loops over
numpy-style indexing), plus a few that exercise the scalar fallback and the errors."""

import numpy as np

import pyasc


@pyasc.operator("MyOp")
def my_op(input, weight, output, alpha=1.0):
    output[:] = input + alpha * weight


@pyasc.operator("Mixed")
def mixed(x, y, out, scale=2.0):
    t = np.maximum(x * scale, y) - 1.5
    out[:] = np.exp(-abs(t)) / (1.0 + np.sqrt(y * y)) + np.minimum(t, 0.25)


@pyasc.operator("Fill")
def fill(out, value=0.0):
    out[:] = value


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


@pyasc.operator("MatmulAcc")
def matmul_acc(a, b, c):
    M, K = a.shape
    for m in range(M):
        for n in range(b.shape[1]):
            s = 0
            for k in range(K):
                s += a[m, k] * b[k, n]
            c[m, n] += s  # c is not zeroed first: the product is added to what it holds


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


@pyasc.operator("ReluMaxPool")
def relu_max_pool(input, output, k=3):
    N, L = input.shape
    output.resize((N, L // k))
    for n in range(N):
        for o in range(L // k):
            best = 0.0  # the window's max, but never below 0
            for j in range(k):
                best = max(input[n, o * k + j], best)
            output[n, o] = best


@pyasc.operator("SumPoolTransposed")
def sum_pool_transposed(input, output, k=2):
    L, N = input.shape
    output.resize((N, L // k))
    for o in range(L // k):
        for n in range(N):
            s = 0
            for j in range(k):
                s += input[o * k + j, n]
            output[n, o] = s


@pyasc.operator("Cumsum")
def cumsum(x, out):
    N, L = x.shape
    for i in range(N):
        s = 0
        for j in range(L):
            s += x[i, j]
            out[i, j] = s


@pyasc.operator("LeakyRelu")
def leaky_relu(x, out, slope=0.1):
    for i in range(x.shape[0]):
        if x[i] > 0:
            out[i] = x[i]
        else:
            out[i] = x[i] * slope


@pyasc.operator("ShiftedCopy")
def shifted_copy(x, out, shift=1):
    for i in range(out.shape[0]):
        s = 0
        for j in range(1):
            s += x[i + shift + j]
        out[i] = s


@pyasc.operator("WhileLoop")
def while_loop(x, out):
    while True:
        out[:] = x


@pyasc.operator("Mismatch")
def mismatch(x, y, out):
    out[:] = x + y


@pyasc.operator("NoShape")
def no_shape(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i]
