# ruff: noqa
# expect-message: 'f' names function '_twice': it can only be called or passed to a function
# expect-col: 11
# expect-node: Name
# expect-note: in _apply(f=_twice, x: f64), called from g at *function_arg_param_read.py:20
import gradc
from gradc import f64


def _twice(x):
    return 2.0 * x


def _apply(f, x):
    return f  # error-here


@gradc.export
def g(x: f64) -> f64:
    return _apply(_twice, x)
