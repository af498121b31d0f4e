# ruff: noqa
# expect-message: 'enumerate' object is not reversible
# expect-col: 25
# expect-node: Call
import gradc
from gradc import f64, i64


@gradc.export
def f(a: f64[:]) -> f64:
    s = 0.0
    for i, v in reversed(enumerate(a)):  # error-here
        s += i * v
    return s
