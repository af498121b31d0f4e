# fuzz: class=nan_grad key=nan_grad:grad seed=100061 input_seed=100061 opt=0
# where: g0_f(0.0) and t0_f(0.0, 1.0): d/dx x ** 0 at x == 0 is nan in both modes (the rule
# c * x ** (c - 1) gives 0 * inf); CPython's 0.0 ** 0 is 1.0 and FD gives 0.0.
# Found as dead code (`v28 = x1 ** 0` unused, seed 100061, avoid-known profile); live too.
import gradc
from gradc import f64

FUZZ = {"f": {"x1": "f64"}}
FUZZ_INPUTS = {"f": [(0.0,)]}


@gradc.export
def f(x1: f64) -> f64:
    return x1**0 + x1**0.0 * 2.0


g0_f = gradc.grad(f, wrt=("x1",))
t0_f = gradc.jvp(f, wrt=("x1",))
