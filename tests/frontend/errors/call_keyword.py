# ruff: noqa
# expect-message: keyword arguments are not supported
# expect-col: 11|16
# expect-node: Call|keyword
import gradc
from gradc import f64, i64


def g(a, b):
    return a - b


@gradc.export
def f(x: f64) -> f64:
    return g(x, b=2.0)  # error-here
