# ruff: noqa
# expect-message: repeated axis in transpose
import gradc
from gradc import f64


@gradc.export
def f(a: f64[:, :]) -> f64:
    b = a.transpose(1, -1)  # error-here
    return b[0, 0]
