# ruff: noqa
# expect-message: NumPy's result type depends on whether the f64 operand is a Python scalar (f32, NEP 50) or a NumPy scalar (f64), which gradc cannot tell: write it as a literal or a module constant
import gradc
from gradc import f32, f64


@gradc.export
def f(a: f32[:], s: f64) -> f32:
    b = a * s  # error-here
    return b[0]
