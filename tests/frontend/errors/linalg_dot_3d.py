# ruff: noqa
# expect-message: np.dot() of arrays of more than 2 dimensions is not supported
import numpy as np

import gradc
from gradc import f64


@gradc.export
def f(a: f64[:, :, :], b: f64[:, :]) -> f64:
    c = np.dot(a, b)  # error-here
    return 0.0
