# ruff: noqa
# expect-message: derivatives are declared at module level
# expect-col: 8
# expect-node: Call
import gradc
from gradc import f64


@gradc.export
def f(x: f64) -> f64:
    return x * x


@gradc.export
def g(x: f64) -> f64:
    d = gradc.grad(f)  # error-here
    return x
