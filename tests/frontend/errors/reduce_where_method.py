# ruff: noqa
# expect-message: a.max() argument 'where=' is not supported
import numpy as np

import gradc
from gradc import f64


@gradc.export
def f(a: f64[:]) -> f64:
    return a.max(where=a > 0.0, initial=0.0)  # error-here
