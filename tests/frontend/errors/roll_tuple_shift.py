# ruff: noqa
# expect-message: np.roll() shift must be one int here (not a tuple)
import numpy as np

import gradc
from gradc import f64


@gradc.export
def f(a: f64[:, :]) -> f64:
    return np.sum(np.roll(a, (1, 2), axis=(0, 1)))  # error-here
