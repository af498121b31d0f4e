# ruff: noqa
# expect-message: axis 2 is out of bounds for array of dimension 2
import gradc
from gradc import f64


@gradc.export
def f(a: f64[:, :]) -> f64:
    b = a.transpose(0, 2)  # error-here
    return b[0, 0]
