# fuzz: class=nan_grad key=nan_grad:jvp seed=100083 input_seed=100083 opt=0
# where: jvp:t0_f(np.array([[-1.2508360877158333]]) [C], 4)
# non-finite derivative nan; other mode [], FD [0.0, 0.0]
import math

import gradc

FUZZ = {"f": {"m0": ("f64", (1, 1), "C"), "n1": "i64"}}


@gradc.export("f64(f64[:, ::1], i64)")
def f(m0, n1):
    m0[n1 % 1, 0] -= m0[0, 0]
    v31 = math.atan2(m0[0, 0], m0[0, 0])
    return v31


t0_f = gradc.jvp(f, wrt="m0")
