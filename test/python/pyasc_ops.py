"""Operators for test_operator_api.py: the tutorials' own (conv2d, matmul, max_pool2d, MyOp), as
examples/operators.py defines and runs them, and more written the same way (plain loops over
numpy-style indexing), some of which exercise the scalar fallback and the errors."""

import sys
from pathlib import Path

import numpy as np

import pyasc

sys.path.append(str(Path(__file__).resolve().parents[2] / "examples"))
from operators import conv2d, matmul, max_pool2d, my_op  # noqa: E402, F401 - the tutorials' operators


@pyasc.operator("Mixed")
def mixed(x, y, out, scale=2.0):
    t = np.maximum(x * scale, y) - 1.5
    out[:] = np.exp(-abs(t)) / (1.0 + np.sqrt(y * y)) + np.minimum(t, 0.25)


@pyasc.operator("Fill")
def fill(out, value=0.0):
    out[:] = value


@pyasc.operator("MatmulAcc")
def matmul_acc(a, b, c):
    M, K = a.shape
    for m in range(M):
        for n in range(b.shape[1]):
            s = 0
            for k in range(K):
                s = s + a[m, k] * b[k, n]
            c[m, n] += s  # c is not zeroed first: the product is added to what it holds


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


@pyasc.operator("InPlaceRecurrence")
def in_place_recurrence(x, out):
    for i in range(out.shape[0]):
        s = 0
        for j in range(out.shape[0]):
            s += out[j] * x[i]  # out[j] for j < i was written by this nest already
        out[i] = s


@pyasc.operator("TwoOutputs")
def two_outputs(x, low, high):
    for i in range(x.shape[0]):
        if x[i] < 0:
            low[i] = x[i]
            high[i] = 0.0
        else:
            low[i] = 0.0
            high[i] = x[i]


@pyasc.operator("Exp")
def exp(x, out):
    out[:] = np.exp(x)
