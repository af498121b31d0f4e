"""Differentiable kernels (docs/ad.md "Kernels"): each has ``d_<name> = gradc.grad``
(reverse) and ``t_<name> = gradc.jvp`` (forward) with respect to every float parameter,
checked against central differences of the kernel and against each other
(tests/cuda/test_kernel_ad.py). ``CASES`` gives each kernel's parameters: ``("s",)`` a
float scalar, ``("v", shape)`` a float array, ``("i", shape, high)`` an int array of
indices below ``high``; and its launch (grid, block)."""

import math

import gradc
from gradc import cuda, f64, i64

N = 37


@gradc.kernel
def saxpy(a: f64, x: f64[:], y: f64[:], out: f64[:]):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = a * x[i] + math.sin(y[i])


@gradc.kernel
def math_mix(x: f64[:], out: f64[:]):
    i = cuda.grid(1)
    if i < x.shape[0]:
        v = x[i]
        out[i] = math.exp(-v * v) + math.cos(v) * math.log(1.0 + v * v) + math.sqrt(2.0 + v)
        out[i] += math.tanh(v) + math.atan2(v, 2.0) + math.pow(2.0 + v, 1.5)


@gradc.kernel
def branches(x: f64[:], c: f64, out: f64[:]):
    i = cuda.grid(1)
    if i < x.shape[0]:
        v = x[i]
        if v > 0.1:
            out[i] = v * v * c
        elif v < -0.1:
            out[i] = math.sin(v) - c
        else:
            out[i] = 3.0 * v


@gradc.kernel
def poly_loop(w: f64[:], x: f64[:], out: f64[:]):
    i = cuda.grid(1)
    if i < x.shape[0]:
        s = 0.0
        p = 1.0
        for j in range(w.shape[0]):
            s += w[j] * p
            p = p * x[i]
        out[i] = s


@gradc.kernel
def gather(x: f64[:], idx: i64[:], y: f64[:], out: f64[:]):
    i = cuda.grid(1)
    if i < idx.shape[0]:
        out[i] = x[idx[i]] * y[i] + x[idx[i]] ** 2


@gradc.kernel
def stencil(x: f64[:], out: f64[:]):
    i = cuda.grid(1)
    n = x.shape[0]
    if i > 0 and i < n - 1:
        out[i] = x[i - 1] - 2.0 * x[i] * x[i] + x[i + 1]


@gradc.kernel
def scalars(a: f64, b: f64, x: f64[:], out: f64[:]):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = a * math.exp(-b * x[i] * x[i])


@gradc.kernel
def scale2d(m: f64[:, :], v: f64[:], out: f64[:, :]):
    i, j = cuda.grid(2)
    if i < m.shape[0] and j < m.shape[1]:
        out[i, j] = m[i, j] * v[j] + math.cos(m[i, j])


@gradc.kernel
def row_scale(m: f64[:, :], v: f64[:], out: f64[:, :]):
    # m and out thread-indexed by cuda.grid(2); v[i] is read by a row of threads
    i, j = cuda.grid(2)
    if i < m.shape[0] and j < m.shape[1]:
        out[i, j] = m[i, j] * m[i, j] * v[i]


@gradc.kernel
def matvec(m: f64[:, :], v: f64[:], out: f64[:]):
    i = cuda.grid(1)
    if i < m.shape[0]:
        s = 0.0
        for j in range(m.shape[1]):
            s += m[i, j] * v[j]
        out[i] = math.tanh(s)


@gradc.kernel
def in_out(x: f64[:], out: f64[:]):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = out[i] * x[i] + 1.0


@gradc.kernel
def while_loop(x: f64[:], out: f64[:]):
    i = cuda.grid(1)
    if i < x.shape[0]:
        v = x[i]
        k = 0
        while k < i % 4 + 1:
            v = math.sin(v) + 0.5 * v
            k += 1
        out[i] = v


@gradc.kernel
def sum_squares(x: f64[:], out: f64[:]):
    # a reduction: every thread adds into out[0] (x[i] is the thread's: d_x without atomics)
    i = cuda.grid(1)
    if i < x.shape[0]:
        cuda.atomic_add(out, 0, x[i] * x[i])


@gradc.kernel
def histogram(x: f64[:], w: f64[:], idx: i64[:], h: f64[:]):
    # a weighted scatter: threads meet on the bins idx[i]
    i = cuda.grid(1)
    if i < x.shape[0]:
        cuda.atomic_add(h, idx[i], w[i] * x[i])


@gradc.kernel
def dot(x: f64[:], y: f64[:], out: f64[:]):
    i = cuda.grid(1)
    if i < x.shape[0]:
        cuda.atomic_add(out, 0, x[i] * y[i])


CASES = {
    "saxpy": ((("s",), ("v", (N,)), ("v", (N,)), ("v", (N,))), ((5,), (8,))),
    "math_mix": ((("v", (N,)), ("v", (N,))), ((5,), (8,))),
    "branches": ((("v", (N,)), ("s",), ("v", (N,))), ((3,), (16,))),
    "poly_loop": ((("v", (5,)), ("v", (N,)), ("v", (N,))), ((5,), (8,))),
    "gather": ((("v", (11,)), ("i", (N,), 11), ("v", (N,)), ("v", (N,))), ((5,), (8,))),
    "stencil": ((("v", (N,)), ("v", (N,))), ((10,), (4,))),
    "scalars": ((("s",), ("s",), ("v", (N,)), ("v", (N,))), ((5,), (8,))),
    "scale2d": ((("v", (5, 6)), ("v", (6,)), ("v", (5, 6))), ((2, 2), (3, 4))),
    "row_scale": ((("v", (5, 6)), ("v", (5,)), ("v", (5, 6))), ((2, 3), (3, 2))),
    "matvec": ((("v", (9, 4)), ("v", (4,)), ("v", (9,))), ((3,), (4,))),
    "in_out": ((("v", (N,)), ("v", (N,))), ((5,), (8,))),
    "while_loop": ((("v", (N,)), ("v", (N,))), ((5,), (8,))),
    "sum_squares": ((("v", (N,)), ("v", (1,))), ((5,), (8,))),
    "histogram": ((("v", (N,)), ("v", (N,)), ("i", (N,), 7), ("v", (7,))), ((5,), (8,))),
    "dot": ((("v", (N,)), ("v", (N,)), ("v", (1,))), ((5,), (8,))),
}

d_saxpy = gradc.grad(saxpy, wrt=("a", "x", "y", "out"))
t_saxpy = gradc.jvp(saxpy, wrt=("a", "x", "y", "out"))
d_math_mix = gradc.grad(math_mix, wrt=("x", "out"))
t_math_mix = gradc.jvp(math_mix, wrt=("x", "out"))
d_branches = gradc.grad(branches, wrt=("x", "c", "out"))
t_branches = gradc.jvp(branches, wrt=("x", "c", "out"))
d_poly_loop = gradc.grad(poly_loop, wrt=("w", "x", "out"))
t_poly_loop = gradc.jvp(poly_loop, wrt=("w", "x", "out"))
d_gather = gradc.grad(gather, wrt=("x", "y", "out"))
t_gather = gradc.jvp(gather, wrt=("x", "y", "out"))
d_stencil = gradc.grad(stencil, wrt=("x", "out"))
t_stencil = gradc.jvp(stencil, wrt=("x", "out"))
d_scalars = gradc.grad(scalars, wrt=("a", "b", "x", "out"))
t_scalars = gradc.jvp(scalars, wrt=("a", "b", "x", "out"))
d_scale2d = gradc.grad(scale2d, wrt=("m", "v", "out"))
t_scale2d = gradc.jvp(scale2d, wrt=("m", "v", "out"))
d_row_scale = gradc.grad(row_scale, wrt=("m", "v", "out"))
t_row_scale = gradc.jvp(row_scale, wrt=("m", "v", "out"))
d_matvec = gradc.grad(matvec, wrt=("m", "v", "out"))
t_matvec = gradc.jvp(matvec, wrt=("m", "v", "out"))
d_in_out = gradc.grad(in_out, wrt=("x", "out"))
t_in_out = gradc.jvp(in_out, wrt=("x", "out"))
d_while_loop = gradc.grad(while_loop, wrt=("x", "out"))
t_while_loop = gradc.jvp(while_loop, wrt=("x", "out"))
d_sum_squares = gradc.grad(sum_squares, wrt=("x", "out"))
t_sum_squares = gradc.jvp(sum_squares, wrt=("x", "out"))
d_histogram = gradc.grad(histogram, wrt=("x", "w", "h"))
t_histogram = gradc.jvp(histogram, wrt=("x", "w", "h"))
d_dot = gradc.grad(dot, wrt=("x", "y", "out"))
t_dot = gradc.jvp(dot, wrt=("x", "y", "out"))
# the elementwise gradient of tests/cuda/gpu_check.py's bandwidth figure, and a kernel
# whose derivative needs no atomic (only the outputs are shadowed, by their index)
d_x_saxpy = gradc.grad(saxpy, wrt="x")
# only the scalar: no read of a shadowed array, but the seed d_out[i] is consumed by the
# thread of element i without an atomic, so launches with y or z extents are refused
d_a_saxpy = gradc.grad(saxpy, wrt="a")
