# ruff: noqa
# expect-message: sort() argument 'axis=' must be a constant int (a.sort(axis=-1, kind=None): in place along an int axis, as a statement)
import numpy as np

import gradc
from gradc import f64


@gradc.export
def f(a: f64[:, :]) -> f64:
    a.sort(axis=None)  # error-here
    return np.sum(a)
