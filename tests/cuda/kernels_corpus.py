"""Kernels for the CUDA tests: compiled for the CPU (grid loop) and for CUDA (PTX and
cubins), and run as plain Python (``gradc.cuda``'s sequential simulator) as the oracle
beside NumPy. ``LAUNCHES`` gives each kernel's arguments and launch shape."""

import math

import numpy as np

import gradc
from gradc import cuda, f32, f64, i32, i64


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
        out[i] = math.exp(-v * v) + math.cos(v) * math.log(1.0 + v * v) + math.sqrt(abs(v))
        out[i] += math.tanh(v) + math.atan2(v, 2.0) + abs(v) ** 0.5 * 0.25 + math.pow(abs(v), 1.5)


@gradc.kernel
def scale_f32(x: f32[:], s: f32, out: f32[:]):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = x[i] * s + math.floor(x[i])


@gradc.kernel
def histogram(x: i64[:], counts: i64[:]):
    i = cuda.grid(1)
    if i < x.shape[0]:
        cuda.atomic_add(counts, x[i], 1)


@gradc.kernel
def total(x: f64[:], acc: f64[:]):
    i = cuda.grid(1)
    if i < x.shape[0]:
        cuda.atomic_add(acc, 0, x[i] * x[i])


@gradc.kernel
def add2d(a: f64[:, :], out: f64[:, :]):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        out[i, j] = a[i, j] * 2.0 + a.shape[1]


@gradc.kernel
def indices3d(out: i64[:, :, :]):
    i, j, k = cuda.grid(3)
    if i < out.shape[0] and j < out.shape[1] and k < out.shape[2]:
        out[i, j, k] = (
            cuda.thread_idx.x
            + 10 * cuda.block_idx.y
            + 100 * cuda.block_dim.z
            + 1000 * cuda.grid_dim.x
            + 10000 * cuda.thread_idx.z
        )


@gradc.kernel
def row_sums(a: f64[:, :], out: f64[:]):
    i = cuda.grid(1)
    if i < a.shape[0]:
        s = 0.0
        for j in range(a.shape[1]):
            if a[i, j] > 0.5:
                s += a[i, j]
            else:
                s -= 0.25 * a[i, j]
        out[i] = s


@gradc.kernel
def grid_stride(n: i32, x: f64[:], out: f64[:]):
    start = cuda.grid(1)
    stride = cuda.block_dim.x * cuda.grid_dim.x
    i = start
    while i < n:
        out[i] = x[i] * x[i]
        i += stride


@gradc.kernel
def out_of_bounds(x: f64[:]):
    i = cuda.grid(1)
    x[i] = 1.0


@gradc.kernel
def block_reverse(x: f64[:], tmp: f64[:]):
    i = cuda.grid(1)
    t = cuda.thread_idx.x
    n = cuda.block_dim.x
    if i < x.shape[0]:
        tmp[i] = x[i]
    cuda.syncthreads()
    j = cuda.block_idx.x * n + (n - 1 - t)
    if i < x.shape[0] and j < x.shape[0]:
        x[i] = tmp[j]


@gradc.kernel
def block_sum_shared(x: f64[:], out: f64[:]):
    # one partial sum per block through shared memory (tree reduction, 8 threads)
    buf = cuda.shared_array(8, f64)
    t = cuda.thread_idx.x
    i = cuda.grid(1)
    buf[t] = x[i] if i < x.shape[0] else 0.0
    cuda.syncthreads()
    step = 4
    while step > 0:
        if t < step:
            buf[t] += buf[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        out[cuda.block_idx.x] = buf[0]


@gradc.kernel
def shared_scratch(x: f64[:], out: f64[:]):
    # per-thread slots of a 2-d shared tile, no communication between threads
    tile = cuda.shared_array((4, 32), np.float32)
    t = cuda.thread_idx.x
    i = cuda.grid(1)
    if i < x.shape[0] and t < 32:
        for k in range(4):
            tile[k, t] = x[i] * (k + 1)
        s = 0.0
        for k in range(4):
            s += tile[k, t]
        out[i] = s


@gradc.kernel
def barrier_tuple(x: f64[:], out: f64[:]):
    # a tuple made before a barrier and used after it: the CPU build cannot cut this
    # kernel into phases (only scalars live in its context arrays), so there it runs in
    # blocks of one thread only
    i = cuda.grid(1)
    pair = (i, 2.0)
    cuda.syncthreads()
    if pair[0] < x.shape[0]:
        out[pair[0]] = x[pair[0]] * pair[1]


@gradc.kernel
def divergent_barrier(x: f64[:]):
    # thread 0 waits at a barrier the others never reach: an error, not a hang
    if cuda.thread_idx.x == 0:
        cuda.syncthreads()
    x[cuda.grid(1)] = 1.0


@gradc.vectorize("f64(f64, f64)")
def huber(r, delta):
    return 0.5 * r * r if abs(r) <= delta else delta * (abs(r) - 0.5 * delta)


@gradc.vectorize("f32(f32, i64)")
def scaled_sin(x, k):
    return math.sin(x) * k if k > 0 else x
