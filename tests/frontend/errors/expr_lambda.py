# ruff: noqa
# expect-message: a lambda is not supported in compiled code
# expect-col: 8
# expect-node: Lambda
# expect-help: define a module-level function
# expect-carets: 9
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    g = lambda: x  # error-here
    return x
