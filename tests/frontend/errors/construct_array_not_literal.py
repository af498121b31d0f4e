# ruff: noqa
# expect-message: np.array() takes a literal list or tuple of numbers here
# expect-col: 17
# expect-node: Name
import numpy as np
import gradc
from gradc import f64


@gradc.export
def f(x: f64[:]) -> f64:
    a = np.array(x)  # error-here
    return a[0]
