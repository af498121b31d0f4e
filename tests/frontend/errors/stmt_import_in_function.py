# ruff: noqa
# expect-message: unsupported statement 'Import'
# expect-col: 4
# expect-node: Import
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    import math  # error-here

    return math.sin(x)
