# fuzz: class=ad_fd key=ad_fd:grad seed=101454 input_seed=101454 opt=0
# oracle fixed (tests/fuzzing/oracle.py _isolated): at a0 == 0.0, np.copysign(1, a0) jumps and ties with
# np.exp(a0) in np.fmax, whose rule gives the tie to the second operand (derivative 0) while the function is
# exp near 0 (derivative 1): the chain rule does not hold where an intermediate is not differentiable, AD is
# wrong there on a set of measure zero only (Kakade & Lee 2018); AD agrees with FD at a0 +- 1e-8 v
# where: grad:d_g(np.array([[-1.509, -0.356, 1.885, -0.299, 0.983], [-1.705, -1.711, -1.54, 1.573, -0.476], [1.916, 1.588, -1.662, 1.019, 1.948], [0.607, 0.861, 0.222, 0.128, 0.0]], dtype=float64) [F], 0.101)
# derivative [-3.6778528098882663] (forward/reverse agree); FD -3.8704224785135466 (h=1e-06), -3.8704225268304526 (h=0.0001)
import numpy as np

import gradc
from gradc import f64

FUZZ = {"g": {"a0": ("f64", (4, 5), "A"), "s0": "f64"}}


@gradc.export
def g(a0: f64[:, :], s0: f64) -> f64:
    t1 = np.fmax(np.exp(a0), np.copysign(1, a0)).copy()
    return np.sum(t1)


d_g = gradc.grad(g, wrt=("a0",))
