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
    # blocks of one thread only. The tuple is a phi of two: an extract of a tuple just
    # built would be folded to its element, a scalar
    i = cuda.grid(1)
    if i % 2 == 0:
        pair = (i, 2.0)
    else:
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


@gradc.kernel
def clip_scale(x: f64[:], lo: f64, hi: f64, out: f64[:]):
    i = cuda.grid(1)
    if i < x.shape[0]:
        v = x[i]
        if v < lo:
            v = lo
        elif v > hi:
            v = hi
        out[i] = 2.0 * v


@gradc.kernel
def horner(coef: f64[:], x: f64[:], out: f64[:]):
    i = cuda.grid(1)
    if i < x.shape[0]:
        acc = 0.0
        for k in range(coef.shape[0]):
            acc = acc * x[i] + coef[k]
        out[i] = acc


@gradc.kernel
def matvec(a: f64[:, :], v: f64[:], out: f64[:]):
    i = cuda.grid(1)
    if i < a.shape[0]:
        s = 0.0
        for j in range(a.shape[1]):
            s += a[i, j] * v[j]
        out[i] = s


@gradc.kernel
def stencil3(x: f64[:], out: f64[:]):
    i = cuda.grid(1)
    n = x.shape[0]
    if i < n:
        left = x[i - 1] if i > 0 else 0.0
        right = x[i + 1] if i + 1 < n else 0.0
        out[i] = left - 2.0 * x[i] + right


@gradc.kernel
def transpose_tiled(a: f64[:, :], out: f64[:, :]):
    # an 8 x 8 tile through shared memory: read rows, write columns (2-d blocks)
    tile = cuda.shared_array((8, 8), f64)
    tx = cuda.thread_idx.x
    ty = cuda.thread_idx.y
    i = cuda.block_idx.x * 8 + tx
    j = cuda.block_idx.y * 8 + ty
    if i < a.shape[0] and j < a.shape[1]:
        tile[ty, tx] = a[i, j]
    cuda.syncthreads()
    oi = cuda.block_idx.y * 8 + tx
    oj = cuda.block_idx.x * 8 + ty
    if oi < a.shape[1] and oj < a.shape[0]:
        out[oi, oj] = tile[tx, ty]


@gradc.kernel
def dot_blocks(x: f64[:], y: f64[:], acc: f64[:]):
    # per-block partial sums in shared memory, then one atomic per block
    part = cuda.shared_array(32, f64)
    t = cuda.thread_idx.x
    i = cuda.grid(1)
    part[t] = x[i] * y[i] if i < x.shape[0] else 0.0
    cuda.syncthreads()
    if t == 0:
        s = 0.0
        for k in range(32):
            s += part[k]
        cuda.atomic_add(acc, 0, s)


@gradc.kernel
def count_positive(x: f32[:], counts: i32[:]):
    i = cuda.grid(1)
    if i < x.shape[0] and x[i] > 0:
        cuda.atomic_add(counts, 0, 1)


@gradc.vectorize("f64(f64)")
def softplus(x):
    return x + math.log1p(math.exp(-x)) if x > 0 else math.log1p(math.exp(x))


@gradc.vectorize("f32(f32, f32)")
def relu_mix(x, w):
    return w * x if x > 0 else 0.0


@gradc.kernel
def visit_order(counter: i64[:], order: i64[:]):
    # the order the threads ran in (a shuffled-order CPU build: not 0, 1, 2, ...)
    i = cuda.grid(1)
    if i < order.shape[0]:
        order[i] = cuda.atomic_add(counter, 0, 1)


@gradc.kernel
def barrier_state(x: f32[:], out: f64[:]):
    # a bool, a float32, an int and a branch's value kept across barriers in a loop
    buf = cuda.shared_array(16, f64)
    t = cuda.thread_idx.x
    i = cuda.grid(1)
    inside = i < x.shape[0]
    h = x[i] * np.float32(2.0) if inside else np.float32(0.0)
    v = float(h)
    w = 1.5 if v > 0 else -0.5
    k = 0
    for r in range(3):
        buf[t] = v * w + r
        cuda.syncthreads()
        if inside:
            out[i] += buf[(t + r + 1) % cuda.block_dim.x]
        k += 1
        cuda.syncthreads()
    if inside:
        out[i] += k
        out[i] += h
