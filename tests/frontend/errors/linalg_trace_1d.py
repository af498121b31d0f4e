# ruff: noqa
# expect-message: np.trace() of a 1-D array is not supported (2-D only)
import numpy as np
import gradc
from gradc import f64


@gradc.export
def f(x: f64[:]) -> f64:
    return np.trace(x)  # error-here
