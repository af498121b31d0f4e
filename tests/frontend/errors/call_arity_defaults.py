# ruff: noqa
# expect-message: function 'g' takes from 2 to 3 arguments but 1 were given
# expect-col: 11
# expect-node: Call
import gradc
from gradc import f64, i64


def g(a, b, c=2.0):
    return a + b * c


@gradc.export
def f(x: f64) -> f64:
    return g(x)  # error-here
