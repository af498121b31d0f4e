# ruff: noqa
# expect-message: module 'gradc' has no attribute 'gard'
# expect-col: 6
# expect-node: Attribute
# expect-help: did you mean 'grad'? gradc's names are Active
# expect-carets: 10
import gradc
from gradc import f64


@gradc.export
def f(x: f64) -> f64:
    return x * x


d_f = gradc.gard(f)  # error-here
