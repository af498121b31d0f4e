# ruff: noqa
# expect-message: axis -3 is out of bounds for array of dimension 2
# expect-col: 11
# expect-node: Call
import numpy as np

import gradc
from gradc import f64


@gradc.export
def f(a: f64[:, :]) -> f64[:]:
    return np.mean(a, axis=-3)  # error-here
