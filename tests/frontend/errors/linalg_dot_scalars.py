# ruff: noqa
# expect-message: np.dot() of a scalar (f64) is not supported: its operands must be arrays
import numpy as np
import gradc
from gradc import f64


@gradc.export
def f(x: f64, y: f64) -> f64:
    return np.dot(x, y)  # error-here
