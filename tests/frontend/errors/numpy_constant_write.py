# ruff: noqa
# expect-message: module array constant 'W' is read-only in compiled code: it cannot be written
# expect-col: 4
# expect-node: Name
import numpy as np
import gradc
from gradc import f64

W = np.array([1.0, 2.0])


@gradc.export
def f(x: f64) -> f64:
    W[0] = x  # error-here
    return x
