# ruff: noqa
# expect-message: unsupported statement 'Delete'
# expect-col: 4
# expect-node: Delete
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    y = x * 2.0
    del y  # error-here
    return x
