"""Kernels in the style of Numba's documentation and numba-benchmark: ``sum2d`` by
loops, a Laplace relaxation until the change is small, SciPy's Rosenbrock derivative by
slices, an escape-time Mandelbrot on a grid of real and imaginary parts, a 3x3 box blur,
a growing-region threshold, a hypotenuse loop, a cumulative maximum, Numba-style
signature strings and ``void`` in-place kernels.

Written for gradc's differential tests (never copied).
"""

import numpy as np

import gradc
from gradc import f64, i64

MAX_ITERS = 20

# a big module: its compiled tests are slow (idioms_more.py holds the default-run idioms)
SLOW = True

SHAPES = {
    "sum2d": {"arr": ("m", "n")},
    "laplace2d": {"u0": ("n", "m")},
    "rosen_der": {"x": ("n",)},
    "rosen": {"x": ("n",)},
    "mandelbrot": {"re": ("w",), "im": ("h",)},
    "blur3x3": {"img": ("h", "w")},
    "hypot_loop": {"a": ("n",), "b": ("n",), "out": ("n",)},
    "running_max": {"x": ("n",)},
    "threshold_count": {"img": ("h", "w")},
}

DIMS = {"rosen_der": {"n": (2, 7)}}

ELEMENTS = {"rosen": {"x": (-2.0, 2.0)}, "rosen_der": {"x": (-2.0, 2.0)}}
ELEMENTS["mandelbrot"] = {"re": (-2.0, 1.0), "im": (-1.5, 1.5)}

DOMAINS = {"laplace2d": {"tol": (1e-4, 1e-1), "max_iter": (0, 30)}}

RAISES = {}

MUTATES = {"hypot_loop": ("out",)}

ULP = {"hypot_loop"}

SUMMED = {"sum2d", "laplace2d", "rosen_der", "rosen", "blur3x3", "threshold_count"}


@gradc.export("f64(f64[:, :])")
def sum2d(arr):
    M, N = arr.shape
    result = 0.0
    for i in range(M):
        for j in range(N):
            result += arr[i, j]
    return result


@gradc.export
def laplace2d(u0: f64[:, :], tol: f64, max_iter: i64) -> tuple[f64[:, :], i64]:
    u = u0.copy()
    it = 0
    err = tol + 1.0
    while err > tol and it < max_iter:
        un = u.copy()
        u[1:-1, 1:-1] = 0.25 * (un[2:, 1:-1] + un[:-2, 1:-1] + un[1:-1, 2:] + un[1:-1, :-2])
        err = np.abs(u - un).max() if u.size else 0.0
        it += 1
    return u, it


@gradc.export
def rosen_der(x: f64[:]) -> f64[:]:
    xm = x[1:-1]
    xm_m1 = x[:-2]
    xm_p1 = x[2:]
    der = np.zeros_like(x)
    der[1:-1] = 200 * (xm - xm_m1**2) - 400 * (xm_p1 - xm**2) * xm - 2 * (1 - xm)
    der[0] = -400 * x[0] * (x[1] - x[0] ** 2) - 2 * (1 - x[0])
    der[-1] = 200 * (x[-1] - x[-2] ** 2)
    return der


@gradc.export
def rosen(x: f64[:]) -> f64:
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2.0) ** 2.0 + (1 - x[:-1]) ** 2.0)


def escape_time(cr, ci, max_iters):
    zr = 0.0
    zi = 0.0
    for i in range(max_iters):
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        if zr * zr + zi * zi >= 4.0:
            return i
    return max_iters


@gradc.export
def mandelbrot(re: f64[:], im: f64[:]) -> i64[:, :]:
    out = np.empty((im.shape[0], re.shape[0]), dtype=np.int64)
    for y in range(im.shape[0]):
        for x in range(re.shape[0]):
            out[y, x] = escape_time(re[x], im[y], MAX_ITERS)
    return out


@gradc.export
def blur3x3(img: f64[:, :]) -> f64[:, :]:
    out = img.copy()
    out[1:-1, 1:-1] = (
        img[:-2, :-2] + img[:-2, 1:-1] + img[:-2, 2:]
        + img[1:-1, :-2] + img[1:-1, 1:-1] + img[1:-1, 2:]
        + img[2:, :-2] + img[2:, 1:-1] + img[2:, 2:]
    ) / 9.0  # fmt: skip
    return out


@gradc.export("void(f64[:], f64[:], f64[:])")
def hypot_loop(a, b, out):
    for i in range(a.shape[0]):
        out[i] = np.sqrt(a[i] ** 2 + b[i] ** 2)


@gradc.export
def running_max(x: f64[:]) -> f64[:]:
    out = np.empty_like(x)
    m = -np.inf
    for i, v in enumerate(x):
        if v > m:
            m = v
        out[i] = m
    return out


@gradc.export
def threshold_count(img: f64[:, :], level: f64 = 0.0) -> tuple[i64, f64]:
    mask = img > level
    count = np.count_nonzero(mask)
    return count, float(img[mask].sum())
