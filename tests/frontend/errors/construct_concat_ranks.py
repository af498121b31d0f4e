# ruff: noqa
# expect-message: all the input arrays must have same number of dimensions, but the array at index 0 has 1 dimension(s) and the array at index 1 has 2 dimension(s)
import numpy as np
import gradc
from gradc import f64


@gradc.export
def f(x: f64[:], y: f64[:, :]) -> f64:
    a = np.concatenate((x, y))  # error-here
    return a[0]
