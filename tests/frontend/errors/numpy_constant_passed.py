# ruff: noqa
# expect-message: module array constant 'W' is read-only in compiled code: it can be passed only to NumPy functions that return new arrays
# expect-col: 17
# expect-node: Name
import numpy as np
import gradc
from gradc import f64

W = np.arange(3.0)


def scale(a):
    a[0] = 2.0
    return a[0]


@gradc.export
def f(x: f64) -> f64:
    return scale(W)  # error-here
