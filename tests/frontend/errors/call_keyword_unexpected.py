# ruff: noqa
# expect-message: function 'g' got an unexpected keyword argument 'c'
# expect-col: 18
# expect-node: Constant
import gradc
from gradc import f64, i64


def g(a, b=1.0):
    return a - b


@gradc.export
def f(x: f64) -> f64:
    return g(x, c=2.0)  # error-here
