# ruff: noqa
# expect-message: dtype=y.dtype is supported only for an array parameter that is never reassigned
# expect-col: 26
# expect-node: Attribute
import numpy as np
import gradc
from gradc import f64


@gradc.export
def f(x: f64[:]) -> f64:
    y = x
    z = np.zeros(3, dtype=y.dtype)  # error-here
    return z[0]
