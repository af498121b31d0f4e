# ruff: noqa
# expect-message: unary - of bools is ambiguous: Python's bools give an int (True + True is 2), NumPy's bools (from np.all, np.any, a bool array's element or a comparison of them) give a bool (logical or/and) or a TypeError: convert with int(b) for Python's int, or write 'b or c' / 'b and c'
# np.negative of a bool scalar is NumPy's TypeError, not Python's -1, even of a bool parameter
import numpy as np

import gradc
from gradc import f64


@gradc.export
def f(x: f64, s: bool) -> f64:
    return x * np.negative(s)  # error-here
