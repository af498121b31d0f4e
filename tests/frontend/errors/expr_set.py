# ruff: noqa
# expect-message: unsupported expression 'Set'
# expect-col: 8
# expect-node: Set
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    s = {x, 1.0}  # error-here
    return x
