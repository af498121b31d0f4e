# ruff: noqa
# expect-message: the default value of parameter 'tol' of 'g' must be a constant (an int, float or bool literal, or a module constant)
# expect-col: 13
# expect-node: Constant
import gradc
from gradc import f64, i64


def g(x, tol=None):  # error-here
    return x


@gradc.export
def f(x: f64) -> f64:
    return g(x, 1.0)
