# ruff: noqa
# expect-message: ravel() of a f64[:, :], which is not known to be C-contiguous, is not supported
import gradc
from gradc import f64


@gradc.export
def f(a: f64[:, :]) -> f64:
    b = a.ravel()  # error-here
    return b[0]
