# ruff: noqa
# expect-message: np.sort() along axis 0 of a 2-D array is not supported (the last axis, or axis=None)
import numpy as np

import gradc
from gradc import f64


@gradc.export
def f(a: f64[:, :]) -> f64:
    return np.sum(np.sort(a, axis=0))  # error-here
