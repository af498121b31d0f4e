# ruff: noqa
# expect-message: unsupported expression 'List'
# expect-col: 9
# expect-node: List
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    ys = [x, x]  # error-here
    return x
