# ruff: noqa
# expect-message: function 'g' takes 2 arguments but 3 were given
# expect-col: 11
# expect-node: Call
import gradc
from gradc import f64, i64


def g(a, b):
    return a + b


@gradc.export
def f(x: f64) -> f64:
    return g(x, x, x)  # error-here
