# ruff: noqa
# expect-message: too many indices for array: array is 1-dimensional, but 2 were indexed
import gradc
from gradc import f64


@gradc.export
def f(a: f64[:]) -> f64:
    b = a[1:, 0]  # error-here
    return b[0]
