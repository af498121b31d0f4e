# ruff: noqa
# expect-message: function '_twice' can only be called or passed as an argument
# expect-col: 8
# expect-node: Name
import gradc
from gradc import f64


def _twice(x):
    return 2.0 * x


@gradc.export
def f(x: f64) -> f64:
    g = _twice  # error-here
    return g(x)
