# ruff: noqa
# expect-message: transpose axes must be constant integers
# expect-col: 20
# expect-node: Name
import gradc
from gradc import f64, i64


@gradc.export
def f(a: f64[:, :], k: i64) -> f64:
    b = a.transpose(k, 0)  # error-here
    return b[0, 0]
