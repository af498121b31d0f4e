# ruff: noqa
# expect-message: module array constant 'W' is read-only in compiled code: only its elements can be read by index (a slice or row is a view)
# expect-col: 8
# expect-node: Name
import numpy as np
import gradc
from gradc import f64

W = np.array([[1.0, 2.0], [3.0, 4.0]])


@gradc.export
def f(x: f64) -> f64:
    r = W[1]  # error-here
    return x
