# ruff: noqa
# expect-message: 'from gradc import *' is not supported
# expect-col: 18
# expect-node: alias
# expect-help: gradc's names are
# expect-carets: 1
import gradc
from gradc import *  # error-here


@gradc.export
def f(x: f64) -> f64:
    return x * x
