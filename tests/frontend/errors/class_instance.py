# ruff: noqa
# expect-message: class 'A' (line 9) cannot be used in compiled code
# expect-col: 8
# expect-node: Name
import gradc
from gradc import f64


class A:
    pass


@gradc.export
def f(x: f64) -> f64:
    a = A()  # error-here
    return x
