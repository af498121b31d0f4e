# fuzz: class=ad_fd key=ad_fd:value_and_grad seed=940455 input_seed=940455 opt=0
# where: reduced by hand from seed 940455 (session 9): value_and_grad:v0_f at a0 = [0.393, -0.589]
# gives 8,077,915.1423 along a0[1], equal to the derivative in 50-digit arithmetic (mpmath,
# step 1e-25: 8,077,915.1421); cos(a * cosh(1/log(|a| + 0.5))) turns ~4 rad per 1e-6 of a there,
# so the central differences at FD_STEPS (1e-6, 1e-4) agree with each other and not with the
# derivative (7.47e6, 7.58e6). No bug of gradc's: the oracle gives an ad_fd verdict only where FD
# has converged (tests/fuzzing/oracle.py, _fd_unresolved: steps 1e-7, 1e-8 approach AD).
import math

import gradc
from gradc import f64, i64

FUZZ = {"f": {"a0": ("f64", (2,), "C"), "n1": "i64"}}


@gradc.export
def f(a0: f64[::1], n1: i64) -> f64:
    v35 = math.log(abs(a0[1]) + 0.5)
    v36 = math.cosh(v35**-1)
    return v35 + v36 + a0[1] + math.cos(a0[1] * v36)


v0_f = gradc.value_and_grad(f, wrt="a0")
t0_f = gradc.jvp(f, wrt="a0")
