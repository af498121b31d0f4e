# ruff: noqa
# expect-message: unsupported operand type(s) for >>: 'float' and 'int'
import gradc
from gradc import f64, i64


@gradc.export
def f(a: f64) -> f64:
    return a >> 1  # error-here
