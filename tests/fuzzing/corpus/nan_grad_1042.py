# fuzz: class=nan_grad key=nan_grad:jvp seed=1042 input_seed=1042 opt=0
# where: jvp:t0_f(0.2478, np.array([-1.2813417781988723, -0.21144165284753624, 1.8883698157834745]) [C], np.array([-0.3650880176393283, 1.8769390629213278, 0.4339596435472135]) [C])
# non-finite derivative nan; other mode [], FD [-1.5066533376462132, -1.5066533375596158]
import math

import gradc
from gradc import f64

FUZZ = {"f": {"x0": "f64", "a1": ("f64", (3,), "A"), "a2": ("f64", (3,), "C")}}


@gradc.export
def f(x0: f64, a1: f64[:], a2: f64[::1]) -> f64:
    for i1 in range(0):  # noqa: B007
        pass
    else:
        a2[-3] += math.asin(x0**0)
    return a2[0]


t0_f = gradc.jvp(f, wrt=("a2", "x0"))
