# fuzz: class=ad_fd key=ad_fd:vjp seed=600125 input_seed=600125 opt=0
# where: vjp:v0_f(0, 1.8576, True, -0.4625)
# derivative [0.4236173131590362, 0.4236173131590362] (forward/reverse agree); FD 0.0 (h=1e-06), 0.0 (h=0.0001)
# an oracle false positive, reduced by hand: x + 7e35 - 7e35 is flat in x (absorption),
# its derivative 1; finite differences are no oracle where an intermediate is huge
import math

import gradc
from gradc import f64

FUZZ = {"f": {"x1": "f64", "x3": "f64"}}


@gradc.export
def f(x1: f64, x3: f64) -> f64:
    x3 = -82.5 + x3 * 0.0
    x3 += 1.0 - abs(math.exp(min(x3, 5.0))) ** -1.0
    return x1 + x3 + (x1 - x3)


v0_f = gradc.vjp(f, wrt=("x1", "x3"))
t0_f = gradc.jvp(f, wrt=("x1", "x3"))
