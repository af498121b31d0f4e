# ruff: noqa
# expect-message: bad operand type for unary ~: 'float'
import gradc
from gradc import f64


@gradc.export
def f(a: f64) -> f64:
    return ~a  # error-here
