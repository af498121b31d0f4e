# ruff: noqa
# expect-message: a try statement is not supported in compiled code
# expect-col: 4
# expect-node: Try
# expect-help: test the condition with if
# expect-carets: 4
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    try:  # error-here
        y = 1.0 / x
    except ZeroDivisionError:
        y = 0.0
    return y
