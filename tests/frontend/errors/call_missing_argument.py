# ruff: noqa
# expect-message: function 'g' missing required argument: 'a'
# expect-col: 11
# expect-node: Call
import gradc
from gradc import f64, i64


def g(a, b, c=1.0):
    return a - b * c


@gradc.export
def f(x: f64) -> f64:
    return g(b=x)  # error-here
