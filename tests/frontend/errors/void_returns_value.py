# ruff: noqa
# expect-message: is declared to return none but returns f64
import gradc
from gradc import f64, i64


@gradc.export("void(f64)")
def f(x):
    return x  # error-here
