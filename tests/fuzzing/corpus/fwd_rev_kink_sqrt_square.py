# fuzz: class=fwd_rev key=fwd_rev:grad seed=0 input_seed=0 opt=0
# where: reduced by hand (issue #18's known finding): sqrt(x * x) is |x|, no derivative at x = 0 (one-sided
# slopes -1 and +1); jvp gives 0 (a zero tangent times sqrt'(0) = inf), grad NaN (inf times the active
# partial x = 0), JAX NaN in both: the oracle (tests/fuzzing/smoothness.py) reports no fwd_rev there, and
# still checks both modes at the other inputs (x = 0.5, -2.0: derivative sign(x))
import math

import gradc

FUZZ = {"g": {"x": "f64"}}
FUZZ_INPUTS = {"g": [(0.0,), (-0.0,), (0.5,), (-2.0,)]}


@gradc.export("f64(f64)")
def g(x):
    return math.sqrt(x * x)


d_g = gradc.grad(g, wrt="x")
t_g = gradc.jvp(g, wrt="x")
