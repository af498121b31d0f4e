# ruff: noqa
# expect-message: argnums takes parameter positions (int constants)
# expect-col: 28
# expect-node: Constant
# expect-carets: 3
import gradc
from gradc import f64


@gradc.export
def f(x: f64, y: f64) -> f64:
    return x * y


d_f = gradc.grad(f, argnums="x")  # error-here
