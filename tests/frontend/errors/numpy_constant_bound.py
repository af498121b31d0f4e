# ruff: noqa
# expect-message: module array constant 'W' is read-only in compiled code: it can be used only in expressions, element reads and NumPy calls
# expect-col: 8
# expect-node: Name
import numpy as np
import gradc
from gradc import f64

W = np.eye(2)


@gradc.export
def f(x: f64) -> f64:
    v = W  # error-here
    return x
