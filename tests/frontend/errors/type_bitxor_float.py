# ruff: noqa
# expect-message: unsupported operand type(s) for ^: 'bool' and 'float'
import gradc
from gradc import f64


@gradc.export
def f(a: f64) -> f64:
    return (a > 0.0) ^ 1.5  # error-here
