# ruff: noqa
# expect-message: @gradc.grad is not a decorator
# expect-col: 1
# expect-node: Attribute
import gradc
from gradc import f64


@gradc.grad  # error-here
def f(x: f64) -> f64:
    return x


@gradc.export
def g(x: f64) -> f64:
    return x
