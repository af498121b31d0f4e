# ruff: noqa
# expect-message: numpy function 'np.logaddexp2' is not supported
# expect-col: 11
# expect-node: Attribute
import gradc
import numpy as np
from gradc import f64


@gradc.export
def f(x: f64) -> f64:
    return np.logaddexp2(x, x)  # error-here
