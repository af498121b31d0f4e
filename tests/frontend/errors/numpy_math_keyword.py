# ruff: noqa
# expect-message: np.maximum() keyword arguments are not supported
# expect-col: 11
# expect-node: Call
import gradc
import numpy as np
from gradc import f64


@gradc.export
def f(x: f64, y: f64) -> f64:
    return np.maximum(x, y, dtype=float)  # error-here
