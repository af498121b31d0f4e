# ruff: noqa
# expect-message: function 'math.remainder' is not supported in compiled code
# expect-col: 17
# expect-node: Call|Attribute
import gradc
import math
from gradc import f64


@gradc.export
def f(x: f64) -> f64:
    return 2.0 * math.remainder(x, 3.0)  # error-here
