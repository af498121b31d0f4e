# ruff: noqa
# expect-message: cannot pass function '_twice' to export 'apply': an export's parameters come from Python callers
# expect-col: 17
# expect-node: Name
import gradc
from gradc import f64


def _twice(x):
    return 2.0 * x


@gradc.export
def apply(f: f64, x: f64) -> f64:
    return x


@gradc.export
def g(x: f64) -> f64:
    return apply(_twice, x)  # error-here
