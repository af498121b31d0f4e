# ruff: noqa
# expect-message: a global statement is not supported in compiled code
# expect-col: 4
# expect-node: Global
# expect-help: pass the value as an argument and return its new value
# expect-carets: 14
import gradc
from gradc import f64, i64


COUNTER = 0


@gradc.export
def f(x: f64) -> f64:
    global COUNTER  # error-here
    return x
