# fuzz: class=fwd_rev key=fwd_rev:grad seed=12 input_seed=12 opt=2
# where: grad:g0_g(1.7946, -0.9037, -1.8668, np.array([-1.3667602118076285, -0.9028395744788718, 1.989623143000554]) [C])
# jvp 0.0 vs <grad, v> -0.8518454191631601, FD [-0.8518454193140457, -0.8518454191630553] (FD agrees with grad)
import gradc
from gradc import f64

FUZZ = {"g": {"x0": "f64", "x1": "f64", "x2": "f64", "a3": ("f64", (3,), "C")}}


@gradc.export
def g(x0: f64, x1: f64, x2: f64, a3: f64[::1]) -> f64:
    a3[-2] *= x0
    return a3[-2]


g0_g = gradc.grad(g, wrt=("x0",))
t0_g = gradc.jvp(g, wrt=("x0",))
