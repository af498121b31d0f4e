# ruff: noqa
# expect-message: np.sum() argument 'out=' is not supported
# expect-col: 25
# expect-node: Name
import numpy as np

import gradc
from gradc import f64


@gradc.export
def f(a: f64[:], s: f64[:]) -> f64:
    return np.sum(a, out=s)  # error-here
