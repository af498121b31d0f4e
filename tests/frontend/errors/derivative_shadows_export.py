# ruff: noqa
# expect-message: 'f' is already defined at line 10, as an exported function
# expect-col: 0
# expect-node: Assign
import gradc
from gradc import f64


@gradc.export
def f(x: f64) -> f64:
    return x * x


f = gradc.grad(f)  # error-here
