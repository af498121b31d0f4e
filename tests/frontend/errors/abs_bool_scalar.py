# ruff: noqa
# expect-message: abs() of a bool is ambiguous: Python's bool gives an int (abs(True) is 1), NumPy's bool (from np.all, np.any, a bool array's element or a comparison of them) gives a bool: convert with int(b) for Python's int
import numpy as np
import gradc
from gradc import f64


@gradc.export
def f(a: f64[:, :]) -> f64:
    t = np.all(np.where(a > a, 1, 2.0))
    return np.exp(1) // ~abs(t)  # error-here
