# fuzz: class=ice key=ice:arrays:AssertionError seed=831374 input_seed=831374 opt=1
# where: compile (session 8, snapshot 8acc770): `f32_array ** bool` was an internal error in the arrays
# stage (ufuncs._power_scalar took f64 exponents only; fixed by breaker11's f32 power fix, 3922277);
# reduced from the fuzzer's program, with the result made observable (NumPy: float32 ** True is float32)
import numpy as np

import gradc
from gradc import f32

FUZZ = {"g": {"a1": ("f32", (4,), "A"), "s0": "bool"}}


@gradc.export
def g(a1: f32[:], s0: bool) -> float:
    ca1 = a1.copy()
    ca1 *= ca1**s0
    return float(np.sum(ca1))
