# ruff: noqa
# expect-message: a value of type bool[::1] has no truth value here
import gradc
from gradc import f64


@gradc.export
def f(a: f64[:]) -> f64:
    if a > 0.0:  # error-here
        return 1.0
    return 0.0
