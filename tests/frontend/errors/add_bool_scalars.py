# ruff: noqa
# expect-message: + of bools is ambiguous: Python's bools give an int (True + True is 2), NumPy's bools (from np.all, np.any, a bool array's element or a comparison of them) give a bool (logical or/and) or a TypeError: convert with int(b) for Python's int, or write 'b or c' / 'b and c'
import numpy as np

import gradc
from gradc import f64


@gradc.export
def f(a: f64[:], b: f64[:]) -> f64:
    t = a.min() <= np.all(b)
    return np.sum(a ** (t + t))  # error-here
