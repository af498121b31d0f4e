# ruff: noqa
# expect-message: cannot unpack or subscript a value of type f64
# expect-note: in inner(a: f64, i: i64), called from middle at *helper_call_chain.py:16
# expect-note: in middle(a: f64, i: i64), called from outer at *helper_call_chain.py:21
import gradc
from gradc import f64, i64


def inner(a, i):
    return a[i]  # error-here


def middle(a, i):
    if i > 0:
        return 0.0
    return inner(a, i) + 1.0


@gradc.export
def outer(x: f64, n: i64) -> f64:
    return middle(x, n)
