# ruff: noqa
# expect-message: np.convolve() argument 'mode' must be the constant 'full', 'same' or 'valid'
import gradc
import numpy as np
from gradc import f64


@gradc.export
def smooth(x: f64[:], k: f64[:]) -> f64:
    return np.sum(np.convolve(x, k, mode="centered"))  # error-here
