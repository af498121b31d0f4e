# ruff: noqa
# expect-message: missing type for parameter 'x' of exported function 'f'
# expect-col: 6|0
# expect-node: arg|FunctionDef
import gradc
from gradc import f64, i64


@gradc.export
def f(x, y: f64) -> f64:  # error-here
    return x + y
