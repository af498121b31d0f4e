# ruff: noqa
# expect-message: function 'g' got multiple values for argument 'a'
# expect-col: 18
# expect-node: Name
import gradc
from gradc import f64, i64


def g(a, b=1.0):
    return a - b


@gradc.export
def f(x: f64) -> f64:
    return g(x, a=x)  # error-here
