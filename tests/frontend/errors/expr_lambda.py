# ruff: noqa
# expect-message: unsupported expression 'Lambda'
# expect-col: 8
# expect-node: Lambda
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    g = lambda: x  # error-here
    return x
