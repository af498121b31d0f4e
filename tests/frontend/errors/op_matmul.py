# ruff: noqa
# expect-message: '@' of a scalar (f64) is not supported: its operands must be arrays
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64, y: f64) -> f64:
    return x @ y  # error-here
