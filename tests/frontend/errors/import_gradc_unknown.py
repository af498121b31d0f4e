# ruff: noqa
# expect-message: cannot import name 'gard' from 'gradc'
# expect-col: 28
# expect-node: alias
# expect-help: did you mean 'grad'? gradc's names are Active, Activity
# expect-carets: 4
import gradc
from gradc import f64, i64, gard  # error-here


@gradc.export
def f(x: f64) -> f64:
    return x * x
