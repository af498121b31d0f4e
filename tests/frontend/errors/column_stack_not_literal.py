# ruff: noqa
# expect-message: np.column_stack() takes a literal, non-empty tuple or list of arrays here
import gradc
import numpy as np
from gradc import f64


@gradc.export
def design(x: f64[:]) -> f64:
    return np.sum(np.column_stack(x))  # error-here
