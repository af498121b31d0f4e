# ruff: noqa
# expect-message: an array shape must be an int or a tuple of ints, not tuple[i64,f64]
import gradc
import numpy as np
from gradc import f64, i64


def half(n):
    return n / 2


@gradc.export
def f(n: i64) -> f64:
    a = np.zeros((2, half(n)))  # error-here
    return a[0, 0]
