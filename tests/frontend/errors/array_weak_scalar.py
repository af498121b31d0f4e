# ruff: noqa
# expect-message: NumPy's result type depends on whether the f64 operand is a Python scalar (f32, NEP 50) or a NumPy scalar (f64), which gradc cannot tell here
import gradc
from gradc import f32, f64


@gradc.export
def f(a: f32[:], s: f64, d: f64[:]) -> f32:
    v = s if s > 0.0 else d[0]  # a Python float or a NumPy float64
    b = a * v  # error-here
    return b[0]
