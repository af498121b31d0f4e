# fuzz: class=fwd_rev key=fwd_rev:vjp seed=59 input_seed=59 opt=0
# where: vjp v0_f(-0.4377, -1.8633, True, -1.0, ct) -> nan; jvp -> 0.0
# a comparison cuts the dependence, yet the reverse sweep multiplies a zero adjoint by
# asin'(-1) = inf (the nan-from-dead-code class of #18, through a bool)
import math

import gradc
from gradc import f64

FUZZ = {"f": {"x0": "f64", "x1": "f64", "c2": "bool", "x3": "f64"}}
FUZZ_INPUTS = {"f": [(-0.4377, -1.8633, True, -1.0)]}


@gradc.export
def f(x0: f64, x1: f64, c2: bool, x3: f64) -> f64:
    v9 = math.asin(x3) < 1.0  # noqa: F841
    return 1.0


v0_f = gradc.vjp(f, wrt=("x3",))
t0_f = gradc.jvp(f, wrt=("x3",))
