# ruff: noqa
# expect-message: 'helper' is already defined at line 9, as a function
# expect-col: 0
# expect-node: Assign
import gradc
from gradc import f64


def helper(x: f64) -> f64:
    return x + 1.0


@gradc.export
def f(x: f64) -> f64:
    return helper(x) * x


helper = gradc.grad(f)  # error-here
