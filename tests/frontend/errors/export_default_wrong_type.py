# ruff: noqa
# expect-message: the default value 2.5 of parameter 'n' of exported function 'f' is not of its type i64
# expect-col: 23
# expect-node: Constant
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64, n: i64 = 2.5) -> f64:  # error-here
    return x * n
