# ruff: noqa
# expect-message: gradc.export takes one signature string
# expect-col: 1
# expect-node: Call
# expect-help: gradc build --fastmath / --no-boundscheck
# expect-carets: 27
import gradc
from gradc import f64


@gradc.export(fastmath=True)  # error-here
def f(x: f64) -> f64:
    return x * x
