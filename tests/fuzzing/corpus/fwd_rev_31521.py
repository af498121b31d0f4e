# fuzz: class=fwd_rev key=fwd_rev:jvp seed=31521 input_seed=31521 opt=0
# oracle fixed (tests/fuzzing/smoothness.py): at x1 = 0, sqrt(x1) * x1 is at the edge of its domain (math.sqrt
# raises just left of 0), so no two-sided derivative exists: jvp's NaN (sqrt'(0) * x1 = inf * 0) is not wrong
# beside grad's 0; the oracle reports no fwd_rev at a point where kink_at finds no derivative
# where: jvp:t1_g(np.array([-0.6433116801495506, -0.29665870066507916, -1.5628850835424934]) [C], 0.0, np.array([-0.8648622513557389, -0.46677475548277947, 0.23652578249476353]) [C])
# nan vs 0.0 (FD None)
import math

import gradc

FUZZ = {"g": {"a0": ("f64", (3,), "A"), "x1": "f64", "a2": ("f64", (3,), "C")}}


@gradc.export("f64(f64[:], f64, f64[::1])")
def g(a0, x1, a2):
    x1 = math.sqrt(x1) * x1
    return x1


g1_g = gradc.grad(g, wrt=("x1",))
t1_g = gradc.jvp(g, wrt=("x1",))
