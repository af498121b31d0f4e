# ruff: noqa
# expect-message: this index gives a 0-d array, which gradc does not support
import gradc
from gradc import f64


@gradc.export
def f(a: f64[:]) -> f64:
    b = a[..., 1]  # error-here
    return b[0]
