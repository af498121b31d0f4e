# ruff: noqa
# expect-message: an import inside a function is not supported in compiled code
# expect-col: 4
# expect-node: Import
# expect-help: import at the top of the module
# expect-carets: 11
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    import math  # error-here

    return math.sin(x)
