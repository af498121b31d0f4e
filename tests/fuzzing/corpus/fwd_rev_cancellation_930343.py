# fuzz: class=fwd_rev key=fwd_rev:value_and_grad seed=930343 input_seed=0 opt=0
# where: reduced by hand from seed 930343 (session 8): seven steps of x - x**2 from x = 1.98 reach
# -2.6e25, then abs(x - 1) + x cancels to 1 and the log term's slope (~4e-26 per unit of x) is all
# that is left. jvp carries it (46 with FD, x = 1.98); reverse mode adds the adjoints 1 and
# -(1 + 4e-26), which round to 0, so grad is 0.0 -- as JAX's grad is for the same function
# (JAX's jvp 74, grad 0.0). No mode is wrong in floating point: the oracle compares the modes
# only where no intermediate exceeds CANCEL_RATIO (DOT_RTOL / eps, ~4.5e8) times the result (tests/fuzzing/oracle.py),
# and still does at the small inputs here (x = 0.3, -0.2: no blow-up).
import math

import gradc
from gradc import f64

FUZZ = {"f": {"x": "f64"}}
FUZZ_INPUTS = {"f": [(1.9807603008018733,), (0.3,), (-0.2,)]}


@gradc.export
def f(x: f64) -> f64:
    for i in range(7):
        x -= (-x) ** 2
    v = abs(x - 1.0)
    return v + x + math.log(abs(v) + 0.5)


v0_f = gradc.value_and_grad(f, wrt=("x",))
t0_f = gradc.jvp(f, wrt=("x",))
