# ruff: noqa
# expect-message: a del statement is not supported in compiled code
# expect-col: 4
# expect-node: Delete
# expect-help: rebind it
# expect-carets: 5
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    y = x * 2.0
    del y  # error-here
    return x
