# ruff: noqa
# expect-message: a.sort() sorts in place and returns None: write it as a statement
# expect-help: np.sort(a) returns a sorted copy
import numpy as np

import gradc
from gradc import f64


@gradc.export
def f(a: f64[:, :]) -> f64:
    b = a.sort(axis=0)  # error-here
    return np.sum(a)
