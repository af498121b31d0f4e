# fuzz: class=nan_grad key=nan_grad:grad seed=600229 input_seed=600229 opt=0
# where: grad:g0_f(False, 1.7136, -3)
# non-finite derivative nan; other mode [0.0], FD [0.0, 0.0]
# reduced by hand: x1 - min(x1, x1) is 0 for every x1, then 0 ** 0 (its d/db is -inf)
import gradc
from gradc import f64

FUZZ = {"f": {"c0": "bool", "x1": "f64"}}


@gradc.export
def f(c0: bool, x1: f64) -> f64:
    x1 += -min(x1, x1)
    return x1 + x1 ** (x1 + x1)


g0_f = gradc.grad(f, wrt=("x1",))
t0_f = gradc.jvp(f, wrt=("x1",))
