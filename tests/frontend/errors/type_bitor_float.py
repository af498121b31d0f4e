# ruff: noqa
# expect-message: unsupported operand type(s) for |: 'int' and 'float'
import gradc
from gradc import f64, i64


@gradc.export
def f(a: i64, b: f64) -> i64:
    return a | b  # error-here
