# ruff: noqa
# expect-message: ufunc 'bitwise_and' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe'' (NumPy's TypeError)
import gradc
from gradc import f64, i64


@gradc.export
def f(a: f64[:], b: i64[:]) -> f64:
    c = a & b  # error-here
    return c[0]
