# ruff: noqa
# expect-message: np.array() of a ragged nested sequence is not supported
# expect-col: 17
# expect-node: List
import numpy as np
import gradc
from gradc import f64


@gradc.export
def f(x: f64) -> f64:
    a = np.array([x, [x, 2.0]])  # error-here
    return a[0]
