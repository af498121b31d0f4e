# ruff: noqa
# expect-message: a lambda is not supported in compiled code
# expect-col: 34
# expect-node: Lambda
# expect-help: define a module-level function
# expect-carets: 11
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    if x > 0.0:
        return x if x > 1.0 else (lambda: 2.0)  # error-here
    return x
