# ruff: noqa
# expect-message: unary + of a bool is ambiguous: Python's bool gives an int (+True is 1), NumPy's bool (from np.all, np.any, a bool array's element or a comparison of them) has no 'positive' loop (NumPy's TypeError): convert with int(b) for Python's int
import numpy as np
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64[:]) -> i64:
    b = np.all(x > 0.0)
    return +b  # error-here
