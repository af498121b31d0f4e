# fuzz: class=ice key=ice:InternalCompilerError seed=800206 input_seed=800206 opt=0
# fixed: derivative code's math calls on f32 values (the quotient rint((a - r) / b) and isinf of %'s rule, ieee_pow and isinf
# of **'s) go through f64 (RuleOps.math, passes/ad/rules/algebra.py); reduced by hand from seed 800206's
# np.sum(np.minimum((a1 % ca1), (a2 % True))) on f32 arrays: "math.rint argument %257 has type f32, expected f64"
import numpy as np

import gradc
from gradc import f32

FUZZ = {"g": {"a1": ("f32", (3,), "A"), "a2": ("f32", (3,), "A")}}


@gradc.export
def g(a1: f32[:], a2: f32[:]) -> f32:
    return np.sum(np.minimum(a1 % a2, a2 % True))


d_g = gradc.grad(g, wrt=("a1", "a2"))
