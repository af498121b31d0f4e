# ruff: noqa
# expect-message: unsupported statement 'Global'
# expect-col: 4
# expect-node: Global
import gradc
from gradc import f64, i64


COUNTER = 0


@gradc.export
def f(x: f64) -> f64:
    global COUNTER  # error-here
    return x
