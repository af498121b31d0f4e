# ruff: noqa
# expect-message: 'f' is already defined at line 10, as an exported function
# expect-col: 0
# expect-node: FunctionDef
import gradc
from gradc import f64


@gradc.export
def f(x: f64) -> f64:
    return x


@gradc.export
def f(x: f64) -> f64:  # error-here
    return 2.0 * x
