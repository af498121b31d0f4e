# fuzz: class=compile_error key=compile_error:float_mod_no_derivative seed=0 input_seed=7 opt=0
# differentiating through float % (and math.fmod, //) was a compile error (151 of the 167
# compile errors of a 6,007-program run); now d(a % b)/da = 1, d/db = -(a // b)
import math

import gradc
from gradc import f64

FUZZ = {"f": {"x": "f64", "y": "f64"}, "g": {"a": ("f64", (3,), "C"), "y": "f64"}}
FUZZ_INPUTS = {"f": [[5.3, 3.1], [-5.3, 3.1], [5.3, -3.1], [-5.3, -3.1], [0.7, 1e-3], [1.0, 1e300]]}


@gradc.export
def f(x: f64, y: f64) -> f64:
    return (x * x) % y + math.fmod(x, y * 1.5) + (x // y) * x + x % x


@gradc.export
def g(a: f64[::1], y: f64) -> f64:
    s = a % y
    return s[0] + s[1] * s[2]


d_f = gradc.grad(f, wrt=("x", "y"))
t_f = gradc.jvp(f, wrt=("x", "y"))
d_g = gradc.grad(g, wrt=("a", "y"))
t_g = gradc.jvp(g, wrt=("a", "y"))
