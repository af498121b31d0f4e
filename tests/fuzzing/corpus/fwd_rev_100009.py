# fuzz: class=fwd_rev key=fwd_rev:value_and_grad seed=100009 input_seed=100009 opt=0
# where: value_and_grad:v0_f(False, -0.4752, np.array([-0.3775236640416577]) [S], False)
# jvp 0.0 vs <grad, v> -0.00530488930430424, FD [-0.005304889305612903, -0.005304889305318] (FD agrees with grad)
import gradc
from gradc import f64

FUZZ = {"f": {"c0": "bool", "x1": "f64", "a2": ("f64", (1,), "A"), "c3": "bool"}}


@gradc.export
def f(c0: bool, x1: f64, a2: f64[:], c3: bool) -> f64:
    for i27 in range(0):  # noqa: B007
        pass
    else:
        for i29 in range(1, 5, 1):  # noqa: B007
            x1 *= a2[0]
    return x1


v0_f = gradc.value_and_grad(f, wrt="a2")
t0_f = gradc.jvp(f, wrt="a2")
