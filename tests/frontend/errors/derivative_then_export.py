# ruff: noqa
# expect-message: 'd' is already defined at line 14, as a derivative declaration
# expect-col: 0
# expect-node: FunctionDef
import gradc
from gradc import f64


@gradc.export
def f(x: f64) -> f64:
    return x * x


d = gradc.grad(f)


@gradc.export
def d(x: f64) -> f64:  # error-here
    return x
