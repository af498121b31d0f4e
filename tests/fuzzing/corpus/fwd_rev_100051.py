# fuzz: class=fwd_rev key=fwd_rev:value_and_grad seed=100051 input_seed=100051 opt=0
# where: value_and_grad:v0_g(0.1519, False, -1.0, np.array([-1.5849294777233025, -1.7854237848579815, 1.191527724789403, 1.7548744681977446, -1.8495219324840853]) [C])
# jvp 0.0 vs <grad, v> -0.48714249831577827, FD [-0.4871424983121653, -0.4871424983157735] (FD agrees with grad)
import gradc
from gradc import f64

FUZZ = {"g": {"x0": "f64", "c1": "bool", "x2": "f64", "a3": ("f64", (5,), "A")}}


def h0(x0, x1, x2):
    pass


@gradc.export
def g(x0: f64, c1: bool, x2: f64, a3: f64[:]) -> f64:
    a3[4] = x0
    for e19 in a3:
        x0 = e19
    return x0


v0_g = gradc.value_and_grad(g, wrt=("x0",))
t0_g = gradc.jvp(g, wrt=("x0",))
