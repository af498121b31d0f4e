# ruff: noqa
# expect-message: + of bools is ambiguous: Python's bools give an int (True + True is 2), NumPy's bools (from np.all, np.any, a bool array's element or a comparison of them) give a bool (logical or/and) or a TypeError: convert with int(b) for Python's int, or write 'b or c' / 'b and c'
# np.add of two bool scalars is NumPy's logical or (np.add(True, True) is True), never
# Python's int 2, even of bool parameters (fuzz seed 620588: the 2 was written into an array)
import numpy as np

import gradc
from gradc import f64


@gradc.export
def f(a: f64[:], s: bool) -> f64:
    a[0] += np.add(s, s)  # error-here
    return a[0]
