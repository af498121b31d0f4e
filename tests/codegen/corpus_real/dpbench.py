"""Kernels in the style of NPBench and IntelPython's dpbench: Black-Scholes (tanh form of
the normal CDF), l2 and pairwise distances, a k-means step, gpairs, softmax, the arc
distance, a 2-D convolution, the naive azimuthal integration and Numba's ``go_fast``.

Written for gradc's differential tests (never copied from those projects).
"""

import numpy as np

import gradc
from gradc import f64, i64

SHAPES = {
    "black_scholes": {"price": ("n",), "strike": ("n",), "t": ("n",)},
    "l2_distance": {"a": ("m", "n"), "b": ("m", "n")},
    "pairwise_distance": {"X1": ("m", "d"), "X2": ("n", "d")},
    "kmeans_step": {"X": ("n", "d"), "C": ("k", "d")},
    "gpairs": {
        **{v: ("n",) for v in ("x1", "y1", "z1", "w1")},
        **{v: ("m",) for v in ("x2", "y2", "z2", "w2")},
        "rbins": ("b",),
    },
    "softmax": {"x": ("m", "n")},
    "arc_distance": {v: ("n",) for v in ("theta_1", "phi_1", "theta_2", "phi_2")},
    "conv2d": {"image": ("h", "w"), "weights": ("k", "k")},
    "azimint_naive": {"data": ("n",), "radius": ("n",)},
    "go_fast": {"a": ("m", "n")},
    "ident_np": {"x": ("m", "n")},
}

DIMS = {
    "conv2d": {"h": (3, 6), "w": (3, 6), "k": (1, 3)},
    "kmeans_step": {"k": (1, 4)},
}

ELEMENTS = {
    "black_scholes": {"price": (1.0, 100.0), "strike": (1.0, 100.0), "t": (0.1, 2.0)},
    "arc_distance": {v: (-3.0, 3.0) for v in ("theta_1", "phi_1", "theta_2", "phi_2")},
    "azimint_naive": {"radius": (0.0, 5.0)},
}

DOMAINS = {
    "black_scholes": {"rate": (0.01, 0.1), "vol": (0.05, 0.5)},
    "azimint_naive": {"npt": (0, 4)},
}

RAISES = {
    "azimint_naive": "ValueError",  # radius.max() of an empty array
    "softmax": "ValueError",  # np.max over a 0-length axis
}

MUTATES = {}

ULP = {"arc_distance", "ident_np", "black_scholes"}

SUMMED = {"black_scholes", "l2_distance", "pairwise_distance", "gpairs", "softmax"}
SUMMED |= {"conv2d", "azimint_naive", "go_fast"}


@gradc.export
def black_scholes(price: f64[:], strike: f64[:], t: f64[:], rate: f64, vol: f64) -> f64[:]:
    mr = -rate
    sig_sig_two = vol * vol * 2
    P = price
    S = strike
    T = t
    a = np.log(P / S)
    b = T * mr
    z = T * sig_sig_two
    c = 0.25 * z
    y = 1.0 / np.sqrt(z)
    w1 = (a - b + c) * y
    w2 = (a - b - c) * y
    d1 = 0.5 + 0.5 * np.tanh(w1 * 0.7978845608)
    d2 = 0.5 + 0.5 * np.tanh(w2 * 0.7978845608)
    Se = np.exp(b) * S
    call = P * d1 - Se * d2
    return call


@gradc.export
def l2_distance(a: f64[:, :], b: f64[:, :]) -> f64:
    return np.sqrt(np.sum(np.square(a - b)))


@gradc.export
def pairwise_distance(X1: f64[:, :], X2: f64[:, :]) -> f64[:, :]:
    sqX = np.sum(X1 * X1, axis=1)
    sqY = np.sum(X2 * X2, axis=1)
    XY = X1 @ X2.T
    D = -2.0 * XY + sqX[:, np.newaxis] + sqY[np.newaxis, :]
    return np.maximum(D, 0.0)


@gradc.export
def kmeans_step(X: f64[:, :], C: f64[:, :]) -> f64[:, :]:
    n = X.shape[0]
    k = C.shape[0]
    labels = np.empty(n, dtype=np.int64)
    for i in range(n):
        d = np.sum((C - X[i]) ** 2, axis=1)
        labels[i] = np.argmin(d)
    newC = np.zeros_like(C)
    counts = np.zeros(k)
    for i in range(n):
        newC[labels[i]] += X[i]
        counts[labels[i]] += 1
    for j in range(k):
        if counts[j] > 0:
            newC[j] /= counts[j]
    return newC


@gradc.export
def gpairs(
    x1: f64[:], y1: f64[:], z1: f64[:], w1: f64[:],
    x2: f64[:], y2: f64[:], z2: f64[:], w2: f64[:], rbins: f64[:],
) -> f64[:]:  # fmt: skip
    nbins = rbins.shape[0]
    result = np.zeros(nbins)
    for i in range(x1.shape[0]):
        dsq = (x1[i] - x2) ** 2 + (y1[i] - y2) ** 2 + (z1[i] - z2) ** 2
        for k in range(nbins):
            result[k] += np.sum(w1[i] * w2 * (dsq <= rbins[k] ** 2))
    return result


@gradc.export
def softmax(x: f64[:, :]) -> f64[:, :]:
    tmp_max = np.max(x, axis=-1, keepdims=True)
    tmp_out = np.exp(x - tmp_max)
    tmp_sum = np.sum(tmp_out, axis=-1, keepdims=True)
    return tmp_out / tmp_sum


@gradc.export
def arc_distance(theta_1: f64[:], phi_1: f64[:], theta_2: f64[:], phi_2: f64[:]) -> f64[:]:
    temp = (
        np.sin((theta_2 - theta_1) / 2) ** 2
        + np.cos(theta_1) * np.cos(theta_2) * np.sin((phi_2 - phi_1) / 2) ** 2
    )
    distance_matrix = 2 * (np.arctan2(np.sqrt(temp), np.sqrt(1 - temp)))
    return distance_matrix


@gradc.export
def conv2d(image: f64[:, :], weights: f64[:, :]) -> f64[:, :]:
    K = weights.shape[0]
    H_out = image.shape[0] - K + 1
    W_out = image.shape[1] - K + 1
    out = np.zeros((H_out, W_out))
    for i in range(H_out):
        for j in range(W_out):
            out[i, j] = np.sum(image[i : i + K, j : j + K] * weights)
    return out


@gradc.export
def azimint_naive(data: f64[:], radius: f64[:], npt: i64) -> f64[:]:
    rmax = radius.max()
    res = np.zeros(npt, dtype=np.float64)
    for i in range(npt):
        r1 = rmax * i / npt
        r2 = rmax * (i + 1) / npt
        mask_r12 = (r1 <= radius) & (radius < r2)
        values_r12 = data[mask_r12]
        if values_r12.size > 0:
            res[i] = values_r12.mean()
    return res


@gradc.export
def go_fast(a: f64[:, :]) -> f64[:, :]:
    trace = 0.0
    for i in range(min(a.shape[0], a.shape[1])):
        trace += np.tanh(a[i, i])
    return a + trace


@gradc.export
def ident_np(x: f64[:, :]) -> f64[:, :]:
    return np.cos(x) ** 2 + np.sin(x) ** 2
