# ruff: noqa
# expect-message: cannot pass function '_twice' to @gradc.custom_jvp function '_apply'
# expect-col: 18
# expect-node: Name
import gradc
from gradc import f64


def _twice(x):
    return 2.0 * x


@gradc.custom_jvp
def _apply(f, x):
    return f(x)


@_apply.defjvp
def _apply_jvp(primals, tangents):
    return primals[1], tangents[1]


@gradc.export
def g(x: f64) -> f64:
    return _apply(_twice, x)  # error-here
