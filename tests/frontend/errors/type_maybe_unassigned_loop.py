# ruff: noqa
# expect-message: may be used before assignment
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64, n: i64) -> f64:
    for i in range(n):
        y = x * i
    return y  # error-here
