# ruff: noqa
# expect-message: np.trapezoid(y, x, axis=k) is supported only for axis=-1 (the default)
# expect-col: 27
# expect-node: Name
import gradc
import numpy as np
from gradc import f64


@gradc.export
def f(A: f64[:, :], x: f64[:]) -> f64[:]:
    return np.trapezoid(A, x, axis=0)  # error-here
