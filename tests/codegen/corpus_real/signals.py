"""Signal processing as NumPy users write it: a moving average through a zero-padded
``np.cumsum``, full convolution and FIR filtering by loops over shifted slices, the
normalised autocorrelation, an exponential moving average, a biquad IIR filter, the
zero-crossing rate through ``np.diff``, frame RMS through ``reshape``, a Hann-windowed
power spectrum by a DFT matrix, Goertzel's algorithm, zero-insertion upsampling and
block-mean decimation, peak picking by boolean masks, the normalised cross-correlation.

Written for gradc's differential tests (never copied).
"""

import math

import numpy as np

import gradc
from gradc import f64, i64

# a big module: its compiled tests are slow (idioms_more.py holds the default-run idioms)
SLOW = True

SHAPES = {
    "moving_average_pad": {"x": ("n",)},
    "convolve_full": {"x": ("n",), "h": ("k",)},
    "fir_filter": {"x": ("n",), "h": ("k",)},
    "autocorr": {"x": ("n",)},
    "ema": {"x": ("n",)},
    "biquad": {"x": ("n",), "b": (3,), "a": (3,)},
    "zero_crossing_rate": {"x": ("n",)},
    "frame_rms": {"x": ("n",)},
    "power_spectrum": {"x": ("n",)},
    "goertzel": {"x": ("n",)},
    "upsample": {"x": ("n",)},
    "decimate_mean": {"x": ("n",)},
    "find_peaks": {"x": ("n",)},
    "xcorr_normalized": {"x": ("n",), "y": ("n",)},
}

DIMS = {
    "moving_average_pad": {"n": (3, 8)},
    "fir_filter": {"n": (3, 8), "k": (1, 3)},
    "autocorr": {"n": (5, 8)},
    "power_spectrum": {"n": (2, 7)},
}

ELEMENTS = {"biquad": {"a": (0.1, 0.4)}}

DOMAINS = {
    "moving_average_pad": {"w": (1, 3)},
    "autocorr": {"max_lag": (0, 4)},
    "ema": {"alpha": (0.0, 1.0)},
    "frame_rms": {"frame": (1, 3)},
    "goertzel": {"k": (0, 4)},
    "upsample": {"L": (1, 3)},
    "decimate_mean": {"q": (1, 3)},
}

RAISES = {}

MUTATES = {}

ULP = {"power_spectrum", "frame_rms"}

SUMMED = {"moving_average_pad", "convolve_full", "fir_filter", "autocorr", "biquad"}
SUMMED |= {"power_spectrum", "goertzel", "decimate_mean", "xcorr_normalized", "frame_rms"}


@gradc.export
def moving_average_pad(x: f64[:], w: i64) -> f64[:]:
    c = np.cumsum(np.concatenate((np.zeros(1), x)))
    return (c[w:] - c[:-w]) / w


@gradc.export
def convolve_full(x: f64[:], h: f64[:]) -> f64[:]:
    n = x.size + h.size - 1 if x.size and h.size else 0
    y = np.zeros(n)
    for i in range(x.size):
        for j in range(h.size):
            y[i + j] += x[i] * h[j]
    return y


@gradc.export
def fir_filter(x: f64[:], h: f64[:]) -> f64[:]:
    y = np.zeros(x.size)
    for k in range(h.size):
        y[k:] += h[k] * x[: x.size - k]
    return y


@gradc.export
def autocorr(x: f64[:], max_lag: i64) -> f64[:]:
    x = x - x.mean()
    r = np.empty(max_lag + 1)
    for k in range(max_lag + 1):
        r[k] = x[: x.size - k] @ x[k:]
    return r / r[0]


@gradc.export
def ema(x: f64[:], alpha: f64) -> f64[:]:
    out = np.empty_like(x)
    if x.size == 0:
        return out
    out[0] = x[0]
    for i in range(1, x.size):
        out[i] = alpha * x[i] + (1 - alpha) * out[i - 1]
    return out


@gradc.export
def biquad(x: f64[:], b: f64[:], a: f64[:]) -> f64[:]:
    y = np.zeros_like(x)
    x1 = x2 = y1 = y2 = 0.0
    for n, xn in enumerate(x):
        yn = b[0] * xn + b[1] * x1 + b[2] * x2 - a[1] * y1 - a[2] * y2
        x2, x1 = x1, xn
        y2, y1 = y1, yn
        y[n] = yn
    return y


@gradc.export
def zero_crossing_rate(x: f64[:]) -> f64:
    return np.mean(np.abs(np.diff(np.sign(x))) > 0)


@gradc.export
def frame_rms(x: f64[::1], frame: i64) -> f64[:]:
    n_frames = x.size // frame
    frames = x[: n_frames * frame].reshape(n_frames, frame)
    return np.sqrt(np.mean(frames**2, axis=1))


@gradc.export
def power_spectrum(x: f64[:]) -> f64[:]:
    N = x.size
    n = np.arange(N)
    w = 0.5 - 0.5 * np.cos(2.0 * np.pi * n / (N - 1))
    xw = x * w
    ang = 2.0 * np.pi * n[:, None] * n[None, :] / N
    re = np.cos(ang) @ xw
    im = -np.sin(ang) @ xw
    return (re**2 + im**2)[: N // 2 + 1]


@gradc.export
def goertzel(x: f64[:], k: i64) -> f64:
    N = len(x)
    if N == 0:
        return 0.0
    w = 2.0 * math.pi * k / N
    coeff = 2.0 * math.cos(w)
    s_prev = 0.0
    s_prev2 = 0.0
    for sample in x:
        s = sample + coeff * s_prev - s_prev2
        s_prev2 = s_prev
        s_prev = s
    return s_prev2**2 + s_prev**2 - coeff * s_prev * s_prev2


@gradc.export
def upsample(x: f64[:], L: i64) -> f64[:]:
    y = np.zeros(x.size * L)
    y[::L] = x
    return y


@gradc.export
def decimate_mean(x: f64[:], q: i64) -> f64[:]:
    m = x.size // q
    out = np.zeros(m)
    for i in range(q):
        out += x[i : m * q : q]
    return out / q


@gradc.export
def find_peaks(x: f64[:]) -> i64[:]:
    if x.size < 3:
        return np.zeros(0, dtype=np.int64)
    mid = x[1:-1]
    is_peak = (mid > x[:-2]) & (mid >= x[2:])
    return np.arange(1, x.size - 1)[is_peak]


@gradc.export
def xcorr_normalized(x: f64[:], y: f64[:]) -> f64:
    xc = x - np.mean(x)
    yc = y - np.mean(y)
    denom = np.sqrt(np.sum(xc**2) * np.sum(yc**2))
    if denom == 0.0:
        return 0.0
    return np.sum(xc * yc) / denom
