# fuzz: class=nan_grad key=nan_grad:vjp seed=21623 input_seed=21623 opt=0
# where: vjp:v1_g(1.3805, np.array([-1.1646613580199112, -1.6409825989653344]) [C], True, True)
# non-finite derivative nan; other mode [], FD [0.0, 0.0]
import gradc
from gradc import f64

FUZZ = {"g": {"x0": "f64", "a1": ("f64", (2,), "C"), "c2": "bool", "c3": "bool"}}


@gradc.export
def g(x0: f64, a1: f64[::1], c2: bool, c3: bool) -> f64:
    return (-2.5) ** (x0 - x0)


v1_g = gradc.vjp(g, wrt=("x0",))
