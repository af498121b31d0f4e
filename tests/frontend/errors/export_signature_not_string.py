# ruff: noqa
# expect-message: a gradc.export signature is a string literal
# expect-col: 27
# expect-node: Name
# expect-carets: 3
import gradc
from gradc import f64

SIG = "f64(f64)"


@gradc.export(["f64(f64)", SIG])  # error-here
def f(x):
    return x * x
