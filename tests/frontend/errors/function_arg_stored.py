# ruff: noqa
# expect-message: function '_twice' can only be called or passed as an argument
# expect-col: 12
# expect-node: Name
import gradc
from gradc import f64


def _twice(x):
    return 2.0 * x


def _square(x):
    return x * x


@gradc.export
def f(x: f64) -> f64:
    if x > 0.0:
        g = _twice  # error-here
    else:
        g = _square
    return g(x)
