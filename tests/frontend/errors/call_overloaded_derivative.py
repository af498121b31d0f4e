# ruff: noqa
# expect-message: 'df' is a derivative of a function with several signatures; compiled code cannot call it
# expect-col: 11
# expect-node: Name
import gradc
from gradc import f64


@gradc.export(["f64(f64)", "f32(f32)"])
def f(x):
    return x * x


df = gradc.grad(f)


@gradc.export
def g(x: f64) -> f64:
    return df(x)  # error-here
