# ruff: noqa
# expect-message: parameter 'f' is passed function '_twice' and cannot be assigned
# expect-col: 4
# expect-node: Name
# expect-note: in _apply(f=_twice, x: f64), called from g at *function_arg_param_assigned.py:21
import gradc
from gradc import f64


def _twice(x):
    return 2.0 * x


def _apply(f, x):
    f = x  # error-here
    return f


@gradc.export
def g(x: f64) -> f64:
    return _apply(_twice, x)
