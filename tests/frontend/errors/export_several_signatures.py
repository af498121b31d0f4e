# ruff: noqa
# expect-message: gradc.export takes one signature string
# expect-col: 1
# expect-node: Call
# expect-help: one export per signature: a module-level helper holding the body
# expect-carets: 38
import gradc
from gradc import f64


@gradc.export(["f64(f64)", "f32(f32)"])  # error-here
def f(x):
    return x * x
