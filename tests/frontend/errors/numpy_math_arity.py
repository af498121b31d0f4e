# ruff: noqa
# expect-message: np.sqrt() takes 1 argument but 3 were given
# expect-col: 11
# expect-node: Call
import gradc
import numpy as np
from gradc import f64


@gradc.export
def f(x: f64) -> f64:
    return np.sqrt(x, x, x)  # error-here
