# ruff: noqa
# expect-message: the builtin 'print' is not supported in compiled code
# expect-col: 4
# expect-node: Name
# expect-help: return the value and print it in Python
import gradc
from gradc import f64


@gradc.export
def f(x: f64) -> f64:
    print(x)  # error-here
    return x
