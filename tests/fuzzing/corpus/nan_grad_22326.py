# fuzz: class=nan_grad key=nan_grad:value_and_grad seed=22326 input_seed=22326 opt=0
# where: value_and_grad:v0_g(-1.3163, 4)
# non-finite derivative nan; other mode [], FD [0.0, 0.0]
import gradc
from gradc import f64, i64

FUZZ = {"g": {"x0": "f64", "n1": "i64"}}


@gradc.export
def g(x0: f64, n1: i64) -> f64:
    return x0 ** (x0 - x0)


v0_g = gradc.value_and_grad(g, wrt=("x0",))
