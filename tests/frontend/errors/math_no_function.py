# ruff: noqa
# expect-message: module 'math' has no function 'foo'
# expect-col: 17
# expect-node: Call|Attribute
import gradc
import math
from gradc import f64


@gradc.export
def f(x: f64) -> f64:
    return 2.0 * math.foo(x)  # error-here
