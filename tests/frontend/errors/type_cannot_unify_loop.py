# ruff: noqa
# expect-message: cannot unify
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64, n: i64):
    y = x
    for i in range(n):  # error-here
        y = (y, x)  # error-here
    return y  # error-here
