# ruff: noqa
# expect-message: unsupported iterable in for loop
# expect-col: 13
# expect-node: Call
import gradc
from gradc import f64, i64


@gradc.export
def f(a: f64[:]) -> f64:
    s = 0.0
    for v in sorted(a):  # error-here
        s += v
    return s
